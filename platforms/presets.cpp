#include "platforms/presets.h"

#include "traffic/ai/model_config.h"

#include <fmt/format.h>

#include <filesystem>
#include <set>
#include <vector>

namespace famsim {

std::optional<std::string> embedded_file(const std::string& path) {
  const auto& files = embedded_files();
  const auto it = files.find(path);
  if (it == files.end()) return std::nullopt;
  return it->second;
}

namespace {

// Where the presets of a kind live: platforms/presets/<kind>/, models under traffic/models/.
std::string preset_dir(const std::string& kind) {
  return kind == "model" ? "traffic/models/" : "platforms/presets/" + kind + "/";
}

}  // namespace

std::vector<std::string> preset_names(const std::string& kind) {
  const std::string prefix = preset_dir(kind);
  std::vector<std::string> out;
  for (const auto& [path, text] : embedded_files()) {
    if (path.rfind(prefix, 0) == 0 && path.size() > prefix.size() + 5) {
      out.push_back(path.substr(prefix.size(), path.size() - prefix.size() - 5));
    }
  }
  return out;
}

std::optional<std::string> other_timing_unit(const std::string& key) {
  if (key.size() < 4) return std::nullopt;
  const std::string unit = key.substr(key.size() - 3);
  if (unit != "_ns" && unit != "_ck") return std::nullopt;
  return key.substr(0, key.size() - 3) + (unit == "_ns" ? "_ck" : "_ns");
}

void drop_preset_timing_replaced(YAML::Node& preset, const std::set<std::string>& user_keys) {
  // Const access for every look-up: yaml-cpp's non-const operator[] would insert missing keys.
  const YAML::Node& cpreset = preset;
  const YAML::Node timing = cpreset["timing"];
  if (!timing.IsDefined() || !timing.IsMap()) return;
  const YAML::Node notes = cpreset["assumptions"];
  const YAML::Node timing_notes = notes.IsDefined() && notes.IsMap() ? notes["timing"] : notes;
  for (const std::string& key : user_keys) {
    const std::optional<std::string> other = other_timing_unit(key);
    if (!other || user_keys.count(*other) || !timing[*other].IsDefined()) continue;
    YAML::Node(timing).remove(*other);
    if (timing_notes.IsDefined() && timing_notes.IsMap() && timing_notes[*other].IsDefined()) {
      YAML::Node(timing_notes).remove(*other);
    }
  }
}

namespace {

// Records the preset file as the source of every key the preset supplied and the user did not.
void record_sources(const YAML::Node& preset, const YAML::Node& written, const std::string& path,
                    const std::string& file, ConfigSources& sources) {
  for (const auto& kv : preset) {
    const std::string key = kv.first.Scalar();
    const std::string p = path + "." + key;
    const YAML::Node w = written.IsMap() ? written[key] : YAML::Node();
    if (!w.IsDefined()) {
      sources.set(p, file);
    } else if (w.IsMap() && kv.second.IsMap()) {
      record_sources(kv.second, w, p, file, sources);
    }
  }
}

// `where` (the file a key came from) with the line `n` is on, unless a --set wrote it.
std::string at_line(const std::string& where, const YAML::Node& n) {
  const YAML::Mark mark = n.Mark();
  if (mark.is_null() || where.rfind("--set", 0) == 0) return where;
  return where + ":" + std::to_string(mark.line + 1);
}

// A model file says how values are stored in one of two ways (traffic/ai/model_config.h): the
// user's word in either replaces the base's (a preset's, a model file's) in the other.
void drop_format_keys_replaced(YAML::Node base, const YAML::Node& user) {
  for (const FormatKeys& pair : kFormatKeyPairs) {
    const char* const keys[] = {pair.format, pair.bytes};
    for (int i = 0; i < 2; ++i) {
      if (user[keys[i]].IsDefined() && !user[keys[1 - i]].IsDefined()) base.remove(keys[1 - i]);
    }
  }
}

// A model file's path as written at `path` (relative to the file that named it when it is there,
// else to the working directory).
std::string model_file_path(const std::string& written, const std::string& path,
                            const ConfigSources& sources) {
  const std::filesystem::path from(sources.source_of(path));
  std::error_code ec;
  if (std::filesystem::path(written).is_relative() && from.has_parent_path() &&
      std::filesystem::exists(from.parent_path() / written, ec)) {
    return (from.parent_path() / written).string();
  }
  return written;
}

void expand_one(YAML::Node parent, const std::string& key, const std::string& kind,
                const std::string& path, ConfigSources& sources) {
  // Const access throughout: yaml-cpp's non-const operator[] would insert missing keys.
  const YAML::Node& cparent = parent;
  const YAML::Node node = cparent[key];
  if (!node.IsDefined() || !node.IsMap() || !node["preset"].IsDefined()) return;
  const YAML::Node name_node = node["preset"];
  const std::string where = at_line(sources.source_of(path + ".preset"), name_node);
  if (!name_node.IsScalar()) {
    throw ConfigError(fmt::format("{}: {}.preset: expected a preset name", where, path));
  }
  const std::string name = name_node.Scalar();
  const std::string file = preset_dir(kind) + name + ".yaml";
  const auto text = embedded_file(file);
  if (!text) {
    std::string known;
    for (const auto& n : preset_names(kind)) known += (known.empty() ? "" : ", ") + n;
    throw ConfigError(fmt::format("{}: {}.preset: no {} preset named '{}' (known: {})", where, path,
                                  kind, name, known));
  }
  YAML::Node preset = load_yaml_text(*text, file);
  if (kind == "model") drop_format_keys_replaced(preset, node);
  if (kind == "memory") {
    const YAML::Node timing = node["timing"];
    std::set<std::string> keys;
    if (timing.IsDefined() && timing.IsMap()) {
      for (const auto& kv : timing) keys.insert(kv.first.Scalar());
    }
    drop_preset_timing_replaced(preset, keys);
  }
  record_sources(preset, node, path, file, sources);
  // Where the preset was chosen, for a key found missing from it later.
  sources.note_preset(path, {name, file, fmt::format("{}: {}.preset", where, path)});
  merge_yaml_in_place(preset, node);
}

// A generator's model: {preset: NAME, ...} or the path of a model file.
void expand_model(YAML::Node generator, const std::string& path, ConfigSources& sources) {
  const YAML::Node& cg = generator;
  const YAML::Node model = cg["model"];
  if (model.IsDefined() && model.IsMap() && model["file"].IsDefined()) {
    // {file: PATH, KEY: VALUE...}: the model file with the keys written beside it replacing its
    // own, as next to a preset (so that a sweep can vary a model file's keys).
    const std::string where = at_line(sources.source_of(path + ".model.file"), model["file"]);
    if (model["preset"].IsDefined()) {
      // Named where the second of the two came from: the --set that added one, else the file.
      const std::string preset_from = sources.source_of(path + ".model.preset");
      throw ConfigError(
          fmt::format("{}: {}.model: names both a preset and a file; expected one of them",
                      preset_from.rfind("--set", 0) == 0 ? preset_from : where, path));
    }
    if (!model["file"].IsScalar()) {
      throw ConfigError(
          fmt::format("{}: {}.model.file: expected the path of a model file", where, path));
    }
    const std::string file = model_file_path(model["file"].Scalar(), path + ".model.file", sources);
    YAML::Node base;
    try {
      base = load_yaml_file(file);
    } catch (const ConfigError& e) {
      throw ConfigError(fmt::format("{}: {}.model.file: {}", where, path, e.what()));
    }
    if (!base.IsMap()) {
      throw ConfigError(
          fmt::format("{}: {}.model.file: {} holds no map of model keys", where, path, file));
    }
    drop_format_keys_replaced(base, model);
    record_sources(base, model, path + ".model", file, sources);
    YAML::Node m = generator["model"];
    merge_yaml_in_place(base, m);
    return;
  }
  if (model.IsDefined() && model.IsScalar()) {
    const std::string file = model_file_path(model.Scalar(), path + ".model", sources);
    try {
      generator["model"] = load_yaml_file(file);
    } catch (const ConfigError& e) {
      throw ConfigError(fmt::format(
          "{}: {}.model: {}", at_line(sources.source_of(path + ".model"), model), path, e.what()));
    }
    sources.set(path + ".model", file);
    return;
  }
  expand_one(generator, "model", "model", path + ".model", sources);
}

}  // namespace

void expand_presets(ConfigDoc& doc) {
  const YAML::Node& root = doc.root;
  ConfigSources& src = *doc.sources;
  if (root["links"].IsDefined() && root["links"].IsMap()) {
    YAML::Node links = root["links"];
    std::vector<std::string> keys;
    for (const auto& kv : links) keys.push_back(kv.first.Scalar());
    for (const auto& k : keys) expand_one(links, k, "link", "links." + k, src);
  }
  if (root["gpus"].IsDefined() && root["gpus"].IsMap()) {
    expand_one(root["gpus"], "local_memory", "memory", "gpus.local_memory", src);
  }
  if (root["memory"].IsDefined() && root["memory"].IsMap()) {  // standalone memory platforms
    YAML::Node r = doc.root;
    expand_one(r, "memory", "memory", "memory", src);
  }
  if (root["workload"].IsDefined() && root["workload"].IsMap() &&
      root["workload"]["streams"].IsDefined() && root["workload"]["streams"].IsSequence()) {
    const YAML::Node streams = root["workload"]["streams"];
    for (std::size_t i = 0; i < streams.size(); ++i) {
      if (!streams[i].IsMap()) continue;
      for (const auto& kv : streams[i]) {
        if (kv.second.IsMap() && kv.second["model"].IsDefined()) {
          expand_model(kv.second, "workload.streams." + std::to_string(i) + "." + kv.first.Scalar(),
                       src);
        }
      }
    }
  }
  if (root["devices"].IsDefined() && root["devices"].IsSequence()) {
    const YAML::Node devs = root["devices"];
    for (std::size_t i = 0; i < devs.size(); ++i) {
      if (devs[i].IsMap()) {
        expand_one(devs[i], "memory", "memory", "devices." + std::to_string(i) + ".memory", src);
      }
    }
  }
}

}  // namespace famsim
