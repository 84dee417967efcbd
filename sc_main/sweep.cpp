#include "sc_main/sweep.h"

#include "models/core/bottleneck.h"
#include "models/core/config.h"
#include "models/core/hash.h"
#include "models/core/phases.h"
#include "platforms/presets.h"
#include "sc_main/output_dir.h"
#include "sc_main/report.h"
#include "sc_main/simulation.h"
#include "sc_main/version.h"

#include <fmt/format.h>

#include <spawn.h>
#include <sys/wait.h>
#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <sstream>

extern char** environ;

namespace famsim {

namespace fs = std::filesystem;

namespace {

// The headline metrics, in results.csv column order (elasticities are worked out for
// kSensitivityMetrics). Metrics added later go at the end, so that no column moves.
// bandwidth_gbps is over every target (the GPUs' own and peer HBM too); device_bandwidth_gbps
// is the expansion devices' part of it (summary.by_target.device); device_max_over_mean, the
// busiest device's bytes over the mean device's (summary.device_balance), shows where a parameter
// (striping, interleave) spreads the traffic unevenly; device_window_max_over_mean, the same per
// time window (timeseries.device_balance_by_window), where the load moves from device to device;
// gpu_jain_index, how evenly the GPUs were served (summary.gpu_balance), for arbitration studies;
// gpu_least_served_over_mean, the least served GPU's bandwidth over the mean GPU's, which shows one
// GPU starved among many where Jain's index hardly moves (0.970 for one GPU at half rate of 8);
// device_latency_mean_ns and _p99_ns, over the requests the expansion devices served
// (summary.by_target.device): the headline latencies mix in the GPUs' local HBM reads, which can
// hide or dilute a parameter's effect on the device.
const std::vector<std::string> kMetrics = {"bandwidth_gbps",
                                           "read_bandwidth_gbps",
                                           "write_bandwidth_gbps",
                                           "latency_mean_ns",
                                           "latency_p99_ns",
                                           "read_latency_mean_ns",
                                           "read_latency_p99_ns",
                                           "achieved_fraction_of_bound",
                                           "limiter",
                                           "limiter_utilization",
                                           "simulated_time_ns",
                                           "host_seconds",
                                           "device_bandwidth_gbps",
                                           "phase_limiters",
                                           "device_max_over_mean",
                                           "device_window_max_over_mean",
                                           "gpu_jain_index",
                                           "gpu_least_served_over_mean",
                                           "device_latency_mean_ns",
                                           "device_latency_p99_ns"};
const std::vector<std::string> kSensitivityMetrics = {
    "bandwidth_gbps", "device_bandwidth_gbps",  "latency_mean_ns",
    "latency_p99_ns", "device_latency_mean_ns", "device_latency_p99_ns"};

std::string number_text(double v) {
  if (std::floor(v) == v && std::fabs(v) < 9e15) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{}", v);
}

double number_or_nan(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  return (end != s.c_str() && *end == 0) ? v : std::nan("");
}

// A parameter's value in the form two values are compared in (the same value twice, a `base`
// among the values): a number by its value ("8", "8.0", "0x8" and "+8" are one), a byte count
// with a unit by its bytes, as ConfigNode::get_bytes reads it ("1KiB" is "1024"), anything else
// as written. The sweep file does not say how the configuration reads its key, but byte counts
// are the only values with units it accepts (times, frequencies and bandwidths are numbers with
// the unit in the key's name: latency_ns, clock_mhz, bandwidth_gbps), so a value with a byte
// unit is taken as one; a key that is not a byte count rejects it at every point anyway.
// A parameter's value as a number: a number as written, a byte count with a unit by its bytes
// ("1KiB" is 1024; see comparable_value), else NaN.
double value_number(const std::string& v) {
  const double x = number_or_nan(v);
  if (!std::isnan(x)) return x;
  const auto bytes = parse_bytes(v);
  return bytes ? static_cast<double>(*bytes) : x;
}

std::string comparable_value(const std::string& v) {
  const double x = value_number(v);
  return std::isnan(x) ? "s" + v : fmt::format("n{}", x);
}

std::vector<std::string> scalar_list(ConfigNode& n, const std::string& key) {
  if (!n.is_list(key)) n.fail(key, "expected a list of values");
  std::vector<std::string> v = n.get_string_list(key);
  if (v.empty()) n.fail(key, "expected at least one value");
  return v;
}

// The keys a parameter may have: alone, and as a member of a zip.
const std::vector<std::string> kParameterKeys = {"base", "key", "random", "range", "values"};
const std::vector<std::string> kZipMemberKeys = {"key", "random", "range", "values"};

// The values of one parameter (swept `key`): `values`, `range` or `random`. The caller has
// checked the entry's keys, so a misspelt `values` is named as such rather than found missing.
std::vector<std::string> parameter_values(ConfigNode& p, const std::string& key) {
  const int kinds = p.has("values") + p.has("range") + p.has("random");
  if (kinds != 1) p.fail_here("expected exactly one of values, range or random");
  if (p.has("values")) return scalar_list(p, "values");
  std::vector<std::string> out;
  if (p.has("range")) {
    ConfigNode r = p.child("range", true);
    const double from = r.get_double("from", std::nullopt, -1e18, 1e18);
    const double to = r.get_double("to", std::nullopt, -1e18, 1e18);
    if (r.has("factor") == r.has("step")) r.fail_here("expected exactly one of factor or step");
    // Generation stops one value past the limit, so a range of a billion values is refused at
    // once rather than built first (and a step too small to move a large value still ends).
    constexpr std::size_t kMaxValues = 10000;
    if (r.has("factor")) {
      const double f = r.get_double("factor", std::nullopt, 1.0, 1e6, true);
      if (from <= 0) r.fail("from", "a range with a factor needs from > 0");
      for (double v = from; v <= to * (1 + 1e-12) && out.size() <= kMaxValues; v *= f)
        out.push_back(number_text(v));
    } else {
      const double step = r.get_double("step", std::nullopt, 0.0, 1e18, true);
      for (double v = from; v <= to + step * 1e-9 && out.size() <= kMaxValues; v += step)
        out.push_back(number_text(v));
    }
    r.finish();
    if (out.empty() || out.size() > kMaxValues) r.fail_here("expected 1 to 10000 values from..to");
    return out;
  }
  ConfigNode r = p.child("random", true);
  const double lo = r.get_double("min", std::nullopt, -1e18, 1e18);
  const double hi = r.get_double("max", std::nullopt, lo, 1e18);
  const std::uint64_t count = r.get_uint("count", std::nullopt, 1, 10000);
  const std::uint64_t seed = r.get_uint("seed", 1);
  const bool integer = r.get_bool("integer", false);
  const bool log = r.get_choice("scale", "linear", {"linear", "log"}) == "log";
  if (log && lo <= 0) r.fail("min", "a log scale needs min > 0");
  r.finish();
  // `count` distinct values, or an error: a draw that repeats one (integers rounded together, or
  // min = max) would otherwise leave fewer points than asked for without a word. A range with
  // fewer values than `count` cannot give them; a wide one whose draws still repeat (the birthday
  // paradox) draws again, so the values of a sweep whose draws never repeat stay what they were.
  if (integer && std::round(hi) - std::round(lo) + 1 < static_cast<double>(count)) {
    const double holds = std::round(hi) - std::round(lo) + 1;
    r.fail("count", fmt::format("{}: {} distinct values asked for, but min {} to max {} holds only "
                                "{} integer{}; expected a count of at most {} or a wider range",
                                key, count, number_text(lo), number_text(hi), number_text(holds),
                                holds == 1 ? "" : "s", number_text(holds)));
  }
  if (!integer && lo == hi && count > 1) {
    r.fail("count", fmt::format("{}: {} distinct values asked for, but min and max are both {}; "
                                "expected a count of 1 or a wider range",
                                key, count, number_text(lo)));
  }
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::set<double> v;
  // Enough for any count the range can hold but a few values a log scale rarely reaches.
  const std::uint64_t max_draws = 1000 * count + 100000;
  for (std::uint64_t draws = 0; v.size() < count; ++draws) {
    if (draws == max_draws) {
      r.fail("count",
             fmt::format("{}: {} distinct values asked for, but {} draws from min {} to "
                         "max {} gave only {}; expected a smaller count or a wider range",
                         key, count, max_draws, number_text(lo), number_text(hi), v.size()));
    }
    const double x = u(rng);
    double s = log ? lo * std::pow(hi / lo, x) : lo + (hi - lo) * x;
    if (integer) s = std::round(s);
    v.insert(s);
  }
  for (double x : v) out.push_back(number_text(x));
  return out;
}

std::size_t base_position(ConfigNode& p, const std::vector<std::string>& values, bool zip) {
  if (!p.has("base")) return 0;
  if (zip) return p.get_uint("base", 0, 0, values.size() - 1);
  const std::string b = p.get_string("base", std::nullopt);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] == b) return i;
    // The same value written another way ("8" and "8.0", "1KiB" and "1024").
    if (comparable_value(values[i]) == comparable_value(b)) return i;
  }
  // The values listed (the first 20): a random parameter's are known only once drawn.
  constexpr std::size_t kListed = 20;
  const std::vector<std::string> listed(values.begin(),
                                        values.begin() + std::min(values.size(), kListed));
  p.fail("base", fmt::format("'{}' is not one of the parameter's values; expected one of: {}{}", b,
                             fmt::join(listed, ", "), values.size() > kListed ? ", ..." : ""));
}

