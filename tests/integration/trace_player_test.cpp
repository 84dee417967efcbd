// The trace player in open mode (traffic/trace_player.h): requests start at their timestamps or,
// when the player cannot start them then, later by an issue lag that stats.json reports. Expected
// values are worked out by hand from the player's clock and its one request per cycle.
#include "platforms/presets.h"
#include "tests/support/test_support.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace famsim {
namespace {

// Runs platforms/dram_ddr4.yaml (one DDR4-3200 channel; the player's clock is the DRAM command
// clock, 1600 MHz = 625 ps) in open mode on a DRAMsim3 trace of `lines`, 64 in flight at most.
nlohmann::json run_open(const std::string& name, const std::string& lines) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("famsim-player-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string trace = (dir / (name + ".ds3")).string();
  std::ofstream(trace) << lines;
  ConfigDoc doc;
  doc.sources = std::make_shared<ConfigSources>("test-platform.yaml");
  doc.root = load_yaml_text(test::source_file("platforms/dram_ddr4.yaml"), "test-platform.yaml");
  doc.root["trace_player"]["file"] = trace;
  doc.root["trace_player"]["format"] = "dramsim3";
  doc.root["trace_player"]["mode"] = "open";
  doc.root["trace_player"]["max_outstanding"] = 64;
  expand_presets(doc);
  Simulation sim(doc, (dir / "out").string());
  sim.run();
  EXPECT_FALSE(sim.input_error()) << *sim.input_error();
  nlohmann::json r = sim.results(0.0, 0.0);
  test::expect_reports_match_probes(r);
  std::filesystem::remove_all(dir);
  return r;
}

TEST(TracePlayer, RequestsStampedTogetherLagOneCycleEach) {
  // 32 reads all stamped at cycle 0. The player starts at most one request per cycle, and the
  // controller's read queue (64) takes them all at once: read k starts at cycle k, 625 k ps
  // late. max 31 x 0.625 = 19.375 ns, mean 15.5 x 0.625 = 9.6875 ns, 31 of 32 late; under the
  // 100 ns that counts as falling behind.
  std::string lines;
  for (int k = 0; k < 32; ++k) lines += fmt::format("0x{:x} READ 0\n", k * 64);
  const nlohmann::json r = run_open("burst", lines);
  ASSERT_TRUE(r.contains("issue_lag"));
  const nlohmann::json& lag = r["issue_lag"];
  EXPECT_EQ(lag["requests"].get<std::uint64_t>(), 32u);
  EXPECT_EQ(lag["late"].get<std::uint64_t>(), 31u);
  EXPECT_DOUBLE_EQ(lag["max_ns"].get<double>(), 19.375);
  EXPECT_DOUBLE_EQ(lag["mean_ns"].get<double>(), 9.6875);
  EXPECT_FALSE(lag["behind"].get<bool>());
  EXPECT_EQ(r["components"]["trace_player"]["issue_lag"]["max_ns"], lag["max_ns"]);
}

TEST(TracePlayer, RequestsStampedApartStartOnTime) {
  // One read every 40 cycles (25 ns), each served in under 60 ns with up to 64 in flight: every
  // read starts at its timestamp.
  std::string lines;
  for (int k = 0; k < 20; ++k) lines += fmt::format("0x{:x} READ {}\n", k * 64, k * 40);
  const nlohmann::json r = run_open("paced", lines);
  ASSERT_TRUE(r.contains("issue_lag"));
  const nlohmann::json& lag = r["issue_lag"];
  EXPECT_EQ(lag["requests"].get<std::uint64_t>(), 20u);
  EXPECT_EQ(lag["late"].get<std::uint64_t>(), 0u);
  EXPECT_DOUBLE_EQ(lag["max_ns"].get<double>(), 0.0);
  // The last timestamp: cycle 19 x 40 = 760 of 625 ps = 475 ns.
  EXPECT_DOUBLE_EQ(lag["last_timestamp_ns"].get<double>(), 475.0);
}

}  // namespace
}  // namespace famsim
