// What every block of one simulation shares: the payload pool, the component registry, the seed,
// the per-hop latency breakdown, and a place to record a run-stopping input error found during
// simulation (a VMM fault, say).
#pragma once

#include "models/core/by_memory.h"
#include "models/core/hop_breakdown.h"
#include "models/core/payload_pool.h"
#include "models/core/phases.h"
#include "models/core/stats.h"
#include "models/core/timeline.h"
#include "models/core/timeseries.h"
#include "models/core/transaction_log.h"
#include "models/core/wakeup.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace famsim {

enum class Kernel { kFamsim, kSystemC };  // see models/core/wakeup.h

struct SimContext {
  SimContext(std::uint32_t max_data_bytes, std::uint64_t seed_, Kernel kernel = Kernel::kFamsim)
      : pool(max_data_bytes), seed(seed_) {
    if (kernel == Kernel::kFamsim)
      scheduler_owner = std::make_unique<Scheduler>("famsim_scheduler");
  }
  // The famsim kernel's scheduler, or null with the systemc kernel.
  Scheduler* scheduler() { return scheduler_owner.get(); }

  std::unique_ptr<Scheduler> scheduler_owner;
  PayloadPool pool;
  ComponentRegistry registry;
  std::uint64_t seed;
  // Bandwidth and latency per window over all initiators (sim.timeseries_window_ns).
  TimeSeries timeseries;
  // Every resource's work per window of simulated time, for the per-phase bottleneck analysis
  // (sim.phase_window_ns).
  PhaseSampler phases;
  // Sampled requests' journeys (sim.timeline), written as timeline.json.
  Timeline timeline;
  // Every initiator adds its completed requests here. One for the simulation rather than one per
  // initiator: stats.json reports it merged anyway, and per-GPU histograms multiplied the bins
  // each completion touches by the GPU count, which cost 10-15% of famsim bench's speed in cache
  // misses.
  HopBreakdown hop_breakdown;
  // Every completed request (sim.transaction_log), written as transactions.csv.
  TransactionLog transactions;
  // The platform's memories by address: initiators count their completions by memory
  // (stats.json summary.by_memory).
  MemoryLayout memories;
  // What every initiator does with a completed request besides its own counts: the per-hop
  // breakdown, the time series, the sampled timeline and the transaction log. `arrival_ps`: the
  // response's arrival at the initiator; `status`: the payload's TLM response status; `memory`:
  // the memory's index in `memories` (Initiator::count_completion found it); `data`: the
  // payload's data (the transaction log's data_hash).
  void record_completion(const RequestExt& e, std::uint64_t arrival_ps, int status,
                         std::size_t memory, const unsigned char* data) {
    hop_breakdown.add(e, arrival_ps);
    if (timeseries.enabled()) {
      timeseries.add(arrival_ps, e.length, arrival_ps - e.issue_ps, e.write, e.target_class,
                     timeseries.counts_by_device() || timeseries.counts_by_channel()
                         ? memory
                         : TimeSeries::kNoDevice,
                     e.channel);
    }
    if (timeline.wants(e.id)) timeline.record(e, arrival_ps);
    if (transactions.enabled()) transactions.record(e, arrival_ps, status, data);
  }
  // Set (with stop()) by a block that finds the workload asked for something impossible.
  std::optional<std::string> input_error;

  // Ends the simulation after the current event.
  void stop() {
    if (scheduler_owner) scheduler_owner->stop();
    sc_core::sc_stop();
  }
};

}  // namespace famsim