// A platform or workload: a path relative to the sweep file, or a built-in name.
std::string resolve_input(ConfigNode& n, const std::string& key, const char* dir,
                          const std::string& sweep_file, const std::string& materialise_dir) {
  const std::string given = n.get_string(key, std::nullopt);
  fs::path p(given);
  if (p.is_relative()) p = (fs::path(sweep_file).parent_path() / p).lexically_normal();
  if (fs::is_regular_file(p)) return p.string();
  const std::string builtin = std::string(dir) + "/" + given + ".yaml";
  const auto text = embedded_file(builtin);
  if (!text) {
    n.fail(key, "'" + given + "': no such file (relative to the sweep file) and no built-in " +
                    std::string(dir) + " of that name");
  }
  if (materialise_dir.empty()) return builtin;
  fs::create_directories(materialise_dir);
  const std::string out = (fs::path(materialise_dir) / (given + ".yaml")).string();
  write_file_atomically(out, *text);
  return out;
}

// A group's positions are distinct points: the same value twice (8 and 8.0, 1KiB and 1024) would
// run the point twice and give it double weight in the sensitivity and the plots.
void check_distinct(const ConfigNode& p, const SweepGroup& g) {
  std::map<std::string, std::size_t> first;  // a position's comparable_value()s
  for (std::size_t i = 0; i < g.values.front().size(); ++i) {
    std::string point;
    for (const auto& v : g.values) point += comparable_value(v[i]) + '\x1f';
    const auto [at, added] = first.emplace(point, i);
    if (added) continue;
    if (g.values.size() == 1) {
      p.fail(p.has("values") ? "values" : "range",
             fmt::format("value {} ('{}') is value {} ('{}') again; expected distinct values",
                         i + 1, g.values[0][i], at->second + 1, g.values[0][at->second]));
    }
    p.fail("zip", fmt::format("positions {} and {} give the same values; expected distinct points",
                              at->second + 1, i + 1));
  }
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return q + "\"";
}

std::string json_cell(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_number()) return fmt::format("{}", v.get<double>());
  return v.dump();
}

std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// The last line of a run's log that says what went wrong.
std::string error_line(const fs::path& log, int code) {
  std::istringstream in(read_text(log));
  std::string line, last, err;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    last = line;
    if (line.find("error") != std::string::npos || line.find("FAILED") != std::string::npos) {
      err = line;
    }
  }
  std::string msg = !err.empty() ? err : last;
  if (msg.empty()) msg = "famsim run produced no output";
  return fmt::format("exit code {}: {}", code, msg);
}

// A key path as --set takes it: names and list indices joined by '.', no '=value'.
bool is_key_path(const std::string& key) {
  if (key.empty() || key.find('=') != std::string::npos) return false;
  return key.front() != '.' && key.back() != '.' && key.find("..") == std::string::npos;
}

// A parameter's key, checked as a path, its place in the sweep file noted for errors found later.
std::string swept_key(ConfigNode& p, std::vector<std::string>& locations) {
  const std::string key = p.get_string("key", std::nullopt);
  if (!is_key_path(key)) {
    p.fail("key", "'" + key +
                      "': expected a key path (names and list indices joined by '.') without "
                      "'=value': the values come from values, range or random");
  }
  locations.push_back(p.location("key"));
  return key;
}

