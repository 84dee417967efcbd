// StreamGenerator: access sequences worked out by hand, and statistical bounds for the random
// parts.
#include "traffic/generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <cstdint>
#include <vector>

namespace famsim {
namespace {

constexpr std::uint64_t kVa = 1ULL << 40;

StreamConfig make_cfg(Pattern pattern, std::uint64_t buffer, std::uint32_t access,
                      std::uint64_t total) {
  StreamConfig c;
  c.pattern = pattern;
  c.buffer_bytes = buffer;
  c.access_bytes = access;
  c.total_bytes = total;
  return c;
}

std::vector<Access> drain(StreamGenerator& g, std::size_t limit = 1000000) {
  std::vector<Access> out;
  Access a;
  while (out.size() < limit && g.next(a)) out.push_back(a);
  return out;
}

TEST(StreamGenerator, SequentialWrapsOverTheBuffer) {
  // 1 KiB buffer of 8 slots of 128 B, 2 KiB total: two passes.
  const StreamConfig c = make_cfg(Pattern::kSequential, 1024, 128, 2048);
  StreamGenerator g(c, kVa, 1024, 1);
  const auto acc = drain(g);
  ASSERT_EQ(acc.size(), 16u);
  for (std::size_t i = 0; i < acc.size(); ++i) {
    EXPECT_EQ(acc[i].va, kVa + (i % 8) * 128) << i;
    EXPECT_EQ(acc[i].bytes, 128u);
    EXPECT_FALSE(acc[i].write);  // read_fraction defaults to 1
  }
  EXPECT_EQ(g.produced_bytes(), 2048u);
}

std::vector<std::uint64_t> strided_slots(std::uint64_t slots, std::uint64_t stride_slots,
                                         unsigned n) {
  StreamConfig c = make_cfg(Pattern::kStrided, slots * 64, 64, std::uint64_t{n} * 64);
  c.stride_bytes = stride_slots * 64;
  StreamGenerator g(c, kVa, slots * 64, 1);
  std::vector<std::uint64_t> out;
  for (const Access& a : drain(g)) out.push_back((a.va - kVa) / 64);
  return out;
}

TEST(StreamGenerator, StridedWalkRestartsOneSlotFurther) {
  // 8 slots, stride 3: 0 3 6 | 1 4 7 | 2 5 | (wrap 3 -> start 3 mod 3 = 0) 0 3 6 ...
  EXPECT_EQ(strided_slots(8, 3, 11), (std::vector<std::uint64_t>{0, 3, 6, 1, 4, 7, 2, 5, 0, 3, 6}));
  // 8 slots, stride 4: 0 4 | 1 5 | 2 6 | 3 7 | 0 4
  EXPECT_EQ(strided_slots(8, 4, 10), (std::vector<std::uint64_t>{0, 4, 1, 5, 2, 6, 3, 7, 0, 4}));
  // 10 slots, stride 4: 0 4 8 | 1 5 9 | 2 6 | 3 7 | 0 ...
  EXPECT_EQ(strided_slots(10, 4, 11),
            (std::vector<std::uint64_t>{0, 4, 8, 1, 5, 9, 2, 6, 3, 7, 0}));
}

TEST(StreamGenerator, StridedPassTouchesEverySlotOnce) {
  // Whatever the stride, one pass of `slots` accesses covers every slot exactly once.
  for (std::uint64_t slots : {8u, 10u, 16u, 37u}) {
    for (std::uint64_t stride : {1u, 2u, 3u, 5u, 7u, 16u}) {
      const auto seq = strided_slots(slots, stride, static_cast<unsigned>(slots));
      std::vector<int> hits(slots, 0);
      for (std::uint64_t s : seq) {
        ASSERT_LT(s, slots);
        ++hits[s];
      }
      for (std::uint64_t s = 0; s < slots; ++s) {
        EXPECT_EQ(hits[s], 1) << "slots " << slots << " stride " << stride << " slot " << s;
      }
    }
  }
}

std::vector<std::uint64_t> random_offsets(std::uint64_t seed, unsigned n) {
  const StreamConfig c = make_cfg(Pattern::kUniformRandom, 1ULL << 20, 128, std::uint64_t{n} * 128);
  StreamGenerator g(c, kVa, 1ULL << 20, seed);
  std::vector<std::uint64_t> out;
  for (const Access& a : drain(g)) out.push_back(a.va - kVa);
  return out;
}

TEST(StreamGenerator, UniformRandomStaysInsideAndAligned) {
  const unsigned n = 20000;
  const auto off = random_offsets(42, n);
  ASSERT_EQ(off.size(), n);
  // 1 MiB / 128 B = 8192 slots, split into 8 equal regions of 1024 slots.
  std::vector<unsigned> region(8, 0);
  double sum_slots = 0;
  for (std::uint64_t o : off) {
    ASSERT_LE(o + 128, 1ULL << 20) << o;
    ASSERT_EQ(o % 128, 0u) << o;
    ++region[o / (128 * 1024)];
    sum_slots += static_cast<double>(o / 128);
  }
  // Each region: binomial(n, 1/8), mean 2500, sigma sqrt(n p (1-p)) = 46.8; 5 sigma = 234.
  const double p = 1.0 / 8;
  const double sigma = std::sqrt(n * p * (1 - p));
  for (unsigned r = 0; r < 8; ++r) {
    EXPECT_NEAR(region[r], n * p, 5 * sigma) << "region " << r;
  }
  // Mean slot: uniform on 0..8191 has mean 4095.5 and sd 8192/sqrt(12); the mean of n samples
  // has sd 2364.8/sqrt(n) = 16.7.
  const double mean_sd = 8192 / std::sqrt(12.0) / std::sqrt(double(n));
  EXPECT_NEAR(sum_slots / n, 4095.5, 5 * mean_sd);
}

TEST(StreamGenerator, UniformRandomIsReproducible) {
  const auto a = random_offsets(42, 1000);
  const auto b = random_offsets(42, 1000);
  const auto c = random_offsets(43, 1000);
  EXPECT_EQ(a, b);
  // Another seed: with 8192 slots, two independent sequences agree at a given position with
  // probability 1/8192, so they agree on far fewer than 1% of the 1000 positions.
  unsigned same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) same += a[i] == c[i];
  EXPECT_LT(same, 10u);
}

TEST(StreamGenerator, ReadFractionWithinBinomialBound) {
  const unsigned n = 20000;
  StreamConfig c = make_cfg(Pattern::kSequential, 1ULL << 20, 128, std::uint64_t{n} * 128);
  c.read_fraction = 0.3;
  StreamGenerator g(c, kVa, 1ULL << 20, 7);
  unsigned reads = 0, total = 0;
  for (const Access& a : drain(g)) {
    reads += !a.write;
    ++total;
  }
  ASSERT_EQ(total, n);
  // Binomial(20000, 0.3): mean 6000, sigma sqrt(20000 * 0.3 * 0.7) = 64.8; 5 sigma = 324.
  EXPECT_NEAR(reads, 6000.0, 5 * std::sqrt(n * 0.3 * 0.7));
}

TEST(StreamGenerator, ReadFractionExtremes) {
  StreamConfig c = make_cfg(Pattern::kUniformRandom, 1ULL << 20, 128, 128 * 500);
  c.read_fraction = 0.0;
  StreamGenerator w(c, kVa, 1ULL << 20, 3);
  for (const Access& a : drain(w)) ASSERT_TRUE(a.write);
  StreamConfig r = c;
  r.read_fraction = 1.0;
  StreamGenerator rd(r, kVa, 1ULL << 20, 3);
  for (const Access& a : drain(rd)) ASSERT_FALSE(a.write);
}

TEST(StreamGenerator, TotalBytesStopsTheStream) {
  // 1000 B in 128 B accesses: 7 full accesses (896 B) and a last one of 104 B.
  const StreamConfig c = make_cfg(Pattern::kSequential, 4096, 128, 1000);
  StreamGenerator g(c, kVa, 4096, 1);
  const auto acc = drain(g);
  ASSERT_EQ(acc.size(), 8u);
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < 7; ++i) EXPECT_EQ(acc[i].bytes, 128u);
  EXPECT_EQ(acc[7].bytes, 104u);
  for (const Access& a : acc) sum += a.bytes;
  EXPECT_EQ(sum, 1000u);
  EXPECT_EQ(g.produced_bytes(), 1000u);
  Access a;
  EXPECT_FALSE(g.next(a));
  EXPECT_FALSE(g.next(a));
  // A multiple of the access size: exactly total / access accesses.
  const StreamConfig m = make_cfg(Pattern::kUniformRandom, 4096, 256, 256 * 13);
  StreamGenerator gm(m, kVa, 4096, 1);
  EXPECT_EQ(drain(gm).size(), 13u);
}

