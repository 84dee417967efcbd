#include "sc_main/simulation.h"

#include "models/core/bottleneck.h"
#include "models/core/gpu_balance.h"
#include "models/core/initiator.h"
#include "models/core/log.h"
#include "models/memory/address_map.h"
#include "models/memory/dram/timing_checker.h"
#include "platforms/presets.h"
#include "sc_main/version.h"
#include "traffic/generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <set>

namespace famsim {

namespace {

std::string embedded_source(const char* path) { return std::string("(built-in) ") + path; }

YAML::Node load_embedded(const char* path) {
  const auto text = embedded_file(path);
  if (!text)
    throw ConfigError(std::string("built-in file ") + path + " is missing from this build");
  return load_yaml_text(*text, embedded_source(path));
}

// Every scalar leaf of a configuration tree by its key path ("devices.0.memory.channels").
void flatten(const YAML::Node& n, const std::string& path,
             std::map<std::string, YAML::Node>& out) {
  if (n.IsMap()) {
    for (const auto& kv : n) {
      const std::string k = kv.first.Scalar();
      flatten(kv.second, path.empty() ? k : path + "." + k, out);
    }
  } else if (n.IsSequence()) {
    for (std::size_t i = 0; i < n.size(); ++i) flatten(n[i], path + "." + std::to_string(i), out);
  } else if (n.IsDefined()) {
    out[path] = n;
  }
}

// sim.seed when nothing sets it. config.yaml always records the seed used, so that a rerun from
// it is identical; config_changes() compares a seed the base platform does not give with this
// default, as with every key the base leaves out (a rerun of config.yaml lists no seed change).
constexpr std::uint64_t kDefaultSeed = 1;

bool under(const std::string& path, const char* root) {
  const std::size_t len = std::char_traits<char>::length(root);
  return path.compare(0, len, root) == 0 && (path.size() == len || path[len] == '.');
}

// A pool that waits on a device whose channels took turns (an entry of channel_turns): the
// device's own pools (its port logic, NoC and memory queues, named "<device>.") and those on
// every way to it (GPU windows, links, switches). More slots in it hold more requests for the
// same busy channels, so it gets the entry's advice and no slot count.
void wait_on_channel_turns(const nlohmann::json& turns, ResourceRecord& r) {
  if (r.use.type != ResourceUse::Type::kSlots) return;
  for (const nlohmann::json& t : turns) {
    const std::string device = t["device"].get<std::string>();
    const bool on_way =
        r.kind == BlockKind::kGpu || r.kind == BlockKind::kLink || r.kind == BlockKind::kSwitch;
    if (!on_way && r.component.rfind(device + ".", 0) != 0) continue;
    r.use.more_slots_help = false;
    if (!r.use.advice.empty()) r.use.advice += " ";
    r.use.advice += t["sentence"].get<std::string>() +
                    " More slots in this pool would not help: they would hold more requests for "
                    "the same busy channels.";
    return;
  }
}

// The channels' turns said in the sentence when the limiter's advice did not say them (a wire
// limits, or nothing does).
void note_channel_turns(nlohmann::json& bottlenecks, const nlohmann::json& turns) {
  for (const nlohmann::json& t : turns) {
    const std::string text = t["sentence"].get<std::string>();
    const nlohmann::json l = bottlenecks.value("limiter", nlohmann::json());
    if (l.is_object() && l.value("advice", "").find(text) != std::string::npos) continue;
    bottlenecks["sentence"] = bottlenecks["sentence"].get<std::string>() + " Also: " + text;
  }
}

// The run's `sim` section (seed, kernel, logs, windows); every key has a default.
SimSettings parse_sim(ConfigNode& root) {
  SimSettings out;
  ConfigNode sim = root.child("sim");
  // Times are kept in whole ps: a positive time below 1 ps would round to 0, which for these keys
  // means something else (no limit, no time series) or nothing at all (a zero quantum).
  const auto whole_ps = [&sim](const char* key, double ns, const char* zero_means) {
    if (ns > 0 && ns < 0.001) {
      sim.fail(key, fmt::format("{} ns is below 1 ps, the time resolution; expected {}at least "
                                "0.001 ns",
                                ns, zero_means));
    }
    return ns;
  };
  out.seed = sim.get_uint("seed", kDefaultSeed);
  out.max_time_ns =
      whole_ps("max_time_ns", sim.get_double("max_time_ns", 0.0, 0.0, 2.8e11), "0 (no limit) or ");
  out.kernel = sim.get_choice("kernel", "famsim", {"famsim", "systemc"}) == "famsim"
                   ? Kernel::kFamsim
                   : Kernel::kSystemC;
  out.quantum_ns =
      whole_ps("quantum_ns", sim.get_double("quantum_ns", 1000.0, 0.0, 1e12, true), "");
  out.dram_command_log = sim.get_bool("dram_command_log", false);
  out.transaction_log = sim.get_bool("transaction_log", false);
  out.transaction_log_data = sim.get_bool("transaction_log_data", false);
  if (out.transaction_log_data && !out.transaction_log) {
    sim.fail("transaction_log_data",
             "true, but sim.transaction_log is false: the data hashes are a column of the "
             "transaction log; expected sim.transaction_log: true as well (--txn-log), or false");
  }
  out.saturation_threshold =
      sim.get_double("saturation_threshold", kSaturated, 0.0, 1.0, /*min_exclusive=*/true);
  // Bandwidth and latency per window (timeseries.csv); 0 switches it off. At most 281 s, as
  // max_time_ns: a window longer than any run famsim can simulate is a typo.
  out.timeseries_window_ns =
      whole_ps("timeseries_window_ns", sim.get_double("timeseries_window_ns", 1000.0, 0.0, 2.8e11),
               "0 (no time series) or ");
  // Per-phase bottleneck analysis: the first window of its sampling (doubled as the run outgrows
  // PhaseSampler::kMaxWindows); 0 switches it off. 5 us by default: a few loaded round trips
  // (1-2 us each on nvl8_fam under saturating reads), so that a window's utilisations are of a
  // state the queues have settled into, not of a transient (the time series has the 1 us view).
  // Each sample reads every resource's counters (15,184 on nvl8_fam).
  out.phase_window_ns =
      whole_ps("phase_window_ns", sim.get_double("phase_window_ns", 5000.0, 0.0, 2.8e11),
               "0 (no per-phase analysis) or ");
  // Sampled requests in timeline.json: every N-th request of each GPU, at most M.
  ConfigNode tl = sim.child("timeline");
  out.timeline_every = tl.get_uint("sample_every", 1000, 0, 1ULL << 40);
  out.timeline_max_requests = tl.get_uint("max_requests", 500, 1, 1000000);
  tl.finish();
  ConfigNode log = sim.child("log");
  const std::vector<std::string> levels = {"error", "warning", "info", "debug"};
  parse_log_level(log.get_choice("level", "warning", levels), out.log.level);
  // modules: a list of "module.name.prefix=level" (a list, so --set can give it too:
  // --set 'sim.log.modules=[fam0.memory=info]').
  for (const std::string& m : log.get_string_list("modules")) {
    const auto eq = m.find('=');
    LogLevel l = LogLevel::kWarning;
    if (eq == std::string::npos || eq == 0 || !parse_log_level(m.substr(eq + 1), l)) {
      log.fail("modules", "'" + m +
                              "': expected module.name.prefix=LEVEL with LEVEL error, warning, "
                              "info or debug");
    }
    out.log.modules[m.substr(0, eq)] = l;
  }
  log.finish();
  sim.finish();
  return out;
}

}  // namespace

nlohmann::json memory_assumptions(const PlatformConfig& p) {
  nlohmann::json out = nlohmann::json::array();
  auto add = [&](const MemoryConfig& m, const std::string& key, const std::string& what) {
    if (!m.present) return;
    nlohmann::json values = nlohmann::json::array();
    for (const ConfigAssumption& a : m.assumptions) {
      values.push_back({{"key", a.key},
                        {"value", a.value},
                        {"why", a.why},
                        {"value_from", a.value_from},
                        {"note_from", a.note_from}});
    }
    const double channel_gbps = m.channel_peak_gbps();
    out.push_back({{"memory", key},
                   {"what", what},
                   {"preset", m.preset},
                   {"standard", m.standard()},
                   {"channels", m.channels},
                   {"channel_peak_gbps", channel_gbps},
                   {"peak_gbps", channel_gbps * m.channels},
                   {"values", std::move(values)}});
  };
  if (p.trace_player.present) add(p.memory, "memory", "the memory");
  add(p.gpu_local, "gpus.local_memory", "each GPU's local memory");
  for (std::size_t i = 0; i < p.devices.size(); ++i) {
    add(p.devices[i].memory, fmt::format("devices.{}.memory", i),
        "device " + p.devices[i].name + "'s memory");
  }
  return out;
}

nlohmann::json config_changes(const ConfigDoc& doc) {
  // The base: the shipped platform the configuration names, with its presets expanded.
  std::optional<ConfigDoc> base;
  std::string base_file;
  const YAML::Node& root = doc.root;
  if (root["name"].IsDefined() && root["name"].IsScalar()) {
    base_file = "platforms/" + root["name"].Scalar() + ".yaml";
    if (embedded_file(base_file)) {
      base.emplace();
      base->sources = std::make_shared<ConfigSources>(embedded_source(base_file.c_str()));
      base->root = load_embedded(base_file.c_str());
      expand_presets(*base);
      // Read like a run's platform, so that the values it leaves to famsim's defaults are known
      // too: a --set of such a key is compared with the default it replaced.
      ConfigNode base_root(base->root, "", base->sources);
      parse_platform(base_root);
      parse_sim(base_root);
    }
  }
  std::map<std::string, YAML::Node> run_leaves, base_leaves;
  flatten(doc.root, "", run_leaves);
  if (base) flatten(base->root, "", base_leaves);
  nlohmann::json changes = nlohmann::json::array();
  for (const auto& [path, value] : run_leaves) {
    if (path == "name" || path == "description") continue;  // labels, not parameters
    const std::string source = doc.sources->source_of(path);
    if (source == "default") continue;  // filled in by famsim, not chosen
    nlohmann::json base_value;  // null: not in the base
    if (under(path, "workload")) {
      // The workload is a file of its own (workload_source), with no shipped base to compare
      // with: what --set changed in it is listed, against the value it replaced.
      if (source.rfind("--set", 0) != 0) continue;
      const auto& before = doc.sources->overridden();
      const auto it = before.find(path);
      if (it != before.end()) {
        if (it->second == yaml_to_json(value)) continue;
        base_value = it->second;
      }
    } else if (base) {
      const auto it = base_leaves.find(path);
      if (it != base_leaves.end()) {
        if (it->second.Scalar() == value.Scalar()) continue;
        base_value = yaml_to_json(it->second);
      } else if (const auto d = base->sources->defaults().find(path);
                 d != base->sources->defaults().end()) {
        if (d->second == yaml_to_json(value)) continue;
        base_value = d->second;
      }
    } else if (source.find("presets/") != std::string::npos) {
      continue;  // no base platform: what the presets gave is not a choice of the user's
    }
    changes.push_back(
        {{"key", path}, {"value", yaml_to_json(value)}, {"base_value", base_value},
         {"source", source}});
  }
  // A DRAM timing the user gave in one unit drops the preset's in the other
  // (drop_preset_timing_replaced): that is a change too, even where the value given equals the
  // preset's own in its unit (DDR5's tCCD_L is 8 clocks and 5 ns, 12 clocks in all: a --set of
  // tCCD_L_ck=8 makes it 8).
  for (const auto& [path, value] : base_leaves) {
    if (run_leaves.count(path) || path.find(".timing.") == std::string::npos) continue;
    const std::optional<std::string> other = other_timing_unit(path);
    if (!other || !run_leaves.count(*other)) continue;
    changes.push_back(
        {{"key", path},
         {"value", nullptr},
         {"base_value", yaml_to_json(value)},
         {"source", "replaced by " + *other + " (" + doc.sources->source_of(*other) + ")"}});
  }
  nlohmann::json out = {{"changes", std::move(changes)},
                        {"workload_source", doc.sources->source_of("workload")}};
  out["base"] = base ? nlohmann::json(embedded_source(base_file.c_str())) : nlohmann::json();
  return out;
}

ConfigDoc load_config(const RunOptions& o) {
  ConfigDoc doc;
  const std::string platform_source =
      o.platform_file ? *o.platform_file : embedded_source(kDefaultPlatform);
  doc.sources = std::make_shared<ConfigSources>(platform_source);
  doc.root = o.platform_file ? load_yaml_file(*o.platform_file) : load_embedded(kDefaultPlatform);

  const YAML::Node& croot = doc.root;
  const bool standalone = croot["trace_player"].IsDefined();
  if (standalone && o.workload_file) {
    throw ConfigError(platform_source +
                      ": a standalone memory platform (trace_player) replays a trace: give "
                      "--trace, not --workload");
  }
  // Options that set a key, each recorded with its key: a --set of that key as well is bad input,
  // as the same --set twice is (apply_overrides), since which one wins would be a guess.
  std::vector<std::pair<std::string, const char*>> option_keys;  // key path, option
  auto set_by_option = [&](const char* section, const char* key, const std::string& value,
                           const char* flag) {
    doc.root[section][key] = value;
    const std::string path = std::string(section) + "." + key;
    doc.sources->set(path, flag);
    option_keys.emplace_back(path, flag);
  };
  if (standalone) {
    // --trace, --trace-format and --max-outstanding set trace_player keys.
    if (o.trace_file) set_by_option("trace_player", "file", *o.trace_file, "--trace");
    if (o.trace_format) set_by_option("trace_player", "format", *o.trace_format, "--trace-format");
    if (o.max_outstanding) {
      set_by_option("trace_player", "max_outstanding", std::to_string(*o.max_outstanding),
                    "--max-outstanding");
    }
  } else if (o.trace_file || o.trace_format || o.max_outstanding) {
    // Name the option the user gave: --trace-format alone is a trace option too.
    const char* flag = o.trace_file     ? "--trace"
                       : o.trace_format ? "--trace-format"
                                        : "--max-outstanding";
    throw ConfigError(platform_source + ": " + flag +
                      " is an option of trace replay, which needs a standalone memory platform "
                      "(one with a trace_player, e.g. platforms/dram_ddr4.yaml); GPU platforms "
                      "take a --workload (a replay generator replays timed accesses through the "
                      "GPUs)");
  }
  if (standalone) {
  } else if (o.workload_file) {
    doc.root["workload"] = load_yaml_file(*o.workload_file);
    doc.sources->set("workload", *o.workload_file);
  } else if (!croot["workload"].IsDefined()) {
    doc.root["workload"] = load_embedded(kDefaultWorkload);
    doc.sources->set("workload", embedded_source(kDefaultWorkload));
  }
  if ((o.seed || o.dram_log || o.txn_log || o.txn_data) &&
      (!croot["sim"].IsDefined() || !croot["sim"].IsMap())) {
    doc.root["sim"] = YAML::Node(YAML::NodeType::Map);
  }
  if (o.seed) set_by_option("sim", "seed", *o.seed, "--seed");
  if (o.dram_log) set_by_option("sim", "dram_command_log", "true", "--dram-log");
  if (o.txn_log) set_by_option("sim", "transaction_log", "true", "--txn-log");
  if (o.txn_data) {
    // The data hashes are a column of the transaction log: --txn-data writes the log too.
    if (!o.txn_log) set_by_option("sim", "transaction_log", "true", "--txn-data");
    set_by_option("sim", "transaction_log_data", "true", "--txn-data");
  }
  for (const std::string& a : o.overrides) {
    const std::string key = a.substr(0, a.find('='));
    for (const auto& [path, flag] : option_keys) {
      if (key != path) continue;
      throw ConfigError(fmt::format(
          "--set {}=...: {} sets that key as well; expected one of them on the command line", key,
          flag));
    }
  }
  apply_overrides(doc, o.overrides);
  expand_presets(doc);
  return doc;
}

nlohmann::json config_defaults(const ConfigDoc& doc, const nlohmann::json& config) {
  nlohmann::json out = nlohmann::json::object();
  if (!doc.sources) return out;
  for (const auto& [path, value] : doc.sources->defaults()) {
    // Left out only if the resolved configuration does not hold the key after all (the seed is
    // written back into it).
    const nlohmann::json* n = &config;
    std::size_t start = 0;
    while (n && start <= path.size()) {
      const std::size_t dot = std::min(path.find('.', start), path.size());
      const std::string seg = path.substr(start, dot - start);
      start = dot + 1;
      if (n->is_object() && n->contains(seg) && !(*n)[seg].is_null()) {  // `key:` is not given
        n = &(*n)[seg];
      } else if (n->is_array() && !seg.empty() &&
                 seg.find_first_not_of("0123456789") == std::string::npos &&
                 std::stoul(seg) < n->size()) {
        n = &(*n)[std::stoul(seg)];
      } else {
        n = nullptr;
      }
    }
    if (!n) out[path] = value;
  }
  return out;
}

ResolvedConfig parse_config(const ConfigDoc& doc) {
  ResolvedConfig rc;
  ConfigNode root(doc.root, "", doc.sources);
  rc.platform = parse_platform(root);

  const bool standalone = rc.platform.trace_player.present;
  rc.sim = parse_sim(root);

  if (standalone) {
    rc.workload.name = "trace " + rc.platform.trace_player.params.file;
    root.ignore("workload");
    if (root.has("workload")) root.fail("workload", "a standalone memory platform replays a trace");
    root.finish();
    return rc;
  }
  PlatformFacts facts;
  facts.gpu_count = rc.platform.gpu_count;
  facts.request_bytes = rc.platform.gpu.request_bytes;
  facts.gpu_max_outstanding = rc.platform.gpu.max_outstanding;
  facts.gpu_has_local_memory = rc.platform.gpu_local.present;
  if (rc.platform.gpu_local.present) {
    facts.gpu_memory_gbps =
        rc.platform.gpu_local.channels * rc.platform.gpu_local.channel_peak_gbps();
  }
  facts.peer_access = rc.platform.peer_paths();
  for (const DeviceConfig& d : rc.platform.devices) facts.device_names.push_back(d.name);
  rc.workload = parse_workload(root.child("workload", true), facts);
  root.finish();
  return rc;
}

PlatformConfig load_platform(const std::optional<std::string>& file) {
  RunOptions o;
  o.platform_file = file;
  return parse_config(load_config(o)).platform;
}

Simulation::Simulation(ConfigDoc doc, const std::string& out_dir, const std::string& write_dir)
    : doc_(std::move(doc)), cfg_(parse_config(doc_)), out_dir_(out_dir) {
  const std::string files_dir = write_dir.empty() ? out_dir : write_dir;
  if (cfg_.sim.dram_command_log && !files_dir.empty()) {
    // Old logs never pass for this run's.
    dram_log_dir_ = files_dir + "/dram";
    std::filesystem::remove_all(dram_log_dir_);
    std::filesystem::create_directories(dram_log_dir_);
    cfg_.platform.memory.command_log_dir = dram_log_dir_;
    cfg_.platform.gpu_local.command_log_dir = dram_log_dir_;
    for (DeviceConfig& d : cfg_.platform.devices) d.memory.command_log_dir = dram_log_dir_;
  }
  // The resolved configuration records the seed actually used, so it re-runs identically.
  const YAML::Node& croot = doc_.root;
  if (!croot["sim"].IsDefined() || !croot["sim"]["seed"].IsDefined()) {
    doc_.sources->set("sim.seed", "default");
  }
  doc_.root["sim"]["seed"] = cfg_.sim.seed;
  ctx_ =
      std::make_unique<SimContext>(cfg_.platform.gpu.request_bytes, cfg_.sim.seed, cfg_.sim.kernel);
  ctx_->timeline.configure(cfg_.sim.timeline_every, cfg_.sim.timeline_max_requests);
  ctx_->timeseries.set_window_ps(
      static_cast<std::uint64_t>(std::llround(cfg_.sim.timeseries_window_ns * 1000.0)));
  if (Scheduler* s = ctx_->scheduler()) {
    s->set_quantum_ps(static_cast<std::uint64_t>(std::llround(cfg_.sim.quantum_ns * 1000.0)));
    if (cfg_.sim.max_time_ns > 0) {
      s->set_end_ps(max_time_ps());
    }
  }
  vmm_ = std::make_unique<AddressSpace>(cfg_.platform.gpu_count);
  platform_ = std::make_unique<Platform>(cfg_.platform, *ctx_, *vmm_);
  // timeseries.csv's columns per expansion device, in address order.
  std::vector<std::string> device_names;
  std::vector<std::size_t> device_column;
  for (const MemoryLayout::Target& t : ctx_->memories.targets()) {
    const bool device = t.kind == MemoryLayout::Kind::kDevice;
    device_column.push_back(device ? device_names.size() : TimeSeries::kNoDevice);
    if (device) device_names.push_back(t.name);
  }
  ctx_->timeseries.set_devices(std::move(device_names), std::move(device_column));
  // And the memory channels of each device, for the channel balance window by window.
  std::vector<TimeSeries::ChannelDevice> channel_devices;
  const auto& targets = ctx_->memories.targets();
  for (std::size_t m = 0; m < targets.size(); ++m) {
    if (targets[m].kind != MemoryLayout::Kind::kDevice) continue;
    for (const DeviceConfig& d : cfg_.platform.devices) {
      if (d.name == targets[m].name) channel_devices.push_back({d.name, m, d.memory.channels});
    }
  }
  ctx_->timeseries.set_channel_devices(channel_devices);
  if (!cfg_.platform.trace_player.present) map_workload();
  ctx_->phases.set_window_ps(
      static_cast<std::uint64_t>(std::llround(cfg_.sim.phase_window_ns * 1000.0)));
  if (cfg_.sim.max_time_ns > 0) {
    ctx_->phases.set_end_ps(max_time_ps());
  }
  ctx_->phases.attach(ctx_->registry,
                      {platform_->initiators().begin(), platform_->initiators().end()});
  if (ctx_->phases.enabled()) {
    if (Scheduler* s = ctx_->scheduler()) {
      s->set_sampler(&ctx_->phases);
    } else {
      phase_sampler_ = std::make_unique<PhaseSamplerProcess>("phase_sampler", ctx_->phases);
    }
  }
  for (Component* c : ctx_->registry.components()) {
    c->log().set(c->component_name(), cfg_.sim.log.level_for(c->component_name()));
  }
  check_log_modules();
  if (!files_dir.empty()) {
    // An old log never passes for this run's, with or without a log of its own; this run's is
    // written under another name and takes its own only once the run has completed
    // (finish_transaction_log()). Opened after elaboration, which may still refuse the input.
    const std::string log = files_dir + "/transactions.csv";
    std::filesystem::remove(log);
    std::filesystem::remove(log + ".partial");
    if (cfg_.sim.transaction_log) {
      std::filesystem::create_directories(files_dir);
      ctx_->transactions.open(log + ".partial", cfg_.sim.transaction_log_data);
      transaction_log_ = log;
    }
  }
}

Simulation::~Simulation() {
  // A run that did not complete (an input error found during the run, an internal error) leaves
  // no transaction log behind, not even a partial one.
  if (!transaction_log_.empty() && !transaction_log_done_) {
    ctx_->transactions.close_quietly();
    std::error_code ec;
    std::filesystem::remove(transaction_log_ + ".partial", ec);
  }
  // Modules hold payload references only while requests are in flight; after a completed run the
  // pool is idle. Destroy the platform before the context that owns the pool.
  platform_.reset();
}

namespace {

// The VMM locations a placement names, for a buffer whose owner (gpu_local) is `owner`.
std::vector<unsigned> locations_of(const AddressSpace& vmm, const Placement& p, unsigned owner) {
  switch (p.kind) {
    case Placement::Kind::kGpuLocal:
      return {vmm.location(fmt::format("gpu{}_hbm", owner))};
    case Placement::Kind::kGpu:
      return {vmm.location(fmt::format("gpu{}_hbm", p.gpu))};
    case Placement::Kind::kDevice:
    case Placement::Kind::kStriped:
      break;
  }
  std::vector<unsigned> out;
  for (const std::string& d : p.devices) out.push_back(vmm.location(d));
  return out;
}

// The VMM location of GPU g's own HBM; none for a GPU configured without memory of its own.
std::optional<unsigned> own_hbm(const AddressSpace& vmm, unsigned g) {
  const std::string hbm = fmt::format("gpu{}_hbm", g);
  const auto& locs = vmm.locations();
  const auto at = std::find_if(locs.begin(), locs.end(),
                               [&hbm](const AddressSpace::Location& l) { return l.name == hbm; });
  if (at == locs.end()) return std::nullopt;
  return static_cast<unsigned>(at - locs.begin());
}

// Creates `size` bytes of physical memory on `locs` (one location, or striped over several),
// maps it at `va` in mappings of `step` bytes and grants `right` to `users`.
void create_and_map(AddressSpace& vmm, std::uint64_t va, std::uint64_t size,
                    const std::vector<unsigned>& locs, const std::vector<unsigned>& users,
                    AccessRight right, std::uint64_t step) {
  const unsigned alloc =
      locs.size() == 1 ? vmm.create(size, locs[0]) : vmm.create_striped(size, locs);
  for (std::uint64_t o = 0; o < size; o += step) vmm.map(va + o, step, alloc, o);
  for (unsigned g : users) vmm.set_access(va, size, g, right);
}

// Reserves, creates (on one location or striped), maps and grants `right` to `users`. Pagewise:
// one mapping per allocation granule, so that timed events may unmap or remap any page of it
// (cuMemUnmap takes whole mappings only).
std::uint64_t map_region(AddressSpace& vmm, std::uint64_t bytes, const Placement& where,
                         const std::vector<unsigned>& users, AccessRight right,
                         bool pagewise = false) {
  const std::uint64_t gran = vmm.granularity();
  const std::uint64_t size = (bytes + gran - 1) / gran * gran;
  const std::vector<unsigned> locs = locations_of(vmm, where, users[0]);
  const std::uint64_t va = vmm.reserve(size);
  create_and_map(vmm, va, size, locs, users, right, pagewise ? gran : size);
  return va;
}

// buffer.stripe_start: by_gpu: the stream's k-th GPU's buffer (or region) starts on device k,
// modulo the devices.
void rotate_stripes(Placement& where, std::size_t k) {
  std::rotate(where.devices.begin(),
              where.devices.begin() + static_cast<std::ptrdiff_t>(k % where.devices.size()),
              where.devices.end());
}

}  // namespace

CollectivePlan Simulation::collective_plan(const StreamConfig& s,
                                           const GeneratorSpec::Collectives& col, std::size_t rank,
                                           unsigned members) {
  const std::vector<unsigned>& gpus = s.gpus;
  CollectivePlan plan;
  plan.algorithm = col.algorithm;
  plan.members = members;
  const std::uint64_t round = plan.round_bytes(col.max_message_bytes);
  // Two rounds' share, at most NCCL's default buffer of 4 MiB a connection (NCCL_BUFFSIZE,
  // 4194304: NCCL environment variables documentation), through which larger rounds pass in turn.
  plan.buffer_bytes = std::min<std::uint64_t>(2 * round, 4ULL << 20);
  plan.access_bytes =  // an Access is at most 1 GiB (32-bit size)
      static_cast<std::uint32_t>(std::min<std::uint64_t>(round, std::uint64_t{1} << 30));
  // A receive buffer in each destination's HBM, this GPU's alone (a connection's buffer), mapped
  // in this GPU's address space: the next ranks of its group, in turn.
  const std::size_t first = rank / members * members;
  for (unsigned k = 1; k <= plan.destinations(); ++k) {
    Placement where;
    where.kind = Placement::Kind::kGpu;
    where.gpu = gpus[first + (rank - first + k) % members];
    where.text = fmt::format("gpu/{}", where.gpu);
    try {
      plan.peer_va.push_back(
          map_region(*vmm_, plan.buffer_bytes, where, {gpus[rank]}, AccessRight::kReadWrite));
    } catch (const VmmError& e) {
      if (e.reason() != VmmError::Reason::kNoRoom) throw;
      const bool a2a = col.algorithm == CollectivePlan::Algorithm::kAllToAll;
      const std::string name = a2a ? "all_to_all" : "all_reduce";
      const std::string key = s.path + "." + s.generator->kind() + "." + name;
      throw ConfigError(fmt::format(
          "{}: {}: GPU {}'s {} receive buffer of {} B in GPU {}'s HBM does not fit: {}; expected "
          "room for it beside what the run maps there (less mapped in that HBM, or {}: none)",
          doc_.sources->source_of(key), key, gpus[rank], a2a ? "all-to-all" : "all-reduce",
          plan.buffer_bytes, where.gpu, e.what(), name));
    }
  }
  return plan;
}

void Simulation::map_workload() {
  const std::uint64_t gran = vmm_->granularity();
  const auto& streams = cfg_.workload.streams;
  // Each stream's buffers: one per GPU, or one shared (the same record for every GPU).
  buffers_.assign(streams.size(), {});
  for (std::size_t i = 0; i < streams.size(); ++i) {
    const StreamConfig& s = streams[i];
    std::vector<std::unique_ptr<AccessSource>> sources(cfg_.platform.gpu_count);
    try {
      if (s.generator) {
        // The generator's regions, mapped per GPU, then its source.
        const std::vector<RegionSpec> regions = s.generator->regions();
        std::map<std::size_t, std::shared_ptr<GroupBarrier>> barriers;  // by group
        for (std::size_t rank = 0; rank < s.gpus.size(); ++rank) {
          const unsigned g = s.gpus[rank];
          SourceContext c;
          c.rank = static_cast<unsigned>(rank);
          c.gpu = g;
          c.stream = static_cast<unsigned>(i);
          c.sim_seed = cfg_.sim.seed;
          for (const RegionSpec& r : regions) {
            Placement where = r.where;
            if (s.stripe_by_gpu && where.kind == Placement::Kind::kStriped)
              rotate_stripes(where, rank);
            try {
              c.region_va.push_back(
                  map_region(*vmm_, r.bytes, where, {g},
                             r.write ? AccessRight::kReadWrite : AccessRight::kRead));
            } catch (const VmmError& e) {
              if (r.keys.empty() || e.reason() != VmmError::Reason::kNoRoom) throw;
              // Too big for its memory: name the key that set the size, and the product.
              const std::string key = set_key(s.path + "." + s.generator->kind(), r.keys);
              throw ConfigError(fmt::format(
                  "{}: {}: GPU {}'s {} region takes {} B ({}), but {}; expected values of {} with "
                  "which it fits",
                  doc_.sources->source_of(key), key, g, r.role, r.bytes, r.how, e.what(),
                  fmt::join(r.keys, ", ")));
            }
          }
          sources[g] = s.generator->make_source(c);
          const unsigned sync = s.generator->synchronised_group();
          if (sync > 1) {
            auto* phased = dynamic_cast<PhasedSource*>(sources[g].get());
            if (!phased) throw std::logic_error("a synchronised generator made no PhasedSource");
            std::shared_ptr<GroupBarrier>& b = barriers[rank / sync];
            if (!b) {
              const std::size_t first = rank / sync * sync;
              b = std::make_shared<GroupBarrier>(
                  static_cast<unsigned>(std::min<std::size_t>(sync, s.gpus.size() - first)));
            }
            phased->join_group(b);
            const GeneratorSpec::Collectives col = s.generator->collectives();
            if (col.on) phased->set_collective(collective_plan(s, col, rank, sync));
          }
        }
      } else {
        const std::uint64_t size = (s.buffer_bytes + gran - 1) / gran * gran;
        const AccessRight right =
            s.read_fraction >= 1.0 ? AccessRight::kRead : AccessRight::kReadWrite;
        if (s.buffer_from >= 0) {
          buffers_[i] = buffers_[static_cast<std::size_t>(s.buffer_from)];
          // Writing through a buffer first mapped read-only upgrades this GPU's access.
          for (unsigned g : s.gpus) {
            if (right == AccessRight::kReadWrite) {
              vmm_->set_access(buffers_[i][g].va, size, g, right);
              buffers_[i][g].right = right;
            }
          }
        } else {
          buffers_[i].assign(cfg_.platform.gpu_count, BufferRecord{});
          // One buffer per GPU, or one shared by all the stream's GPUs.
          std::vector<std::vector<unsigned>> groups;
          if (s.shared) {
            groups.push_back(s.gpus);
          } else {
            for (unsigned g : s.gpus) groups.push_back({g});
          }
          bool events = false;
          for (const VmmEventConfig& ev : cfg_.workload.vmm_events)
            events = events || ev.stream == i;
          for (std::size_t k = 0; k < groups.size(); ++k) {
            const std::vector<unsigned>& group = groups[k];
            Placement where = s.location;
            if (s.stripe_by_gpu) rotate_stripes(where, k);
            const std::uint64_t va = map_region(*vmm_, size, where, group, right, events);
            for (unsigned g : group) buffers_[i][g] = BufferRecord{va, size, group, right};
          }
        }
        for (unsigned g : s.gpus) {
          sources[g] = std::make_unique<StreamGenerator>(
              s, buffers_[i][g].va, s.buffer_bytes,
              stream_seed(cfg_.sim.seed, g, static_cast<unsigned>(i)));
        }
      }
    } catch (const VmmError& e) {
      // Buffer errors are about its size or placement; name the key that set the size when it
      // was overridden.
      std::string path = s.path + ".buffer";
      if (s.generator) {
        path = s.path + "." + s.generator->kind();
      } else if (doc_.sources->source_of(s.path + ".buffer.bytes") !=
                 doc_.sources->source_of(s.path + ".buffer")) {
        path += ".bytes";
      }
      throw ConfigError(fmt::format("{}: {}: {}", doc_.sources->source_of(path), path, e.what()));
    }
    for (unsigned g : s.gpus) {
      std::vector<unsigned> deps;
      for (unsigned d : s.start_after) {
        const auto& dg = streams[d].gpus;
        if (std::find(dg.begin(), dg.end(), g) != dg.end()) deps.push_back(d);
      }
      platform_->gpu(g).add_stream(s, static_cast<unsigned>(i), std::move(sources[g]), deps);
    }
  }
  check_whole_model_fits();
  for (unsigned g = 0; g < cfg_.platform.gpu_count; ++g) {
    platform_->gpu(g).count_faults(cfg_.workload.count_faults);
  }
  if (!cfg_.workload.vmm_events.empty()) schedule_vmm_events();
  if (cfg_.sim.max_time_ns == 0) check_run_length();
}

void Simulation::check_whole_model_fits() {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  // What every stream's regions would take beyond what is mapped, were all its model's layers
  // simulated, by location (shared out over a striped placement's devices as its pages would be),
  // against what each location has free once everything is mapped.
  const std::uint64_t gran = vmm_->granularity();
  auto whole_pages = [gran](std::uint64_t b) { return (b + gran - 1) / gran; };
  struct Want {
    std::uint64_t bytes = 0;
    std::map<std::size_t, std::set<std::string>> roles;  // by stream
  };
  std::map<unsigned, Want> wants;  // by location
  const auto& streams = cfg_.workload.streams;
  for (std::size_t i = 0; i < streams.size(); ++i) {
    const StreamConfig& s = streams[i];
    if (!s.generator) continue;
    for (const RegionSpec& r : s.generator->regions()) {
      if (r.whole_model_bytes <= r.bytes) continue;
      const std::uint64_t whole = whole_pages(r.whole_model_bytes);
      const std::uint64_t simulated = whole_pages(r.bytes);
      for (std::size_t rank = 0; rank < s.gpus.size(); ++rank) {
        Placement where = r.where;
        if (s.stripe_by_gpu && where.kind == Placement::Kind::kStriped) rotate_stripes(where, rank);
        const std::vector<unsigned> locs = locations_of(*vmm_, where, s.gpus[rank]);
        const std::size_t n = locs.size();
        for (std::size_t j = 0; j < n; ++j) {
          // Location j's share of the whole model's region less its share of the simulated one.
          const std::uint64_t more =
              AddressSpace::stripe_pages(whole, n, j) - AddressSpace::stripe_pages(simulated, n, j);
          if (more == 0) continue;
          Want& w = wants[locs[j]];
          w.bytes += more * gran;
          w.roles[i].insert(r.role);
        }
      }
    }
  }
  // The weights a stream's compute model reads from each GPU's HBM, not mapped: with what the run
  // maps there, they must fit in it, or the run times a deployment that cannot exist.
  std::map<unsigned, std::uint64_t> weights_on;  // by location: every stream's weights there
  for (std::size_t i = 0; i < streams.size(); ++i) {
    const StreamConfig& s = streams[i];
    const std::uint64_t weights = s.generator ? s.generator->hbm_weight_bytes_per_gpu() : 0;
    if (weights == 0) continue;
    for (unsigned g : s.gpus) {
      // A GPU without local memory (none configured) reads no weights from it: nothing to check.
      const std::optional<unsigned> at = own_hbm(*vmm_, g);
      if (!at) continue;
      weights_on[*at] += weights;
      const AddressSpace::Location& l = vmm_->locations()[*at];
      if (weights + l.allocated <= l.capacity || hbm_unfit_.count(i)) continue;
      hbm_unfit_[i] = fmt::format(
          "the model's weights, {} B ({:.2f} GiB) a GPU (its tensor-parallel shard), with the {} "
          "B ({:.2f} GiB) this run maps in {}, exceed its {} B ({:.2f} GiB): the compute model "
          "reads the weights from HBM as though they fitted, so the figures are for a deployment "
          "that cannot exist (more tensor parallelism or a smaller weight format may fit)",
          weights, static_cast<double>(weights) / kGiB, l.allocated,
          static_cast<double>(l.allocated) / kGiB, l.name, l.capacity,
          static_cast<double>(l.capacity) / kGiB);
    }
  }
  // A stream that places data off its GPUs (on a device, striped, in a peer's HBM) although every
  // GPU's own HBM would hold all of it at every layer of the model, beside the weights and what
  // else is mapped there: the run then measures what the device costs, not what it gives; say so.
  for (std::size_t i = 0; i < streams.size(); ++i) {
    const StreamConfig& s = streams[i];
    if (!s.generator || s.gpus.empty() || !s.generator->sizes_whole_model()) continue;
    const std::vector<RegionSpec> regions = s.generator->regions();
    std::uint64_t weights = 0;   // every stream's weights in the GPU's HBM (the most, over GPUs)
    std::set<std::string> away;  // roles of regions placed off the GPU
    std::uint64_t whole = 0;     // every region at every layer, a GPU
    std::uint64_t most_need = 0, least_room = ~std::uint64_t{0};
    bool fits = true;
    for (std::size_t rank = 0; rank < s.gpus.size() && fits; ++rank) {
      const unsigned g = s.gpus[rank];
      const std::optional<unsigned> own_at = own_hbm(*vmm_, g);
      if (!own_at) {
        fits = false;  // a GPU without memory of its own
        break;
      }
      const unsigned own = *own_at;
      // The weights of every stream whose compute reads them from this HBM, this one's included.
      const std::uint64_t weights_here = weights_on.count(own) ? weights_on.at(own) : 0;
      weights = std::max(weights, weights_here);
      std::uint64_t need = weights_here, mapped_here = 0;
      for (const RegionSpec& r : regions) {
        Placement where = r.where;
        if (s.stripe_by_gpu && where.kind == Placement::Kind::kStriped) rotate_stripes(where, rank);
        const std::vector<unsigned> on = locations_of(*vmm_, where, g);
        const bool here = on.size() == 1 && on[0] == own;
        if (!here) away.insert(r.role);
        if (here) mapped_here += whole_pages(r.bytes) * gran;
        need += whole_pages(std::max(r.whole_model_bytes, r.bytes)) * gran;
      }
      if (rank == 0) whole = need - weights_here;
      const AddressSpace::Location& l = vmm_->locations()[own];
      const std::uint64_t room = l.capacity / gran * gran - (l.allocated - mapped_here);
      most_need = std::max(most_need, need);
      least_room = std::min(least_room, room);
      fits = need <= room;
    }
    if (!fits || away.empty()) continue;
    hbm_would_hold_[i] = fmt::format(
        "each GPU's own HBM would hold all of the stream's data: its regions at every layer of the "
        "model take {} B ({:.2f} GiB) a GPU{}, against {} B ({:.2f} GiB) free beside what else is "
        "mapped there; so the run times memory off the GPU where its own HBM would do (the {} "
        "region{} in gpu_local give{} the HBM-only figure to compare)",
        whole, static_cast<double>(whole) / kGiB,
        weights == 0 ? std::string()
                     : fmt::format(", {} B ({:.2f} GiB) with the weights its streams' compute "
                                   "reads there ({} B)",
                                   most_need, static_cast<double>(most_need) / kGiB, weights),
        least_room, static_cast<double>(least_room) / kGiB, fmt::join(away, " and "),
        away.size() == 1 ? "" : "s", away.size() == 1 ? "s" : "");
  }
  for (const auto& [loc, w] : wants) {
    // A GPU's HBM holds the weights its streams read beside what is mapped there.
    const AddressSpace::Location& l = vmm_->locations()[loc];
    const std::uint64_t used = l.allocated + (weights_on.count(loc) ? weights_on.at(loc) : 0);
    const std::uint64_t room = l.capacity / gran * gran;
    const std::uint64_t free = room > used ? room - used : 0;
    if (w.bytes <= free) continue;
    for (const auto& [i, roles] : w.roles) {
      std::string& why = whole_model_unfit_[i];
      if (!why.empty()) continue;  // the first location short of room is named
      why = fmt::format(
          "no whole-model estimate: with every layer of the model, the {} region{} of the "
          "stream's GPUs would take {} B ({:.2f} GiB) more on {} than with the simulated layers{}, "
          "and {} has {} B ({:.2f} GiB) free{}: that deployment does not fit, so the figures "
          "are for the simulated layers only",
          fmt::join(roles, " and "), roles.size() == 1 ? "" : "s", w.bytes,
          static_cast<double>(w.bytes) / kGiB, l.name,
          w.roles.size() > 1 ? " (with the other streams that grow there)" : "", l.name, free,
          static_cast<double>(free) / kGiB,
          weights_on.count(loc) ? fmt::format(" beside the model weights the compute model reads "
                                              "there ({} B)",
                                              weights_on.at(loc))
                                : "");
    }
  }
}

std::vector<std::string> Simulation::whole_model_warnings() const {
  std::vector<std::string> out;
  for (const auto* unfit : {&hbm_unfit_, &whole_model_unfit_}) {
    for (const auto& [i, why] : *unfit) {
      out.push_back(fmt::format("{} ({}): {}", cfg_.workload.streams[i].name,
                                cfg_.workload.streams[i].path, why));
    }
  }
  for (const StreamConfig& s : cfg_.workload.streams) {
    if (!s.generator) continue;
    if (const std::string why = s.generator->no_estimate_reason(); !why.empty())
      out.push_back(fmt::format("{} ({}): {}", s.name, s.path, why));
  }
  return out;
}

std::vector<std::string> Simulation::placement_notes() const {
  std::vector<std::string> out;
  for (const auto& [i, what] : hbm_would_hold_) {
    out.push_back(fmt::format("{} ({}): {}", cfg_.workload.streams[i].name,
                              cfg_.workload.streams[i].path, what));
  }
  return out;
}

std::string Simulation::set_key(const std::string& base,
                                const std::vector<std::string>& keys) const {
  // The key a --set changed (itself, or a range's min or max), the likely typo; else the first.
  for (const std::string& k : keys) {
    for (const char* part : {"", ".min", ".max"}) {
      const std::string key = base + "." + k + part;
      if (doc_.sources->source_of(key).rfind("--set", 0) == 0) return key;
    }
  }
  return base + "." + keys.front();
}

void Simulation::check_run_length() const {
  // A total_bytes typo (16 TiB for 16 GiB) would run for days of host time and only then stop at
  // 2^48 ps. Every byte a stream moves passes through the channels of the memories it is on, so
  // the bytes bound for a set of memories over their peak bandwidth together is a time no run can
  // beat; past 2^48 ps the workload cannot finish. Pattern streams are bound for their total_bytes;
  // generator streams for the bytes their configuration makes them move at least
  // (GeneratorSpec::bytes_moved_at_least: steps x batch x context for kv_decode, ...), which
  // a typo in steps or prompts inflates the same way. Streams limited by a duration are checked
  // by it (check_stop_time); traces are read lazily and give no figure.
  const PlatformConfig& pc = cfg_.platform;
  auto peak_of = [&](const std::string& target) {
    for (const DeviceConfig& d : pc.devices) {
      if (d.name == target) return d.memory.channel_peak_gbps() * d.memory.channels;
    }
    return pc.gpu_local.channel_peak_gbps() * pc.gpu_local.channels;  // gpuN_hbm
  };
  auto memories_of = [](const Placement& where, unsigned g, std::vector<std::string>& set) {
    switch (where.kind) {
      case Placement::Kind::kGpuLocal:
        set.push_back(fmt::format("gpu{}_hbm", g));
        break;
      case Placement::Kind::kGpu:
        set.push_back(fmt::format("gpu{}_hbm", where.gpu));
        break;
      default:
        set.insert(set.end(), where.devices.begin(), where.devices.end());
    }
  };
  struct Load {
    double bytes = 0;
    double biggest_bytes = 0;  // the stream (or generator figure) moving the most of them
    std::string key;           // the key that set it
    std::string hint;          // what to check
    bool generators = false;   // a generator stream adds to it
  };
  std::map<std::vector<std::string>, Load> loads;  // memories taken together -> bytes
  auto add = [&](std::vector<std::string> set, double bytes, const std::string& key,
                 const std::string& hint, bool generator) {
    std::sort(set.begin(), set.end());
    set.erase(std::unique(set.begin(), set.end()), set.end());
    Load& l = loads[set];
    l.bytes += bytes;
    l.generators = l.generators || generator;
    if (bytes > l.biggest_bytes) {
      l.biggest_bytes = bytes;
      l.key = key;
      l.hint = hint;
    }
  };
  for (const StreamConfig& s : cfg_.workload.streams) {
    // A duration stops the stream however many bytes remain (check_stop_time bounds it).
    if (s.duration_ns > 0) continue;
    if (s.generator) {
      const std::string gen = s.path + "." + s.generator->kind();
      for (const GeneratorSpec::MovedBytes& m :
           s.generator->bytes_moved_at_least(static_cast<unsigned>(s.gpus.size()))) {
        // The stream's GPUs together: the memories any of them uses (a lower bound on the time
        // whichever GPU the bytes fall to).
        std::vector<std::string> set;
        for (const Placement& w : m.where) {
          for (unsigned g : s.gpus) memories_of(w, g, set);
        }
        const std::string key = set_key(gen, m.keys);
        add(std::move(set), m.bytes, key,
            fmt::format("{} moves at least {}; check {} for a typo", s.generator->kind(), m.how,
                        fmt::join(m.keys, ", ")),
            true);
      }
      continue;
    }
    if (s.total_bytes == std::numeric_limits<std::uint64_t>::max()) continue;
    for (unsigned g : s.gpus) {
      std::vector<std::string> set;
      memories_of(s.location, g, set);
      add(std::move(set), static_cast<double>(s.total_bytes), s.path + ".total_bytes",
          "check total_bytes for a unit typo, or give the stream a duration_ns", false);
    }
  }
  for (const auto& [set, l] : loads) {
    double peak = 0;
    for (const std::string& t : set) peak += peak_of(t);
    const double seconds = l.bytes / (peak * 1e9);
    if (seconds * 1e12 <= static_cast<double>(kMaxSimTimePs)) continue;
    throw ConfigError(fmt::format(
        "{}: {}: the {} streams move {}{:.6g} GB to {}, whose {:.2f} GB/s of peak channel "
        "bandwidth takes at least {:.6g} s for them, past 2^48 ps (281 s), the longest famsim "
        "represents; expected at most {:.6g} GB in total there ({})",
        doc_.sources->source_of(l.key), l.key, l.generators ? "workload's" : "pattern",
        l.generators ? "at least " : "", l.bytes * 1e-9, fmt::join(set, " + "), peak, seconds,
        peak * static_cast<double>(kMaxSimTimePs) * 1e-12, l.hint));
  }
  // The same for each GPU's fabric links (a slow link, lane_gbps 1e-9, would otherwise run into
  // 2^48 ps and be reported without a key): a pattern stream's bytes to memory that is not the
  // GPU's own cross its gpu_link.per_gpu links, reads one way and writes the other, so at best at
  // twice their bandwidth per direction.
  if (pc.gpu_link.present) {
    const std::string link =
        doc_.root["links"]["gpu_switch"].IsDefined() ? "links.gpu_switch" : "links.gpu_device";
    const double link_gbps = 2.0 * pc.gpu_link.per_gpu * pc.gpu_link.params.bandwidth_gbps();
    std::map<unsigned, double> link_bytes;                       // GPU -> bytes through its links
    std::map<unsigned, std::pair<double, std::string>> biggest;  // GPU -> its largest stream
    for (const StreamConfig& s : cfg_.workload.streams) {
      if (s.duration_ns > 0 || s.generator ||
          s.total_bytes == std::numeric_limits<std::uint64_t>::max()) {
        continue;
      }
      for (unsigned g : s.gpus) {
        const bool own = s.location.kind == Placement::Kind::kGpuLocal ||
                         (s.location.kind == Placement::Kind::kGpu && s.location.gpu == g);
        if (own) continue;
        link_bytes[g] += static_cast<double>(s.total_bytes);
        if (static_cast<double>(s.total_bytes) > biggest[g].first)
          biggest[g] = {static_cast<double>(s.total_bytes), s.path + ".total_bytes"};
      }
    }
    for (const auto& [g, bytes] : link_bytes) {
      const double seconds = bytes / (link_gbps * 1e9);
      if (seconds * 1e12 <= static_cast<double>(kMaxSimTimePs)) continue;
      // The link key a --set changed, the likely typo; else the stream's size.
      std::string key = set_key(link, {"lane_gbps", "lanes", "encoding_efficiency", "per_gpu"});
      if (doc_.sources->source_of(key).rfind("--set", 0) != 0) key = biggest[g].second;
      throw ConfigError(fmt::format(
          "{}: {}: GPU {}'s pattern streams move {:.6g} GB over its {} {} link{} of {:.6g} GB/s "
          "per direction, at least {:.6g} s, past 2^48 ps (281 s), the longest famsim "
          "represents; expected links of at least {:.6g} GB/s per direction (lanes x lane_gbps x "
          "encoding_efficiency / 8), or less total_bytes",
          doc_.sources->source_of(key), key, g, bytes * 1e-9, pc.gpu_link.per_gpu, link,
          pc.gpu_link.per_gpu == 1 ? "" : "s", pc.gpu_link.params.bandwidth_gbps(), seconds,
          bytes / (2.0 * pc.gpu_link.per_gpu * static_cast<double>(kMaxSimTimePs) * 1e-3)));
    }
  }
}

void Simulation::check_log_modules() const {
  // A misspelt prefix would otherwise leave the run silent, as if the block had nothing to say.
  const auto& blocks = ctx_->registry.components();
  for (const auto& [prefix, level] : cfg_.sim.log.modules) {
    const bool covers = std::any_of(blocks.begin(), blocks.end(), [&](const Component* c) {
      return log_prefix_covers(prefix, c->component_name());
    });
    if (covers) continue;
    std::vector<std::string> names;
    for (const Component* c : blocks) {
      const std::string& m = c->component_name();
      const std::string top = m.substr(0, m.find('.'));
      if (std::find(names.begin(), names.end(), top) == names.end()) names.push_back(top);
    }
    throw ConfigError(fmt::format(
        "{}: sim.log.modules: '{}' is no block of this platform nor a prefix of one (whole "
        "name parts); expected a name under one of: {}",
        doc_.sources->source_of("sim.log.modules"), prefix, fmt::join(names, ", ")));
  }
}

void Simulation::schedule_vmm_events() {
  std::vector<VmmEventPlayer::Action> actions;
  const auto ps = [](double ns) { return static_cast<std::uint64_t>(std::llround(ns * 1000.0)); };
  for (const VmmEventConfig& ev : cfg_.workload.vmm_events) {
    const StreamConfig& s = cfg_.workload.streams[ev.stream];
    // The distinct buffers of the stream (a shared buffer once).
    std::vector<BufferRecord> targets;
    for (unsigned g : s.gpus) {
      const BufferRecord& b = buffers_[ev.stream][g];
      bool seen = false;
      for (const BufferRecord& t : targets) seen = seen || t.va == b.va;
      if (!seen) targets.push_back(b);
    }
    const std::uint64_t start = ps(ev.at_ns);
    const std::uint64_t done = ps(ev.at_ns + ev.cost_ns);
    AddressSpace* vmm = vmm_.get();
    for (const BufferRecord& b : targets) {
      const std::uint64_t va = b.va + ev.offset_bytes;
      const std::uint64_t bytes = ev.bytes;
      const std::string range = fmt::format("0x{:x}+0x{:x}", va, bytes);
      const std::uint64_t gran = vmm_->granularity();
      // The buffer is mapped page by page (map_region), so any page range unmaps.
      const auto unmap_pages = [vmm, va, bytes, gran] {
        for (std::uint64_t o = 0; o < bytes; o += gran) vmm->unmap(va + o, gran);
      };
      const std::string what = fmt::format("{} ({} {})", ev.path,
                                           ev.op == VmmEventConfig::Op::kUnmap       ? "unmap"
                                           : ev.op == VmmEventConfig::Op::kSetAccess ? "set_access"
                                                                                     : "remap",
                                           range);
      switch (ev.op) {
        case VmmEventConfig::Op::kUnmap:
          actions.push_back({done, what, ev.source, unmap_pages});
          break;
        case VmmEventConfig::Op::kSetAccess: {
          const std::vector<unsigned> gpus = ev.gpus;
          const AccessRight right = ev.access;
          actions.push_back({done, what, ev.source, [vmm, va, bytes, gpus, right] {
                               for (unsigned g : gpus) vmm->set_access(va, bytes, g, right);
                             }});
          break;
        }
        case VmmEventConfig::Op::kRemap: {
          actions.push_back({start, what + ": unmap", ev.source, unmap_pages});
          const std::vector<unsigned> locs = locations_of(*vmm, ev.location, b.users[0]);
          const std::vector<unsigned> users = b.users;
          const AccessRight right = b.right;
          actions.push_back({done, what + ": map on " + ev.location.text, ev.source,
                             [vmm, va, bytes, gran, locs, users, right] {
                               create_and_map(*vmm, va, bytes, locs, users, right, gran);
                             }});
          break;
        }
      }
    }
  }
  vmm_events_ = std::make_unique<VmmEventPlayer>("vmm_events", *ctx_, std::move(actions));
}

Simulation::ProgressBasis Simulation::progress_basis() const {
  ProgressBasis b;
  const std::vector<StreamConfig>& streams = cfg_.workload.streams;
  // A pattern stream ends after its total_bytes or at the end of its duration, whichever comes
  // first; a generator after its phases (steps x layers, ...), which its configuration fixes
  // unless it reads a trace; a trace gives no total up front. When every stream is bound by
  // bytes, the bytes delivered tell how far the run is; when every stream is a generator with
  // its phases known, the phases finished do (their bytes differ: a step's grow with its
  // context); when every stream is bound by a duration from a fixed start, the simulated time.
  bool by_bytes = !streams.empty(), by_time = !streams.empty(), by_phases = !streams.empty();
  double bytes = 0, end_ns = 0, phases = 0;
  for (const StreamConfig& s : streams) {
    by_bytes =
        by_bytes && !s.generator && s.total_bytes != std::numeric_limits<std::uint64_t>::max();
    by_time = by_time && !s.generator && s.duration_ns > 0 && s.start_after.empty();
    const std::uint64_t n =
        s.generator ? s.generator->phases_total(static_cast<unsigned>(s.gpus.size())) : 0;
    by_phases = by_phases && n > 0 && s.duration_ns <= 0;
    bytes += static_cast<double>(s.total_bytes) * static_cast<double>(s.gpus.size());
    end_ns = std::max(end_ns, s.start_ns + s.duration_ns);
    phases += static_cast<double>(n);
  }
  if (by_bytes) b.bytes = bytes;
  if (by_time) b.end_ps = end_ns * 1e3;
  if (by_phases) b.phases = phases;
  // sim.max_time_ns stops the run there whatever the workload.
  if (cfg_.sim.max_time_ns > 0) b.limit_ps = cfg_.sim.max_time_ns * 1e3;
  return b;
}

std::uint64_t Simulation::phases_ended(std::uint64_t now_ps) const {
  std::uint64_t done = 0;
  const std::vector<StreamConfig>& streams = cfg_.workload.streams;
  for (unsigned i = 0; i < streams.size(); ++i) {
    for (unsigned g : streams[i].gpus) done += platform_->gpu(g).phases_ended(i, now_ps);
  }
  return done;
}

double Simulation::ProgressBasis::fraction(double delivered_bytes, double phases_done,
                                           double now_ps) const {
  // Each figure is the share done if the run ends the way it counts (all bytes moved or phases
  // finished, the duration or the time limit reached); the run ends at whichever comes first, so
  // the largest share is the one to believe. -1: nothing to go by.
  double f = -1;
  if (bytes > 0) f = std::max(f, delivered_bytes / bytes);
  if (phases > 0) f = std::max(f, phases_done / phases);
  if (end_ps > 0) f = std::max(f, now_ps / end_ps);
  if (limit_ps > 0) f = std::max(f, now_ps / limit_ps);
  return f < 0 ? f : std::min(f, 1.0);
}

void Simulation::report_progress(double every_seconds, std::ostream& os) {
  Scheduler* s = ctx_->scheduler();
  if (!s || every_seconds <= 0) return;
  using Clock = std::chrono::steady_clock;
  const auto every =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(every_seconds));
  const Clock::time_point start = Clock::now();
  const ProgressBasis basis = progress_basis();
  s->set_after_run_ahead([this, &os, start, every, basis,
                          due = start + every](std::uint64_t now_ps) mutable {
    const Clock::time_point t = Clock::now();
    if (t < due) return;
    due = t + every;
    const double host = std::chrono::duration<double>(t - start).count();
    const std::uint64_t done = ctx_->hop_breakdown.requests();
    std::string line = fmt::format(
        "famsim: progress: {:.3f} us simulated, {} requests completed, {:.1f} host s "
        "({:.0f} requests per host second)",
        static_cast<double>(now_ps) * 1e-6, done, host,
        host > 0 ? static_cast<double>(done) / host : 0.0);
    const std::uint64_t phases = basis.phases > 0 ? phases_ended(now_ps) : 0;
    const double f = basis.fraction(static_cast<double>(totals().bytes_delivered),
                                    static_cast<double>(phases), static_cast<double>(now_ps));
    if (f >= 0) {
      line += fmt::format(", about {:.1f} % done", 100 * f);
      if (basis.phases > 0) line += fmt::format(" ({} of {:.0f} phases)", phases, basis.phases);
      // At the rate so far: a run that slows down (a later phase, a deeper queue) takes
      // longer than this says.
      if (f > 0) {
        const double left = host * (1 - f) / f;
        line += fmt::format(
            left < 100 ? ", about {:.1f} host s left" : ", about {:.0f} host s left", left);
        if (left >= 86400) {
          line += fmt::format(" ({:.1f} days)", left / 86400);
        } else if (left >= 3600) {
          line += fmt::format(" ({:.1f} h)", left / 3600);
        }
        // A workload too long for famsim's time (a steps or prompts typo the up-front check's
        // lower bound let through) says so here rather than after days of host time.
        const double end_ps = static_cast<double>(now_ps) / f;
        if (end_ps > static_cast<double>(kMaxSimTimePs)) {
          line += fmt::format(
              "; at this rate it ends near {:.0f} s simulated, past 2^48 ps (281 s), the longest "
              "famsim represents: it cannot finish, shorten the workload",
              end_ps * 1e-12);
        }
      }
    }
    os << line << '\n' << std::flush;
  });
}

