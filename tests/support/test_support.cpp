#include "tests/support/test_support.h"

#include "platforms/presets.h"

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
  Simulation sim(make_doc(platform_yaml, workload_yaml, overrides));
  sim.run();
  if (sim.input_error()) throw std::runtime_error(*sim.input_error());
  return sim.results(0.0, 0.0);
}

std::string source_file(const std::string& relative_path) {
  std::ifstream in(std::string(FAMSIM_SOURCE_DIR) + "/" + relative_path);
  if (!in) throw std::runtime_error("cannot read " + relative_path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace famsim::test
