// The transaction log: every completed request as one CSV line, in completion order, for a test
// bench to replay or compare against (sim.transaction_log, `famsim run --txn-log`). Lines come in
// the order the initiators took the responses (a GPU at the clock edge after a response
// arrived); the requests taken at one instant are listed by complete_ps, then id, so the log does
// not depend on the order in which the simulator ran same-time events (the famsim and systemc
// kernels write the same file). Columns:
//   id                 request id (a GPU's: the GPU << 40 | its sequence number; a trace
//                      player's: its sequence number)
//   initiator          the block that issued it (a GPU or a trace player)
//   stream             the initiator's stream (workload stream index; 0 for a trace player)
//   op                 read | write | fetch_add | compare_swap
//   bytes              payload bytes
//   virtual_address    the address the software used (hex; the physical one for a trace)
//   physical_address   after the VMM translation (hex)
//   target             the block that served it (a memory channel)
//   channel_address    the address within that channel (hex)
//   issue_ps           when the initiator issued it
//   service_start_ps   when the target began serving it: a DRAM controller's first command for it
//                      (a posted write too: its first command, known only once the controller
//                      issued it, where the per-hop breakdown counts its acceptance; an atomic:
//                      the first of its read's and its write-back's; an ideal memory: on arrival)
//   complete_ps        when the response arrived back at the initiator
//   latency_ps         complete_ps - issue_ps
//   status             ok, or the TLM response status it came back with
//   memory_done_ps     when the target finished it: a DRAM controller, when the data of its last
//                      burst had moved (read: its last RD + CL + tBL; write: its last WR + CWL +
//                      tBL, a posted write's too, which answered on acceptance; an atomic: the
//                      later of its read and its write-back); an ideal memory, when its response
//                      was ready. A request split over channels: the part that finished last. "-"
//                      for a posted write (or atomic write-back) the DRAM had not written when a
//                      run cut short by sim.max_time_ns ended (its service_start_ps too if no
//                      command had issued for it)
//   data_hash          only with sim.transaction_log_data: 64-bit FNV-1a of the payload's data
//                      bytes as the initiator took the response, 16 hex digits: a read's data, a
//                      write's (the data written), an atomic's returned old word (its operands are
//                      not data bytes)
// Times are in picoseconds of simulated time. Lines are formatted into a buffer and written in
// large blocks; nothing is allocated per request, except while a posted write's (or an atomic's
// write-back's) DRAM completion is awaited: its line, and every line after it, waits in memory
// until the DRAM has written it (so the file keeps its order), with one hash-map node per such
// request in flight. A write the DRAM leaves in its queue for long (a read-heavy run below the
// write watermark) holds the lines after it that long; they are all written by the end.
#pragma once

#include "models/core/request.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

namespace famsim {

class TransactionLog {
 public:
  static constexpr const char* kHeader =
      "id,initiator,stream,op,bytes,virtual_address,physical_address,target,channel_address,"
      "issue_ps,service_start_ps,complete_ps,latency_ps,status,memory_done_ps";
  static constexpr const char* kDataHashColumn = "data_hash";

  TransactionLog() = default;
  ~TransactionLog();
  TransactionLog(const TransactionLog&) = delete;
  TransactionLog& operator=(const TransactionLog&) = delete;

  // Starts writing to `path` (header first), with the data_hash column when `data_hash`. Throws
  // std::runtime_error naming the file when it cannot be written.
  void open(const std::string& path, bool data_hash = false);
  bool enabled() const { return file_ != nullptr; }

  // A completed request; `arrival_ps`: its response's arrival at the initiator; `status`: the
  // payload's TLM response status (1 is TLM_OK_RESPONSE); `data`: the payload's data (e.length
  // bytes; read only with the data_hash column).
  void record(const RequestExt& e, std::uint64_t arrival_ps, int status, const unsigned char* data);

  // A DRAM controller accepted DRAM work for request `id` that answers nobody (a posted write, or
  // an atomic's write-back): its line waits for memory_done() (once per call of this; a request
  // split over channels calls it once per part, all before its response reaches the initiator).
  void expect_memory_done(std::uint64_t id);
  // That work is done: its first DRAM command and the end of its last burst's data.
  void memory_done(std::uint64_t id, std::uint64_t first_command_ps, std::uint64_t done_ps);

  // Writes what is buffered and closes the file; throws std::runtime_error on a write error.
  void close();
  // Closes the file without writing what is buffered (an abandoned run).
  void close_quietly();
  std::uint64_t transactions() const { return lines_; }

 private:
  static constexpr std::uint64_t kUnknown = ~std::uint64_t{0};
  void flush();
  // Moves the lines of the instant being recorded on, by complete_ps, then id: to buffer_, or
  // behind a line still waiting for its DRAM completion.
  void end_instant();
  // Writes the waiting lines from the oldest on that are no longer waiting.
  void write_ready();
  // Drops every line not yet in buffer_ and what they wait for (opening, or an abandoned run).
  void forget_lines();
  [[noreturn]] void write_failed() const;  // names the file and the system's reason

  std::FILE* file_ = nullptr;
  std::string path_;
  bool data_hash_ = false;
  fmt::memory_buffer buffer_;
  std::uint64_t lines_ = 0;
  // A line's text is [begin, hole1) service_start_ps [hole1, hole2) memory_done_ps [hole2, end)
  // of its buffer: the two times go in when the line is written out.
  struct Text {
    std::size_t begin, hole1, hole2, end;
  };
  // The lines recorded at the latest instant, kept apart until a later one begins (reused
  // storage: nothing is allocated per request once they have grown to the largest instant).
  struct Line {
    std::uint64_t complete_ps, id;
    Text text;
    std::uint64_t service_start_ps, memory_done_ps;
    bool write;
    bool tracked;  // expect_memory_done() was called for its id
  };
  std::uint64_t instant_ps_ = 0;
  fmt::memory_buffer instant_;
  std::vector<Line> lines_of_instant_;
  // DRAM work that answers nobody, by request id: parts still owed, the earliest first command
  // and the latest end of data so far, and the waiting line (its number in waiting_) once the
  // line has been recorded.
  struct Owed {
    unsigned parts = 0;
    std::uint64_t first_command_ps = kUnknown;
    std::uint64_t done_ps = 0;
    std::uint64_t line = kUnknown;
  };
  std::unordered_map<std::uint64_t, Owed> owed_;
  // Lines waiting for their own or an earlier line's DRAM completion, in file order: line number
  // waiting_first_ + i is waiting_[i], its text in waiting_text_.
  struct Waiting {
    Text text;
    std::uint64_t service_start_ps, memory_done_ps;
    bool write;
    bool ready;
  };
  std::deque<Waiting> waiting_;
  std::uint64_t waiting_first_ = 0;
  fmt::memory_buffer waiting_text_;
  std::size_t waiting_text_used_ = 0;  // bytes of waiting_text_ already written out
  // Appends the line to buffer_ with its two times (kUnknown: "-").
  void emit(const char* text, const Text& t, std::uint64_t service_start_ps,
            std::uint64_t memory_done_ps);
  // A tracked line's times once its DRAM work is done (or, at close, as far as known).
  static void resolve(const Owed& o, bool write, std::uint64_t& service_start_ps,
                      std::uint64_t& memory_done_ps);
};

}  // namespace famsim