void Simulation::run() {
  // A foreign memory model (model: external) is bound by the user's own sc_main, which calls this
  // after binding every channel (README, "Co-simulation"); the famsim command binds none. SystemC
  // would only stop at the unbound socket with its own error.
  for (TlmMemoryBridge* ch : platform_->external_channels()) {
    if (ch->out.bind_count() > 0) continue;
    throw ConfigError(ch->params().config_location +
                      ": external is a foreign TLM-2.0 target that your own sc_main binds to each "
                      "channel (README, \"Co-simulation\"); " +
                      ch->name() +
                      " has none bound: the famsim command binds none, so give model dram or "
                      "ideal to run it here");
  }
  if (cfg_.platform.trace_player.present && cfg_.platform.trace_player.params.file.empty()) {
    throw ConfigError(doc_.sources->source_of("trace_player") +
                      ": trace_player.file: missing: give the trace to replay with --trace FILE "
                      "(and --trace-format)");
  }
  if (cfg_.sim.max_time_ns > 0 && !ctx_->scheduler()) {
    sc_core::sc_start(sc_core::sc_time(cfg_.sim.max_time_ns, sc_core::SC_NS));
  } else {
    sc_core::sc_start();
  }
  if (detail::g_time_limit_hit && !ctx_->input_error && platform_->trace_player()) {
    // An open-loop trace whose last timestamps leave its requests no time to complete: another
    // block (a controller) asked for the time; the player names the line that took the run there.
    ctx_->input_error = platform_->trace_player()->time_limit_error();
  }
  if (detail::g_time_limit_hit && !ctx_->input_error) {
    // What asked for the time did not say (the GPUs and trace players name the stream, key or
    // trace line when it is theirs): name the files whose values set the run's length.
    const bool standalone = cfg_.platform.trace_player.present;
    const std::string workload =
        standalone ? cfg_.platform.trace_player.params.file : doc_.sources->source_of("workload");
    ctx_->input_error = fmt::format(
        "{}: simulated time would pass 2^48 ps (281 s), the longest famsim represents: shorten "
        "the {} or check the clock and bandwidth values of the platform ({})",
        workload,
        standalone ? "trace" : "workload (total_bytes, duration_ns, start_ns, compute times)",
        doc_.sources->source_of(""));
  }
  if (ctx_->input_error) return;
  // An idle DRAM controller is not woken for its refreshes; it replays them when work arrives or
  // at the end of the run (DramController::finish). Done here rather than when the stats are
  // gathered, so that the run's host time counts that work (about one refresh period per idle
  // channel since the idle fast-forward, ControllerCore::run_until; nvl8_fam has 1280 HBM channels
  // idle under device traffic).
  const std::uint64_t end_ps = report_window().end_ps;
  for (DramController* c : platform_->dram_controllers()) c->finish(end_ps);
  // timeseries.csv runs to the end too, past the last response (a workload's last compute).
  ctx_->timeseries.extend_to(end_ps);
}