RunOptions point_run_options(const SweepSpec& spec, std::vector<std::string> overrides) {
  RunOptions ro;
  if (!spec.platform.empty()) ro.platform_file = spec.platform;
  if (!spec.workload.empty()) ro.workload_file = spec.workload;
  ro.overrides = std::move(overrides);
  return ro;
}

// A configuration error about a key path (ConfigError::bad_key_path: an unknown key, a path
// that leads nowhere) that one of the sweep file's own entries wrote, as an error of the sweep
// file: "FILE:LINE: parameters.N.key: KEY: reason". The entry wrote the path when its key is the
// path or lies below it (an override that invents `a.b.c` is reported at `a.b`, the shallowest
// key it created). Errors about values, or about keys the platform or workload file wrote: none.
std::optional<std::string> sweep_key_error(const SweepSpec& spec, const ConfigError& e) {
  const std::string& bad = e.bad_key_path();
  if (bad.empty()) return std::nullopt;
  auto wrote = [&](const std::string& key) { return key == bad || key.rfind(bad + ".", 0) == 0; };
  auto message = [&](const std::vector<std::string>& locations, std::size_t i,
                     const std::string& key) {
    const std::string at = i < locations.size() ? locations[i] : spec.file;
    return fmt::format("{}: {}: {}", at, key, e.reason());
  };
  for (std::size_t i = 0; i < spec.set.size(); ++i) {
    const std::string key = spec.set[i].substr(0, spec.set[i].find('='));
    if (wrote(key)) return message(spec.set_locations, i, key);
  }
  for (const SweepGroup& g : spec.groups) {
    for (std::size_t k = 0; k < g.keys.size(); ++k) {
      if (wrote(g.keys[k])) return message(g.key_locations, k, g.keys[k]);
    }
  }
  return std::nullopt;
}

// Written into a sweep's output directory before its first point runs, so that a later sweep
// into it (a rerun, a resumed or a shorter sweep) knows the directory is famsim's to rewrite.
// Hidden, like a run's own .famsim-output.
constexpr const char* kSweepMarkerName = ".famsim-sweep";
// What a sweep writes in its output directory and replaces or removes there on a rerun.
constexpr const char* kSweepFiles[] = {"points", "results.csv", "sensitivity.csv", "sweep.json",
                                       "inputs"};

