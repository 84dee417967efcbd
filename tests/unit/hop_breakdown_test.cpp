// HopBreakdown and HopHistogram without a simulation: hand-made hop records, times chosen so
// each part is known.
#include "models/core/hop_breakdown.h"

#include "models/core/config.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace famsim {
namespace {

TEST(HopHistogram, BucketsHoldTheirValuesAndAreAtMost3PercentWide) {
  for (std::uint64_t v : {0ull, 1ull, 31ull, 32ull, 33ull, 63ull, 64ull, 1000ull, 123456789ull,
                          (1ull << 47) + 12345}) {
    const unsigned b = HopHistogram::bucket(v);
    ASSERT_LT(b, HopHistogram::kBuckets);
    EXPECT_LE(HopHistogram::bucket_lower(b), static_cast<double>(v)) << v;
    EXPECT_GT(HopHistogram::bucket_upper(b), static_cast<double>(v)) << v;
    if (v >= 32) {
      EXPECT_LE(HopHistogram::bucket_upper(b) / HopHistogram::bucket_lower(b), 1.0 + 1.0 / 32) << v;
    }
  }
}

TEST(HopHistogram, PercentileIsTheNearestRankWithinABucket) {
  HopHistogram h;
  for (std::uint64_t v = 1; v <= 1000; ++v) h.add_ps(v * 1000);  // 1 .. 1000 ns
  EXPECT_EQ(h.count(), 1000u);
  EXPECT_EQ(h.sum_ps(), 500500u * 1000);
  EXPECT_NEAR(h.percentile_ns(0.99), 990.0, 990.0 / 32);
  EXPECT_NEAR(h.percentile_ns(0.5), 500.0, 500.0 / 32);
}

// A GPU -> link -> device port -> memory path (block ids registered here, one process per test).
struct Path {
  BlockId gpu = BlockRegistry::add("gpu0", BlockKind::kGpu);
  BlockId link = BlockRegistry::add("link0", BlockKind::kLink);
  BlockId port = BlockRegistry::add("port", BlockKind::kDevicePort);
  BlockId mem = BlockRegistry::add("ch0", BlockKind::kMemory);
};

// Request: issued 100, link 110, port 150, memory 170, service 180; response ready 200, port
// 230, link 240, GPU 300. Parts: issue 10, link 40 + 60, port 20 + 10, queue 10, service 20
// (180 .. 200), the ready response waiting for the port 30 (200 .. 230): 200 in all. `late`
// delays its entry into the port and every stamp after it: the link's request part is that much
// longer, every other part the same.
RequestExt request(const Path& p, std::uint64_t late = 0) {
  RequestExt e;
  e.issue_ps = 100;
  e.enter(p.gpu, 0, 100);
  e.enter(p.link, 0, 110);
  e.enter(p.port, 0, 150 + late);
  e.enter(p.mem, 0, 170 + late);
  e.service_start_ps = 180 + late;
  e.resp_enter(200 + late);
  e.resp_enter(230 + late);
  e.resp_enter(240 + late);
  e.resp_enter(300 + late);
  return e;
}

TEST(HopBreakdown, CutsTheLatencyAtEveryStampInPathOrder) {
  const Path p;
  HopBreakdown b;
  b.add(request(p), 300);
  const nlohmann::json r = b.to_json()["read"];
  EXPECT_EQ(r["mismatched_requests"], 0);
  EXPECT_DOUBLE_EQ(r["end_to_end"]["mean"].get<double>(), 0.2);
  const std::vector<std::pair<std::string, double>> want = {{"gpu_issue", 0.010},
                                                            {"link (request)", 0.040},
                                                            {"device_port (request)", 0.020},
                                                            {"memory_queue", 0.010},
                                                            {"memory_service", 0.020},
                                                            {"memory_response_wait", 0.030},
                                                            {"device_port (response)", 0.010},
                                                            {"link (response)", 0.060}};
  ASSERT_EQ(r["hops"].size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(r["hops"][i]["hop"], want[i].first);
    EXPECT_DOUBLE_EQ(r["hops"][i]["mean"].get<double>(), want[i].second) << want[i].first;
  }
  EXPECT_DOUBLE_EQ(r["sum_of_means"].get<double>(), 0.2);
  EXPECT_EQ(b.to_json()["write"]["end_to_end"]["count"], 0);
}

// Two requests: the one above, and one that waited 90 ps longer to enter the port (link request
// part 130 instead of 40) and arrived 90 ps later. Per class: the link's request part has min 40
// and mean (40 + 130) / 2 = 85; above its fastest, (40 + 130 - 2 x 40) / 2 = 45. Every other class
// took the same both times: min = mean, nothing above it.
TEST(HopBreakdown, GivesEachClassItsFastestPassAndTheMeanAboveIt) {
  const Path p;
  HopBreakdown b;
  b.add(request(p), 300);
  b.add(request(p, 90), 390);
  const nlohmann::json r = b.to_json()["read"];
  ASSERT_EQ(r["mismatched_requests"], 0);
  for (const auto& h : r["hops"]) {
    if (h["hop"] == "link (request)") {
      EXPECT_DOUBLE_EQ(h["min"].get<double>(), 0.040);
      EXPECT_DOUBLE_EQ(h["mean"].get<double>(), 0.085);
      EXPECT_DOUBLE_EQ(h["above_min"].get<double>(), 0.045);
    } else {
      EXPECT_DOUBLE_EQ(h["min"].get<double>(), h["mean"].get<double>()) << h["hop"];
      EXPECT_DOUBLE_EQ(h["above_min"].get<double>(), 0.0) << h["hop"];
    }
  }
}

TEST(HopBreakdown, StampsOutOfOrderAreCountedNotAttributed) {
  const Path p;
  RequestExt e = request(p);
  e.service_start_ps = 160;  // before the request reached the memory
  HopBreakdown b;
  b.add(e, 300);
  const nlohmann::json r = b.to_json()["read"];
  EXPECT_EQ(r["mismatched_requests"], 1);
  EXPECT_EQ(r["end_to_end"]["count"], 0);
  EXPECT_TRUE(r["hops"].empty());
}

// Hop records name blocks with 16-bit ids, id 0 meaning none: a platform of more blocks is bad
// input (exit 2), not an internal error. A suite of its own: it fills the process's table.
TEST(BlockRegistry, MoreBlocksThanSixteenBitIdsIsBadInput) {
  BlockRegistry::clear();
  for (unsigned id = 1; id <= 65534; ++id) {
    ASSERT_EQ(BlockRegistry::add("b", BlockKind::kOther), id);
  }
  try {
    BlockRegistry::add("one too many", BlockKind::kOther);
    ADD_FAILURE() << "no error for block 65535";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("more than 65534 blocks"), std::string::npos) << e.what();
  }
  BlockRegistry::clear();
}

}  // namespace
}  // namespace famsim