nlohmann::json Simulation::check_dram_logs() const {
  if (dram_log_dir_.empty()) return nullptr;
  nlohmann::json out;
  bool ok = true;
  nlohmann::json files = nlohmann::json::object();
  for (const DramController* c : platform_->dram_controllers()) {
    const std::string& path = c->command_log();
    // The controllers replayed their refreshes up to the end of the run (DramController::
    // finish), so the refresh count is checked up to there, not to the last command; a
    // controller may have run on after the last answer (posted writes draining).
    const double tck = c->core().spec().timing.tck_ps;
    const std::uint64_t end_cycle =
        std::max(static_cast<std::uint64_t>(static_cast<double>(simulated_time().value()) / tck),
                 c->core().last_run_cycle()) +
        1;
    const dram::LogCheckResult r = dram::check_log_file(path, c->core().spec(), end_cycle);
    nlohmann::json f;
    // Named where the run's files end up (see the constructor), not where they were written.
    f["file"] = (std::filesystem::path(out_dir_) / "dram" / std::filesystem::path(path).filename())
                    .string();
    f["commands"] = r.commands;
    f["violations"] = r.violation_count;
    nlohmann::json first = nlohmann::json::array();
    for (std::size_t i = 0; i < r.violations.size() && i < 10; ++i) {
      first.push_back(fmt::format("line {} cycle {}: {}: {}", r.violations[i].line,
                                  r.violations[i].cycle, r.violations[i].constraint,
                                  r.violations[i].message));
    }
    f["first_violations"] = first;
    ok = ok && r.violation_count == 0;
    files[c->name()] = f;
  }
  out["ok"] = ok;
  out["logs"] = files;
  return out;
}

