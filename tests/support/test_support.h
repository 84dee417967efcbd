// Helpers shared by the tests: build a simulation from YAML text, run it, read its results.
#pragma once

#include "sc_main/simulation.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace famsim::test {

// A configuration document from platform YAML text and workload YAML text (the workload goes under
// `workload:`), with "key.path=value" overrides applied and presets expanded.
ConfigDoc make_doc(const std::string& platform_yaml, const std::string& workload_yaml,
                   const std::vector<std::string>& overrides = {});

// Elaborates, runs and returns stats.json content. One per test process (SystemC elaborates once).
nlohmann::json run_sim(const std::string& platform_yaml, const std::string& workload_yaml,
                       const std::vector<std::string>& overrides = {});

// The text of a file in the source tree ("platforms/minimal.yaml").
std::string source_file(const std::string& relative_path);

}  // namespace famsim::test
