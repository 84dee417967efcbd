#include "tests/support/test_support.h"

#include "platforms/presets.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace famsim::test {

ConfigDoc make_doc(const std::string& platform_yaml, const std::string& workload_yaml,
                   const std::vector<std::string>& overrides) {
  ConfigDoc doc;
  doc.sources = std::make_shared<ConfigSources>("test-platform.yaml");
  doc.root = load_yaml_text(platform_yaml, "test-platform.yaml");
  doc.root["workload"] = load_yaml_text(workload_yaml, "test-workload.yaml");
  doc.sources->set("workload", "test-workload.yaml");
  for (const auto& o : overrides) apply_override(doc, o);
  expand_presets(doc);
  return doc;
}

nlohmann::json run_sim(const std::string& platform_yaml, const std::string& workload_yaml,
                       const std::vector<std::string>& overrides) {
  // Every simulated test passes through the independent DRAM timing checker: the controllers log
  // their commands and the results must show a clean check.
  std::vector<std::string> with_log = overrides;
  with_log.push_back("sim.dram_command_log=true");
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("famsim-test-" + std::to_string(::getpid())))
          .string();
  // Removed once the simulation, whose DRAM command logs live there until it ends, is gone; also
  // when it throws.
  struct RemoveDir {
    const std::string& dir;
    ~RemoveDir() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } remove_dir{dir};
  Simulation sim(make_doc(platform_yaml, workload_yaml, with_log), dir);
  sim.run();
  if (sim.input_error()) throw std::runtime_error(*sim.input_error());
  nlohmann::json r = sim.results(0.0, 0.0);
  if (r.contains("dram_timing_check") && !r["dram_timing_check"]["ok"].get<bool>()) {
    ADD_FAILURE() << "DRAM timing check failed: " << r["dram_timing_check"].dump(2);
  }
  expect_reports_match_probes(r);
  return r;
}

LinkParams preset_link_params(const std::string& name, const std::string& extra) {
  const std::string platform =
      "name: preset_probe\n"
      "gpus: {count: 1, clock_mhz: 1000}\n"
      "links:\n"
      "  gpu_device: {preset: " +
      name + extra +
      ", per_gpu: 1}\n"
      "devices:\n"
      "  - name: fam0\n"
      "    capacity_gib: 1\n"
      "    fabric_ports: 1\n"
      "    port_logic: {clock_mhz: 1000, ingress_cycles: 1, tags_per_port: 8}\n"
      "    noc: {clock_mhz: 1000, pipeline_cycles: 1, width_bytes: 64}\n"
      "    memory: {preset: ddr5_4800_x8, channels: 1}\n";
  const std::string workload = "streams:\n  - buffer: {bytes: 1MiB, location: device/fam0}\n";
  return parse_config(make_doc(platform, workload)).platform.gpu_link.params;
}

nlohmann::json run_trace_platform(const std::string& platform_file, const std::string& trace_text) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("famsim-trace-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string trace = (dir / "t.trace").string();
  std::ofstream(trace) << trace_text;
  ConfigDoc doc;
  doc.sources = std::make_shared<ConfigSources>("test-platform.yaml");
  doc.root = load_yaml_text(source_file(platform_file), "test-platform.yaml");
  doc.root["trace_player"]["file"] = trace;
  expand_presets(doc);
  Simulation sim(doc, (dir / "out").string());
  sim.run();
  EXPECT_FALSE(sim.input_error());
  nlohmann::json r = sim.results(0.0, 0.0);
  std::filesystem::remove_all(dir);
  expect_reports_match_probes(r);
  return r;
}

void expect_reports_match_probes(const nlohmann::json& results) {
  if (!results["report_probe_check"]["ok"].get<bool>()) {
    ADD_FAILURE() << "report/probe check failed: " << results["report_probe_check"].dump(2);
  }
}

std::string source_file(const std::string& relative_path) {
  std::ifstream in(std::string(FAMSIM_SOURCE_DIR) + "/" + relative_path);
  if (!in) throw std::runtime_error("cannot read " + relative_path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

namespace {
CapturedWarnings* active_capture = nullptr;
}  // namespace

CapturedWarnings::CapturedWarnings() : outer_(active_capture) { active_capture = this; }

CapturedWarnings::~CapturedWarnings() {
  EXPECT_EQ(active_capture, this) << "CapturedWarnings ended out of order";
  active_capture = outer_;
}

bool CapturedWarnings::take(const std::string& type, const std::string& text) {
  if (active_capture == nullptr) return false;
  active_capture->messages_.push_back(type + ": " + text);
  return true;
}

}  // namespace famsim::test
