// LatencyHistogram: exact count/mean/min/max, percentiles within one bin of the exact
// nearest-rank percentile computed here from the sorted samples, and merge.
#include "models/core/stats.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace famsim {
namespace {

// Relative width of one bin: 4000 log-spaced bins over 0.1 ns .. 1e8 ns (stats.h), so each bin's
// upper edge is (1e9)^(1/4000) = 1.00519 times its lower edge: 0.52%.
const double kBinRatio = std::pow(1e8 / 0.1, 1.0 / 4000.0);

// Deterministic samples in ps: a 64-bit LCG (Knuth MMIX constants) mapped into [lo, hi).
std::vector<std::uint64_t> samples(std::size_t n, std::uint64_t lo, std::uint64_t hi,
                                   std::uint64_t seed) {
  std::vector<std::uint64_t> out;
  std::uint64_t x = seed;
  for (std::size_t i = 0; i < n; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    out.push_back(lo + (x >> 11) % (hi - lo));
  }
  return out;
}

// Nearest-rank percentile of the samples, in ns: the ceil(q n)-th smallest.
double nearest_rank_ns(std::vector<std::uint64_t> v, double q) {
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
  return static_cast<double>(v[std::max<std::size_t>(rank, 1) - 1]) * 1e-3;
}

TEST(LatencyHistogram, Empty) {
  const LatencyHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.mean_ns(), 0.0);
  EXPECT_EQ(h.min_ns(), 0.0);
  EXPECT_EQ(h.max_ns(), 0.0);
  EXPECT_EQ(h.percentile_ns(0.5), 0.0);
}

TEST(LatencyHistogram, ExactMoments) {
  LatencyHistogram h;
  // 100 ns, 250.5 ns, 1000 ns, 3.3 ns: mean = 1353.8 / 4 = 338.45 ns.
  for (std::uint64_t v : {100000ULL, 250500ULL, 1000000ULL, 3300ULL}) h.add_ps(v);
  EXPECT_EQ(h.count(), 4u);
  EXPECT_DOUBLE_EQ(h.mean_ns(), 338.45);
  EXPECT_DOUBLE_EQ(h.min_ns(), 3.3);
  EXPECT_DOUBLE_EQ(h.max_ns(), 1000.0);
  EXPECT_DOUBLE_EQ(h.percentile_ns(0.0), 3.3);
  EXPECT_DOUBLE_EQ(h.percentile_ns(1.0), 1000.0);
}

TEST(LatencyHistogram, SingleSampleEveryPercentileIsIt) {
  LatencyHistogram h;
  h.add_ps(123456);
  for (double q : {0.01, 0.5, 0.9, 0.99, 0.999}) EXPECT_DOUBLE_EQ(h.percentile_ns(q), 123.456) << q;
}

void check_percentiles(const std::vector<std::uint64_t>& v) {
  LatencyHistogram h;
  std::uint64_t sum = 0;
  for (std::uint64_t x : v) {
    h.add_ps(x);
    sum += x;
  }
  ASSERT_EQ(h.count(), v.size());
  EXPECT_NEAR(h.mean_ns(), static_cast<double>(sum) * 1e-3 / v.size(), 1e-9);
  EXPECT_DOUBLE_EQ(h.min_ns(), *std::min_element(v.begin(), v.end()) * 1e-3);
  EXPECT_DOUBLE_EQ(h.max_ns(), *std::max_element(v.begin(), v.end()) * 1e-3);
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    const double exact = nearest_rank_ns(v, q);
    const double got = h.percentile_ns(q);
    // Both lie in the same bin, so they differ by less than the bin's width.
    EXPECT_LE(got, exact * kBinRatio) << "q=" << q;
    EXPECT_GE(got, exact / kBinRatio) << "q=" << q;
  }
}

