// Helpers shared by the tests: build a simulation from YAML text, run it, read its results.
#pragma once

#include "models/core/config.h"
#include "sc_main/simulation.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace famsim::test {

// Runs `f`, which must throw ConfigError; returns its message (a test failure if it does not).
template <class F>
std::string config_error_of(F&& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a ConfigError";
  return "";
}

// While one lives, SystemC warnings are collected here ("message type: text") instead of failing
// the test (test_main.cpp): for a test that expects warnings and checks them. The innermost of
// nested ones collects.
class CapturedWarnings {
 public:
  CapturedWarnings();
  ~CapturedWarnings();
  CapturedWarnings(const CapturedWarnings&) = delete;
  CapturedWarnings& operator=(const CapturedWarnings&) = delete;
  const std::vector<std::string>& messages() const { return messages_; }

  // test_main.cpp's report handler: takes a warning if a capture lives.
  static bool take(const std::string& type, const std::string& text);

 private:
  std::vector<std::string> messages_;
  CapturedWarnings* outer_;
};

// The kernel a parameterised test names ("systemc" or "famsim"), as sim.kernel does.
inline Kernel kernel_named(const std::string& name) {
  return name == "systemc" ? Kernel::kSystemC : Kernel::kFamsim;
}

// A configuration document from platform YAML text and workload YAML text (the workload goes under
// `workload:`), with "key.path=value" overrides applied and presets expanded.
ConfigDoc make_doc(const std::string& platform_yaml, const std::string& workload_yaml,
                   const std::vector<std::string>& overrides = {});

// Elaborates, runs and returns stats.json content. One per test process (SystemC elaborates once).
nlohmann::json run_sim(const std::string& platform_yaml, const std::string& workload_yaml,
                       const std::vector<std::string>& overrides = {});

// The link parameters a preset (platforms/presets/link/NAME.yaml) gives, read through the
// platform parser as a platform file's `links:` entry would be; `extra` adds YAML keys
// (", key: value") next to `preset`.
LinkParams preset_link_params(const std::string& name, const std::string& extra = "");

// Runs a standalone trace-player platform from the source tree ("platforms/dram_ddr4.yaml")
// replaying `trace_text` as its trace file, and returns stats.json content. One per test process.
nlohmann::json run_trace_platform(const std::string& platform_file, const std::string& trace_text);

// The text of a file in the source tree ("platforms/minimal.yaml").
std::string source_file(const std::string& relative_path);
// Every block's report agreed with its per-phase probes (stats.json report_probe_check); a test
// failure listing the mismatches otherwise. run_sim and run_trace_platform check it themselves.
void expect_reports_match_probes(const nlohmann::json& results);

// Hand timing arithmetic for the zero-load tests, in ps. The first clock edge at or after t
// (pipelines: port logic, memory controller) and strictly after t (crossbar, switch and hub
// arbitration sample their inputs on the edge after arrival).
inline std::uint64_t edge(std::uint64_t t, std::uint64_t period) {
  return (t + period - 1) / period * period;
}
inline std::uint64_t edge_after(std::uint64_t t, std::uint64_t period) {
  return t / period * period + period;
}
// Serialisation of `bytes` at `gbps` GB/s.
inline std::uint64_t ser(std::uint64_t bytes, double gbps) {
  return static_cast<std::uint64_t>(bytes * 1000.0 / gbps);
}

}  // namespace famsim::test
