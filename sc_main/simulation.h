// One famsim run: configuration document -> validated config -> elaborated platform with its
// workload mapped -> simulation -> results with the conservation proof.
#pragma once

#include "models/core/bottleneck.h"
#include "models/core/config.h"
#include "models/core/initiator.h"
#include "models/core/sim_context.h"
#include "platforms/builder.h"
#include "platforms/platform_config.h"
#include "traffic/vmm.h"
#include "traffic/vmm_events.h"
#include "traffic/workload_config.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace famsim {

struct RunOptions {
  std::optional<std::string> platform_file;  // none: the embedded default
  std::optional<std::string> workload_file;  // none: the platform file's `workload:`, else default
  std::vector<std::string> overrides;        // "key.path=value"
  // As typed (--seed): the configuration reader checks it as it checks sim.seed.
  std::optional<std::string> seed;
  // Standalone memory platforms (trace_player): the trace to replay.
  std::optional<std::string> trace_file;
  std::optional<std::string> trace_format;
  std::optional<std::uint64_t> max_outstanding;
  bool dram_log = false;               // --dram-log: sim.dram_command_log
  bool txn_log = false;                // --txn-log: sim.transaction_log
  bool txn_data = false;  // --txn-data: sim.transaction_log_data (and sim.transaction_log)
  std::string out_dir = "famsim-out";  // where DRAM command logs go (sim.dram_command_log)
};

// Builds the configuration document: platform + `workload:` + `sim:`, overrides applied, presets
// expanded. Throws ConfigError.
ConfigDoc load_config(const RunOptions& options);

struct SimSettings {
  std::uint64_t seed = 1;
  double max_time_ns = 0;  // 0: run until every request completed
  Kernel kernel = Kernel::kFamsim;
  double quantum_ns = 1000;  // famsim kernel: how far local time may run ahead of SystemC's
  bool dram_command_log = false;         // every DRAM controller logs its commands (OUT/dram/*.csv)
  bool transaction_log = false;          // every completed request (OUT/transactions.csv)
  bool transaction_log_data = false;     // ... with each request's data hash (data_hash column)
  double timeseries_window_ns = 1000.0;  // 0: no time series
  double phase_window_ns = 5000.0;       // 0: no per-phase bottleneck analysis
  std::uint64_t timeline_every = 1000;    // 0: no timeline
  std::uint64_t timeline_max_requests = 500;
  LogSettings log;  // sim.log: per-module verbosity
  // Utilisation from which the bottleneck analysis counts a resource saturated or full.
  double saturation_threshold = kSaturated;
};

struct ResolvedConfig {
  PlatformConfig platform;
  WorkloadConfig workload;
  SimSettings sim;
};

// Strictly reads the whole document (unknown keys anywhere are errors). Throws ConfigError.
ResolvedConfig parse_config(const ConfigDoc& doc);

// A platform file read as `famsim run --platform FILE` reads it (presets expanded, every key
// checked, its `workload:` and `sim:` too), for an sc_main of one's own that builds famsim's
// blocks from it (an ExpansionDevice from `devices[i]`); no file: the built-in default platform
// (platforms/nvl8_fam.yaml). Throws ConfigError naming the file, line and key.
PlatformConfig load_platform(const std::optional<std::string>& file);

// What the configuration changes from the shipped platform it names (`name:`, when a built-in
// platforms/NAME.yaml exists), leaf by leaf with the file or --set each value came from:
// {base, workload_source, changes: [{key, value, base_value, source}]}. Without such a platform
// (base null), the leaves the user's own files and --set chose, leaving out what presets gave.
nlohmann::json config_changes(const ConfigDoc& doc);

// Every memory of the platform (the standalone memory, the GPUs' local memory, each device's), its
// peak as modelled, and the values its files mark as assumptions rather than figures from a
// standard or a datasheet (MemoryConfig::assumptions): [{memory (key path), what, preset,
// standard, channels, channel_peak_gbps, peak_gbps, values: [{key, value, why, value_from,
// note_from}]}]. value_from differs from note_from when the user set a value a preset marks.
nlohmann::json memory_assumptions(const PlatformConfig& p);

// The values the readers assumed for every key the configuration left out ({key path: value}),
// from parse_config(doc); `config`: the resolved configuration as JSON (keys it holds are left
// out). With `config`, every parameter the run used. A reader's default of 0 or "" can stand for
// "derived from other keys" (the block headers and README say which).
nlohmann::json config_defaults(const ConfigDoc& doc, const nlohmann::json& config);

