// DRAM memory controller: one modelled DRAM channel (a DDR4 channel, a DDR5 sub-channel, an
// LPDDR5X channel or an HBM3 pseudo-channel) behind a TLM-2.0 AT target socket. The decisions
// are ControllerCore's (models/memory/dram/controller_core.h: queues, scheduler, page policy,
// refresh, JEDEC timing); this module is the protocol glue, the backing store and statistics.
//
// Ports
//   up   target socket: requests in (channel address decoded upstream), responses out
//
// Parameters (DramControllerParams)
//   spec               DRAM organisation, timing and energy (models/memory/dram/dram_spec.h)
//   core               queue depths (bursts), write watermarks, scheduler, page policy, refresh
//   mapping_order      order of the within-channel fields, MSB first (e.g. "RoRaBaCoBg")
//   xor_bank           bank / bank-group bits XORed with low row bits
//   posted_writes      a write is answered once it holds write-queue entries (a controller's
//                      write buffer); otherwise once its data is in the DRAM
//   backing_store      keep data (reads return what was written)
//   command_log        file for the DRAM command log (empty: off); channel/pseudo_channel: what
//                      the log records as this controller's place. Each command carries the id
//                      of the request it was issued for (dram_command.h)
//
// Transaction log (SimContext::transactions, when on): a posted write, answered on acceptance,
// and an atomic's write-back, answered by nobody, tell it when their DRAM work is done (first
// command, end of the last burst's data) for its service_start_ps and memory_done_ps. Nothing is
// done for it while it is off.
//
// Timing: a request arriving at t is split into bursts (burst_length x channel width bytes
// each), decoded to rank/bank group/bank/row/column, and queued; the controller decides on the
// first command-clock edge strictly after t (the arbitration rule every famsim block follows).
// A read is answered when its last burst's data has moved (RD + CL + tBL); reads are answered in
// completion order, and posted writes among them by acceptance time (a read finishing at the
// instant a write is accepted goes first, whatever the order of that instant's events). Requests
// that find no queue room wait in the hold slot (backpressure). An arrival sees the queues after
// every command up to and including its instant (a column command frees its entry as it issues).
// Wake-ups: the core's commands are seen by nobody until an answer falls due, so while requests
// wait for answers and none is held the block sleeps until the earliest cycle one can (the next
// command plus min(CL, CWL) + tBL) and runs the commands it slept through then; an arrival, the
// phase sampler (before each boundary) and the end of a cut-off run catch it up first. The
// commands, their cycles and every statistic are those of a block woken at each command.
// Data: reads and writes touch the backing store in arrival order, so a read returns the latest
// write that arrived before it (the controller does no write-to-read forwarding in timing).
//
// Resources (bottleneck report): the data bus, the read and write queues, each rank's activate
// rate (tRRD, tFAW) and the busiest bank's (tRC).
// Statistics: bytes, utilization (data-bus busy fraction), backpressure_ns, reads, writes,
// bandwidth and efficiency against peak, row hits / misses / conflicts, command counts, per-bank
// open fraction, queue occupancy (mean, max), read/write latency (arrival to answer), refreshes,
// energy estimate (per-command energies plus background power).
#pragma once

#include "models/core/ports.h"
#include "models/core/ring.h"
#include "models/core/sim_context.h"
#include "models/core/wakeup.h"
#include "models/memory/backing_store.h"
#include "models/memory/dram/address_mapping.h"
#include "models/memory/dram/controller_core.h"

#include <systemc>

#include <algorithm>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace famsim {

struct DramControllerParams {
  dram::Spec spec;
  dram::CoreParams core;
  std::string mapping_order = "RoRaBaCoBgCh";
  bool order_places_channel = false;  // the configured order named Ch (it sets the granule)
  bool xor_bank = false;
  bool posted_writes = true;
  bool backing_store = true;
  std::string command_log;
  unsigned channel = 0;
  unsigned pseudo_channel = 0;
};

class DramController : public sc_core::sc_module, public Component {
 public:
  TargetPort<DramController> up;

  // Throws std::invalid_argument for parameters the core or the mapping refuse, or a queue too
  // shallow for the largest request.
  DramController(sc_core::sc_module_name name, SimContext& ctx, const DramControllerParams& params);