InitiatorTotals Simulation::totals() const {
  InitiatorTotals t;
  for (const Initiator* i : platform_->initiators()) {
    const Initiator& gpu = *i;
    t.issued += gpu.issued();
    t.completed += gpu.completed();
    t.bytes_requested += gpu.bytes_requested();
    t.bytes_delivered += gpu.bytes_delivered();
    t.duplicates += gpu.duplicates();
    t.data_mismatches += gpu.data_mismatches();
    const auto& m = gpu.first_data_mismatches();
    t.first_data_mismatches.insert(t.first_data_mismatches.end(), m.begin(), m.end());
  }
  auto& m = t.first_data_mismatches;
  std::sort(m.begin(), m.end(),
            [](const Initiator::DataMismatch& a, const Initiator::DataMismatch& b) {
              return a.complete_ps != b.complete_ps ? a.complete_ps < b.complete_ps : a.id < b.id;
            });
  if (m.size() > Initiator::kMismatchesKept) m.resize(Initiator::kMismatchesKept);
  return t;
}

bool Simulation::truncated() const {
  if (cfg_.sim.max_time_ns <= 0) return false;
  for (const Initiator* i : platform_->initiators()) {
    if (!i->finished()) return true;
  }
  return false;
}

sc_core::sc_time Simulation::simulated_time() const {
  if (truncated()) {
    return sc_core::sc_time::from_value(max_time_ps());
  }
  std::uint64_t end = 0;
  for (const Initiator* i : platform_->initiators()) end = std::max(end, i->work_end_ps());
  return sc_core::sc_time::from_value(end);
}

