// Clock periods (rounded to the nearest ps), edges and transfer times (rounded up).
#include "models/core/clock.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace famsim {
namespace {

TEST(Clock, PeriodRoundsToNearestPicosecond) {
  EXPECT_EQ(Clock(1500).period_ps(), 667u);  // 666.67 ps
  EXPECT_EQ(Clock(1000).period_ps(), 1000u);
  EXPECT_EQ(Clock(1980).period_ps(), 505u);  // 505.05 ps
  EXPECT_EQ(Clock(2400).period_ps(), 417u);  // 416.67 ps
  EXPECT_EQ(Clock(3000).period_ps(), 333u);  // 333.33 ps
  EXPECT_EQ(Clock(0.5).period_ps(), 2000000u);
  EXPECT_EQ(Clock(1500).period().value(), 667u);
  EXPECT_EQ(Clock(1500).cycles(3).value(), 2001u);
  // The frequency a block really runs at is the rounded period's: 1e6 / 667 MHz.
  EXPECT_DOUBLE_EQ(Clock(1500).mhz(), 1e6 / 667.0);
  // Default: 1 GHz.
  EXPECT_EQ(Clock().period_ps(), 1000u);
}

TEST(Clock, RejectsNonPositiveAndTooFast) {
  EXPECT_THROW(Clock(0), std::invalid_argument);
  EXPECT_THROW(Clock(-100), std::invalid_argument);
  EXPECT_THROW(Clock(3e6), std::invalid_argument);  // 3 THz: 0.33 ps rounds to 0
}

TEST(Clock, EdgeIsTheFirstEdgeAtOrAfter) {
  const Clock c(1500);  // 667 ps
  EXPECT_EQ(c.edge_ps(0), 0u);
  EXPECT_EQ(c.edge_ps(1), 667u);
  EXPECT_EQ(c.edge_ps(666), 667u);
  EXPECT_EQ(c.edge_ps(667), 667u);
  EXPECT_EQ(c.edge_ps(668), 1334u);
  EXPECT_EQ(c.edge_ps(10000), 10005u);  // 15 * 667
  EXPECT_TRUE(c.on_edge(0));
  EXPECT_TRUE(c.on_edge(1334));
  EXPECT_FALSE(c.on_edge(1333));
}

TEST(Clock, EdgeMatchesIntegerCeilingEverywhere) {
  // edge_ps(t) = ceil(t / period) * period and on_edge(t) = (t mod period == 0), checked with the
  // language's integer division over small times, times next to edges, and large times (hours of
  // simulated time are ~1e16 ps).
  for (double mhz : {1e6, 3200.0, 2400.0, 1980.0, 1500.0, 1000.0, 0.5, 7.0}) {
    const Clock c(mhz);
    const std::uint64_t p = c.period_ps();
    std::vector<std::uint64_t> times;
    for (std::uint64_t t = 0; t < 3000; ++t) times.push_back(t);
    for (std::uint64_t k : {std::uint64_t{1}, std::uint64_t{12345}, std::uint64_t{1} << 32,
                            std::uint64_t{1} << 40, (std::uint64_t{1} << 44) + 7}) {
      for (std::uint64_t d : {std::uint64_t{0}, std::uint64_t{1}}) {
        times.push_back(k * p - d);
        times.push_back(k * p + d);
      }
    }
    std::uint64_t x = 88172645463325252ULL;  // xorshift64 (Marsaglia 2003) for spread values
    for (int i = 0; i < 2000; ++i) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      times.push_back(x >> 4);  // below 2^60: t + period cannot overflow
    }
    for (std::uint64_t t : times) {
      ASSERT_EQ(c.edge_ps(t), (t + p - 1) / p * p) << "period " << p << " t " << t;
      ASSERT_EQ(c.on_edge(t), t % p == 0) << "period " << p << " t " << t;
    }
  }
}

TEST(TransferPs, RoundsUp) {
  EXPECT_EQ(transfer_ps(144, 16.0), 9000u);  // exactly 144000 / 16
  EXPECT_EQ(transfer_ps(100, 3.0), 33334u);  // 33333.3 -> 33334
  EXPECT_EQ(transfer_ps(128, 25.0), 5120u);
  EXPECT_EQ(transfer_ps(1, 3.0), 334u);     // 333.3 -> 334
  EXPECT_EQ(transfer_ps(64, 19.2), 3334u);  // 3333.3 -> 3334
  EXPECT_EQ(transfer_ps(96, 19.2), 5000u);  // exactly 5000 (96000 / 19.2)
  EXPECT_EQ(transfer_ps(0, 25.0), 0u);
  // NVLink4 data rate: 2 lanes x 106.25 Gb/s x (100 / 106.25) / 8 = 25 GB/s: 144 B in 5760 ps.
  EXPECT_EQ(transfer_ps(144, 2 * 106.25 * (100.0 / 106.25) / 8.0), 5760u);
}

}  // namespace
}  // namespace famsim
