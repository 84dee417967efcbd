// Design-space sweeps: a sweep file names a base platform and workload and the parameters to vary
// by their key paths; `famsim sweep` runs every point as its own `famsim run` process (SystemC
// elaborates once per process), several at a time, and under mpirun spreads the points over the
// ranks, rank 0 collecting. Results: one CSV row per point, each point's own run directory, and
// the elasticity of each headline metric with respect to each parameter around the base point.
// File format and outputs: README "Sweeps".
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace famsim {

// One axis of the sweep: one key, or several keys that move together (zip), with their values
// as they are written after `--set key=`.
struct SweepGroup {
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> values;  // values[k][i]: key k at position i
  std::size_t base = 0;                          // position of the base point
  // Where each key is written in the sweep file, "file:line: parameters.N.key".
  std::vector<std::string> key_locations;
  std::size_t size() const { return values.empty() ? 0 : values.front().size(); }
};

struct SweepSpec {
  std::string file;  // the sweep file, as given
  std::string name;
  std::string description;
  std::string platform;  // a path, or empty: the built-in default
  std::string workload;  // a path, or empty: the platform's own or the default
  std::vector<std::string> set;  // overrides of every point
  std::vector<std::string> set_locations;  // where each is written, "file:line: set.N"
  bool one_at_a_time = false;
  std::vector<SweepGroup> groups;
};

// A point: the position on each group's axis.
struct SweepPoint {
  std::size_t index = 0;
  std::vector<std::size_t> at;
};

// Reads and checks a sweep file. Throws ConfigError naming the file, line and key. Relative
// platform and workload paths are taken relative to the sweep file's directory; a name that is
// not a file but a built-in platform or workload ("nvl8_fam") is written to `materialise_dir`
// (when given) so that each point's run can read it.
SweepSpec parse_sweep(const std::string& path, const std::string& materialise_dir = "");

// Checks, before anything is written, every key the sweep file names (its `set` entries and
// parameters) against the configuration of the base point (every parameter at its base). A key
// the configuration does not know, or a path that leads nowhere (through a value, past the end
// of a list), is an error in the sweep file, the same at every point: ConfigError naming the
// sweep file, the line of the entry and the key. A value the configuration rejects is left to
// check_sweep_points. The spec's built-in platform or workload is written to a scratch directory
// for the check, then removed.
void check_sweep_keys(const std::string& path);

// Checks, before anything is written or simulated, every point's configuration as a run reads it
// (the platform, workload and presets with the point's overrides; nothing elaborated). A value the
// configuration refuses at some point (a parameter's value out of range, or one that does not go
// with the rest) is bad input: ConfigError naming the sweep file's line of the entry that wrote
// it (else of the first parameter away from its base), the point and its values, and the error.
void check_sweep_points(const std::string& path);

// Grid: every combination, the first group varying slowest. One at a time: the base point, then
// each group's other positions with every other group at its base.
std::vector<SweepPoint> expand_points(const SweepSpec& spec);

// The `--set` overrides of one point: the sweep's own `set` first, less the entries whose key a
// parameter sweeps (the parameter's value overrides them), then the parameters' values.
std::vector<std::string> point_overrides(const SweepSpec& spec, const SweepPoint& p);

// Headline metrics of one finished run from its stats.json (see results.csv columns).
nlohmann::json headline_metrics(const nlohmann::json& stats);

// Elasticity rows (sensitivity.csv) from the points' results: results[i] = {"status", metrics...}.
nlohmann::json sensitivity(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                           const std::vector<nlohmann::json>& results);

struct SweepOptions {
  std::string out_dir;
  unsigned jobs = 1;      // local processes at a time
  std::string famsim;     // the executable each point runs
  unsigned rank = 0;      // this process's share: points with index % ranks == rank
  unsigned ranks = 1;
};

// Runs this rank's points (skipping those a previous run finished) and returns their results,
// indexed like `points` (null for other ranks' points). Each result: {status, error, metrics,
// overrides, stats (the stats.json text, for collection across machines)}.
std::vector<nlohmann::json> run_points(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                                       const SweepOptions& opt);

// Writes results.csv, sensitivity.csv and sweep.json (atomically) from every point's result.
// Returns the number of failed points.
// `ranks`: the MPI processes that ran the points (1 without mpirun), recorded in sweep.json.
std::size_t write_sweep_outputs(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                                const std::vector<nlohmann::json>& results,
                                const std::string& out_dir, unsigned ranks = 1);

// Makes the sweep's output directory `out_dir` and its points/ folder, before any point runs, and
// marks it as a sweep's. An existing directory is taken when it holds none of the names a sweep
// writes (points/, results.csv, ...) or when a famsim sweep marked it (a rerun, an interrupted
// sweep resumed); one that holds them unmarked is the user's: a ConfigError naming --out and
// those names, with nothing in it touched. A path that is a file or cannot be made: ConfigError.
void make_sweep_out_dir(const std::string& out_dir);

// A point's run directory: DIR/points/NNNN.
std::string point_dir(const std::string& out_dir, std::size_t index);

#ifdef FAMSIM_MPI
// Under mpirun: every rank sends its points' results to rank 0, which returns all of them (and
// copies into its own point directories the stats.json of ranks on other machines). Other ranks
// return their own.
std::vector<nlohmann::json> gather_results(std::vector<nlohmann::json> results, unsigned rank,
                                           unsigned ranks, const std::string& out_dir);
#endif

}  // namespace famsim
