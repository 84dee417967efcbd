// Streaming readers for two request-level traces. Pure C++, no SystemC: a player asks for the next
// record and gets it, the file is read in blocks and never held whole, so a trace of many GB
// replays in a few MiB of memory (tests/unit/request_trace_test.cpp streams 1 GiB through a FIFO).
//
// Strict, like the memory-trace readers in trace_reader.h: a line that is not exactly one
// well-formed record throws TraceError "FILE:LINE: what was wrong; what was expected" (or
// "FILE: ..." for the file as a whole). Blank lines (spaces, tabs, a lone CR) are skipped, CRLF
// line endings and a last line without a newline are accepted, and a file with no records at all
// is not an error: next() returns false at once. After a throw the record passed to next() holds
// unspecified values and the reader must not be used again.
//
// 1. Mooncake request trace (MooncakeReader). The Mooncake / Kimi public traces, JSON Lines:
//      {"timestamp": 27482, "input_length": 6955, "output_length": 52, "hash_ids": [46, 47, ...]}
//    Sources: kvcache-ai/Mooncake FAST25-release/README.md (the sample above) and the traces in
//    FAST25-release/traces/ (conversation_trace.jsonl, synthetic_trace.jsonl,
//    toolagent_trace.jsonl; earlier FAST25-release/arxiv-trace/mooncake_trace.jsonl); the meaning
//    of the fields is given in the Mooncake technical report (Qin et al., arXiv:2407.00079,
//    section 4.1 "Data Details"), to which the README and the FAST'25 paper ("Mooncake: A
//    KVCache-centric Architecture for LLM Serving", appendix) refer:
//      timestamp      arrival time of the request in milliseconds, relative to the start of the
//                     trace (0 to 3,600,000 in the one-hour trace). Integers in the published
//                     traces; any JSON number >= 0 is accepted here.
//      input_length   prompt tokens;  output_length: generated tokens.
//      hash_ids       one id per block of 512 prompt tokens (the trace's block size). A block's
//                     hash covers it and every block before it, and the hashes are remapped to
//                     small unique integers, so an id seen before means the same prefix up to
//                     and including that block: a KVCache hit. In the published traces
//                     hash_ids.size() == ceil(input_length / 512) (6758 tokens -> 14 ids); this is
//                     NOT checked, because traces made with another block size (tools such as
//                     NVIDIA Dynamo's data generator take the block size as a parameter) are
//                     equally well-formed.
//    Grammar: every non-blank line is one JSON object (RFC 8259, parsed by nlohmann::json) with
//      "timestamp"      a number >= 0                         (integer or fraction, no NaN/inf)
//      "input_length"   an integer >= 1                       (fitting in 64 bits)
//      "output_length"  an integer >= 0                       (fitting in 64 bits)
//      "hash_ids"       an array of integers >= 0, possibly empty (each fitting in 64 bits)
//    each exactly once, in any order; any other key is ignored whatever its value (derived traces
//    add some, e.g. AISBench's "input_text"). "1.0" is not an integer. Timestamps must not
//    decrease from one line to the next: a player replays the file in order. A line longer than
//    kMaxLineBytes is an error: even a 1M-token prompt (2048 ids, under 20 KiB) is about three
//    orders of magnitude shorter.
//
// 2. famsim timed access trace (TimedTraceReader): accesses replayed through the GPUs at given
//    times. One access per line:
//      TIME_NS GPU OP ADDRESS SIZE            e.g.  "1250.5 3 R 0x7f0000001000 64"
//    Grammar (ws = one or more spaces or tabs; DEC = decimal digits; HEX = hex digits, either
//    case):
//      line    = [ws] [access | comment] [ws]
//      access  = TIME ws GPU ws OP ws ADDRESS ws SIZE
//      comment = "#" any text                 (only as the first non-blank character of a line:
//                                              text after SIZE, "#" included, is an error)
//      TIME    = DEC ["." DEC]                nanoseconds; stored in picoseconds, rounded to the
//                                              nearest (half a ps rounds up), at most 2^64 - 1 ps
//      GPU     = DEC                          GPU index, < 2^32 (checked against the platform's GPU
//                                              count by the replay stream, traffic/ai/replay.cpp,
//                                              not here)
//      OP      = "R" | "W" | "r" | "w"        read or write
//      ADDRESS = ("0x" | "0X") HEX            virtual address, at most 64 bits
//      SIZE    = DEC                          bytes, 1 to 2^31
//    No sign, exponent or digit separators anywhere; leading zeros are allowed. TIME must not
//    decrease from one access to the next.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "traffic/trace/trace_lines.h"
#include "traffic/trace/trace_reader.h"  // TraceError

namespace famsim {

// The most tokens a prompt, context or generated sequence may have, from a trace or a generator's
// keys (Mooncake's longest prompts are about 128 k): the generators count KV blocks and bytes in
// 64 bits.
inline constexpr std::uint64_t kMaxTokens = std::uint64_t{1} << 30;

// One request of a Mooncake trace.
struct MooncakeRecord {
  double timestamp_ms = 0;              // arrival, ms since the start of the trace
  std::uint64_t input_length = 0;       // prompt tokens
  std::uint64_t output_length = 0;      // generated tokens
  std::vector<std::uint64_t> hash_ids;  // reused between calls: no allocation per line once grown
  std::uint64_t line = 0;               // line number in the file (1-based)
};

class MooncakeReader {
 public:
  static constexpr std::size_t kDefaultBlockBytes = std::size_t{1} << 20;
  static constexpr std::size_t kMaxLineBytes = std::size_t{16} << 20;

  // Opens the trace; throws TraceError if it cannot be read. block_bytes is how much one read()
  // asks for; tests make it tiny so that lines straddle block boundaries.
  explicit MooncakeReader(const std::string& path, std::size_t block_bytes = kDefaultBlockBytes);

  // The next request; false at the end of the file. Throws TraceError for a bad line.
  bool next(MooncakeRecord& r);

  const std::string& path() const { return lines_.path(); }

 private:
  detail::TraceLines lines_;
  double last_timestamp_ms_ = 0;
};

// One access of a famsim timed access trace.
struct TimedAccess {
  std::uint64_t time_ps = 0;  // issue time, ps (TIME_NS * 1000, rounded to the nearest)
  unsigned gpu = 0;           // GPU index
  bool write = false;
  std::uint64_t va = 0;     // virtual address
  std::uint32_t bytes = 0;  // 1 to 2^31
  std::uint64_t line = 0;   // line number in the file (1-based)
};

class TimedTraceReader {
 public:
  static constexpr std::size_t kDefaultBlockBytes = std::size_t{1} << 20;
  // An access line is some 60 bytes at most (unless TIME has a very long fraction); a longer
  // line, a comment say, is still read up to this limit.
  static constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;
  static constexpr std::uint32_t kMaxAccessBytes = std::uint32_t{1} << 31;

  // Opens the trace; throws TraceError if it cannot be read. block_bytes as for MooncakeReader.
  explicit TimedTraceReader(const std::string& path, std::size_t block_bytes = kDefaultBlockBytes);

  // The next access; false at the end of the file. Throws TraceError for a bad line.
  bool next(TimedAccess& a);

  const std::string& path() const { return lines_.path(); }

 private:
  detail::TraceLines lines_;
  std::uint64_t last_time_ps_ = 0;
};

}  // namespace famsim
