// What the run asks of every block that starts requests (GPUs, trace players): totals for the
// conservation check and the summary, the span of its activity, and what its completed requests
// moved and how long they took, by the kind of memory they went to (TargetClass).
#pragma once

#include "models/core/stats.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>

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

  // Completed requests to targets of class `c`.
  const TargetTraffic& traffic(TargetClass c) const { return traffic_[static_cast<unsigned>(c)]; }
  // Over every class.
  TargetTraffic total_traffic() const;

 protected:
  // A completed request: a counter and a histogram sample, in place (nothing allocates but the
  // class's first sample, which sizes its histogram).
  void count_completion(TargetClass c, bool write, std::uint32_t bytes, std::uint64_t latency_ps) {
    TargetTraffic& t = traffic_[static_cast<unsigned>(c)];
    if (write) {
      t.write_latency.add_ps(latency_ps);
      t.write_bytes += bytes;
    } else {
      t.read_latency.add_ps(latency_ps);
      t.read_bytes += bytes;
    }
  }

 private:
  std::array<TargetTraffic, kTargetClasses> traffic_;
};

}  // namespace famsim