TEST(LatencyHistogram, PercentilesWithinOneBin) {
  check_percentiles(samples(10000, 50000, 2000000, 1));  // 50 ns .. 2 us, uniform
  check_percentiles(samples(999, 1000, 100000000, 2));   // 1 ns .. 100 us, odd count
  check_percentiles(samples(7, 300000, 310000, 3));      // a handful of close values
  // A bimodal set: 90% near 100 ns, 10% near 10 us: p50 and p99 are in different modes.
  std::vector<std::uint64_t> bi = samples(9000, 99000, 101000, 4);
  const auto tail = samples(1000, 9900000, 10100000, 5);
  bi.insert(bi.end(), tail.begin(), tail.end());
  check_percentiles(bi);
  EXPECT_LT(nearest_rank_ns(bi, 0.5), 102.0);
  EXPECT_GT(nearest_rank_ns(bi, 0.99), 9800.0);
}

TEST(LatencyHistogram, MergeEqualsFillingOne) {
  const auto a = samples(3000, 20000, 800000, 11);
  const auto b = samples(5000, 500000, 5000000, 12);
  LatencyHistogram ha, hb, all;
  for (auto x : a) {
    ha.add_ps(x);
    all.add_ps(x);
  }
  for (auto x : b) {
    hb.add_ps(x);
    all.add_ps(x);
  }
  LatencyHistogram merged;
  merged.merge(ha);  // into an empty histogram
  merged.merge(hb);
  EXPECT_EQ(merged.count(), 8000u);
  EXPECT_EQ(merged.count(), all.count());
  EXPECT_DOUBLE_EQ(merged.mean_ns(), all.mean_ns());
  EXPECT_DOUBLE_EQ(merged.min_ns(), all.min_ns());
  EXPECT_DOUBLE_EQ(merged.max_ns(), all.max_ns());
  for (double q : {0.1, 0.5, 0.9, 0.99, 0.999}) {
    EXPECT_DOUBLE_EQ(merged.percentile_ns(q), all.percentile_ns(q)) << q;
  }
  // Merging an empty histogram changes nothing.
  merged.merge(LatencyHistogram());
  EXPECT_EQ(merged.count(), 8000u);
  EXPECT_DOUBLE_EQ(merged.min_ns(), all.min_ns());
  EXPECT_DOUBLE_EQ(merged.max_ns(), all.max_ns());
}

TEST(LatencyHistogram, OutOfRangeValuesClampToExactExtremes) {
  // Below 0.1 ns and above 100 ms land in the under/overflow bins; percentiles there are the
  // exact min and max (stats.h).
  LatencyHistogram h;
  h.add_ps(50);               // 0.05 ns
  h.add_ps(200000000000ULL);  // 200 ms
  EXPECT_DOUBLE_EQ(h.percentile_ns(0.5), 0.05);
  EXPECT_DOUBLE_EQ(h.percentile_ns(0.99), 200e6);
  EXPECT_DOUBLE_EQ(h.mean_ns(), (50 + 200000000000.0) / 2 * 1e-3);
}