// What the initiators counted, for the conservation check.
struct InitiatorTotals {
  std::uint64_t issued = 0;
  std::uint64_t completed = 0;
  std::uint64_t bytes_requested = 0;
  std::uint64_t bytes_delivered = 0;
  std::uint64_t duplicates = 0;
  std::uint64_t data_mismatches = 0;
  // The first of them by response time (then id), over every initiator: at most
  // Initiator::kMismatchesKept.
  std::vector<Initiator::DataMismatch> first_data_mismatches;
};

// ARCHITECTURE.md rule 6: every request issued completed exactly once, bytes requested = bytes
// delivered, no payload leaked from the pool, no block holds a request, read data intact.
// Violations list the blocks still holding requests and the stuck requests themselves.
// `truncated`: the run was cut off by sim.max_time_ns, so requests may legitimately be in flight.
nlohmann::json check_conservation(const SimContext& ctx, const InitiatorTotals& totals,
                                  bool truncated = false);

class Simulation {
 public:
  // Parses, validates, elaborates and maps the workload. Throws ConfigError on bad input.
  // `out_dir`: the run's output directory, where its DRAM command logs (OUT/dram/, with
  // sim.dram_command_log) and transaction log (OUT/transactions.csv, with sim.transaction_log)
  // end up and as stats.json names them; empty (validate, bench): the run writes no files.
  // `write_dir`: where they are written until the caller moves them to `out_dir` (OutputDir's
  // staging directory); empty: `out_dir` itself.
  explicit Simulation(ConfigDoc doc, const std::string& out_dir = "",
                      const std::string& write_dir = "");
  ~Simulation();

  // Runs to completion (or sim.max_time_ns).
  void run();
  // During run(), writes a line to `os` every `every_seconds` of host time: simulated time so
  // far, requests completed, host time and their rate. The famsim kernel only (its scheduler
  // calls back between run-aheads); with the systemc kernel it does nothing.
  // When the workload's end is known up front (every stream a pattern stream bound by its
  // total_bytes, or every one by a duration from a fixed start, or sim.max_time_ns), the line also
  // gives the share done and the host time left at the rate so far.
  void report_progress(double every_seconds, std::ostream& os);

  // An input error found while simulating (a VMM fault); the run's results are not valid.
  const std::optional<std::string>& input_error() const { return ctx_->input_error; }

  // stats.json content; host-time fields from the caller's measurements.
  nlohmann::json results(double host_seconds, double peak_rss_mib) const;
  // Resolved configuration as YAML text (re-runnable with --platform).
  std::string config_yaml() const;
  // timeseries.csv (empty when sim.timeseries_window_ns is 0).
  std::string timeseries_csv() const;
  // timeline.json (empty when sim.timeline.sample_every is 0).
  std::string timeline_json() const;
  // After a run that completed: gives OUT/transactions.csv its name (it is written as
  // transactions.csv.partial until then, and removed if the run does not get here, so a run
  // stopped by an error leaves no log). No-op without sim.transaction_log.
  void finish_transaction_log();

  const ResolvedConfig& config() const { return cfg_; }
  // Why a generator stream's whole-model estimate is withheld (whole_model_unfit_), one line per
  // such stream, for famsim validate.
  std::vector<std::string> whole_model_warnings() const;
  // Generator streams whose data each GPU's own HBM would hold at every layer of the model although
  // the run places it elsewhere (hbm_would_hold_), one line each, for famsim validate.
  std::vector<std::string> placement_notes() const;
  SimContext& context() { return *ctx_; }
  Platform& platform() { return *platform_; }
  InitiatorTotals totals() const;
  // With sim.dram_command_log: every controller's command log read back and checked against its
  // DRAM standard by the independent timing checker. Null when logging is off.
  nlohmann::json check_dram_logs() const;
  // End of simulated time: the last completion, or sim.max_time_ns when that cut the run short.
  sc_core::sc_time simulated_time() const;
  // Whether sim.max_time_ns stopped the run with work left.
  bool truncated() const;
  // sim.max_time_ns in ps (0: no limit).
  std::uint64_t max_time_ps() const {
    return static_cast<std::uint64_t>(std::llround(cfg_.sim.max_time_ns * 1000.0));
  }
  // From the first request issued to the end: rates and utilisations are over this window.
  ReportWindow report_window() const;