ReportWindow Simulation::report_window() const {
  ReportWindow w;
  w.end_ps = simulated_time().value();
  w.start_ps = w.end_ps;
  for (const Initiator* i : platform_->initiators()) {
    if (i->issued() > 0) w.start_ps = std::min(w.start_ps, i->first_issue_ps());
  }
  return w;
}

nlohmann::json check_conservation(const SimContext& ctx, const InitiatorTotals& t, bool truncated) {
  nlohmann::json c;
  c["issued"] = t.issued;
  c["completed"] = t.completed;
  c["duplicates"] = t.duplicates;
  c["bytes_requested"] = t.bytes_requested;
  c["bytes_delivered"] = t.bytes_delivered;
  c["data_mismatches"] = t.data_mismatches;
  c["leaked_payloads"] = ctx.pool.in_use();

  nlohmann::json holding = nlohmann::json::object();
  for (const Component* comp : ctx.registry.components()) {
    const std::size_t n = comp->occupancy();
    if (n) holding[comp->component_name()] = n;
  }
  c["components_holding_requests"] = holding;

  nlohmann::json stuck = nlohmann::json::array();
  auto in_use = ctx.pool.in_use_payloads();
  // Listed by request id: the pool's own order depends on the order payloads were recycled.
  std::sort(in_use.begin(), in_use.end(),
            [](const Payload* a, const Payload* b) { return ext_of(*a).id < ext_of(*b).id; });
  constexpr std::size_t kListed = 20;
  for (std::size_t i = 0; i < in_use.size() && i < kListed; ++i) {
    const Payload& p = *in_use[i];
    const RequestExt& e = ext_of(p);
    const bool on_response = e.resp_cursor < e.hop_count;
    const HopRecord& h =
        on_response ? e.hops[e.resp_cursor] : e.hops[std::max(1, int(e.hop_count)) - 1];
    stuck.push_back({{"id", e.id},
                     {"gpu", e.gpu},
                     {"command", p.is_read() ? "read" : "write"},
                     {"virtual_address", fmt::format("0x{:x}", e.virtual_address)},
                     {"physical_address", fmt::format("0x{:x}", e.physical_address)},
                     {"issued_ns", static_cast<double>(e.issue_ps) * 1e-3},
                     {"last_block", BlockRegistry::name(h.block())},
                     {"direction", on_response ? "response" : "request"}});
  }
  c["stuck_requests"] = stuck;
  c["stuck_requests_total"] = in_use.size();
  // The first reads that did not return the pattern written (verify_reads), for a debugger to
  // start from: which request, where, and its first wrong byte against the one expected.
  nlohmann::json mismatches = nlohmann::json::array();
  for (const Initiator::DataMismatch& m : t.first_data_mismatches) {
    mismatches.push_back({{"id", m.id},
                          {"gpu", m.gpu},
                          {"virtual_address", fmt::format("0x{:x}", m.virtual_address)},
                          {"physical_address", fmt::format("0x{:x}", m.physical_address)},
                          {"bytes", m.bytes},
                          {"wrong_bytes", m.wrong_bytes},
                          {"first_wrong_offset", m.first_wrong_offset},
                          {"expected_byte", fmt::format("0x{:02x}", m.expected)},
                          {"read_byte", fmt::format("0x{:02x}", m.read)},
                          {"complete_ns", static_cast<double>(m.complete_ps) * 1e-3}});
  }
  c["first_data_mismatches"] = mismatches;
  c["truncated"] = truncated;
  // Issued but not completed: 0 in a finished run; in a truncated one, what leaked_payloads must
  // equal (each request in flight holds one payload).
  c["in_flight"] = t.issued >= t.completed ? t.issued - t.completed : 0;

  bool ok;
  if (truncated) {
    // Cut off by sim.max_time_ns: the requests still in flight hold exactly one payload each, and
    // everything that completed is accounted for.
    const std::uint64_t in_flight = t.issued - t.completed;
    ok = t.issued >= t.completed && t.duplicates == 0 && t.data_mismatches == 0 &&
         ctx.pool.in_use() == in_flight && t.bytes_delivered <= t.bytes_requested;
  } else {
    ok = t.issued == t.completed && t.duplicates == 0 && t.bytes_requested == t.bytes_delivered &&
         ctx.pool.in_use() == 0 && holding.empty() && t.data_mismatches == 0;
  }
  c["ok"] = ok;
  return c;
}