TEST(LatencyHistogram, JsonHasEveryField) {
  LatencyHistogram h;
  h.add_ps(1000);
  h.add_ps(3000);
  const auto j = h.to_json();
  for (const char* k : {"count", "mean", "min", "p50", "p90", "p99", "p999", "max"}) {
    EXPECT_TRUE(j.contains(k)) << k;
  }
  EXPECT_EQ(j["count"].get<std::uint64_t>(), 2u);
  EXPECT_DOUBLE_EQ(j["mean"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["min"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["max"].get<double>(), 3.0);
}

// A block whose report lists a "wire" of 100 GB/s and a whole-run-only "hot bank", and whose probes
// are what the test sets (by default one that matches the wire): the registry lists each resource
// the report and the probes describe differently (ComponentRegistry::report_all).
class Named : public Component {
 public:
  explicit Named(ComponentRegistry& reg) : Component(reg, "blk", BlockKind::kLink) {
    probe.use.name = "wire";
    probe.use.capacity = 100;
    probe.counter = &work;
  }
  void report(ComponentReport& r, const ReportWindow&) const override {
    if (idle) return;
    ResourceUse u;
    u.name = "wire";
    u.capacity = 100;
    r.resources.push_back(u);
    ResourceUse hot;
    hot.name = "hot bank";
    hot.whole_run_only = true;
    r.resources.push_back(hot);
  }
  void probes(std::vector<ResourceProbe>& out) const override {
    out.push_back(probe);
    if (twice) out.push_back(probe);
    if (probe_hot_bank) {
      ResourceProbe hot;
      hot.use.name = "hot bank";
      hot.counter = &work;
      out.push_back(hot);
    }
  }
  std::size_t occupancy() const override { return 0; }
  bool idle = false;
  bool twice = false;
  bool probe_hot_bank = false;
  ResourceProbe probe;
  std::uint64_t work = 0;
};

std::vector<std::string> mismatches(ComponentRegistry& reg) {
  std::vector<std::string> out;
  reg.report_all(ReportWindow{0, 1000}, nullptr, &out);
  return out;
}

using ::testing::ElementsAre;

TEST(ComponentRegistry, ReportAndProbesThatAgreePass) {
  ComponentRegistry reg;
  Named b(reg);
  EXPECT_THAT(mismatches(reg), ElementsAre());
  EXPECT_NO_THROW(reg.report_all(ReportWindow{0, 1000}));
  b.idle = true;  // an idle block's report lists nothing: no probe is checked
  b.probe.use.name = "other";
  EXPECT_THAT(mismatches(reg), ElementsAre());
}

TEST(ComponentRegistry, ReportResourceWithoutItsProbeIsListed) {
  ComponentRegistry reg;
  Named b(reg);
  b.probe.use.name = "wire ";  // one character apart
  EXPECT_THAT(mismatches(reg), ElementsAre("blk: 'wire': the report lists it, no probe does"));
  // Without a list to fill, the registry throws (an internal fault, never a user's).
  try {
    reg.report_all(ReportWindow{0, 1000});
    ADD_FAILURE() << "no exception";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(),
                 "its report and its per-phase probes describe a resource differently: "
                 "blk: 'wire': the report lists it, no probe does");
  }
}

TEST(ComponentRegistry, EachFieldThatDiffersIsNamed) {
  ComponentRegistry reg;
  Named b(reg);
  b.probe.use.type = ResourceUse::Type::kSlots;
  b.probe.use.capacity = 50;
  b.probe.use.unit = "M ACT/s";
  b.probe.use.response_path = true;
  b.probe.use.path_depth = 2.5;
  EXPECT_THAT(mismatches(reg),
              ElementsAre("blk: 'wire': type bandwidth in the report, slots in the probe",
                          "blk: 'wire': capacity 100 in the report, 50 in the probe",
                          "blk: 'wire': unit '' in the report, 'M ACT/s' in the probe",
                          "blk: 'wire': request side in the report, response side in the probe",
                          "blk: 'wire': path depth -1 in the report, 2.5 in the probe"));
}

TEST(ComponentRegistry, ProbeDepthAskedAtTheEndCountsOverTheStaticOne) {
  ComponentRegistry reg;
  Named b(reg);
  b.probe.depth = [] { return 3.0; };  // the static path_depth (-1) agrees; the asked one does not
  EXPECT_THAT(mismatches(reg),
              ElementsAre("blk: 'wire': path depth -1 in the report, 3 in the probe"));
  b.probe.depth = [] { return -1.0; };
  EXPECT_THAT(mismatches(reg), ElementsAre());
}

TEST(ComponentRegistry, TwoProbesOfOneNameOrAProbedWholeRunFigureAreListed) {
  ComponentRegistry reg;
  Named b(reg);
  b.twice = true;
  b.probe_hot_bank = true;
  EXPECT_THAT(
      mismatches(reg),
      ElementsAre("blk: 'wire': two probes of that name",
                  "blk: 'hot bank': the report marks it whole-run only, yet it has a probe"));
}

TEST(ComponentRegistry, MismatchesOfEveryBlockAreCollectedAndTheReportsKept) {
  ComponentRegistry reg;
  Named a(reg);
  Named b(reg);
  a.probe.use.capacity = 10;
  b.probe.use.unit = "slots";
  std::vector<std::string> out;
  const nlohmann::json j = reg.report_all(ReportWindow{0, 1000}, nullptr, &out);
  EXPECT_THAT(out, ElementsAre("blk: 'wire': capacity 100 in the report, 10 in the probe",
                               "blk: 'wire': unit '' in the report, 'slots' in the probe"));
  ASSERT_TRUE(j.contains("blk"));
  EXPECT_EQ(j["blk"]["resources"].size(), 2u);
}

}  // namespace
}  // namespace famsim
