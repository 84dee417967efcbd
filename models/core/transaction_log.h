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
//                      (a posted write: when it was accepted; an ideal memory: on arrival)
//   complete_ps        when the response arrived back at the initiator
//   latency_ps         complete_ps - issue_ps
//   status             ok, or the TLM response status it came back with
// Times are in picoseconds of simulated time. Lines are formatted into a buffer and written in
// large blocks; nothing is allocated per request.
#pragma once

#include "models/core/request.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace famsim {

class TransactionLog {
 public:
  static constexpr const char* kHeader =
      "id,initiator,stream,op,bytes,virtual_address,physical_address,target,channel_address,"
      "issue_ps,service_start_ps,complete_ps,latency_ps,status";

  TransactionLog() = default;
  ~TransactionLog();
  TransactionLog(const TransactionLog&) = delete;
  TransactionLog& operator=(const TransactionLog&) = delete;

  // Starts writing to `path` (header first). Throws std::runtime_error naming the file when it
  // cannot be written.
  void open(const std::string& path);
  bool enabled() const { return file_ != nullptr; }

  // A completed request; `arrival_ps`: its response's arrival at the initiator; `status`: the
  // payload's TLM response status (1 is TLM_OK_RESPONSE).
  void record(const RequestExt& e, std::uint64_t arrival_ps, int status);

  // Writes what is buffered and closes the file; throws std::runtime_error on a write error.
  void close();
  // Closes the file without writing what is buffered (an abandoned run).
  void close_quietly();
  std::uint64_t transactions() const { return lines_; }

 private:
  void flush();
  // Moves the lines of the instant being recorded to buffer_, by complete_ps, then id.
  void end_instant();
  [[noreturn]] void write_failed() const;  // names the file and the system's reason

  std::FILE* file_ = nullptr;
  std::string path_;
  fmt::memory_buffer buffer_;
  std::uint64_t lines_ = 0;
  // The lines recorded at the latest instant, kept apart until a later one begins (reused
  // storage: nothing is allocated per request once they have grown to the largest instant).
  struct Line {
    std::uint64_t complete_ps, id;
    std::size_t begin, end;  // in instant_
  };
  std::uint64_t instant_ps_ = 0;
  fmt::memory_buffer instant_;
  std::vector<Line> lines_of_instant_;
};

}  // namespace famsim