nlohmann::json Simulation::results(double host_seconds, double peak_rss_mib) const {
  const sc_core::sc_time end = simulated_time();
  const ReportWindow window = report_window();
  const InitiatorTotals t = totals();

  // Every initiator's completed requests, by the class of memory they went to, and over all.
  std::array<TargetTraffic, kTargetClasses> by_class;
  for (const Initiator* i : platform_->initiators()) {
    for (TargetClass c : kAllTargetClasses) by_class[static_cast<unsigned>(c)].merge(i->traffic(c));
  }
  TargetTraffic total;
  nlohmann::json by_target = nlohmann::json::object();
  for (TargetClass c : kAllTargetClasses) {
    const TargetTraffic& t = by_class[static_cast<unsigned>(c)];
    total.merge(t);
    by_target[to_string(c)] = t.to_json(window, true);
  }

  nlohmann::json j;
  j["sim"] = {{"simulated_time_ns", to_ns(end)},
              {"active_from_ns", static_cast<double>(window.start_ps) * 1e-3},
              {"truncated", truncated()},
              {"host_seconds", host_seconds},
              {"requests_completed", t.completed},
              {"requests_per_host_second", host_seconds > 0 ? t.completed / host_seconds : 0.0},
              {"peak_rss_mib", peak_rss_mib},
              {"seed", cfg_.sim.seed},
              {"famsim_version", kVersion},
              {"platform", cfg_.platform.name},
              {"workload", cfg_.workload.name}};
  // Bytes, bandwidths and latencies over every target, as each target's under by_target.
  j["summary"] = total.to_json(window, true);
  j["summary"]["read_latency_histogram"] = total.read_latency.bins_json();
  j["summary"]["write_latency_histogram"] = total.write_latency.bins_json();
  j["summary"]["by_target"] = by_target;
  // And by the memory that served them.
  j["summary"]["by_memory"] = ctx_->memories.by_memory_json(window);
  j["summary"]["device_balance"] = ctx_->memories.device_balance();
  // And how evenly the GPUs were served.
  std::vector<GpuActivity> gpus;
  for (unsigned g = 0; g < platform_->gpu_count(); ++g) {
    const Gpu& gpu = platform_->gpu(g);
    const TargetTraffic all = gpu.total_traffic();
    LatencyHistogram latency;  // reads and writes together
    latency.merge(all.read_latency);
    latency.merge(all.write_latency);
    gpus.push_back({gpu.name(), all.read_bytes + all.write_bytes, latency.count(),
                    latency.mean_ns(), gpu.first_issue_ps(), gpu.last_completion_ps()});
  }
  j["summary"]["gpu_balance"] = gpu_balance(gpus);
  j["latency_breakdown_ns"] = ctx_->hop_breakdown.to_json();
  // Open-loop traces: how far issue fell behind the timestamps, over every initiator that
  // replayed some (each one's own under components).
  IssueLag lag;
  bool timed = false;
  for (const Initiator* i : platform_->initiators()) {
    if (const IssueLag* l = i->issue_lag()) {
      lag.merge(*l);
      timed = true;
    }
  }
  if (timed) {
    j["issue_lag"] = lag.to_json();
    j["issue_lag"]["behind"] = lag.material();
    if (lag.material()) j["issue_lag"]["sentence"] = lag.sentence();
  }
  std::vector<ResourceRecord> resources;
  std::vector<std::string> mismatches;
  j["components"] = ctx_->registry.report_all(window, &resources, &mismatches);
  // An internal fault, not the user's: the results are still written, and the run fails after.
  j["report_probe_check"] = {{"ok", mismatches.empty()}, {"mismatches", mismatches}};
  // The bound is on the total over every target; the sentence says how it splits when it does.
  std::vector<AchievedPart> achieved_by_target;
  for (TargetClass c : kAllTargetClasses) {
    const TargetTraffic& t = by_class[static_cast<unsigned>(c)];
    if (t.read_bytes + t.write_bytes > 0) {
      achieved_by_target.push_back(
          {label(c), by_target[to_string(c)]["bandwidth_gbps"].get<double>()});
    }
  }
  // Memory channels that took turns: the pools that wait on them get advice that names the
  // interleave, and no slot count.
  const nlohmann::json turns =
      ctx_->timeseries.enabled() ? channel_turns(resources) : nlohmann::json::array();
  const auto amend = [&turns](ResourceRecord& r) { wait_on_channel_turns(turns, r); };
  for (ResourceRecord& r : resources) amend(r);
  j["bottlenecks"] = analyze_bottlenecks(resources, j["summary"]["bandwidth_gbps"].get<double>(),
                                         cfg_.sim.saturation_threshold, achieved_by_target);
  if (ctx_->timeseries.enabled()) {
    j["bottlenecks"]["channel_turns"] = turns;
    note_channel_turns(j["bottlenecks"], turns);
  }
  if (ctx_->phases.enabled()) {
    j["bottlenecks"]["phases"] =
        ctx_->phases.analyze(window, cfg_.sim.saturation_threshold,
                             turns.empty() ? std::function<void(ResourceRecord&)>() : amend);
    note_phases(j["bottlenecks"]);
  }
  if (ctx_->timeseries.enabled()) note_direction_phases(j["bottlenecks"]);
  // Generator streams: their configuration in numbers, their result over all their GPUs
  // (GeneratorSpec::combine says what each field means), and each GPU's (also under
  // components.<gpu>.streams).
  nlohmann::json wl = nlohmann::json::object();
  for (const StreamConfig& st : cfg_.workload.streams) {
    if (!st.generator) continue;
    nlohmann::json e = {{"kind", st.generator->kind()}, {"summary", st.generator->summary()}};
    std::vector<nlohmann::json> reports;
    nlohmann::json per_gpu = nlohmann::json::object();
    const auto& c = j["components"];
    for (unsigned g : st.gpus) {
      const std::string gpu = platform_->gpu(g).name();
      // One report per GPU in the stream's GPU order (an empty one for a GPU that reported
      // nothing): combine() finds a GPU's tensor-parallel group from its position.
      reports.push_back(nlohmann::json::object());
      if (c.contains(gpu) && c[gpu].contains("streams") && c[gpu]["streams"].contains(st.name) &&
          c[gpu]["streams"][st.name].contains("generator")) {
        reports.back() = c[gpu]["streams"][st.name]["generator"];
        per_gpu[gpu] = reports.back();
      }
    }
    e["result"] = st.generator->combine(reports);
    const std::size_t index = static_cast<std::size_t>(&st - cfg_.workload.streams.data());
    nlohmann::json& result = e["result"];
    auto add_note = [&result](const std::string& note) {
      result["note"] =
          result.contains("note") ? result["note"].get<std::string>() + "; " + note : note;
    };
    if (const auto unfit = hbm_unfit_.find(index); unfit != hbm_unfit_.end()) {
      add_note(unfit->second);
    }
    if (const auto unfit = whole_model_unfit_.find(index); unfit != whole_model_unfit_.end()) {
      // The estimate assumes a deployment that does not fit: withheld (every key a generator
      // names *_whole_model_estimate), and the reason given.
      const std::string suffix = "_whole_model_estimate";
      for (auto it = result.begin(); it != result.end();) {
        const std::string& k = it.key();
        const bool estimate = k.size() > suffix.size() &&
                              k.compare(k.size() - suffix.size(), suffix.size(), suffix) == 0;
        it = estimate ? result.erase(it) : std::next(it);
      }
      add_note(unfit->second);
    }
    if (const auto hold = hbm_would_hold_.find(index); hold != hbm_would_hold_.end()) {
      add_note(hold->second);
    }
    e["gpus"] = per_gpu;
    wl[st.name] = e;
  }
  j["workload"] = {{"streams", wl}};
  if (ctx_->timeseries.enabled()) j["timeseries"] = ctx_->timeseries.summary();
  if (ctx_->timeline.enabled()) {
    j["timeline"] = {{"file", "timeline.json"},
                     {"requests", ctx_->timeline.requests()},
                     {"sample_every", cfg_.sim.timeline_every}};
  }
  if (!transaction_log_.empty()) {
    j["transaction_log"] = {{"file", "transactions.csv"},
                            {"transactions", ctx_->transactions.transactions()}};
  }
  // After the reports: they close each controller's command log.
  if (!dram_log_dir_.empty()) j["dram_timing_check"] = check_dram_logs();
  j["conservation"] = check_conservation(*ctx_, t, truncated());
  nlohmann::json layout = nlohmann::json::array();
  for (const MemoryTarget& m : ctx_->memories.targets()) {
    layout.push_back(
        {{"target", m.name}, {"base", fmt::format("0x{:x}", m.base)}, {"bytes", m.size}});
  }
  j["address_layout"] = layout;
  j["assumptions"] = memory_assumptions(cfg_.platform);
  j["config"] = yaml_to_json(doc_.root);
  j["config_defaults"] = config_defaults(doc_, j["config"]);
  j["config_changes"] = config_changes(doc_);
  return j;
}

