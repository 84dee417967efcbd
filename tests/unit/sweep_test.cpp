// Sweep files: values from lists, ranges and seeded samples; grid and one-at-a-time points; zips;
// elasticities worked out by hand; errors naming the file, line and key.
#include "models/core/config.h"
#include "sc_main/sweep.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace famsim {
namespace {

// The sweep files the tests wrote, removed when the test program ends.
struct WrittenFiles {
  std::vector<std::string> paths;
  ~WrittenFiles() {
    for (const std::string& p : paths) {
      std::error_code ec;
      std::filesystem::remove(p, ec);
    }
  }
};

std::string write_sweep(const std::string& text) {
  static WrittenFiles written;
  const std::string path =
      (std::filesystem::temp_directory_path() /
       ("famsim_sweep_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
        "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".yaml"))
          .string();
  std::ofstream(path) << text;
  written.paths.push_back(path);
  return path;
}

TEST(Sweep, RangesAndListsMakeAGridWithTheLastGroupFastest) {
  const auto spec = parse_sweep(write_sweep(R"(
name: g
parameters:
  - key: a
    range: {from: 256, to: 2048, factor: 2}
  - key: b
    values: [x, y]
)"));
  ASSERT_EQ(spec.groups.size(), 2u);
  EXPECT_EQ(spec.groups[0].values[0], (std::vector<std::string>{"256", "512", "1024", "2048"}));
  const auto pts = expand_points(spec);
  ASSERT_EQ(pts.size(), 8u);
  EXPECT_EQ(point_overrides(spec, pts[1]), (std::vector<std::string>{"a=256", "b=y"}));
  EXPECT_EQ(point_overrides(spec, pts[2]), (std::vector<std::string>{"a=512", "b=x"}));
}

TEST(Sweep, OneAtATimeVariesEachGroupAloneAroundTheBase) {
  const auto spec = parse_sweep(write_sweep(R"(
name: o
mode: one_at_a_time
set: ["sim.seed=3"]
parameters:
  - key: a
    values: [1, 2, 4]
    base: 2
  - zip:
      - {key: p, values: [4, 8]}
      - {key: q, values: [40, 80]}
    base: 1
)"));
  const auto pts = expand_points(spec);
  // Base, then a = 1 and 4, then the zip at its other entry: 1 + 2 + 1 points.
  ASSERT_EQ(pts.size(), 4u);
  EXPECT_EQ(point_overrides(spec, pts[0]),
            (std::vector<std::string>{"sim.seed=3", "a=2", "p=8", "q=80"}));
  EXPECT_EQ(point_overrides(spec, pts[3]),
            (std::vector<std::string>{"sim.seed=3", "a=2", "p=4", "q=40"}));
}

TEST(Sweep, SeededSamplesRepeatAndStayInRange) {
  const std::string text = R"(
name: r
parameters:
  - key: a
    random: {min: 64, max: 512, count: 5, seed: 7, integer: true, scale: log}
)";
  const auto s1 = parse_sweep(write_sweep(text));
  const auto s2 = parse_sweep(write_sweep(text));
  EXPECT_EQ(s1.groups[0].values, s2.groups[0].values);
  for (const std::string& v : s1.groups[0].values[0]) {
    const double x = std::stod(v);
    EXPECT_GE(x, 64);
    EXPECT_LE(x, 512);
    EXPECT_EQ(x, static_cast<long long>(x));
  }
}

// A parameter's values are compared as the configuration reads them: a byte count with a unit by
// its bytes (get_bytes reads 1KiB and 1024 alike), so the same point cannot run twice.
TEST(Sweep, TheSameByteCountWrittenTwoWaysIsRefused) {
  auto error_of = [](const std::string& text) -> std::string {
    try {
      parse_sweep(write_sweep(text));
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "";
  };
  const std::string values = error_of(
      "name: b\nparameters:\n  - key: devices.0.memory.interleave.granule_bytes\n"
      "    values: [1KiB, 2KiB, 1024]\n");
  EXPECT_NE(values.find(":4: parameters.0.values: value 3 ('1024') is value 1 ('1KiB') again"),
            std::string::npos)
      << values;
  // 8 KiB is 8192 bytes, 1.5KiB is 1536, whatever the spacing or the decimals.
  EXPECT_NE(error_of("name: b\nparameters:\n  - {key: a, values: ['8 KiB', 8192]}\n"), "");
  EXPECT_NE(error_of("name: b\nparameters:\n  - {key: a, values: [1536, 1.5KiB]}\n"), "");
  EXPECT_NE(error_of("name: b\nparameters:\n  - {key: a, values: [1MiB, 1024KiB]}\n"), "");
  // A zip position whose every member repeats an earlier one's, one written with a unit.
  const std::string zip = error_of(
      "name: z\nparameters:\n  - zip:\n      - {key: a, values: [4KiB, 4096]}\n"
      "      - {key: b, values: [2, 2.0]}\n");
  EXPECT_NE(zip.find("parameters.0.zip: positions 1 and 2 give the same values"), std::string::npos)
      << zip;
  // Different byte counts stay different values: 1KB is 1000 bytes, 1KiB 1024.
  const auto spec = parse_sweep(write_sweep(
      "name: d\nparameters:\n  - {key: a, values: [1KB, 1KiB, 1000000], base: 1024}\n"));
  EXPECT_EQ(spec.groups[0].values[0], (std::vector<std::string>{"1KB", "1KiB", "1000000"}));
  EXPECT_EQ(spec.groups[0].base, 1u);  // the base, written as 1024, is the value 1KiB
}

// `random` gives `count` distinct values or says why it cannot: integers 1 and 2 are two values,
// never five, and min = max is one.
TEST(Sweep, RandomDrawsGiveCountDistinctValuesOrAnError) {
  try {
    parse_sweep(
        write_sweep("name: r\nparameters:\n  - key: gpus.max_outstanding\n"
                    "    random: {min: 1, max: 2, count: 5, integer: true}\n"));
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(":4: parameters.0.random.count: gpus.max_outstanding: 5 distinct values "
                     "asked for, but min 1 to max 2 holds only 2 integers"),
              std::string::npos)
        << m;
  }
  EXPECT_THROW(parse_sweep(write_sweep(
                   "name: r\nparameters:\n  - {key: a, random: {min: 3, max: 3, count: 2}}\n")),
               ConfigError);
  // Five integers from 1 to 5 (linear or log) is every one of them: draws that repeat a value are
  // drawn again rather than dropped.
  for (const char* scale : {"linear", "log"}) {
    const auto spec = parse_sweep(write_sweep(
        std::string("name: r\nparameters:\n  - {key: a, random: {min: 1, max: 5, count: 5, "
                    "integer: true, scale: ") +
        scale + "}}\n"));
    EXPECT_EQ(spec.groups[0].values[0], (std::vector<std::string>{"1", "2", "3", "4", "5"}))
        << scale;
  }
  // min = max with a count of 1 is one value.
  const auto one = parse_sweep(
      write_sweep("name: r\nparameters:\n  - {key: a, random: {min: 3, max: 3, count: 1}}\n"));
  EXPECT_EQ(one.groups[0].values[0], (std::vector<std::string>{"3"}));
}

// A directory a sweep would rewrite (points/, results.csv) that no famsim sweep marked is the
// user's: refused, naming it and what is in the way, with nothing in it touched. An empty one, or
// one a sweep marked, is taken.
TEST(Sweep, AnOutputDirectoryNoSweepWroteIsRefused) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(write_sweep("")).replace_extension(".d");
  fs::remove_all(dir);
  fs::create_directories(dir / "points" / "0005");
  std::ofstream(dir / "points" / "0005" / "notes.txt") << "precious\n";
  std::ofstream(dir / "results.csv") << "mine\n";
  std::ofstream(dir / "notes.md") << "not in the way\n";
  try {
    make_sweep_out_dir(dir.string());
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("--out " + dir.string() + ": holds points, results.csv but no .famsim-sweep"),
              std::string::npos)
        << m;
  }
  auto text = [](const fs::path& f) {
    std::ifstream in(f);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(text(dir / "points" / "0005" / "notes.txt"), "precious\n");
  EXPECT_EQ(text(dir / "results.csv"), "mine\n");
  EXPECT_FALSE(fs::exists(dir / ".famsim-sweep"));

  // Only the names a sweep writes are in the way: a folder of notes takes a sweep.
  fs::remove_all(dir / "points");
  fs::remove(dir / "results.csv");
  EXPECT_NO_THROW(make_sweep_out_dir(dir.string()));
  EXPECT_TRUE(fs::exists(dir / ".famsim-sweep"));
  EXPECT_TRUE(fs::is_directory(dir / "points"));
  // Marked, it is taken again with a sweep's files in it (a rerun).
  std::ofstream(dir / "results.csv") << "point,status\n";
  EXPECT_NO_THROW(make_sweep_out_dir(dir.string()));
  fs::remove_all(dir);
}

TEST(Sweep, ArcElasticityAveragesBothSidesOfTheBase) {
  // Bandwidth 10, 20, 30 at channels 1, 2, 4 (base 2): below, (10-20)/15 over (1-2)/1.5 = 1;
  // above, (30-20)/25 over (4-2)/3 = 0.6; the mean is 0.8.
  const auto spec = parse_sweep(write_sweep(R"(
name: e
parameters:
  - key: c
    values: [1, 2, 4]
    base: 2
)"));
  const auto pts = expand_points(spec);
  std::vector<nlohmann::json> results;
  for (double bw : {10.0, 20.0, 30.0}) {
    results.push_back({{"status", "ok"},
                       {"metrics", {{"bandwidth_gbps", bw}, {"latency_mean_ns", 100.0},
                                    {"latency_p99_ns", 200.0}}}});
  }
  const auto rows = sensitivity(spec, pts, results);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows[0]["metric"], "bandwidth_gbps");
  EXPECT_NEAR(rows[0]["elasticity"].get<double>(), 0.8, 1e-12);
  EXPECT_NEAR(rows[0]["elasticity_low"].get<double>(), 1.0, 1e-12);
  EXPECT_NEAR(rows[0]["elasticity_high"].get<double>(), 0.6, 1e-12);
  EXPECT_EQ(rows[0]["low_value"], "1");
  EXPECT_EQ(rows[0]["high_value"], "4");
  EXPECT_NEAR(rows[1]["elasticity"].get<double>(), 0.0, 1e-12);  // latency does not move
  // Below the base the unmoved metric's change is 0 over a negative change of the parameter,
  // which in IEEE arithmetic is -0: sensitivity.csv would print "-0". Every figure is +0.
  ASSERT_EQ(rows.size(), 3u);
  for (std::size_t r = 1; r < 3; ++r) {
    for (const char* k : {"elasticity", "elasticity_low", "elasticity_high"}) {
      const double e = rows[r][k].get<double>();
      EXPECT_EQ(e, 0.0) << rows[r]["metric"] << " " << k;
      EXPECT_FALSE(std::signbit(e)) << rows[r]["metric"] << " " << k << " is -0";
    }
  }
}

// Values with a byte unit are numbers to the elasticity (they gave no row): granule 256 B, 1 KiB
// (base), 4 KiB with bandwidth 10, 20, 30. Below, (10-20)/15 over (256-1024)/640 = 5/9; above,
// (30-20)/25 over (4096-1024)/2560 = 1/3; the mean is 4/9.
TEST(Sweep, ElasticityReadsByteUnits) {
  const auto spec = parse_sweep(write_sweep(R"(
name: e
parameters:
  - key: g
    values: [256, 1KiB, 4KiB]
    base: 1KiB
)"));
  const auto pts = expand_points(spec);
  std::vector<nlohmann::json> results;
  for (double bw : {10.0, 20.0, 30.0}) {
    results.push_back(
        {{"status", "ok"},
         {"metrics",
          {{"bandwidth_gbps", bw}, {"latency_mean_ns", 100.0}, {"latency_p99_ns", 200.0}}}});
  }
  const auto rows = sensitivity(spec, pts, results);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows[0]["metric"], "bandwidth_gbps");
  EXPECT_NEAR(rows[0]["elasticity_low"].get<double>(), 5.0 / 9, 1e-12);
  EXPECT_NEAR(rows[0]["elasticity_high"].get<double>(), 1.0 / 3, 1e-12);
  EXPECT_NEAR(rows[0]["elasticity"].get<double>(), 4.0 / 9, 1e-12);
  EXPECT_EQ(rows[0]["base_value"], "1KiB");
  EXPECT_EQ(rows[0]["low_value"], "256");
  EXPECT_EQ(rows[0]["high_value"], "4KiB");
}

TEST(Sweep, ErrorsNameTheFileTheLineAndTheKey) {
  const std::string path = write_sweep("name: bad\nparameters:\n  - key: a\n    values: []\n");
  try {
    parse_sweep(path);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(path + ":4"), std::string::npos) << m;
    EXPECT_NE(m.find("values"), std::string::npos) << m;
  }
  EXPECT_THROW(parse_sweep(write_sweep("name: z\nparameters:\n  - zip:\n      - {key: a, values: "
                                       "[1, 2]}\n      - {key: b, values: [1]}\n")),
               ConfigError);
  EXPECT_THROW(parse_sweep(write_sweep("name: 'a b'\nparameters:\n  - {key: a, values: [1]}\n")),
               ConfigError);
  EXPECT_THROW(parse_sweep(write_sweep("name: m\nparameters:\n  - {key: a, values: [1], base: 3}\n")),
               ConfigError);
}

// A misspelt `values` is named, with the keys an entry may have, rather than reported as no
// values given; alone and in a zip.
TEST(Sweep, AMisspeltValuesKeyIsNamed) {
  const auto message_of = [](const std::string& text) -> std::string {
    try {
      parse_sweep(write_sweep(text));
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "";
  };
  std::string m = message_of("name: t\nparameters:\n  - key: a\n    value: [1, 2]\n");
  EXPECT_NE(m.find(":4: unknown key 'parameters.0.value'; expected one of: base, key, random, "
                   "range, values"),
            std::string::npos)
      << m;
  m = message_of(
      "name: t\nparameters:\n  - zip:\n      - {key: a, values: [1, 2]}\n      - {key: b, "
      "valeus: [3, 4]}\n");
  EXPECT_NE(m.find("unknown key 'parameters.0.zip.1.valeus'; expected one of: key, random, range, "
                   "values"),
            std::string::npos)
      << m;
}

TEST(Sweep, KeysTheConfigurationDoesNotKnowAreErrorsOfTheSweepFile) {
  // `gpus.bogus` is on line 5, the second parameter.
  const std::string unknown = write_sweep(
      "name: k\nplatform: minimal\nparameters:\n  - {key: gpus.max_outstanding, values: [8]}\n"
      "  - {key: gpus.bogus, values: [1]}\n");
  try {
    check_sweep_keys(unknown);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(unknown + ":5: parameters.1.key: gpus.bogus: unknown key"), std::string::npos)
        << m;
  }
  // A value the configuration rejects, even at the base point, fails that point, not the file.
  EXPECT_NO_THROW(
      check_sweep_keys(write_sweep("name: v\nplatform: minimal\nparameters:\n  - {key: "
                                   "gpus.max_outstanding, values: [0, 8]}\n")));
  // A key written with its value is refused as it is read.
  const std::string with_value =
      write_sweep("name: e\nparameters:\n  - {key: 'a.b=1', values: [1]}\n");
  try {
    parse_sweep(with_value);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(with_value + ":3: parameters.0.key: 'a.b=1'"), std::string::npos) << m;
  }
}

// results.csv's phase_limiters: each phase's limiter class in order when there is more than one
// phase (a stats.json written by hand), empty with one.
TEST(Sweep, PhaseLimitersListEachPhaseInOrder) {
  auto phase = [](const char* component, const char* resource, const char* cls) {
    return nlohmann::json{
        {"limiter", {{"component", component}, {"resource", resource}, {"class", cls}}}};
  };
  nlohmann::json s = {{"bottlenecks",
                       {{"phases",
                         {{"phases",
                           {phase("gpu0_link3", "request wire", "gpu*_link*"),
                            {{"limiter", nullptr}},
                            phase("fam0.port_logic", "tags (port 2)", "fam*.port_logic")}}}}}}};
  EXPECT_EQ(headline_metrics(s)["phase_limiters"],
            "gpu*_link* request wire -> none -> fam*.port_logic tags (port *)");
  s["bottlenecks"]["phases"]["phases"].erase(2);
  s["bottlenecks"]["phases"]["phases"].erase(1);
  EXPECT_EQ(headline_metrics(s)["phase_limiters"], "");
}

}  // namespace
}  // namespace famsim
