// What the run asks of every block that starts requests (GPUs, trace players): totals for the
// conservation check and the summary, the span of its activity, its latency distributions.
#pragma once

#include "models/core/stats.h"

#include <cstdint>

namespace famsim {

class Initiator {
 public:
  virtual ~Initiator() = default;
  virtual std::uint64_t issued() const = 0;
  virtual std::uint64_t completed() const = 0;
  virtual std::uint64_t bytes_requested() const = 0;
  virtual std::uint64_t bytes_delivered() const = 0;
  virtual std::uint64_t read_bytes() const = 0;
  virtual std::uint64_t write_bytes() const = 0;
  virtual std::uint64_t duplicates() const = 0;
  virtual std::uint64_t data_mismatches() const = 0;
  virtual std::uint64_t first_issue_ps() const = 0;
  virtual std::uint64_t last_completion_ps() const = 0;
  // Everything it was asked to issue has been issued and has completed.
  virtual bool finished() const = 0;
  virtual const LatencyHistogram& read_latency() const = 0;
  virtual const LatencyHistogram& write_latency() const = 0;
  // How late it issued what a trace's timestamps asked for (open-loop replay); null when it
  // replayed no timestamps.
  virtual const IssueLag* issue_lag() const { return nullptr; }
};

}  // namespace famsim
