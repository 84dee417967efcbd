// What the run asks of every block that starts requests (GPUs, trace players, TLM bridges): totals
// for the conservation check and the summary, the span of its activity, and what its completed
// requests moved and how long they took, by the kind of memory they went to (TargetClass). The
// counts live here, once for every kind of initiator: a block calls count_issue, count_response
// and the like as its requests go out and come back.
#pragma once

#include "models/core/by_memory.h"
#include "models/core/stats.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace famsim {

class Initiator {
 public:
  // `memories`: the platform's memories, which count every completion too (null: none).
  explicit Initiator(MemoryLayout* memories = nullptr) : memories_(memories) {}
  virtual ~Initiator() = default;
  // Requests issued, and completed (a request's first response; a second is a duplicate).
  std::uint64_t issued() const { return issued_; }
  std::uint64_t completed() const { return completed_; }
  // Bytes of the requests issued, and of the completed ones answered with TLM_OK_RESPONSE.
  std::uint64_t bytes_requested() const { return bytes_requested_; }
  std::uint64_t bytes_delivered() const { return bytes_delivered_; }
  // Responses to a request that had already completed.
  std::uint64_t duplicates() const { return duplicates_; }
  // Completed reads whose data was not what the initiator had written there (when it verifies).
  std::uint64_t data_mismatches() const { return data_mismatches_; }
  // The first kMismatchesKept of them, for a test bench or a debugger to start from: the request,
  // its addresses and size, how many of its bytes were wrong, the first wrong one's offset and
  // value against the one expected, and when its response arrived.
  struct DataMismatch {
    std::uint64_t id = 0;
    unsigned gpu = 0;
    std::uint64_t virtual_address = 0, physical_address = 0;
    std::uint32_t bytes = 0, wrong_bytes = 0, first_wrong_offset = 0;
    std::uint8_t expected = 0, read = 0;
    std::uint64_t complete_ps = 0;
  };
  static constexpr std::size_t kMismatchesKept = 10;
  const std::vector<DataMismatch>& first_data_mismatches() const { return first_mismatches_; }
  // Its first issue (0 before one) and its latest response's arrival.
  std::uint64_t first_issue_ps() const { return first_issue_ps_; }
  std::uint64_t last_completion_ps() const { return last_completion_ps_; }
  // When its work ended: its last completion, or later when its workload computes after its last
  // access (an AI generator's last layer). The run's simulated time ends at the latest of these.
  virtual std::uint64_t work_end_ps() const { return last_completion_ps(); }
  // Everything it was asked to issue has been issued and has completed.
  virtual bool finished() const = 0;
  // How late it issued what a trace's timestamps asked for (open-loop replay); null when it
  // replayed no timestamps.
  virtual const IssueLag* issue_lag() const { return nullptr; }

  // Completed requests to targets of class `c`.
  const TargetTraffic& traffic(TargetClass c) const { return traffic_[static_cast<unsigned>(c)]; }
  // Over every class.
  TargetTraffic total_traffic() const;

 protected:
  // The counts above, for a request of `bytes` issued at `now_ps`.
  void count_issue(std::uint32_t bytes, std::uint64_t now_ps) {
    if (issued_ == 0) first_issue_ps_ = now_ps;
    ++issued_;
    bytes_requested_ += bytes;
  }
  // For a request of `bytes` whose response arrived at `arrived_ps`: it completed, and delivered
  // its bytes if `ok` (TLM_OK_RESPONSE).
  void count_response(std::uint32_t bytes, bool ok, std::uint64_t arrived_ps) {
    if (ok) bytes_delivered_ += bytes;
    ++completed_;
    last_completion_ps_ = std::max(last_completion_ps_, arrived_ps);
  }
  void count_duplicate_response() { ++duplicates_; }
  void count_data_mismatch(const DataMismatch& m) {
    count_data_mismatch();
    if (first_mismatches_.size() < kMismatchesKept) first_mismatches_.push_back(m);
  }
  void count_data_mismatch() { ++data_mismatches_; }

  // A completed request to physical address `pa`: a counter and a histogram sample, in place, by
  // its class here and by its memory in the layout (nothing allocates but a first sample, which
  // sizes its histogram). The histogram bin is worked out once for both. Returns the memory's
  // index in the layout (MemoryLayout::find), for SimContext::record_completion.
  std::size_t count_completion(TargetClass c, bool write, std::uint64_t pa, std::uint32_t bytes,
                               std::uint64_t latency_ps) {
    const int bin = LatencyHistogram::bin_of_ps(latency_ps);
    traffic_[static_cast<unsigned>(c)].add(write, bytes, latency_ps, bin);
    return memories_ ? memories_->add(pa, write, bytes, latency_ps, bin) : MemoryLayout::kNone;
  }

 private:
  MemoryLayout* memories_;
  std::array<TargetTraffic, kTargetClasses> traffic_;
  std::uint64_t issued_ = 0;
  std::uint64_t completed_ = 0;
  std::uint64_t bytes_requested_ = 0;
  std::uint64_t bytes_delivered_ = 0;
  std::uint64_t duplicates_ = 0;
  std::uint64_t data_mismatches_ = 0;
  std::uint64_t first_issue_ps_ = 0;
  std::uint64_t last_completion_ps_ = 0;
  // Last: the counters above share cache lines with what every request touches.
  std::vector<DataMismatch> first_mismatches_;
};

}  // namespace famsim