 private:
  // What report_progress measures the share done against; 0 where not known.
  struct ProgressBasis {
    double bytes = 0;     // every stream bound by bytes: their total over the streams' GPUs
    double end_ps = 0;    // every stream bound by a duration from a fixed start: the last end
    double limit_ps = 0;  // sim.max_time_ns
    // Every stream a generator whose configuration fixes its phases (GeneratorSpec::
    // phases_total): their total over the streams' GPUs.
    double phases = 0;
    // The share done, 0..1, after `delivered_bytes` and `phases_done` at `now_ps`; -1 when
    // nothing is known.
    double fraction(double delivered_bytes, double phases_done, double now_ps) const;
  };
  ProgressBasis progress_basis() const;
  // Phases of the generator streams whose compute has ended by now_ps, all GPUs together.
  std::uint64_t phases_ended(std::uint64_t now_ps) const;
  // The collectives stream `s`'s GPU s.gpus[rank] runs with its group of `members` (consecutive
  // ranks), its receive buffers mapped in its peers' HBM (ConfigError naming the stream's
  // all_reduce when one does not fit).
  CollectivePlan collective_plan(const StreamConfig& s, const GeneratorSpec::Collectives& col,
                                 std::size_t rank, unsigned members);
  void map_workload();
  // Pattern streams that could not finish within 2^48 ps even at their memories' peak channel
  // bandwidth: ConfigError naming the total_bytes of the one moving the most. Likewise at a GPU's
  // fabric links' bandwidth (both directions): naming the link key a --set changed (lane_gbps,
  // lanes, encoding_efficiency, per_gpu), else the GPU's largest stream's total_bytes.
  void check_run_length() const;
  // base + "." + the first of `keys` (generator keys) a --set changed (or its .min or .max, then
  // named), else the first of them.
  std::string set_key(const std::string& base, const std::vector<std::string>& keys) const;
  // Every sim.log.modules prefix names a block or a prefix of blocks' names: ConfigError if not.
  void check_log_modules() const;
  void schedule_vmm_events();

  // A stream's buffer on one GPU.
  struct BufferRecord {
    std::uint64_t va = 0;
    std::uint64_t size = 0;
    std::vector<unsigned> users;  // the GPUs it was mapped for
    AccessRight right = AccessRight::kNone;
  };

  ConfigDoc doc_;
  ResolvedConfig cfg_;
  std::unique_ptr<SimContext> ctx_;
  std::unique_ptr<AddressSpace> vmm_;
  std::unique_ptr<Platform> platform_;
  std::vector<std::vector<BufferRecord>> buffers_;  // [stream][gpu]
  // Generator streams that simulate fewer layers than their model has and whose regions, at
  // every layer of the model, would not fit where they are placed: why, by stream index. Their
  // result gives no whole-model estimate, and says this instead.
  std::map<std::size_t, std::string> whole_model_unfit_;
  // Generator streams whose model's weights, read by their compute model from each GPU's HBM
  // (GeneratorSpec::hbm_weight_bytes_per_gpu), do not fit there beside what the run maps: why.
  std::map<std::size_t, std::string> hbm_unfit_;
  // Generator streams that place data off their GPUs although each GPU's HBM would hold all of it
  // at every layer of the model beside the weights: a note that the run times the device where
  // HBM alone would do.
  std::map<std::size_t, std::string> hbm_would_hold_;
  void check_whole_model_fits();
  std::unique_ptr<VmmEventPlayer> vmm_events_;
  // The systemc kernel's phase sampling (the famsim kernel's scheduler samples itself).
  std::unique_ptr<PhaseSamplerProcess> phase_sampler_;
  // Adds direction_phases to the bottleneck analysis, and a caution to its sentence when reads
  // and writes came in separate phases (from the time series).
  void note_direction_phases(nlohmann::json& bottlenecks) const;
  // Adds each phase's limiter to the bottleneck sentence when the per-phase analysis found more
  // than one phase.
  void note_phases(nlohmann::json& bottlenecks) const;
  // The devices whose memory channels took turns (TimeSeries::channel_balance): the entries of
  // bottlenecks.channel_turns, each with the advice for the pools that wait on its channels.
  // `resources`: the run's, whose GPU windows give the bytes kept in flight.
  nlohmann::json channel_turns(const std::vector<ResourceRecord>& resources) const;
  std::string out_dir_;
  std::string dram_log_dir_;     // where the DRAM command logs are written, or empty
  std::string transaction_log_;  // where the transaction log is written, or empty
  bool transaction_log_done_ = false;
};

}  // namespace famsim
