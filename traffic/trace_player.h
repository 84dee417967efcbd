// Trace player: replays a memory trace (Ramulator 2, DRAMsim3 or DRAMSys format, see
// traffic/trace/trace_reader.h) straight into memory controllers, for standalone DRAM runs
// (platforms/dram_*.yaml).
//
// Ports
//   port(c)  initiator socket to memory channel c
//
// Parameters (TracePlayerParams)
//   file, format         the trace
//   clock_mhz            the player's clock: at most one request starts per cycle; DRAMsim3 and
//                        DRAMSys timestamps count cycles of this clock (the platform presets set
//                        it to the DRAM command clock, as DRAMsim3's trace CPU ticks with it)
//   mode                 closed: keep up to max_outstanding requests in flight, ignoring
//                        timestamps; open: start each request at its timestamp (or as soon after
//                        as max_outstanding and backpressure allow)
//   max_outstanding      requests in flight at most
//   request_bytes        size of a request whose line gives no length
//   capacity_bytes       trace addresses are taken modulo the memory's capacity (traces come
//                        from machines with other memory sizes); the offset is then split over
//                        the channels by the memory's interleave. An access whose bytes then run
//                        past the end (an unaligned address in the last request) is an input
//                        error naming the line: wrapping it would split one request in two
//
// Latency is measured from the cycle a request starts to its response's arrival, and broken down
// by hop in the simulation's breakdown (SimContext::hop_breakdown). Its traffic counts as
// TargetClass::kStandaloneMemory (Initiator::traffic). In open mode the statistics also give the
// issue lag (IssueLag): how much later than its timestamp each request started, because
// max_outstanding, backpressure or one request per cycle held it back.
#pragma once

#include "models/core/clock.h"
#include "models/core/initiator.h"
#include "models/core/occupancy.h"
#include "models/core/ports.h"
#include "models/core/ring.h"
#include "models/core/sim_context.h"
#include "models/core/wakeup.h"
#include "models/memory/address_map.h"
#include "traffic/trace/trace_reader.h"

#include <systemc>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace famsim {

// The data pattern's seed for a trace's writes: the GPU streams' default data_seed.
constexpr std::uint64_t kTraceDataSeed = 1;

struct TracePlayerParams {
  std::string file;
  TraceFormat format = TraceFormat::kRamulator;
  double clock_mhz = 1600;
  bool open_loop = false;
  unsigned max_outstanding = 32;
  unsigned request_bytes = 64;
  std::uint64_t capacity_bytes = 0;
};

class TracePlayer : public sc_core::sc_module, public Component, public Initiator {
 public:
  // Opens the trace (TraceError if unreadable).
  TracePlayer(sc_core::sc_module_name name, SimContext& ctx, const TracePlayerParams& params,
              const AddressMap& channels);

  InitiatorPort<TracePlayer>& port(unsigned c) { return *ports_[c]; }
  Sync bw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time& t);

  void report(ComponentReport& r, const ReportWindow& window) const override;
  std::size_t occupancy() const override { return outstanding_.level(); }
  void probes(std::vector<ResourceProbe>& out) const override;

  bool finished() const override { return exhausted_ && !have_next_ && outstanding_.level() == 0; }
  const IssueLag* issue_lag() const override {
    return issue_lag_.requests() > 0 ? &issue_lag_ : nullptr;
  }

  // For a run that stopped at the longest simulated time (kMaxSimTimePs) on another block's
  // wake-up (a controller's, after the player's last request): in open mode, "FILE:LINE: what"
  // about the line with the latest start time, whose request could not complete within it.
  // nullopt in closed mode or before such a line, when no line took the run there.
  std::optional<std::string> time_limit_error() const;

 private:
  void read_next();
  // Stops the run with an input error (exit code 2) "FILE:LINE: what" about the line last read.
  void input_error(const std::string& what);
  void complete(Payload& p, std::uint64_t now);
  friend class Wakeup;  // runs behaviour()
  void behaviour();

  SimContext& ctx_;
  TracePlayerParams params_;
  Clock clock_;
  AddressMap channels_;
  TraceReader reader_;
  std::vector<std::unique_ptr<InitiatorPort<TracePlayer>>> ports_;
  std::vector<std::uint64_t> port_ready_ps_;  // kNever while waiting for END_REQ
  Ring<Payload*> completions_;
  Wakeup wake_;

  TraceRecord next_{};
  bool have_next_ = false;
  bool exhausted_ = false;
  std::uint64_t next_start_ps_ = 0;  // open loop: when the next request may start
  std::size_t start_line_ = 0;       // the trace line next_start_ps_ is for, 0 before one
  std::uint64_t closed_delays_ps_ = 0;  // closed loop, .rstl: the delays read so far, added up
  std::uint64_t last_edge_ = Wakeup::kNever;
  std::uint64_t next_id_ = 0;
  // Requests in flight, of max_outstanding: a slot is taken at issue and free again when the
  // player takes the completion (a resource in the bottleneck analysis, as a GPU's window).
  OccupancyGauge outstanding_;

  IssueLag issue_lag_;  // open mode, lines with a time
};

}  // namespace famsim
