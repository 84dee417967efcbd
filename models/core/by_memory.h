// The platform's memories by address (MemoryLayout), so that completed requests can be counted by
// the memory that served them: each expansion device, each GPU's local HBM (its own requests and
// its peers'), a standalone memory. The summary's by_target adds up the devices; by_memory says
// how the traffic spread over them (a buffer striped over devices, an interleave that favours
// one), with each one's bandwidth and latency.
//
// One for the simulation (SimContext::memories), fed by every initiator's completions
// (Initiator::count_completion), which also counts them by class of target: the latency's
// histogram bin is worked out once for both. A request is placed by its physical address: a table
// of the layout's granules (TiB), or a binary search.
#pragma once

#include "models/core/stats.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace famsim {

class MemoryLayout {
 public:
  enum class Kind : std::uint8_t { kDevice, kGpuHbm, kStandalone };
  struct Target {
    std::string name;
    Kind kind = Kind::kDevice;
    std::uint64_t base = 0;
    std::uint64_t size = 0;
  };
  static constexpr std::size_t kNone = ~std::size_t{0};

  // The platform's memories, in any order; std::logic_error if two overlap.
  void set_targets(std::vector<Target> targets);
  const std::vector<Target>& targets() const { return targets_; }

  // The memory holding `pa` (an index into targets(), which are in address order), or kNone.
  std::size_t find(std::uint64_t pa) const {
    if (!table_.empty()) {
      // Memories start on granule boundaries (platform layouts: TiB) and share none: the granule
      // says which memory it can be.
      const std::uint64_t g = pa >> granule_shift_;
      if (g >= table_.size()) return kNone;
      const std::uint32_t i = table_[g];
      return i != kNoTarget && pa - targets_[i].base < targets_[i].size ? i : kNone;
    }
    std::size_t lo = 0;
    std::size_t n = targets_.size();
    while (n > 0) {
      const std::size_t half = n / 2;
      if (targets_[lo + half].base <= pa) {
        lo += half + 1;
        n -= half + 1;
      } else {
        n = half;
      }
    }
    if (lo == 0) return kNone;
    const Target& t = targets_[lo - 1];
    return pa - t.base < t.size ? lo - 1 : kNone;
  }

  // A completed request to `pa` (LatencyHistogram::bin_of_ps(latency_ps) in `bin`); returns its
  // memory's index (find()), kNone when unplaced.
  std::size_t add(std::uint64_t pa, bool write, std::uint32_t bytes, std::uint64_t latency_ps,
                  int bin) {
    const std::size_t i = find(pa);
    if (i == kNone) {
      ++unplaced_;
      return kNone;
    }
    traffic_[i].add(write, bytes, latency_ps, bin);
    return i;
  }
  // Completed requests to memory i (targets()[i]).
  const TargetTraffic& traffic(std::size_t i) const { return traffic_[i]; }
  // Completions whose address is in no memory (none while every block routes correctly).
  std::uint64_t unplaced() const { return unplaced_; }

  // stats.json summary.by_memory: {name: {kind, share_of_bytes (of the memories' bytes), and
  // TargetTraffic::to_json with latencies}}; address_layout lists the memories in address order.
  nlohmann::json by_memory_json(const ReportWindow& window) const;
  // How evenly the devices shared their bytes: {devices, devices_used, busiest, least_busy,
  // max_over_mean, min_over_mean} (bytes of the busiest and the least busy device over the mean
  // over all devices); null without devices or device traffic.
  nlohmann::json device_balance() const;

 private:
  static constexpr std::uint32_t kNoTarget = ~std::uint32_t{0};
  std::vector<Target> targets_;         // by base
  std::vector<TargetTraffic> traffic_;  // per target
  std::uint64_t unplaced_ = 0;
  // Every memory starts on a boundary of 2^granule_shift_ bytes: the memory in each granule, or
  // empty when that table would be too long (a binary search then).
  std::vector<std::uint32_t> table_;
  unsigned granule_shift_ = 0;
};

const char* to_string(MemoryLayout::Kind k);

}  // namespace famsim