TEST(StreamSeed, DependsOnEveryInput) {
  const std::uint64_t s = stream_seed(1, 0, 0);
  EXPECT_EQ(s, stream_seed(1, 0, 0));
  EXPECT_NE(s, stream_seed(2, 0, 0));
  EXPECT_NE(s, stream_seed(1, 1, 0));
  EXPECT_NE(s, stream_seed(1, 0, 1));
  EXPECT_NE(stream_seed(1, 1, 0), stream_seed(1, 0, 1));
}

// Zipf pattern: 64 hot units of 4 KiB, s = 1. The unit a popularity rank lands on is a scatter,
// so the test sorts the units by count: the k-th most hit unit must carry about
// (k+1)^-1 / H(64, 1) of the accesses, H(64, 1) = 4.7439 (sum of 1/k for k = 1..64). 200,000
// accesses; each share within 5 standard errors of the formula.
TEST(StreamGenerator, ZipfUnitsFollowThePopularityLaw) {
  StreamConfig c = make_cfg(Pattern::kZipf, 64 * 4096, 128, 200000ULL * 128);
  c.zipf_exponent = 1.0;
  c.hot_unit_bytes = 4096;
  StreamGenerator g(c, kVa, 64 * 4096, 7);
  std::vector<double> count(64, 0.0);
  Access a;
  std::uint64_t n = 0;
  while (g.next(a)) {
    ASSERT_GE(a.va, kVa);
    ASSERT_LT(a.va, kVa + 64 * 4096);
    ASSERT_EQ((a.va - kVa) % 128, 0u);
    count[(a.va - kVa) / 4096] += 1;
    ++n;
  }
  std::sort(count.begin(), count.end(), std::greater<double>());
  double h = 0;
  for (int k = 1; k <= 64; ++k) h += 1.0 / k;
  for (int k = 0; k < 4; ++k) {
    const double p = 1.0 / (k + 1) / h;
    const double se = std::sqrt(p * (1 - p) / static_cast<double>(n));
    EXPECT_NEAR(count[static_cast<std::size_t>(k)] / static_cast<double>(n), p, 5 * se)
        << "rank " << k;
  }
}

// Paced stream: 128 B accesses at 100 GB/s are 1.28 ns apart from the first request on.
TEST(StreamGenerator, IssueRatePacesAccesses) {
  StreamConfig c = make_cfg(Pattern::kSequential, 4096, 128, 4 * 128);
  c.issue_rate_gbps = 100;
  StreamGenerator g(c, kVa, 4096, 1);
  Access a;
  std::uint64_t wake = 0;
  EXPECT_EQ(g.next(5000, a, wake), AccessSource::State::kReady);  // starts at 5000 ps
  EXPECT_EQ(g.next(5000, a, wake), AccessSource::State::kWait);
  EXPECT_EQ(wake, 6280u);
  EXPECT_EQ(g.next(6280, a, wake), AccessSource::State::kReady);
  // Behind schedule: the next two are due at 7560 and 8840; at 9000 both go at once.
  EXPECT_EQ(g.next(9000, a, wake), AccessSource::State::kReady);
  EXPECT_EQ(g.next(9000, a, wake), AccessSource::State::kReady);
  EXPECT_EQ(g.next(9000, a, wake), AccessSource::State::kDone);
}

}  // namespace
}  // namespace famsim
