// The phase sampler's view of a DRAM channel (models/core/phases.h): a sample at boundary B holds
// the work of every command issued before B and of none at or after it. The controller may run
// its commands late (it sleeps until an answer can fall due, DramController::schedule), so the
// sampler has it catch up before each sample. Checked against the run's own DRAM command log, an
// independent record of when each command issued: the data bus's work in each window is tBL
// cycles for every column command in it.
#include "models/memory/dram/dram_command.h"
#include "models/memory/dram_controller.h"
#include "platforms/presets.h"
#include "tests/support/test_support.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace famsim {
namespace {

TEST(DramSampling, EachWindowHoldsTheDataBusWorkOfTheColumnCommandsIssuedInIt) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("famsim-sampling-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  // 4000 accesses spread over the channel (a linear congruential sequence of 64 B blocks in
  // 8 GiB), four in five reads: the controller has reads in flight most of the time, the case in
  // which it sleeps through commands, with posted writes in between.
  const std::string trace = (dir / "random.ds3").string();
  {
    std::ofstream out(trace);
    std::uint64_t x = 12345;
    for (int k = 0; k < 4000; ++k) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      const std::uint64_t block = (x >> 20) % (std::uint64_t{8} << 24);  // 8 GiB / 64 B
      out << fmt::format("0x{:x} {} 0\n", block * 64, k % 5 == 4 ? "WRITE" : "READ");
    }
  }
  ConfigDoc doc;
  doc.sources = std::make_shared<ConfigSources>("test-platform.yaml");
  doc.root = load_yaml_text(test::source_file("platforms/dram_ddr4.yaml"), "test-platform.yaml");
  doc.root["trace_player"]["file"] = trace;
  doc.root["trace_player"]["format"] = "dramsim3";
  doc.root["sim"]["dram_command_log"] = true;
  // Narrow windows, so that many boundaries fall while commands issue.
  doc.root["sim"]["phase_window_ns"] = 100;
  expand_presets(doc);
  Simulation sim(doc, (dir / "out").string());
  sim.run();
  ASSERT_FALSE(sim.input_error()) << *sim.input_error();
  const nlohmann::json r = sim.results(0.0, 0.0);
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());

  ASSERT_EQ(sim.platform().dram_controllers().size(), 1u);
  const DramController& dram = *sim.platform().dram_controllers()[0];
  const dram::Timing& t = dram.core().spec().timing;
  const PhaseSampler& sampler = sim.context().phases;
  const std::vector<double> windows = sampler.windows_of(dram, "data bus");
  const std::uint64_t width_ps = sampler.window_ps();
  // The run lasts some 20 us: well over the 32 windows kept, so they have merged.
  ASSERT_GE(windows.size(), 16u);

  // Column commands per window, from the command log.
  std::vector<std::uint64_t> columns(windows.size() + 1, 0);
  std::ifstream log(dram.command_log());
  ASSERT_TRUE(log) << dram.command_log();
  std::string line;
  std::uint64_t in_windows = 0;
  while (std::getline(log, line)) {
    if (line.empty() || line[0] == '#' || line == dram::kCommandLogHeader) continue;
    std::string error;
    const auto rec = dram::parse_record(line, error);
    ASSERT_TRUE(rec) << line << ": " << error;
    if (!dram::is_column(rec->command)) continue;
    const std::uint64_t w = rec->time_ps / width_ps;
    if (w < windows.size()) {
      ++columns[w];
      ++in_windows;
    }
  }
  ASSERT_GT(in_windows, 3000u);
  const double cycle_work = static_cast<double>(t.burst) * t.tck_ps;  // tBL cycles, in ps
  for (std::size_t w = 0; w < windows.size(); ++w) {
    EXPECT_EQ(windows[w], static_cast<double>(columns[w]) * cycle_work) << "window " << w;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace famsim
