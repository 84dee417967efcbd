// Strict configuration reading. YAML (yaml-cpp) is read into plain structs once, at elaboration.
// Every getter states the type and range it expects; every key that is present but never read is
// an unknown key. Errors name the source file, the line and the full key path, and say what was
// expected; they are thrown as ConfigError, which the executable turns into exit code 2.
#pragma once

// famsim is C++17 (std::optional, structured bindings, ...), and SystemC's library refuses at link
// time a program compiled for another standard than its own (Debian's: C++17): one message here
// instead of dozens from the headers below.
#if __cplusplus < 201703L
#error "famsim needs C++17 (-std=c++17), the standard its SystemC library was built for"
#endif

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace famsim {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  // An error in a key path itself rather than in a value (an unknown key; a --set path through a
  // value or past the end of a list): that path, and the reason without its location, so that
  // whoever wrote the path (a sweep file) can report it at its own file and line.
  ConfigError(const std::string& what, std::string bad_key_path, std::string reason)
      : std::runtime_error(what),
        bad_key_path_(std::move(bad_key_path)),
        reason_(std::move(reason)) {}
  // Empty when the error is not about a key path.
  const std::string& bad_key_path() const { return bad_key_path_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string bad_key_path_;
  std::string reason_;
};

// Which file (or "--set", or a preset) each key path came from. Lookup is by longest prefix, so
// recording a subtree's root covers everything below it.
class ConfigSources {
 public:
  explicit ConfigSources(std::string default_source = "") : default_(std::move(default_source)) {}
  void set(const std::string& path, const std::string& source) { by_path_[path] = source; }
  std::string source_of(const std::string& path) const;

  // The values the readers assumed for keys the configuration left out, by key path: with the
  // configuration itself, every parameter a run used.
  void note_default(const std::string& path, nlohmann::json value) {
    defaults_[path] = std::move(value);
  }
  const std::map<std::string, nlohmann::json>& defaults() const { return defaults_; }

  // The value a key held before the first --set that changed it (null: it had none), so that a
  // change to a part with no shipped base to compare with (the workload) can still be reported.
  void note_overridden(const std::string& path, nlohmann::json before) {
    overridden_.emplace(path, std::move(before));  // the first override's "before" stands
  }
  const std::map<std::string, nlohmann::json>& overridden() const { return overridden_; }

  // A preset expanded at a key path (devices.0.memory): its name, its file and where it was
  // chosen ("platform.yaml:12: devices.0.memory.preset"). A key missing from what the preset
  // supplied is reported with the choice that brought the preset in, not only the preset's file.
  struct PresetChoice {
    std::string name;
    std::string file;
    std::string chosen_at;
  };
  void note_preset(const std::string& path, PresetChoice choice) {
    presets_[path] = std::move(choice);
  }
  // The preset expanded at the longest prefix of `path`; null when none was.
  const PresetChoice* preset_of(const std::string& path) const;
  // Forgets the defaults noted under `path` (a block the platform turned out not to have).
  void forget_defaults_under(const std::string& path) {
    const std::string prefix = path + ".";
    for (auto it = defaults_.lower_bound(prefix);
         it != defaults_.end() && it->first.compare(0, prefix.size(), prefix) == 0;) {
      it = defaults_.erase(it);
    }
  }

 private:
  std::string default_;
  std::map<std::string, std::string> by_path_;
  std::map<std::string, nlohmann::json> defaults_;
  std::map<std::string, nlohmann::json> overridden_;
  std::map<std::string, PresetChoice> presets_;
};

// A configuration document: the YAML tree plus where its parts came from.
struct ConfigDoc {
  YAML::Node root;
  std::shared_ptr<ConfigSources> sources;
};

// The most nodes (keys, values and list entries) a YAML document, a file or a --set value, may
// have once its aliases are expanded, and the deepest it may nest. yaml-cpp shares an aliased node
// rather than copying it, so a few lines of nested aliases are a tree of 10^9 nodes to every walk
// over it. The largest shipped file has a few hundred nodes nested 6 deep.
inline constexpr std::size_t kMaxYamlNodes = 1000000;
inline constexpr std::size_t kMaxYamlDepth = 100;

// Loads a YAML file; syntax errors and unreadable files become ConfigError naming the file.
YAML::Node load_yaml_file(const std::string& path);
// Parses YAML text; `source` names it in errors. Besides syntax, refused with a ConfigError: an
// alias inside the node it names (a cycle), more than kMaxYamlNodes nodes or kMaxYamlDepth levels
// once aliases are expanded, a merge key ('<<'), a key twice in one map, text that is not UTF-8.
// What it returns is a finite tree within those limits, which every other walk relies on.
YAML::Node load_yaml_text(const std::string& text, const std::string& source);

// Applies one "key.path=value" override to `root` (sequence indices are numbers in the path).
// Missing map keys are created, so an unknown key is reported later by the strict reader, which
// names the --set as its source. Throws ConfigError for a malformed override, and for a value
// holding anything load_yaml_text refuses in a document (a cycle, too many nodes, a merge key).
void apply_override(ConfigDoc& doc, const std::string& assignment);
// Applies a command line's overrides in order. The same key path twice is a ConfigError naming the
// key and both values, as a key twice in one YAML map is: one of the two was meant, and the last
// would silently win.
void apply_overrides(ConfigDoc& doc, const std::vector<std::string>& assignments);

// The walks below, like every recursive walk over a configuration, take a tree that came from
// load_yaml_text or apply_override: no cycles, and within kMaxYamlNodes and kMaxYamlDepth.

// Deep-merges `over` onto `base`: maps merge key by key, anything else in `over` wins. The inputs
// are left as they were; the result shares their nodes below the merged maps rather than copying
// them, so that those keep their place in their files (YAML::Clone puts every node at line 1)
// and errors about them name the right line.
YAML::Node merge_yaml(const YAML::Node& base, const YAML::Node& over);
// merge_yaml(base, over) written into `over` itself (when both are maps): keys in the same order,
// but every map of `over` that merges with one of base's keeps its node, and so its line, where a
// new map would have none. A preset's keys go into the map the user wrote this way, so that an
// error about the map as a whole names its line in the user's file. `base` is left as it was
// (its nodes below are shared, as merge_yaml shares them).
void merge_yaml_in_place(const YAML::Node& base, YAML::Node over);

// Converts a YAML tree to JSON with typed scalars (bool, integer, float, null, string).
nlohmann::json yaml_to_json(const YAML::Node& n);
// Emits a YAML tree as block-style text.
std::string yaml_to_text(const YAML::Node& n);

// Parses "8GiB", "64 KiB", "1.5MB", "4096" into bytes; nullopt when malformed.
std::optional<std::uint64_t> parse_bytes(const std::string& text);

// A value of a configuration node that the file giving it marks as an assumption rather than a
// figure from a standard or a datasheet (ConfigNode::assumptions).
struct ConfigAssumption {
  std::string key;         // key path below the node ("timing.CL_ns")
  nlohmann::json value;    // the value the run used
  std::string why;         // the note: why it is an assumption, what it was taken from
  std::string value_from;  // where the value came from (a preset file, the platform, a --set)
  std::string note_from;   // where the note came from; differs when the user set the value
};

// A map node being read into a struct.
class ConfigNode {
 public:
  ConfigNode(YAML::Node node, std::string path, std::shared_ptr<ConfigSources> sources);

  const std::string& path() const { return path_; }
  bool has(const std::string& key) const;

  std::uint64_t get_uint(const std::string& key, std::optional<std::uint64_t> def,
                         std::uint64_t min = 0,
                         std::uint64_t max = std::numeric_limits<std::uint64_t>::max());
  // A number in [min, max] (or (min, max] when min_exclusive).
  double get_double(const std::string& key, std::optional<double> def, double min, double max,
                    bool min_exclusive = false);
  // A key with no default: its value when given (in [min, max], as the getters above), nullopt
  // when absent or left empty (`key:`). Nothing is recorded as a default.
  std::optional<std::uint64_t> find_uint(const std::string& key, std::uint64_t min,
                                         std::uint64_t max);
  std::optional<double> find_double(const std::string& key, double min, double max);
  bool get_bool(const std::string& key, std::optional<bool> def);
  std::string get_string(const std::string& key, std::optional<std::string> def);
  // A file path; a relative one is taken relative to the directory of the file that set the key
  // when the file is there, else relative to the working directory.
  std::string get_path(const std::string& key);
  std::string get_choice(const std::string& key, std::optional<std::string> def,
                         const std::vector<std::string>& allowed);
  // Bytes as an integer or with a unit suffix (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB).
  std::uint64_t get_bytes(const std::string& key, std::optional<std::uint64_t> def,
                          std::uint64_t min = 0,
                          std::uint64_t max = std::numeric_limits<std::uint64_t>::max());
  // A list of unsigned integers.
  std::vector<std::uint64_t> get_uint_list(const std::string& key, std::uint64_t min,
                                           std::uint64_t max);

  // A list of lists of `arity` unsigned integers each, every integer in [min, max] (mesh
  // coordinates: [[x, y], ...]). Absent: an empty list.
  std::vector<std::vector<std::uint64_t>> get_uint_tuples(const std::string& key, std::size_t arity,
                                                          std::uint64_t min, std::uint64_t max);

  // A list of text values; a single value is read as a list of one.
  std::vector<std::string> get_string_list(const std::string& key);
  bool is_list(const std::string& key) const;
  bool is_map(const std::string& key) const;

  // A nested map; an absent key gives an empty map unless `required`.
  ConfigNode child(const std::string& key, bool required = false);
  // A list of maps.
  std::vector<ConfigNode> list(const std::string& key, bool required = false);
  // The notes under `key` (a map that mirrors this node's keys, each leaf a text saying why that
  // value is an assumption: `assumptions: {timing: {CL_ns: "..."}}` marks timing.CL_ns), in the
  // order written. A note that names no value given in this node, or that is not text, is a
  // ConfigError; an absent `key` gives none.
  std::vector<ConfigAssumption> assumptions(const std::string& key);
  // Marks a key as read without reading it (for keys handled elsewhere, like `preset`).
  void ignore(const std::string& key) { used_.insert(key); }
  // The block under `key` turned out not to exist: the defaults its reader noted are not
  // parameters of the run.
  void forget_defaults(const std::string& key) const {
    if (sources_) sources_->forget_defaults_under(key_path(key));
  }

  // Every key present must have been read; otherwise an unknown-key error.
  void finish() const;
  // Every key present must be one of `known`: the unknown-key error finish() gives, before any
  // reading. For a node whose keys decide how the rest is read (a stream's generator key), so
  // that a misspelt one is reported as unknown rather than as whatever its absence implies.
  void check_known(const std::vector<std::string>& known) const;

  // Throws ConfigError "file:line: key.path: what". For a missing key ("missing; ..."), names an
  // unread key of this map spelt closely enough to be the user's spelling of it. `key` may be a
  // dotted path below this map, such as a list entry ("dims.0"): it is named at its own line, or
  // as the --set that wrote it when one did (not the file that wrote the rest of the list).
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;
  // Where `key` is written, "file:line: key.path", as fail() starts its message: for an error
  // about the key that is only found later, after reading (a sweep's key the configuration does
  // not know). The second form names entry `index` of the list under `key`.
  std::string location(const std::string& key) const;
  std::string location(const std::string& key, std::size_t index) const;
  // Only the "file:line" of entry `index` of the list under `key` (or "--set ..." when an
  // override wrote it), for a record that names its origin in errors found later.
  std::string written_at(const std::string& key, std::size_t index) const;
  // An error about this node as a whole.
  [[noreturn]] void fail_here(const std::string& what) const;
  // A rule across several keys (tRC >= tRAS; a device's ports against the switch planes): the
  // error names the first of `keys` (dotted paths below this node) that a --set wrote, the user's
  // latest word on it, else the first of them. `what` must name the keys itself.
  [[noreturn]] void fail_among(const std::vector<std::string>& keys, const std::string& what) const;
  std::string key_path(const std::string& key) const;

 private:
  std::optional<YAML::Node> scalar(const std::string& key);
  // A default the reader falls back on for `key`: recorded in the sources, then returned.
  template <class T>
  T defaulted(const std::string& key, const T& value) {
    if (sources_) sources_->note_default(key_path(key), value);
    return value;
  }
  std::string where(const YAML::Node& n, const std::string& path) const;
  // The node at `dotted` below this one (map keys and list indices), with `whole` true, or the
  // deepest part of that path present, with `whole` false.
  YAML::Node walk(const std::string& dotted, bool& whole) const;
  // The unknown-key error for the first key present that is not in `known`.
  void check_keys(const std::set<std::string>& known) const;

  YAML::Node node_;
  std::string path_;
  std::shared_ptr<ConfigSources> sources_;
  std::set<std::string> used_;
  // " (is 'clock_mzh' on line 6 a misspelling of it?)" for a missing `key`, or "". With
  // `name_key`, "... a misspelling of 'clock_mhz'?)": for a key under it.
  std::string misspelling_hint(const std::string& key, bool name_key = false) const;
  // For a map that is absent (an optional child() not given): the hint for its own key, or the
  // one its absent parent had. A required key under it that is missing says the map's key may be
  // misspelt ('linkz:' for 'links:' reports links.gpu_device as missing).
  std::string absent_hint_;
};

}  // namespace famsim
