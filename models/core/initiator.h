// What the run asks of every block that starts requests (GPUs, trace players): totals for the
// conservation check and the summary, the span of its activity, and what its completed requests
// moved and how long they took, by the kind of memory they went to (TargetClass).
#pragma once

#include "models/core/by_memory.h"
#include "models/core/stats.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>

namespace famsim {

class Initiator {
 public:
  // `memories`: the platform's memories, which count every completion too (null: none).
  explicit Initiator(MemoryLayout* memories = nullptr) : memories_(memories) {}
  virtual ~Initiator() = default;
  virtual std::uint64_t issued() const = 0;
  virtual std::uint64_t completed() const = 0;
  virtual std::uint64_t bytes_requested() const = 0;
  virtual std::uint64_t bytes_delivered() const = 0;
  virtual std::uint64_t duplicates() const = 0;
  virtual std::uint64_t data_mismatches() const = 0;
  virtual std::uint64_t first_issue_ps() const = 0;
  virtual std::uint64_t last_completion_ps() const = 0;
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
};

}  // namespace famsim
