// What the run asks of every block that starts requests (GPUs, trace players): totals for the
// conservation check and the summary, the span of its activity, and what its completed requests
// moved and how long they took, by the memory that served them (MemoryLayout) and so by the kind
// of memory they went to (TargetClass).
#pragma once

#include "models/core/by_memory.h"
#include "models/core/request.h"
#include "models/core/stats.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <vector>

namespace famsim {

// What completed requests to one class of target moved and how long they took (atomics count
// as reads, as everywhere in the summary).
struct TargetTraffic {
  std::uint64_t read_bytes = 0;
  std::uint64_t write_bytes = 0;
  LatencyHistogram read_latency;
  LatencyHistogram write_latency;

  void merge(const TargetTraffic& other);
  // {read_bytes, write_bytes, read_bandwidth_gbps, write_bandwidth_gbps, bandwidth_gbps} over
  // `window` (GB/s = 1e9 bytes per simulated second, as the summary's), and with `latency`
  // latency_ns (all requests), read_latency_ns and write_latency_ns as LatencyHistogram::to_json.
  nlohmann::json to_json(const ReportWindow& window, bool latency) const;
};

class Initiator {
 public:
  // `layout`: the platform's memories, by which completions are counted (null: none, every
  // completion counted by its class alone).
  explicit Initiator(const MemoryLayout* layout = nullptr);
  virtual ~Initiator() = default;
  virtual std::uint64_t issued() const = 0;
  virtual std::uint64_t completed() const = 0;
  virtual std::uint64_t bytes_requested() const = 0;
  virtual std::uint64_t bytes_delivered() const = 0;
  virtual std::uint64_t duplicates() const = 0;
  virtual std::uint64_t data_mismatches() const = 0;
  virtual std::uint64_t first_issue_ps() const = 0;
  virtual std::uint64_t last_completion_ps() const = 0;
  // Everything it was asked to issue has been issued and has completed.
  virtual bool finished() const = 0;
  // How late it issued what a trace's timestamps asked for (open-loop replay); null when it
  // replayed no timestamps.
  virtual const IssueLag* issue_lag() const { return nullptr; }

  // Completed requests to targets of class `c`: the sum over the memories of that class.
  TargetTraffic traffic(TargetClass c) const;
  // Their bytes alone, read and written, without merging histograms (per-phase sampling).
  std::uint64_t bytes_to(TargetClass c) const { return class_bytes_[static_cast<unsigned>(c)]; }
  // Over every class.
  TargetTraffic total_traffic() const;
  // Completed requests to memory `i` of the layout.
  const TargetTraffic& traffic_at(std::size_t i) const { return slots_[i]; }

 protected:
  // A completed request to physical address `pa`, of class `c`: a counter and a histogram sample
  // in place (nothing allocates but a memory's first sample, which sizes its histogram).
  void count_completion(TargetClass c, bool write, std::uint64_t pa, std::uint32_t bytes,
                        std::uint64_t latency_ps) {
    std::size_t i = layout_ ? layout_->find(pa) : MemoryLayout::kNone;
    if (i == MemoryLayout::kNone) {
      i = targets_ + static_cast<unsigned>(c);  // outside every memory: counted by class
    } else if (slot_class_[i] != c) {
      check_class(i, c);
    }
    TargetTraffic& t = slots_[i];
    if (write) {
      t.write_latency.add_ps(latency_ps);
      t.write_bytes += bytes;
    } else {
      t.read_latency.add_ps(latency_ps);
      t.read_bytes += bytes;
    }
    class_bytes_[static_cast<unsigned>(c)] += bytes;
  }

 private:
  static constexpr TargetClass kUnset = static_cast<TargetClass>(0xff);
  // The first completion to memory i sets its class; from one initiator, every request to one
  // memory is of one class (its own HBM local, another GPU's peer, a device's device).
  void check_class(std::size_t i, TargetClass c);

  const MemoryLayout* layout_;
  std::size_t targets_;
  // Per memory of the layout, then one per class for addresses outside every memory.
  std::vector<TargetTraffic> slots_;
  std::vector<TargetClass> slot_class_;
  std::array<std::uint64_t, kTargetClasses> class_bytes_{};
};

}  // namespace famsim
