// Readers for three public memory-trace formats, one request per line. Pure C++, no SystemC: a
// trace player asks for the next request and gets its address, direction, optional timestamp and
// optional length. Built for replaying multi-million-line traces: the file is read in large
// blocks, each line is parsed in place (hand-written hex, std::from_chars for decimal) and nothing
// is allocated per line.
//
// Strict: any line that is not exactly one well-formed request (unknown command word, malformed
// number, missing field, text after the last field, a timestamp that goes backwards) throws
// TraceError "FILE:LINE: what was wrong; what was expected". Blank lines (spaces, tabs, a lone CR)
// are skipped in every format; CRLF line endings and a last line without a newline are accepted.
//
// Grammar accepted, per format (ws = one or more spaces or tabs; HEX = hex digits, either case;
// DEC = decimal digits; every number must fit in 64 bits):
//
// kRamulator: Ramulator 2 "LoadStoreTrace" frontend,
//   CMU-SAFARI/ramulator2 src/frontend/impl/memory_trace/loadstore_trace.cpp (init_trace):
//     [ws] ("LD" | "ST") ws ADDRESS [ws]
//     ADDRESS = ("0x" | "0X") HEX | DEC
//   LD is a read, ST a write. No timestamp: a closed-loop trace. Ramulator 2 splits on a single
//   space and rejects anything but two tokens; runs of spaces or tabs are accepted here too. No
//   comments (Ramulator 2 has none).
//
// kDramsim3: DRAMsim3 trace CPU, umd-memsys/DRAMsim3 src/common.cc operator>>(istream&,
//   Transaction&) read by TraceBasedCPU::ClockTick in src/cpu.cc; the word list includes the
//   DRAMSim2 "k6" words (umd-memsys/DRAMSim2 TraceBasedSim.cpp parseTraceFileLine):
//     [ws] ADDRESS ws WORD ws CYCLE [ws]
//     ADDRESS = ["0x" | "0X"] HEX          (DRAMsim3 reads it with std::hex: prefix optional)
//     WORD    = "WRITE" | "write" | "P_MEM_WR" | "BOFF"                            -> write
//             | "READ" | "read" | "P_MEM_RD" | "P_FETCH" | "P_LOCK_RD" | "P_LOCK_WR"  -> read
//     CYCLE   = DEC
//   DRAMsim3 treats every word that is not a write word as a read; here an unknown word is an
//   error. CYCLE is the memory-system clock tick (DRAM command clock, tCK) at which the request
//   may be issued: TraceBasedCPU issues it once its tick counter reaches CYCLE. No comments.
//
// kDramsys: DRAMSys trace player (.stl / .rstl), tukl-msd/DRAMSys configs/README.md "Trace Files"
//   and src/simulator/simulator/player/StlPlayer.cpp (parseTraceFile):
//     [ws] CYCLE ":" ws ["(" LENGTH ")" ws] ("read" | "write") ws ADDRESS [ws DATA] [ws]
//     CYCLE   = DEC     (cycles of the trace player's clock, clkMhz in the DRAMSys trace setup)
//     LENGTH  = DEC > 0 (bytes; without it the player's default data length applies)
//     ADDRESS = ["0x" | "0X"] HEX          (DRAMSys parses it with stoull base 16)
//     DATA    = ("0x" | "0X") HEX{2n}      (writes only: n bytes; n = LENGTH when LENGTH is given)
//   Lines whose first non-blank character is '#' are comments. The file extension selects the
//   time base, as in DRAMSys: ".rstl" is relative (CYCLE = delay after the previous request
//   completed), anything else (".stl") absolute. DRAMSys checks DATA only when its storage mode is
//   on and ignores text after the fields otherwise; here DATA is always checked and anything else
//   is an error.
//
// Absolute timestamps (dramsim3, dramsys .stl) must not decrease from one request to the next.
#pragma once

#include "traffic/trace/trace_error.h"
#include "traffic/trace/trace_lines.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace famsim {

enum class TraceFormat { kRamulator, kDramsim3, kDramsys };

// "ramulator" | "dramsim3" | "dramsys"; nullopt for any other name.
std::optional<TraceFormat> parse_trace_format(std::string_view name);
const char* to_string(TraceFormat format);

struct TraceRecord {
  std::uint64_t address = 0;
  bool write = false;
  bool has_time = false;       // the format carries a timestamp (dramsim3, dramsys)
  bool relative_time = false;  // dramsys .rstl: time is a delay after the previous completion
  // dramsim3: DRAM command-clock cycles; dramsys: cycles of the trace player's clock.
  std::uint64_t time = 0;
  unsigned length = 0;      // bytes if the line gives a length (dramsys "(N)"), else 0: default
  unsigned data_bytes = 0;  // bytes of write data on the line (dramsys), 0 if none
};

class TraceReader {
 public:
  static constexpr std::size_t kDefaultBlockBytes = std::size_t{1} << 20;
  // A longer line is an error rather than a reason to read a whole file into memory: the longest
  // real request line (a DRAMSys write with a few KiB of data) is far shorter.
  static constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

  // Opens the trace; throws TraceError if it cannot be read. block_bytes is how much one read()
  // asks for; tests make it tiny so that lines straddle block boundaries.
  TraceReader(const std::string& path, TraceFormat format,
              std::size_t block_bytes = kDefaultBlockBytes);
  // The next request; false at the end of the file. Throws TraceError for a bad line, and at the
  // end of a file that held no request at all (replaying it could never make progress).
  bool next(TraceRecord& record);

  // 1-based number of the line last read: the line of the record just returned, or of the line
  // that an error names. Blank and comment lines count. 0 before the first next().
  std::size_t line() const { return static_cast<std::size_t>(lines_.line()); }

  // Starts again from the first line (closed-loop replay of a short trace).
  void rewind();

  const std::string& path() const { return lines_.path(); }
  TraceFormat format() const { return format_; }
  bool relative_time() const { return relative_time_; }  // dramsys .rstl

 private:
  enum class LineKind { kRecord, kSkip };

  LineKind parse_ramulator(const char* p, const char* end, TraceRecord& r) const;
  LineKind parse_dramsim3(const char* p, const char* end, TraceRecord& r) const;
  LineKind parse_dramsys(const char* p, const char* end, TraceRecord& r) const;
  LineKind parse(TraceFormat format, const char* p, const char* end, TraceRecord& r) const;
  // The format other than format() that the line [p, end) is a request of, if any.
  std::optional<TraceFormat> other_format_of(const char* p, const char* end) const;
  [[noreturn]] void time_went_back(std::uint64_t time) const;
  [[noreturn]] void fail(const std::string& what) const { lines_.fail(what); }

  detail::TraceLines lines_;
  TraceFormat format_;
  bool relative_time_ = false;
  std::size_t records_ = 0;  // returned since the last (re)start
  std::uint64_t last_time_ = 0;
};

}  // namespace famsim