nlohmann::json Simulation::channel_turns(const std::vector<ResourceRecord>& resources) const {
  nlohmann::json out = nlohmann::json::array();
  // The bytes the GPUs keep in flight: their windows (the lesser of gpus.max_outstanding and their
  // streams' caps) of request_bytes each.
  std::uint64_t window_slots = 0;
  for (const ResourceRecord& r : resources) {
    if (r.kind == BlockKind::kGpu && r.use.type == ResourceUse::Type::kSlots &&
        r.use.name == "outstanding window") {
      window_slots += static_cast<std::uint64_t>(std::llround(r.use.capacity));
    }
  }
  const std::uint64_t in_flight = window_slots * cfg_.platform.gpu.request_bytes;
  for (const TimeSeries::ChannelBalance& c : ctx_->timeseries.channel_balance()) {
    if (!c.balance.took_turns) continue;
    std::size_t index = 0;
    while (index < cfg_.platform.devices.size() && cfg_.platform.devices[index].name != c.device) {
      ++index;
    }
    if (index == cfg_.platform.devices.size()) continue;
    const MemoryConfig& m = cfg_.platform.devices[index].memory;
    const InterleaveSpread spread = interleave_spread(m.granule_bytes, m.channels, in_flight);
    const std::string seen = fmt::format(
        "{}'s {} memory channels took turns (per {:.0f} ns window the busiest carried {:.2f} x "
        "the mean channel's bytes on average, against {:.2f} x over the whole run)",
        c.device, c.channels, c.window_ns, c.balance.mean_max_over_mean,
        c.balance.run_max_over_mean);
    std::string why;
    if (spread.coarse) {
      why = fmt::format(
          ": its interleave granule of {} B x {} channels = {} B a round is more than the {} B "
          "the GPUs keep in flight ({} window slots x {} B), so a sequential walk keeps about {} "
          "of them busy at a time. A granule of at most {} B "
          "(devices.{}.memory.interleave.granule_bytes) spreads the bytes in flight over all {} "
          "channels.",
          m.granule_bytes, m.channels, spread.round_bytes, in_flight, window_slots,
          cfg_.platform.gpu.request_bytes, spread.busy_channels, spread.spreading_granule_bytes,
          index, m.channels);
    } else {
      why =
          ": the requests in flight sat on a few channels at a time although the interleave "
          "round is within the bytes in flight. An access order or interleave that spreads the "
          "requests in flight over the channels would raise it.";
    }
    out.push_back(
        {{"device", c.device},
         {"channels", c.channels},
         {"window_ns", c.window_ns},
         {"mean_max_over_mean", c.balance.mean_max_over_mean},
         {"run_max_over_mean", c.balance.run_max_over_mean},
         {"granule_bytes", m.granule_bytes},
         {"round_bytes", spread.round_bytes},
         {"in_flight_bytes", in_flight},
         {"coarse_interleave", spread.coarse},
         {"busy_channels",
          spread.coarse ? nlohmann::json(spread.busy_channels) : nlohmann::json(nullptr)},
         {"largest_spreading_granule_bytes",
          spread.coarse ? nlohmann::json(spread.spreading_granule_bytes) : nlohmann::json(nullptr)},
         {"sentence", seen + why}});
  }
  return out;
}

