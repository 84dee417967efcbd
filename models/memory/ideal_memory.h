// Ideal memory: one memory channel with a fixed access latency and data-bus bandwidth, no DRAM
// state (gem5's SimpleMemory plays the same part). Selected with `model: ideal` in a memory node;
// for fabric studies that must not see DRAM effects, and for tests whose expected values come
// from the fabric alone. The default model is the JEDEC-timed DRAM controller
// (dram_controller.h).
//
// Ports
//   up   target socket: requests in (channel address decoded upstream), responses out
//
// Parameters
//   MemoryTiming: data_rate_mtps, channel_width_bits  -> peak = data_rate x width / 8 (MB/s)
//                 clock_mhz                            controller/command clock; decisions on its
//                 edges access_latency_cycles                fixed time from service start to first
//                 data
//   ControllerParams: read_queue, write_queue          entries; an entry is held from acceptance
//                                                      until its response is taken upstream
//                     posted_writes                    a write (not an atomic) is answered on
//                                                      acceptance; its entry is held until it
//                                                      would have been answered otherwise
//                     backing_store                    keep data (reads return what was written)
//
// Timing: requests are served in arrival order (reads and writes alike). A request arriving at t
// starts service at e = max(first edge >= t, data bus free), occupies the data bus for
// burst = ceil(bytes / bytes_per_clock) cycles (bytes_per_clock = width/8 x data_rate / clock),
// and its response is ready at e + (access_latency + burst) cycles; a posted write's at its
// acceptance (responses go oldest ready first, a finished request before a write accepted at the
// same instant, as the DRAM controller sends them).
//
// Statistics: bytes, utilization (data-bus busy fraction), backpressure_ns, reads, writes,
// read/write bytes and latency (arrival to response handed upstream), queue occupancy.
#pragma once

#include "models/core/clock.h"
#include "models/core/ports.h"
#include "models/core/ring.h"
#include "models/core/sim_context.h"
#include "models/core/wakeup.h"
#include "models/memory/backing_store.h"

#include <systemc>

#include <string>

namespace famsim {

struct MemoryTiming {
  std::string standard = "DDR5";
  double data_rate_mtps = 4800;
  unsigned channel_width_bits = 32;
  double clock_mhz = 2400;
  unsigned access_latency_cycles = 68;

  double peak_gbps() const { return data_rate_mtps * channel_width_bits / 8.0 / 1000.0; }
  double bytes_per_clock() const { return channel_width_bits / 8.0 * data_rate_mtps / clock_mhz; }
};

struct ControllerParams {
  unsigned read_queue = 64;
  unsigned write_queue = 64;
  // Off for a memory described as ideal alone; an ideal memory over a DRAM description takes the
  // DRAM controller's write_response (platform_config.cpp).
  bool posted_writes = false;
  bool backing_store = true;
};

class IdealMemory : public sc_core::sc_module, public Component {
 public:
  TargetPort<IdealMemory> up;

  IdealMemory(sc_core::sc_module_name name, SimContext& ctx, const MemoryTiming& timing,
              const ControllerParams& params);

  Sync fw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time& t);

  void report(ComponentReport& r, const ReportWindow& window) const override;
  void probes(std::vector<ResourceProbe>& out) const override;
  std::size_t occupancy() const override;

  const BackingStore& store() const { return store_; }
  // The data for a debug access (TLM transport_dbg: no time, no statistics); null when the
  // channel keeps none (backing_store: false).
  BackingStore* debug_store() { return params_.backing_store ? &store_ : nullptr; }

 private:
  struct InService {
    Payload* payload = nullptr;
    std::uint64_t ready_ps = 0;
  };

  bool has_room(const Payload& p) const;
  void accept(Payload& p, std::uint64_t now);
  // Frees the entries of posted writes done by `now`.
  void retire_posted(std::uint64_t now);
  friend class Wakeup;  // runs behaviour()
  void behaviour();

  MemoryTiming timing_;
  ControllerParams params_;
  Clock clock_;
  Ring<InService> service_;  // accepted, response not yet taken upstream (ready times ascend)
  Ring<InService> posted_;   // posted writes, answered on acceptance, not yet taken upstream
  Ring<std::uint64_t> posted_done_;  // when each posted write's entry frees (ascending)
  HoldSlot hold_;
  bool upstream_busy_ = false;
  unsigned reads_held_ = 0;  // queued + in service
  unsigned writes_held_ = 0;
  std::uint64_t bus_free_ps_ = 0;
  unsigned burst_for_len_ = 0;
  std::uint64_t burst_cycles_ = 1;
  BackingStore store_;
  Wakeup wake_;

  // Statistics.
  std::uint64_t busy_ps_ = 0;
  std::uint64_t read_count_ = 0;
  std::uint64_t write_count_ = 0;
  std::uint64_t atomic_count_ = 0;
  std::uint64_t read_bytes_ = 0;
  std::uint64_t write_bytes_ = 0;
  std::uint64_t backpressure_ps_ = 0;
  LatencyHistogram read_latency_;
  LatencyHistogram write_latency_;
};

}  // namespace famsim