// A directory of its own under the system's temporary directory, removed with everything in it
// when this goes out of scope.
class ScratchDir {
 public:
  ScratchDir() {
    std::string name = (fs::temp_directory_path() / "famsim-sweep-XXXXXX").string();
    if (!mkdtemp(name.data())) {
      throw std::runtime_error(
          fmt::format("cannot create a scratch directory {}: {}", name, std::strerror(errno)));
    }
    path_ = name;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

void make_sweep_out_dir(const std::string& out_dir) {
  make_output_dir(out_dir);
  const fs::path dir(out_dir);
  std::error_code ec;
  if (!fs::exists(dir / kSweepMarkerName, ec)) {
    std::vector<std::string> in_the_way;
    for (const char* name : kSweepFiles) {
      if (fs::exists(fs::symlink_status(dir / name, ec))) in_the_way.push_back(name);
    }
    if (!in_the_way.empty()) {
      throw ConfigError(fmt::format(
          "--out {}: holds {} but no {} marker, so no famsim sweep wrote it and a sweep would "
          "replace or delete that; expected a new or empty directory, or one a famsim sweep wrote",
          out_dir, fmt::join(in_the_way, ", "), kSweepMarkerName));
    }
  }
  std::ofstream(dir / kSweepMarkerName).flush();
  fs::create_directories(dir / "points", ec);
  if (ec || !fs::exists(dir / kSweepMarkerName, ec)) {
    throw ConfigError(fmt::format("--out {}: cannot write in the directory{}", out_dir,
                                  ec ? ": " + ec.message() : std::string()));
  }
}

std::string point_dir(const std::string& out_dir, std::size_t index) {
  return (fs::path(out_dir) / "points" / fmt::format("{:04d}", index)).string();
}

SweepSpec parse_sweep(const std::string& path, const std::string& materialise_dir) {
  SweepSpec spec;
  spec.file = path;
  auto sources = std::make_shared<ConfigSources>(path);
  ConfigNode root(load_yaml_file(path), "", sources);
  spec.name = root.get_string("name", std::nullopt);
  if (!std::regex_match(spec.name, std::regex("[A-Za-z0-9_.-]+"))) {
    root.fail("name", "expected letters, digits, '_', '.' or '-' (it names the output directory)");
  }
  spec.description = root.get_string("description", "");
  if (root.has("platform")) {
    spec.platform = resolve_input(root, "platform", "platforms", path, materialise_dir);
  }
  if (root.has("workload")) {
    spec.workload = resolve_input(root, "workload", "traffic", path, materialise_dir);
  }
  spec.set = root.get_string_list("set");
  for (std::size_t i = 0; i < spec.set.size(); ++i) {
    const std::string& s = spec.set[i];
    spec.set_locations.push_back(root.location("set", i));
    const auto eq = s.find('=');
    if (eq == std::string::npos || !is_key_path(s.substr(0, eq))) {
      throw ConfigError(spec.set_locations.back() + ": '" + s + "': expected key.path=value");
    }
    // The same key twice in set: one value was meant (a parameter's values do override it).
    for (std::size_t j = 0; j < i; ++j) {
      if (spec.set[j].compare(0, eq + 1, s, 0, eq + 1) == 0) {
        throw ConfigError(
            fmt::format("{}: '{}': duplicate key (first '{}', {}); expected each "
                        "key once in set",
                        spec.set_locations.back(), s, spec.set[j], spec.set_locations[j]));
      }
    }
  }
  spec.one_at_a_time =
      root.get_choice("mode", "grid", {"grid", "one_at_a_time"}) == "one_at_a_time";
  std::vector<ConfigNode> params = root.list("parameters", true);
  if (params.empty()) root.fail("parameters", "expected at least one parameter");
  std::map<std::string, bool> seen;
  for (ConfigNode& p : params) {
    SweepGroup g;
    if (p.has("zip")) {
      p.check_known({"base", "zip"});
      std::vector<ConfigNode> members = p.list("zip", true);
      if (members.size() < 2) p.fail("zip", "expected two or more parameters that move together");
      for (ConfigNode& m : members) {
        // Every key an entry may have, not only those it has: a misspelt one is named against
        // the right list, before its values are looked for.
        m.check_known(kZipMemberKeys);
        g.keys.push_back(swept_key(m, g.key_locations));
        g.values.push_back(parameter_values(m, g.keys.back()));
        if (g.values.back().size() != g.values.front().size()) {
          m.fail_here(fmt::format("{} values, but the first parameter of the zip has {}",
                                  g.values.back().size(), g.values.front().size()));
        }
      }
      g.base = base_position(p, g.values.front(), true);
    } else {
      p.check_known(kParameterKeys);
      g.keys.push_back(swept_key(p, g.key_locations));
      g.values.push_back(parameter_values(p, g.keys.back()));
      g.base = base_position(p, g.values.front(), false);
    }
    check_distinct(p, g);
    for (const std::string& k : g.keys) {
      if (seen[k]) p.fail_here("parameter " + k + " is swept twice");
      seen[k] = true;
    }
    spec.groups.push_back(std::move(g));
  }
  root.finish();
  if (expand_points(spec).size() > 100000) {
    root.fail("parameters", "more than 100000 points; sweep fewer values or use one_at_a_time");
  }
  return spec;
}

void check_sweep_keys(const std::string& path) {
  // Whether a key exists can depend on values (a mesh's keys exist only when the NoC is a mesh),
  // so the keys are checked where the configuration is whole: at one point. The base point is
  // the one a sweep is built around; a key that fails only elsewhere (or hides behind a bad value
  // at the base) fails its points one by one, each error still naming the sweep file's entry.
  const ScratchDir scratch;
  const SweepSpec spec = parse_sweep(path, scratch.path());
  SweepPoint base;
  for (const SweepGroup& g : spec.groups) base.at.push_back(g.base);
  try {
    parse_config(load_config(point_run_options(spec, point_overrides(spec, base))));
  } catch (const ConfigError& e) {
    if (const auto in_sweep_file = sweep_key_error(spec, e)) throw ConfigError(*in_sweep_file);
    // Anything else is the base point's own failure, recorded when it runs.
  }
}

// `msg` with the scratch copies of built-in platform and workload files named as the built-in files
// they are: the copies are gone once the check returns.
std::string name_builtins(std::string msg, const SweepSpec& spec, const std::string& scratch) {
  for (const auto& [file, dir] :
       {std::pair{spec.platform, "platforms"}, {spec.workload, "traffic"}}) {
    if (file.empty() || fs::path(file).parent_path() != fs::path(scratch)) continue;
    const std::string builtin =
        fmt::format("built-in {}/{}", dir, fs::path(file).filename().string());
    for (std::size_t at = msg.find(file); at != std::string::npos; at = msg.find(file, at)) {
      msg.replace(at, file.size(), builtin);
      at += builtin.size();
    }
  }
  return msg;
}

void check_sweep_points(const std::string& path) {
  const ScratchDir scratch;
  const SweepSpec spec = parse_sweep(path, scratch.path());
  const std::vector<SweepPoint> points = expand_points(spec);
  // Every different reason a point is refused, with the first point that showed it: an architect
  // fixes the file in one pass, not one error per try (a review's grid over channels and fabric
  // ports named only the ports' error).
  constexpr std::size_t kReasonsListed = 5;
  std::vector<std::string> reasons, whats;
  std::size_t refused = 0;
  for (const SweepPoint& p : points) {
    const std::vector<std::string> overrides = point_overrides(spec, p);
    try {
      parse_config(load_config(point_run_options(spec, overrides)));
    } catch (const ConfigError& e) {
      ++refused;
      if (const auto in_sweep_file = sweep_key_error(spec, e)) throw ConfigError(*in_sweep_file);
      // The sweep file's entry that wrote the refused value: the --set the error names ("--set
      // key=value: ..."), else (a value the platform or workload file holds, refused with the
      // point's values) the first parameter away from its base at this point.
      std::string what = name_builtins(e.what(), spec, scratch.path());
      std::string at;
      std::vector<std::string> values;  // the parameters' key=value at this point
      for (std::size_t g = 0; g < spec.groups.size(); ++g) {
        const SweepGroup& gr = spec.groups[g];
        for (std::size_t k = 0; k < gr.keys.size(); ++k) {
          const std::string a = gr.keys[k] + "=" + gr.values[k][p.at[g]];
          values.push_back(a);
          if (at.empty() && what.rfind("--set " + a + ": ", 0) == 0) {
            at = gr.key_locations[k];
            what = what.substr(a.size() + 8);
          }
        }
      }
      for (std::size_t i = 0; i < spec.set.size() && at.empty(); ++i) {
        if (what.rfind("--set " + spec.set[i] + ": ", 0) == 0) {
          at = spec.set_locations[i];
          what = what.substr(spec.set[i].size() + 8);
        }
      }
      for (std::size_t g = 0; g < spec.groups.size() && at.empty(); ++g) {
        if (p.at[g] != spec.groups[g].base) at = spec.groups[g].key_locations.front();
      }
      if (at.empty()) at = spec.groups.front().key_locations.front();
      if (std::find(whats.begin(), whats.end(), at + what) != whats.end()) continue;
      whats.push_back(at + what);  // every different reason, counted; the first few listed
      if (reasons.size() == kReasonsListed) continue;
      reasons.push_back(
          fmt::format("{}: point {} ({}): {}", at, p.index, fmt::join(values, ", "), what));
    }
  }
  if (reasons.empty()) return;
  if (refused == 1) throw ConfigError(reasons.front());
  std::string msg = reasons.front();
  for (std::size_t i = 1; i < reasons.size(); ++i) msg += "\n  also " + reasons[i];
  msg += fmt::format("\n  ({} of the sweep's {} points are refused{})", refused, points.size(),
                     whats.size() == 1 ? std::string(", all for this reason")
                     : whats.size() > reasons.size()
                         ? fmt::format(", for {} different reasons, the first {} above",
                                       whats.size(), reasons.size())
                         : fmt::format(", for the {} reasons above", reasons.size()));
  throw ConfigError(msg);
}

std::vector<SweepPoint> expand_points(const SweepSpec& spec) {
  std::vector<SweepPoint> out;
  const std::size_t n = spec.groups.size();
  std::vector<std::size_t> base(n);
  for (std::size_t g = 0; g < n; ++g) base[g] = spec.groups[g].base;
  if (spec.one_at_a_time) {
    out.push_back({0, base});
    for (std::size_t g = 0; g < n; ++g) {
      for (std::size_t i = 0; i < spec.groups[g].size(); ++i) {
        if (i == base[g]) continue;
        SweepPoint p{out.size(), base};
        p.at[g] = i;
        out.push_back(std::move(p));
      }
    }
    return out;
  }
  std::size_t total = 1;
  for (const SweepGroup& g : spec.groups) total *= g.size();
  for (std::size_t k = 0; k < total; ++k) {
    SweepPoint p{k, std::vector<std::size_t>(n)};
    std::size_t rest = k;
    for (std::size_t g = n; g-- > 0;) {  // the last group varies fastest
      p.at[g] = rest % spec.groups[g].size();
      rest /= spec.groups[g].size();
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<std::string> point_overrides(const SweepSpec& spec, const SweepPoint& p) {
  // A set entry whose key a parameter sweeps is that parameter's base, overridden at every point:
  // only the parameter's value is given (a command line takes each key once).
  std::vector<std::string> o;
  for (const std::string& s : spec.set) {
    const std::string key = s.substr(0, s.find('='));
    bool swept = false;
    for (const SweepGroup& g : spec.groups)
      swept = swept || std::find(g.keys.begin(), g.keys.end(), key) != g.keys.end();
    if (!swept) o.push_back(s);
  }
  for (std::size_t g = 0; g < spec.groups.size(); ++g) {
    const SweepGroup& gr = spec.groups[g];
    for (std::size_t k = 0; k < gr.keys.size(); ++k) {
      o.push_back(gr.keys[k] + "=" + gr.values[k][p.at[g]]);
    }
  }
  return o;
}

nlohmann::json headline_metrics(const nlohmann::json& s) {
  auto num = [&](std::initializer_list<const char*> path) -> nlohmann::json {
    const nlohmann::json* j = &s;
    for (const char* k : path) {
      if (!j->is_object() || !j->contains(k)) return nullptr;
      j = &(*j)[k];
    }
    return j->is_number() ? *j : nlohmann::json();
  };
  // Over the requests the expansion devices served, none when they served none (a run on the GPUs'
  // own memory has no device latency, not one of 0).
  auto device_latency = [&](const char* stat) -> nlohmann::json {
    const nlohmann::json count = num({"summary", "by_target", "device", "latency_ns", "count"});
    if (!count.is_number() || count.get<double>() == 0) return nullptr;
    return num({"summary", "by_target", "device", "latency_ns", stat});
  };
  nlohmann::json m = {
      {"bandwidth_gbps", num({"summary", "bandwidth_gbps"})},
      {"read_bandwidth_gbps", num({"summary", "read_bandwidth_gbps"})},
      {"write_bandwidth_gbps", num({"summary", "write_bandwidth_gbps"})},
      {"latency_mean_ns", num({"summary", "latency_ns", "mean"})},
      {"latency_p99_ns", num({"summary", "latency_ns", "p99"})},
      {"read_latency_mean_ns", num({"summary", "read_latency_ns", "mean"})},
      {"read_latency_p99_ns", num({"summary", "read_latency_ns", "p99"})},
      {"achieved_fraction_of_bound", num({"bottlenecks", "achieved_fraction_of_bound"})},
      {"limiter", ""},
      {"limiter_utilization", num({"bottlenecks", "limiter", "utilization"})},
      {"simulated_time_ns", num({"sim", "simulated_time_ns"})},
      {"host_seconds", num({"sim", "host_seconds"})},
      {"device_bandwidth_gbps", num({"summary", "by_target", "device", "bandwidth_gbps"})},
      {"phase_limiters", ""},
      {"device_max_over_mean", num({"summary", "device_balance", "max_over_mean"})},
      {"device_window_max_over_mean",
       num({"timeseries", "device_balance_by_window", "mean_max_over_mean"})},
      {"gpu_jain_index", num({"summary", "gpu_balance", "jain_index"})},
      {"gpu_least_served_over_mean", num({"summary", "gpu_balance", "least_served_over_mean"})},
      {"device_latency_mean_ns", device_latency("mean")},
      {"device_latency_p99_ns", device_latency("p99")}};
  // The workload's own results (generator streams): tokens per second, step time, hit rate...
  nlohmann::json wl = nlohmann::json::object();
  if (s.contains("workload") && s["workload"].contains("streams")) {
    for (const auto& [name, st] : s["workload"]["streams"].items()) {
      if (!st.contains("result") || !st["result"].is_object()) continue;
      for (const auto& [k, v] : st["result"].items()) {
        if (v.is_number()) wl[name + "." + k] = v;
      }
    }
  }
  m["workload"] = std::move(wl);
  if (s.contains("bottlenecks") && s["bottlenecks"].contains("limiter")) {
    const auto& l = s["bottlenecks"]["limiter"];
    m["limiter"] =
        resource_group(l["component"].get<std::string>(), l["resource"].get<std::string>());
  }
  // Each phase's limiter, when it changed over the run (bottlenecks.phases): where a parameter
  // moves the run into or out of phases.
  if (s.contains("bottlenecks")) {
    std::vector<std::string> parts;
    for (const nlohmann::json& p : changed_phases(s["bottlenecks"])) {
      const nlohmann::json& l = p["limiter"];
      parts.push_back(l.is_null() ? std::string("none")
                                  : resource_group(l["component"].get<std::string>(),
                                                   l["resource"].get<std::string>()));
    }
    m["phase_limiters"] = fmt::format("{}", fmt::join(parts, " -> "));
  }
  return m;
}

// The workload's numeric results that had one value at every point that ran (by name, with that
// value): configuration echoes (decode.model_layers) and counts no parameter moved. Ranked, each
// would be a row of elasticity 0 under every parameter, crowding out the results that moved;
// sweep.json lists them instead.
nlohmann::json unchanged_workload_results(const std::vector<nlohmann::json>& results) {
  std::map<std::string, nlohmann::json> first;
  std::map<std::string, bool> changed;
  for (const nlohmann::json& r : results) {
    if (!r.is_object() || r.value("status", "") != "ok" || !r.contains("metrics") ||
        !r["metrics"].contains("workload")) {
      continue;
    }
    for (const auto& [k, v] : r["metrics"]["workload"].items()) {
      const auto [at, added] = first.emplace(k, v);
      if (!added && at->second != v) changed[k] = true;
    }
  }
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [k, v] : first) {
    if (!changed.count(k)) out[k] = v;
  }
  return out;
}

// The platform and workload the points ran, for sweep.json: the sweep's own files, or what
// `famsim run` takes when the sweep names none (the built-in nvl8_fam; the platform file's own
// workload section, else the built-in random_read).
std::pair<std::string, std::string> inputs_used(const SweepSpec& spec) {
  const std::string builtin = "(built-in) ";
  const std::string platform = spec.platform.empty() ? builtin + kDefaultPlatform : spec.platform;
  if (!spec.workload.empty()) return {platform, spec.workload};
  // The files were read when the sweep was checked, so they load here.
  const YAML::Node root = spec.platform.empty()
                              ? load_yaml_text(*embedded_file(kDefaultPlatform), platform)
                              : load_yaml_file(spec.platform);
  if (root["trace_player"].IsDefined()) return {platform, "(none: the platform replays a trace)"};
  if (root["workload"].IsDefined()) return {platform, platform + " (its workload section)"};
  return {platform, builtin + kDefaultWorkload};
}

nlohmann::json sensitivity(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                           const std::vector<nlohmann::json>& results) {
  const std::size_t n = spec.groups.size();
  nlohmann::json rows = nlohmann::json::array();
  // The headline metrics (even unchanged: a bandwidth no parameter moves is a finding), then the
  // workload's own numeric results that changed somewhere.
  std::vector<std::string> metrics = kSensitivityMetrics;
  {
    const nlohmann::json unchanged = unchanged_workload_results(results);
    std::map<std::string, bool> seen;
    for (const nlohmann::json& r : results) {
      if (r.is_object() && r.contains("metrics") && r["metrics"].contains("workload")) {
        for (const auto& [k, v] : r["metrics"]["workload"].items()) {
          if (!unchanged.contains(k)) seen[k] = true;
        }
      }
    }
    for (const auto& [k, v] : seen) metrics.push_back(k);
  }
  auto metric_of = [](const nlohmann::json& r, const std::string& metric) -> nlohmann::json {
    const auto& m = r["metrics"];
    if (m.contains(metric)) return m[metric];
    if (m.contains("workload") && m["workload"].contains(metric)) return m["workload"][metric];
    return nullptr;
  };
  for (const std::string& metric : metrics) {
    std::vector<nlohmann::json> these;
    for (std::size_t g = 0; g < n; ++g) {
      const SweepGroup& gr = spec.groups[g];
      const double pb = value_number(gr.values[0][gr.base]);
      // Not a number, or 0: no elasticity (a relative change from 0 is not defined; the arc
      // formula would give half the metric's change whatever the neighbour's value).
      if (std::isnan(pb) || pb == 0) continue;
      // The points on this group's line through the base point, by position.
      std::map<std::size_t, double> on_line;
      for (std::size_t i = 0; i < points.size(); ++i) {
        bool line = results[i].is_object() && results[i].value("status", "") == "ok";
        for (std::size_t h = 0; h < n && line; ++h) {
          line = h == g || points[i].at[h] == spec.groups[h].base;
        }
        if (!line) continue;
        const nlohmann::json v = metric_of(results[i], metric);
        if (v.is_number()) on_line[points[i].at[g]] = v.get<double>();
      }
      if (!on_line.count(gr.base)) continue;
      const double mb = on_line[gr.base];
      // The nearest values below and above the base.
      std::optional<std::size_t> lo, hi;
      for (const auto& [pos, m] : on_line) {
        const double p = value_number(gr.values[0][pos]);
        if (std::isnan(p) || pos == gr.base) continue;
        if (p < pb && (!lo || p > value_number(gr.values[0][*lo]))) lo = pos;
        if (p > pb && (!hi || p < value_number(gr.values[0][*hi]))) hi = pos;
      }
      double sum = 0;
      int sides = 0;
      nlohmann::json side_e[2];  // below and above the base, separately: a kink shows
      for (int k = 0; k < 2; ++k) {
        const auto& side = k == 0 ? lo : hi;
        if (!side) continue;
        const double p = value_number(gr.values[0][*side]);
        const double m = on_line[*side];
        const double dm = (m - mb) / ((m + mb) / 2), dp = (p - pb) / ((p + pb) / 2);
        if ((m + mb) == 0 || dp == 0 || !std::isfinite(dm / dp)) continue;
        side_e[k] = dm / dp + 0.0;  // + 0.0: no "-0" when the metric did not move
        sum += dm / dp;
        ++sides;
      }
      if (sides == 0) continue;
      auto val = [&](const std::optional<std::size_t>& s) -> nlohmann::json {
        return s ? nlohmann::json(gr.values[0][*s]) : nlohmann::json();
      };
      auto met = [&](const std::optional<std::size_t>& s) -> nlohmann::json {
        return s ? nlohmann::json(on_line[*s]) : nlohmann::json();
      };
      these.push_back({{"parameter", gr.keys[0]},
                       {"metric", metric},
                       {"base_value", gr.values[0][gr.base]},
                       {"low_value", val(lo)},
                       {"high_value", val(hi)},
                       {"metric_base", mb},
                       {"metric_low", met(lo)},
                       {"metric_high", met(hi)},
                       {"elasticity", sum / sides + 0.0},
                       {"elasticity_low", side_e[0]},
                       {"elasticity_high", side_e[1]}});
    }
    std::stable_sort(these.begin(), these.end(), [](const auto& a, const auto& b) {
      return std::fabs(a["elasticity"].template get<double>()) >
             std::fabs(b["elasticity"].template get<double>());
    });
    for (auto& r : these) rows.push_back(std::move(r));
  }
  return rows;
}

// A loaded configuration, hashed: what point.json records as config_digest.
std::string digest_of(const ConfigDoc& doc) {
  return fmt::format("fnv1a64:{:016x}", fnv1a(yaml_to_text(doc.root)));
}

// A point's whole configuration as it would run now: the platform, workload and presets read
// afresh with the point's overrides, hashed. A point is resumed only when its record holds the
// same, so an edited platform or workload file, or a changed `platform:`, reruns it. Empty when
// the configuration cannot be loaded (the point is then run, and fails).
std::string config_digest(const SweepSpec& spec, const std::vector<std::string>& overrides) {
  try {
    return digest_of(load_config(point_run_options(spec, overrides)));
  } catch (const ConfigError&) {
    return "";
  }
}

std::vector<nlohmann::json> run_points(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                                       const SweepOptions& opt) {
  std::vector<nlohmann::json> results(points.size());
  std::vector<std::size_t> todo;
  for (const SweepPoint& p : points) {
    if (p.index % opt.ranks != opt.rank) continue;
    const std::string dir = point_dir(opt.out_dir, p.index);
    const auto overrides = point_overrides(spec, p);
    // Resume: a point a previous run finished with these very overrides is not run again.
    const fs::path pj = fs::path(dir) / "point.json";
    if (fs::exists(pj) && fs::exists(fs::path(dir) / "stats.json")) {
      try {
        const auto prev = nlohmann::json::parse(read_text(pj));
        const std::string digest = config_digest(spec, overrides);
        if (prev.value("status", "") == "ok" && prev["overrides"] == overrides && !digest.empty() &&
            prev.value("config_digest", "") == digest) {
          const std::string stats = read_text(fs::path(dir) / "stats.json");
          results[p.index] = {{"status", "ok"},
                              {"error", ""},
                              {"overrides", overrides},
                              {"metrics", headline_metrics(nlohmann::json::parse(stats))},
                              {"resumed", true}};
          if (opt.ranks > 1) results[p.index]["stats"] = stats;
          continue;
        }
      } catch (const std::exception&) {
        // An unreadable record: run the point again.
      }
    }
    todo.push_back(p.index);
  }
  const auto resumed = std::count_if(results.begin(), results.end(),
                                     [](const nlohmann::json& r) { return !r.is_null(); });
  std::cout << fmt::format("sweep {}: {} points, {} for this process ({} already done)\n",
                           spec.name, points.size(), todo.size() + resumed, resumed);
  std::cout.flush();

  struct Running {
    std::size_t index;
    std::chrono::steady_clock::time_point start;
  };
  std::map<pid_t, Running> running;
  std::size_t next = 0, done = 0;
  std::vector<std::string> digests(points.size());  // config_digest() as each point starts
  // Every finished point, run or refused: its point.json, a progress line, its result.
  auto record = [&](const SweepPoint& p, nlohmann::json res, double secs) {
    const nlohmann::json rec = {{"index", p.index},
                                {"overrides", res["overrides"]},
                                {"status", res["status"]},
                                {"error", res["error"]},
                                {"config_digest", digests[p.index]}};
    write_file_atomically((fs::path(point_dir(opt.out_dir, p.index)) / "point.json").string(),
                          rec.dump(2) + "\n");
    ++done;
    // Three digits: a point on minimal.yaml takes hundredths of a second, which "0.0 s" hid.
    std::cout << fmt::format("  point {:4d} {:<6} {:7.3f} s  ({}/{})", p.index,
                             res["status"].get<std::string>(), secs, done, todo.size());
    if (res["status"] != "ok") std::cout << "  " << res["error"].get<std::string>();
    std::cout << "\n";
    std::cout.flush();
    results[p.index] = std::move(res);
  };
  auto finish = [&](pid_t pid, int wstatus) {
    const Running r = running.at(pid);
    running.erase(pid);
    const SweepPoint& p = points[r.index];
    const std::string dir = point_dir(opt.out_dir, p.index);
    const int code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
    nlohmann::json res = {
        {"status", "failed"}, {"error", ""}, {"overrides", point_overrides(spec, p)}};
    const fs::path stats_path = fs::path(dir) / "stats.json";
    if (code == 0 && fs::exists(stats_path)) {
      try {
        const std::string stats = read_text(stats_path);
        res["metrics"] = headline_metrics(nlohmann::json::parse(stats));
        if (opt.ranks > 1) res["stats"] = stats;  // rank 0 may be on another machine
        res["status"] = "ok";
      } catch (const std::exception& e) {
        res["error"] = std::string("stats.json unreadable: ") + e.what();
      }
    } else {
      res["error"] = error_line(fs::path(dir) / "log.txt", code);
    }
    record(p, std::move(res),
           std::chrono::duration<double>(std::chrono::steady_clock::now() - r.start).count());
  };

  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() && running.size() < std::max(1u, opt.jobs)) {
      const SweepPoint& p = points[todo[next++]];
      const std::string dir = point_dir(opt.out_dir, p.index);
      fs::create_directories(dir);
      fs::remove(fs::path(dir) / "stats.json");
      fs::remove(fs::path(dir) / "point.json");
      const std::vector<std::string> overrides = point_overrides(spec, p);
      // A configuration error shows in milliseconds here, not after a process start.
      try {
        const ConfigDoc doc = load_config(point_run_options(spec, overrides));
        digests[p.index] = digest_of(doc);
        parse_config(doc);
      } catch (const ConfigError& e) {
        const auto in_sweep_file = sweep_key_error(spec, e);
        record(p,
               {{"status", "failed"},
                {"error", in_sweep_file ? *in_sweep_file : std::string(e.what())},
                {"overrides", overrides}},
               0.0);
        continue;
      }
      std::vector<std::string> args = {opt.famsim, "run"};
      if (!spec.platform.empty()) args.insert(args.end(), {"--platform", spec.platform});
      if (!spec.workload.empty()) args.insert(args.end(), {"--workload", spec.workload});
      for (const std::string& o : overrides) args.insert(args.end(), {"--set", o});
      args.insert(args.end(), {"--out", dir});
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      posix_spawn_file_actions_t fa;
      posix_spawn_file_actions_init(&fa);
      const std::string log = (fs::path(dir) / "log.txt").string();
      posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      posix_spawn_file_actions_adddup2(&fa, 1, 2);
      pid_t pid = 0;
      const int rc = posix_spawn(&pid, opt.famsim.c_str(), &fa, nullptr, argv.data(), environ);
      posix_spawn_file_actions_destroy(&fa);
      if (rc != 0) {
        throw std::runtime_error(fmt::format("cannot start {}: {}", opt.famsim, std::strerror(rc)));
      }
      running[pid] = {p.index, std::chrono::steady_clock::now()};
    }
    // Every point left was refused before its process started: there is no child to wait for
    // (waitpid would fail with ECHILD).
    if (running.empty()) continue;
    int wstatus = 0;
    const pid_t pid = waitpid(-1, &wstatus, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    }
    if (running.count(pid)) finish(pid, wstatus);
  }
  return results;
}

// An earlier, longer sweep into the same directory left points past this one's last: they would
// pass for this sweep's in points/ (results.csv and sweep.json are rewritten whole). Only what
// famsim wrote in them goes (the run's files, point.json, log.txt): a point directory that also
// holds something else keeps that, and a directory holding nothing a point leaves is not one.
void remove_stale_points(const std::string& out_dir, std::size_t count) {
  std::error_code ec;
  std::vector<fs::path> stale;
  for (const auto& e : fs::directory_iterator(fs::path(out_dir) / "points", ec)) {
    const std::string n = e.path().filename().string();
    if (n.size() < 4 || n.find_first_not_of("0123456789") != std::string::npos) continue;
    if (e.is_symlink(ec) || !e.is_directory(ec)) continue;
    if (n.size() > 9 || std::stoull(n) >= count) stale.push_back(e.path());
  }
  for (const fs::path& p : stale) {
    if (!holds_run_output(p.string()) && !fs::exists(p / "point.json", ec)) continue;
    remove_run_output(p.string());
    fs::remove(p / "point.json", ec);
    fs::remove(p / "log.txt", ec);
    if (!fs::remove(p, ec)) {
      std::cout << fmt::format("sweep: kept {}: it holds files famsim did not write\n", p.string());
    }
  }
}

// plots/ as scripts/plot_sweep.py drew it from the tables this sweep rewrites: its figures and
// summary would describe the earlier sweep's points. Only the files plot_sweep.py lists as its own
// (its manifest) go, and plots/ itself only when that leaves it empty.
void remove_stale_plots(const std::string& out_dir) {
  const fs::path plots = fs::path(out_dir) / "plots";
  const fs::path manifest = plots / ".plot_sweep-files";
  std::ifstream in(manifest);
  if (!in) return;
  std::error_code ec;
  for (std::string name; std::getline(in, name);) {
    // A plain file name, as plot_sweep.py writes them: nothing outside plots/.
    if (name.empty() || name[0] == '.' || name.find('/') != std::string::npos) continue;
    fs::remove(plots / name, ec);
  }
  in.close();
  fs::remove(manifest, ec);
  if (fs::is_empty(plots, ec)) fs::remove(plots, ec);
}

std::size_t write_sweep_outputs(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                                const std::vector<nlohmann::json>& results,
                                const std::string& out_dir, unsigned ranks) {
  std::vector<std::string> keys;
  for (const SweepGroup& g : spec.groups) keys.insert(keys.end(), g.keys.begin(), g.keys.end());
  // Workload result columns: every numeric result any point's streams reported.
  std::vector<std::string> wl_cols;
  {
    std::map<std::string, bool> seen;
    for (const nlohmann::json& r : results) {
      if (!r.is_object() || !r.contains("metrics") || !r["metrics"].contains("workload")) continue;
      for (const auto& [k, v] : r["metrics"]["workload"].items()) seen[k] = true;
    }
    for (const auto& [k, v] : seen) wl_cols.push_back(k);
  }
  std::string csv = "point,status,error";
  for (const std::string& k : keys) csv += "," + csv_field(k);
  for (const std::string& m : kMetrics) csv += "," + m;
  for (const std::string& w : wl_cols) csv += "," + csv_field(w);
  csv += "\n";
  std::size_t failed = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = points[i];
    const nlohmann::json& r = results[i];
    const bool ok = r.is_object() && r.value("status", "") == "ok";
    if (!ok) ++failed;
    csv += fmt::format("{},{},{}", p.index, ok ? "ok" : "failed",
                       csv_field(r.is_object() ? r.value("error", "") : "not run"));
    for (std::size_t g = 0; g < spec.groups.size(); ++g) {
      for (std::size_t k = 0; k < spec.groups[g].keys.size(); ++k) {
        csv += "," + csv_field(spec.groups[g].values[k][p.at[g]]);
      }
    }
    for (const std::string& m : kMetrics) {
      csv += "," + (ok ? csv_field(json_cell(r["metrics"][m])) : std::string());
    }
    for (const std::string& w : wl_cols) {
      const bool has = ok && r["metrics"].contains("workload") && r["metrics"]["workload"].contains(w);
      csv += "," + (has ? csv_field(json_cell(r["metrics"]["workload"][w])) : std::string());
    }
    csv += "\n";
  }
  const nlohmann::json sens = sensitivity(spec, points, results);
  std::string scsv =
      "parameter,metric,base_value,low_value,high_value,metric_base,metric_low,metric_high,"
      "elasticity,elasticity_low,elasticity_high\n";
  for (const auto& row : sens) {
    std::vector<std::string> cells;
    for (const char* c : {"parameter", "metric", "base_value", "low_value", "high_value",
                          "metric_base", "metric_low", "metric_high", "elasticity",
                          "elasticity_low", "elasticity_high"}) {
      cells.push_back(csv_field(json_cell(row[c])));
    }
    scsv += fmt::format("{}\n", fmt::join(cells, ","));
  }
  nlohmann::json groups = nlohmann::json::array(), params = nlohmann::json::array();
  nlohmann::json base = nlohmann::json::object();
  std::size_t varying = 0;
  for (const SweepGroup& g : spec.groups) {
    groups.push_back(g.keys);
    params.push_back(g.keys[0]);
    for (std::size_t k = 0; k < g.keys.size(); ++k) base[g.keys[k]] = g.values[k][g.base];
    if (g.size() > 1) ++varying;
  }
  const auto [platform, workload] = inputs_used(spec);
  const nlohmann::json summary = {
      {"name", spec.name},
      {"famsim_version", kVersion},
      {"description", spec.description},
      {"mode", spec.one_at_a_time ? "one_at_a_time" : "grid"},
      {"platform", platform},
      {"workload", workload},
      {"set", spec.set},
      {"parameters", params},
      {"groups", groups},
      {"base", base},
      {"points", points.size()},
      {"ok", points.size() - failed},
      {"failed", failed},
      {"one_dimensional", varying == 1},
      {"ranks", ranks},
      {"results", "results.csv"},
      {"sensitivity", "sensitivity.csv"},
      {"unchanged_workload_results", unchanged_workload_results(results)}};
  fs::create_directories(out_dir);
  remove_stale_points(out_dir, points.size());
  remove_stale_plots(out_dir);
  write_file_atomically((fs::path(out_dir) / "results.csv").string(), csv);
  write_file_atomically((fs::path(out_dir) / "sensitivity.csv").string(), scsv);
  write_file_atomically((fs::path(out_dir) / "sweep.json").string(), summary.dump(2) + "\n");
  return failed;
}


}  // namespace famsim