void Simulation::note_direction_phases(nlohmann::json& bottlenecks) const {
  // The analysis ranks resources by their utilisation over the whole run. Where reads and writes
  // came in separate phases (write_then_verify: all writes, then all reads), a wire saturated by
  // one phase's data averages about half busy over the two, and the limiter named can be a pool
  // that only filled behind it. The time series tells such a run: each direction alone in at
  // least a fifth of the busy windows. It is said, not corrected: the fix is to run each phase
  // as a workload of its own.
  constexpr double kPhaseShare = 0.2;
  const TimeSeries::DirectionPhases p = ctx_->timeseries.direction_phases();
  const bool phased = p.reads_only >= kPhaseShare && p.writes_only >= kPhaseShare;
  bottlenecks["direction_phases"] = {{"windows", p.windows},
                                     {"reads_only_fraction", p.reads_only},
                                     {"writes_only_fraction", p.writes_only},
                                     {"phased", phased}};
  if (!phased) return;
  bottlenecks["sentence"] = bottlenecks["sentence"].get<std::string>() +
                            fmt::format(
                                " Caution: reads and writes came in separate phases (reads alone "
                                "in {:.0f} % of the busy time, writes alone in {:.0f} %), and "
                                "utilisations are averages over the whole run: a resource "
                                "saturated within one phase averages well below saturation, so "
                                "the limiter and the bound above may not hold for either phase; "
                                "{}.",
                                p.reads_only * 100.0, p.writes_only * 100.0,
                                changed_phases(bottlenecks).empty()
                                    ? "run each phase as a workload of its own to find its limiter"
                                    : "the limiter of each phase is given first");
}

void Simulation::note_phases(nlohmann::json& bottlenecks) const {
  // Whole-run utilisations average over the run; where the limiter changed from one part of the
  // run to another, the sentence says so first and names each part's.
  const nlohmann::json& list = changed_phases(bottlenecks);
  if (list.empty()) return;
  std::vector<std::string> parts;
  for (const nlohmann::json& p : list) {
    const std::string span = fmt::format("{:.1f}-{:.1f} us", p["start_ns"].get<double>() * 1e-3,
                                         p["end_ns"].get<double>() * 1e-3);
    const nlohmann::json& l = p["limiter"];
    parts.push_back(l.is_null() ? fmt::format("{} nothing saturated ({:.1f} GB/s)", span,
                                              p["achieved_gbps"].get<double>())
                                : fmt::format("{} {} {} ({} {:.1f} %, {:.1f} GB/s)", span,
                                              l["component"].get<std::string>(),
                                              l["resource"].get<std::string>(),
                                              l["reason"] == "bandwidth" ? "busy" : "full",
                                              l["utilization"].get<double>() * 100.0,
                                              p["achieved_gbps"].get<double>()));
  }
  // Said first: the whole-run verdict that follows can name a pool that only filled behind
  // each phase's limiter in turn, or say that nothing saturates.
  std::string whole = bottlenecks["sentence"].get<std::string>();
  if (whole.rfind("No ", 0) == 0) whole[0] = 'n';
  bottlenecks["sentence"] = fmt::format(
      "The limiter changed over the run (per-phase analysis, windows of {:.3g} us): {}. Averaged "
      "over the whole run, which hides that: {}",
      bottlenecks["phases"]["window_ns"].get<double>() * 1e-3, fmt::join(parts, "; "), whole);
}

std::string Simulation::config_yaml() const { return yaml_to_text(doc_.root); }

void Simulation::finish_transaction_log() {
  if (transaction_log_.empty() || transaction_log_done_) return;
  ctx_->transactions.close();
  std::filesystem::rename(transaction_log_ + ".partial", transaction_log_);
  transaction_log_done_ = true;
}

std::string Simulation::timeline_json() const {
  return ctx_->timeline.enabled() ? ctx_->timeline.json() : std::string();
}

std::string Simulation::timeseries_csv() const {
  return ctx_->timeseries.enabled() ? ctx_->timeseries.csv() : std::string();
}

}  // namespace famsim
