// gpu_balance (models/core/gpu_balance.h): values worked out by hand.
#include "models/core/gpu_balance.h"

#include <gtest/gtest.h>

namespace famsim {
namespace {

// gpu0: 1000 B from 0 to 100 ns (10 GB/s), gpu1: 2000 B from 0 to 100 ns (20 GB/s), gpu2: 3000 B
// from 50 to 250 ns (15 GB/s); gpu3 completed nothing. Mean 15 GB/s; Jain (45)^2 / (3 x (100 +
// 400 + 225)) = 2025 / 2175; least served gpu0 at 10 / 15, most gpu1 at 20 / 15; mean latencies
// 100, 200, 300 ns: gpu2 highest at 300 / 200; finishes at 100, 100 and 250 ns: 150 ns apart.
TEST(GpuBalance, ByHand) {
  const std::vector<GpuActivity> gpus = {{"gpu0", 1000, 10, 100.0, 0, 100'000},
                                         {"gpu1", 2000, 20, 200.0, 0, 100'000},
                                         {"gpu2", 3000, 30, 300.0, 50'000, 250'000},
                                         {"gpu3", 0, 0, 0.0, 0, 0}};
  const nlohmann::json b = gpu_balance(gpus);
  EXPECT_EQ(b["gpus"].get<std::size_t>(), 4u);
  EXPECT_EQ(b["gpus_active"].get<std::size_t>(), 3u);
  EXPECT_DOUBLE_EQ(b["bandwidth_gbps"]["mean"].get<double>(), 15.0);
  EXPECT_DOUBLE_EQ(b["bandwidth_gbps"]["min"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(b["bandwidth_gbps"]["max"].get<double>(), 20.0);
  EXPECT_DOUBLE_EQ(b["jain_index"].get<double>(), 2025.0 / 2175.0);
  EXPECT_EQ(b["least_served"], "gpu0");
  EXPECT_DOUBLE_EQ(b["least_served_over_mean"].get<double>(), 10.0 / 15.0);
  EXPECT_EQ(b["most_served"], "gpu1");
  EXPECT_DOUBLE_EQ(b["most_served_over_mean"].get<double>(), 20.0 / 15.0);
  EXPECT_EQ(b["highest_latency"], "gpu2");
  EXPECT_DOUBLE_EQ(b["highest_latency_over_mean"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(b["finish_spread_ns"].get<double>(), 150.0);
  EXPECT_TRUE(b["uneven"].get<bool>());  // 0.931 < 0.95
}

// Eight GPUs, one at half the others' bandwidth (1000 B against 2000 B over 100 ns): Jain
// (7 x 20 + 10)^2 / (8 x (7 x 400 + 100)) = 22500 / 23200 = 0.970, above 0.95, but the least
// served got 10 / 18.75 = 0.533 of the mean: uneven all the same.
TEST(GpuBalance, OneOutlierAmongManyIsUneven) {
  std::vector<GpuActivity> gpus;
  for (int i = 0; i < 7; ++i)
    gpus.push_back({"g" + std::to_string(i), 2000, 20, 100.0, 0, 100'000});
  gpus.push_back({"slow", 1000, 10, 100.0, 0, 100'000});
  const nlohmann::json b = gpu_balance(gpus);
  EXPECT_DOUBLE_EQ(b["jain_index"].get<double>(), 22500.0 / 23200.0);
  EXPECT_DOUBLE_EQ(b["least_served_over_mean"].get<double>(), 10.0 / 18.75);
  EXPECT_EQ(b["least_served"], "slow");
  EXPECT_TRUE(b["uneven"].get<bool>());
  // At 0.85 of the others' (1700 B): Jain 157^2 / (8 x 3089) = 0.997, 17 / 19.625 = 0.866 of the
  // mean: even enough.
  gpus.back().bytes = 1700;
  EXPECT_FALSE(gpu_balance(gpus)["uneven"].get<bool>());
}

// Alike GPUs: Jain 1, every ratio 1, the first GPU named in ties.
TEST(GpuBalance, AlikeGpusAreEven) {
  const std::vector<GpuActivity> gpus = {{"a", 512, 4, 80.0, 0, 64'000},
                                         {"b", 512, 4, 80.0, 0, 64'000}};
  const nlohmann::json b = gpu_balance(gpus);
  EXPECT_DOUBLE_EQ(b["jain_index"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(b["bandwidth_gbps"]["mean"].get<double>(), 8.0);
  EXPECT_EQ(b["least_served"], "a");
  EXPECT_EQ(b["highest_latency"], "a");
  EXPECT_DOUBLE_EQ(b["least_served_over_mean"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(b["finish_spread_ns"].get<double>(), 0.0);
  EXPECT_FALSE(b["uneven"].get<bool>());
}

// One GPU that got everything among n: Jain 1/n (here the others got a sliver, so just above).
TEST(GpuBalance, OneGpuServedAloneApproachesOneOverN) {
  std::vector<GpuActivity> gpus = {{"hog", 1'000'000, 1000, 100.0, 0, 1'000'000}};
  for (int i = 0; i < 3; ++i) gpus.push_back({"g" + std::to_string(i), 1, 1, 100.0, 0, 1'000'000});
  const double jain = gpu_balance(gpus)["jain_index"].get<double>();
  EXPECT_GT(jain, 0.25);
  EXPECT_LT(jain, 0.2501);
}

// Fewer than two GPUs with completions over a span: nothing to compare.
TEST(GpuBalance, FewerThanTwoActiveGpusGiveNull) {
  EXPECT_TRUE(gpu_balance({}).is_null());
  EXPECT_TRUE(
      gpu_balance({{"gpu0", 128, 1, 50.0, 0, 50'000}, {"gpu1", 0, 0, 0.0, 0, 0}}).is_null());
}

}  // namespace
}  // namespace famsim