  Sync fw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time& t);

  void report(ComponentReport& r, const ReportWindow& window) const override;
  void probes(std::vector<ResourceProbe>& out) const override;
  std::size_t occupancy() const override;

  const BackingStore& store() const { return store_; }
  // The data for a debug access (TLM transport_dbg: no time, no statistics); null when the
  // channel keeps none (backing_store: false).
  BackingStore* debug_store() { return params_.backing_store ? &store_ : nullptr; }
  const dram::ControllerCore& core() const { return core_; }
  const std::string& command_log() const { return params_.command_log; }
  // Ends the run for this controller: replays refreshes an idle tail left unwoken up to
  // `end_ps` and closes the command log (std::runtime_error when it could not be written whole:
  // a full disk). Idempotent. report() over a window ending at `end_ps` needs it first
  // (std::logic_error otherwise).
  void finish(std::uint64_t end_ps);

 private:
  struct Posted {
    Payload* payload;
    std::uint64_t ready_ps;
  };

  std::uint64_t ps_of(std::uint64_t cycle) const { return cycle * tck_fs_ / 1000; }
  // The run's row activations: their count, the bursts each moved on average, and the closest
  // a rank may space them (DramController::activates()).
  struct Activates {
    std::uint64_t count = 0;
    double bursts_per_act = 0;
    double rank_spacing_ck = 0;
  };
  Activates activates(std::uint64_t bursts) const;
  // The closest a rank may space its ACTs, in DRAM cycles: max(tRRD_S, tFAW / 4).
  double rank_act_spacing_ck() const;
  // The share of the time the data bus can carry data at all under the refresh mode
  // (ResourceUse::available).
  double refresh_available() const;
  // The ACTs rank k has issued so far, over its banks.
  std::uint64_t rank_activates(unsigned k) const;
  // The activate-rate resources of report() (per rank, and the busiest bank).
  // The busiest bank group's column commands against tCCD_L (a resource; see the .cpp).
  void column_rate(ComponentReport& r, std::uint64_t window_cycles, double secs) const;
  void activate_rates(ComponentReport& r, std::uint64_t window_cycles, double secs,
                      const Activates& a) const;
  // Writes x["bank_parallelism"] over `cycles` (a window in DRAM cycles) and returns what it
  // means for a full queue (the queues' advice).
  std::string bank_parallelism(nlohmann::json& x, const ReportWindow& cycles,
                               const Activates& a) const;
  // First command-clock cycle strictly after t.
  std::uint64_t cycle_after(std::uint64_t t_ps) const {
    return fs_div_.quotient((t_ps + 1) * 1000 + tck_fs_ - 1);
  }
  // First and last burst (burst-sized blocks of the channel address) a request touches.
  std::pair<std::uint64_t, std::uint64_t> burst_span(const RequestExt& e) const {
    return {e.channel_address / burst_bytes_,
            (e.channel_address + std::max<std::uint32_t>(e.length, 1) - 1) / burst_bytes_};
  }
  unsigned bursts_of(const Payload& p, dram::Coord* out) const;
  bool has_room(const Payload& p) const;
  void accept(Payload& p, std::uint64_t now);
  void respond(Payload& p, std::uint64_t ready_ps, std::uint64_t now);
  void schedule(std::uint64_t now);
  // Runs the core at the cycles it was left unwoken for (idle: only refreshes fall due), up to
  // but excluding `cycle`.
  void catch_up(std::uint64_t cycle);
  // The same, for the commands of cycles that start before `t_ps` (the state just before t).
  void catch_up_before(std::uint64_t t_ps);
  friend class Wakeup;  // runs behaviour()
  void behaviour();
  // The transaction log, opened after elaboration, is on or off for the whole run: with it on, the
  // core is told to report DRAM work that answers nobody (memory_done()).
  void start_of_simulation() override;
  // ControllerCore::UntaggedDone for the transaction log: a posted write's (or an atomic's
  // write-back's) DRAM work is done.
  static void memory_done(void* self, std::uint64_t id, std::uint64_t first_command,
                          std::uint64_t done);

  DramControllerParams params_;
  dram::ControllerCore core_;
  dram::AddressMapping mapping_;
  std::uint64_t burst_bytes_;
  std::uint64_t tck_fs_;
  FixedDivisor fs_div_;
  std::uint64_t core_next_ = 0;       // cycle the core runs next (idle: replayed by catch_up)
  std::vector<dram::Coord> scratch_;  // bursts of one request
  Ring<Posted> posted_;               // write answers not yet sent
  HoldSlot hold_;
  bool upstream_busy_ = false;
  BackingStore store_;
  std::unique_ptr<std::ofstream> log_;
  TransactionLog& transactions_;  // the simulation's (SimContext)
  Wakeup wake_;

  // Statistics.
  std::uint64_t read_count_ = 0;
  std::uint64_t write_count_ = 0;
  std::uint64_t atomic_count_ = 0;
  std::uint64_t read_bytes_ = 0;
  std::uint64_t write_bytes_ = 0;
  std::uint64_t backpressure_ps_ = 0;
  std::uint64_t answers_owed_ = 0;  // accepted requests not answered yet
  std::uint64_t finished_at_ps_ = Wakeup::kNever;  // the last finish()'s end_ps
  LatencyHistogram read_latency_;
  LatencyHistogram write_latency_;
};

}  // namespace famsim
