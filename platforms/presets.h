// Shipped YAML files compiled into the executable (platforms, presets, workloads), and preset
// expansion: a node `{preset: NAME, key: value...}` takes every key of the preset file and
// overrides it with the keys written next to `preset`.
//
//   links.*                  <- platforms/presets/link/NAME.yaml
//   gpus.local_memory        <- platforms/presets/memory/NAME.yaml
//   devices.*.memory         <- platforms/presets/memory/NAME.yaml
//   workload.streams.*.<generator>.model  <- traffic/models/NAME.yaml (or `model: FILE`, a path)
#pragma once

#include "models/core/config.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace famsim {

// Every embedded file, keyed by its path in the source tree ("platforms/nvl8_fam.yaml").
const std::map<std::string, std::string>& embedded_files();
std::optional<std::string> embedded_file(const std::string& path);
// Names of the presets of one kind ("link", "memory", "model").
std::vector<std::string> preset_names(const std::string& kind);

// Expands every preset reference in a platform document, recording in doc.sources which preset
// file each expanded key came from. Throws ConfigError naming the key for an unknown preset.
void expand_presets(ConfigDoc& doc);

// A DRAM timing is given in ns (<name>_ns), in clocks (<name>_ck), or both, the larger counting
// (dram_spec.cpp). A value the user gives in one unit replaces the preset's in either: for each of
// `user_keys` (keys the user gives under `timing`) the memory preset's key in the other unit, and
// its assumption note, are dropped, unless the user gives that one too. Otherwise a tCCD_L_ck of 10
// over a preset's tCCD_L_ns of 5 ns (12 clocks) would lose to it unseen, while the run's
// configuration and report said 10 was used. expand_presets() applies it to memory presets.
void drop_preset_timing_replaced(YAML::Node& preset, const std::set<std::string>& user_keys);
// The same timing in the other unit: "tRCD_ns" for "...tRCD_ck" and the converse (the key path
// kept); nullopt for a key in neither unit.
std::optional<std::string> other_timing_unit(const std::string& key);

// The configuration `famsim run` uses when no file is given.
inline constexpr const char* kDefaultPlatform = "platforms/nvl8_fam.yaml";
inline constexpr const char* kDefaultWorkload = "traffic/random_read.yaml";

}  // namespace famsim
