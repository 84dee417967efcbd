// OccupancyGauge: mean, maximum and time at each level, worked out by hand.
#include "models/core/occupancy.h"
#include "models/core/stats.h"

#include <gtest/gtest.h>

namespace famsim {
namespace {

TEST(OccupancyGauge, MeanMaxAndTimeFractionsOfAStepProfile) {
  // Capacity 4 (five levels, one bucket each). Window 100..300 ps; the pool is empty before 100.
  // Level 2 over 100..150, 4 over 150..200, 1 over 200..300:
  // mean = (2 x 50 + 4 x 50 + 1 x 100) / 200 = 2.0; fractions: level 1 0.5, 2 0.25, 4 0.25.
  OccupancyGauge g(4);
  g.set(2, 100);
  g.set(4, 150);
  g.set(1, 200);
  const ReportWindow w{100, 300};
  EXPECT_DOUBLE_EQ(g.mean(w), 2.0);
  EXPECT_DOUBLE_EQ(g.mean_fraction(w), 0.5);
  EXPECT_EQ(g.max(), 4u);
  const auto j = g.to_json(w);
  EXPECT_EQ(j["bucket_width"], 1u);
  const std::vector<double> expected = {0.0, 0.5, 0.25, 0.0, 0.25};
  EXPECT_EQ(j["time_fraction"].get<std::vector<double>>(), expected);
}

TEST(OccupancyGauge, WideBucketsForALargePool) {
  // Capacity 64: 65 levels in at most 16 buckets of a power-of-two width, so 8 levels per bucket
  // (64 >> 3 = 8, buckets 0..8). Level 10 (bucket 1) over 0..30, 64 (bucket 8) over 30..40.
  OccupancyGauge g(64);
  g.set(10, 0);
  g.set(64, 30);
  const auto j = g.to_json(ReportWindow{0, 40});
  EXPECT_EQ(j["bucket_width"], 8u);
  const auto f = j["time_fraction"].get<std::vector<double>>();
  ASSERT_EQ(f.size(), 9u);
  EXPECT_DOUBLE_EQ(f[1], 0.75);
  EXPECT_DOUBLE_EQ(f[8], 0.25);
  EXPECT_DOUBLE_EQ(g.mean(ReportWindow{0, 40}), (10.0 * 30 + 64.0 * 10) / 40);
}

TEST(OccupancyGauge, AnEarlierTimeCountsAsTheLastChange) {
  // A change stamped before the last one adds no time and does not move the clock back.
  OccupancyGauge g(8);
  g.set(3, 100);
  g.set(5, 90);  // counted at 100
  g.set(0, 200);
  EXPECT_DOUBLE_EQ(g.mean(ReportWindow{100, 200}), 5.0);
}

TEST(OccupancyGauge, SameInstantChangesCountTheSameInEitherOrder) {
  // At 100 ps one message arrives and another leaves a pool holding 1. Arrival first passes
  // through level 2 for no time; departure first through 0. Either way the pool holds 1 from
  // 100 on, and the maximum is 1, the level it held for some time: 1 over 0..100, 1 over 100..200.
  OccupancyGauge in_first(4), out_first(4);
  in_first.set(1, 0);
  in_first.set(2, 100);
  in_first.set(1, 100);
  out_first.set(1, 0);
  out_first.set(0, 100);
  out_first.set(1, 100);
  const ReportWindow w{0, 200};
  EXPECT_EQ(in_first.max(), 1u);
  EXPECT_EQ(out_first.max(), 1u);
  EXPECT_EQ(in_first.to_json(w), out_first.to_json(w));
  // A level held until the window's end counts: 3 from 200 on.
  in_first.set(3, 200);
  EXPECT_EQ(in_first.max(), 3u);
}

}  // namespace
}  // namespace famsim
