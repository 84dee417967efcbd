// Human-readable output: the terminal summary of a run and the derived peak figures that
// `famsim validate` prints.
#pragma once

#include "sc_main/simulation.h"

#include <nlohmann/json.hpp>

#include <string>

namespace famsim {

// A short table from stats.json content.
std::string summary_text(const nlohmann::json& stats, const std::string& out_dir);

// Derived peak figures of a validated configuration: per-link, per-switch-port, per-channel and
// aggregate bandwidths, the address layout and the workload's streams.
std::string validation_text(const ResolvedConfig& cfg);

// Writes `text` to `path` through a temporary file and a rename, so a reader never sees a
// half-written file. Throws std::runtime_error on failure.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace famsim
