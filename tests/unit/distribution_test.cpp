// Access-popularity distributions (traffic/zipf.h) and the uniform rank pick the uniform_random
// pattern uses, checked by Pearson chi-square goodness of fit at fixed seeds. Expected counts come
// from the distribution's formula worked out here, never from the code under test, and the
// critical value is the chi-square quantile at 0.999 from Boost.Math.
#include "traffic/zipf.h"

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace famsim {
namespace {

// Pearson's chi-square needs an expected count of at least 5 per bin (Cochran's rule).
constexpr double kMinExpectedPerBin = 5.0;

struct ChiSquare {
  double statistic = 0.0;
  unsigned bins = 0;      // after merging
  double critical = 0.0;  // 0.999 quantile for bins - 1 degrees of freedom
  bool passes() const { return statistic < critical; }
};

// Merges consecutive bins, in order, until each holds an expected count of at least 5 (a short
// last group joins the one before it), then compares observed with expected counts.
ChiSquare pearson(const std::vector<double>& expected, const std::vector<std::uint64_t>& observed) {
  std::vector<double> merged_expected;
  std::vector<double> merged_observed;
  double e = 0.0;
  double o = 0.0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    e += expected[i];
    o += static_cast<double>(observed[i]);
    if (e >= kMinExpectedPerBin) {
      merged_expected.push_back(e);
      merged_observed.push_back(o);
      e = o = 0.0;
    }
  }
  if (e > 0.0 || o > 0.0) {
    if (merged_expected.empty()) {
      merged_expected.push_back(e);
      merged_observed.push_back(o);
    } else {
      merged_expected.back() += e;
      merged_observed.back() += o;
    }
  }
  ChiSquare result;
  result.bins = static_cast<unsigned>(merged_expected.size());
  for (std::size_t i = 0; i < merged_expected.size(); ++i) {
    const double d = merged_observed[i] - merged_expected[i];
    result.statistic += d * d / merged_expected[i];
  }
  if (result.bins >= 2) {
    const boost::math::chi_squared law(result.bins - 1.0);
    result.critical = boost::math::quantile(law, 0.999);
  }
  return result;
}

// Records the numbers in the test's XML output (--gtest_output=xml) and checks the fit.
void expect_fits(const ChiSquare& c, const std::string& what) {
  ::testing::Test::RecordProperty(what + "_chi2", std::to_string(c.statistic));
  ::testing::Test::RecordProperty(what + "_critical", std::to_string(c.critical));
  ::testing::Test::RecordProperty(what + "_bins", std::to_string(c.bins));
  ASSERT_GE(c.bins, 2u) << what;
  EXPECT_TRUE(c.passes()) << what << ": chi-square " << c.statistic << " >= critical " << c.critical
                          << " for " << c.bins - 1 << " degrees of freedom";
}

// The Zipf law over ranks 0..n-1, straight from its definition: (k+1)^-s / sum_i (i+1)^-s.
std::vector<double> zipf_law(std::uint64_t n, double s) {
  std::vector<double> p(n);
  double sum = 0.0;
  for (std::uint64_t k = 0; k < n; ++k) {
    p[k] = std::pow(static_cast<double>(k + 1), -s);
    sum += p[k];
  }
  for (double& x : p) x /= sum;
  return p;
}

std::vector<double> scaled(std::vector<double> p, double draws) {
  for (double& x : p) x *= draws;
  return p;
}

std::vector<std::uint64_t> histogram_of_zipf(const ZipfDistribution& z, unsigned draws,
                                             std::uint64_t seed) {
  boost::random::mt19937_64 rng(seed);
  std::vector<std::uint64_t> counts(z.n(), 0);
  for (unsigned i = 0; i < draws; ++i) {
    const std::uint64_t k = z(rng);
    EXPECT_LT(k, z.n());
    if (k < z.n()) ++counts[k];
  }
  return counts;
}

void expect_zipf_fit(double s, std::uint64_t seed, const std::string& what) {
  constexpr std::uint64_t kRanks = 100;
  constexpr unsigned kDraws = 200000;
  const ZipfDistribution z(kRanks, s);
  const auto observed = histogram_of_zipf(z, kDraws, seed);
  expect_fits(pearson(scaled(zipf_law(kRanks, s), kDraws), observed), what);
}

// sum_{i=1..n} i^-s by a method unlike the library's: the first 10^6 terms summed directly, the
// rest by the midpoint rule, sum_{i=a..b} i^-s ~ integral_{a-1/2}^{b+1/2} x^-s dx, whose error
// is about s/24 * a^-(s+1) (relative error below 1e-14 for the n and s used here).
double reference_harmonic(std::uint64_t n, double s) {
  constexpr std::uint64_t kDirect = 1000000;
  const std::uint64_t direct = std::min(n, kDirect);
  double sum = 0.0;
  for (std::uint64_t i = direct; i >= 1; --i) sum += std::pow(static_cast<double>(i), -s);
  if (n > direct) {
    const double a = static_cast<double>(direct) + 0.5;
    const double b = static_cast<double>(n) + 0.5;
    sum += s == 1.0 ? std::log(b / a) : (std::pow(b, 1.0 - s) - std::pow(a, 1.0 - s)) / (1.0 - s);
  }
  return sum;
}

// Octave j holds the 1-based ranks [2^j, 2^(j+1)), the last octave cut at n.
unsigned octave_of(std::uint64_t rank) {
  unsigned j = 0;
  while (((rank + 1) >> (j + 1)) != 0) ++j;
  return j;
}

// Unnormalised Zipf mass of each octave of 1..n: direct sums for short octaves, the midpoint
// integral for long ones (octaves from 2^17 on: error about s/24 * 2^-17(s+1), far below the
// octave's mass).
std::vector<double> octave_masses(std::uint64_t n, double s) {
  std::vector<double> mass;
  for (std::uint64_t first = 1; first <= n; first *= 2) {
    const std::uint64_t last = std::min(n, 2 * first - 1);
    double m = 0.0;
    if (last - first < 65536) {
      for (std::uint64_t i = last; i >= first; --i) m += std::pow(static_cast<double>(i), -s);
    } else {
      const double a = static_cast<double>(first) - 0.5;
      const double b = static_cast<double>(last) + 0.5;
      m = s == 1.0 ? std::log(b / a) : (std::pow(b, 1.0 - s) - std::pow(a, 1.0 - s)) / (1.0 - s);
    }
    mass.push_back(m);
    if (first > n / 2) break;
  }
  return mass;
}

void expect_octaves_fit(std::uint64_t n, double s, std::uint64_t seed, const std::string& what) {
  constexpr unsigned kDraws = 200000;
  std::vector<double> expected = octave_masses(n, s);
  double total = 0.0;
  for (double m : expected) total += m;
  for (double& m : expected) m *= kDraws / total;
  const ZipfDistribution z(n, s);
  boost::random::mt19937_64 rng(seed);
  std::vector<std::uint64_t> observed(expected.size(), 0);
  for (unsigned i = 0; i < kDraws; ++i) {
    const std::uint64_t k = z(rng);
    ASSERT_LT(k, n);
    ++observed[octave_of(k)];
  }
  expect_fits(pearson(expected, observed), what);
}

TEST(ZipfDistribution, FollowsTheLawAtS08) { expect_zipf_fit(0.8, 11, "s0.8"); }
TEST(ZipfDistribution, FollowsTheLawAtS1) { expect_zipf_fit(1.0, 12, "s1.0"); }
TEST(ZipfDistribution, FollowsTheLawAtS12) { expect_zipf_fit(1.2, 13, "s1.2"); }

TEST(ZipfDistribution, SZeroIsUniform) {
  constexpr std::uint64_t kRanks = 64;
  constexpr unsigned kDraws = 128000;
  const ZipfDistribution z(kRanks, 0.0);
  const auto observed = histogram_of_zipf(z, kDraws, 14);
  expect_fits(pearson(std::vector<double>(kRanks, double{kDraws} / kRanks), observed), "s0");
}

TEST(ZipfDistribution, LargeNHeadRanksMatchTheLaw) {
  // n = 10^9, s = 1.1: P(rank 0) = 1/H ~ 0.107, P(rank 1) = 2^-1.1/H ~ 0.050.
  constexpr std::uint64_t kRanks = 1000000000;
  constexpr double kS = 1.1;
  constexpr unsigned kDraws = 400000;
  const double harmonic = reference_harmonic(kRanks, kS);
  const ZipfDistribution z(kRanks, kS);
  boost::random::mt19937_64 rng(15);
  std::uint64_t rank0 = 0;
  std::uint64_t rank1 = 0;
  for (unsigned i = 0; i < kDraws; ++i) {
    const std::uint64_t k = z(rng);
    ASSERT_LT(k, kRanks);
    rank0 += k == 0;
    rank1 += k == 1;
  }
  const double p0 = 1.0 / harmonic;
  const double p1 = std::pow(2.0, -kS) / harmonic;
  const double se0 = std::sqrt(p0 * (1.0 - p0) / kDraws);
  const double se1 = std::sqrt(p1 * (1.0 - p1) / kDraws);
  RecordProperty("rank0_z", std::to_string((double(rank0) / kDraws - p0) / se0));
  RecordProperty("rank1_z", std::to_string((double(rank1) / kDraws - p1) / se1));
  EXPECT_NEAR(double(rank0) / kDraws, p0, 3.0 * se0);
  EXPECT_NEAR(double(rank1) / kDraws, p1, 3.0 * se1);
  // probability() (Euler-Maclaurin above 10^7 ranks) against the midpoint-rule reference.
  EXPECT_NEAR(z.probability(0) * harmonic, 1.0, 1e-11);
  EXPECT_NEAR(z.probability(1) * harmonic, std::pow(2.0, -kS), 1e-11);
}

TEST(ZipfDistribution, ProbabilityMatchesTheFormula) {
  // Direct summation (n <= 10^7) and Euler-Maclaurin (above), each against the reference sum.
  for (const std::uint64_t n : {std::uint64_t{100}, std::uint64_t{20000000}}) {
    for (const double s : {0.0, 0.5, 1.0, 1.5}) {
      const ZipfDistribution z(n, s);
      const double harmonic = reference_harmonic(n, s);
      for (const std::uint64_t k : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{99}}) {
        EXPECT_NEAR(z.probability(k) * harmonic / std::pow(double(k + 1), -s), 1.0, 1e-11)
            << "n " << n << " s " << s << " k " << k;
      }
      EXPECT_EQ(z.probability(n), 0.0);
    }
  }
  const ZipfDistribution z(100, 0.9);
  double total = 0.0;
  for (std::uint64_t k = 0; k < 100; ++k) total += z.probability(k);
  EXPECT_NEAR(total, 1.0, 1e-12);
}

TEST(ZipfDistribution, HugeNOctavesFollowTheLaw) {
  // n = 2^40 (the largest n the distribution is specified for): ranks binned by octave, so the
  // whole range, tail included, is checked, the uniform case too. The 100-rank fits above have
  // little power against small per-rank biases; this one caught a sampler with no rejection step.
  constexpr std::uint64_t kRanks = std::uint64_t{1} << 40;
  expect_octaves_fit(kRanks, 0.0, 16, "octaves_s0");
  expect_octaves_fit(kRanks, 0.7, 17, "octaves_s0.7");
  expect_octaves_fit(kRanks, 1.0, 18, "octaves_s1.0");
  expect_octaves_fit(kRanks - 12345, 1.3, 19, "octaves_s1.3");
}

TEST(ZipfDistribution, SingleRankAndSteepLaw) {
  boost::random::mt19937_64 rng(20);
  const ZipfDistribution one(1, 1.0);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(one(rng), 0u);
  // s = 20: P(rank 0) = 1 / (1 + 2^-20 + ...) > 0.999998.
  const ZipfDistribution steep(1000, 20.0);
  unsigned zeros = 0;
  for (int i = 0; i < 10000; ++i) {
    const std::uint64_t k = steep(rng);
    ASSERT_LT(k, 1000u);
    zeros += k == 0;
  }
  EXPECT_GE(zeros, 9990u);
}

TEST(ZipfDistribution, ConstructorRejectsBadParameters) {
  EXPECT_THROW(ZipfDistribution(0, 1.0), std::invalid_argument);
  EXPECT_THROW(ZipfDistribution(100, -0.5), std::invalid_argument);
  EXPECT_THROW(ZipfDistribution(100, -1e-300), std::invalid_argument);
  EXPECT_THROW(ZipfDistribution(100, std::numeric_limits<double>::quiet_NaN()),
               std::invalid_argument);
  EXPECT_THROW(ZipfDistribution(100, std::numeric_limits<double>::infinity()),
               std::invalid_argument);
  EXPECT_THROW(ZipfDistribution((std::uint64_t{1} << 53) + 1, 1.0), std::invalid_argument);
  const ZipfDistribution z(7, 1.5);
  EXPECT_EQ(z.n(), 7u);
  EXPECT_EQ(z.s(), 1.5);
}

TEST(ZipfDistribution, ChiSquareRejectsTheWrongLaw) {
  // Negative controls: the check must fail when the samples do not follow the expected law.
  constexpr std::uint64_t kRanks = 100;
  constexpr unsigned kDraws = 200000;
  const auto zipf1 = scaled(zipf_law(kRanks, 1.0), kDraws);

  boost::random::mt19937_64 rng(21);
  boost::random::uniform_int_distribution<std::uint64_t> pick(0, kRanks - 1);
  std::vector<std::uint64_t> uniform(kRanks, 0);
  for (unsigned i = 0; i < kDraws; ++i) ++uniform[pick(rng)];
  const ChiSquare against_uniform = pearson(zipf1, uniform);
  RecordProperty("uniform_vs_zipf1_chi2", std::to_string(against_uniform.statistic));
  EXPECT_FALSE(against_uniform.passes()) << against_uniform.statistic;

  // A near miss: Zipf samples at s = 1.05 against the s = 1 law.
  const auto near = histogram_of_zipf(ZipfDistribution(kRanks, 1.05), kDraws, 22);
  const ChiSquare against_near = pearson(zipf1, near);
  RecordProperty("zipf1.05_vs_zipf1_chi2", std::to_string(against_near.statistic));
  EXPECT_FALSE(against_near.passes()) << against_near.statistic;
}

TEST(UniformPick, BoostUniformIntIsUniform) {
  // The uniform_random pattern's slot pick (traffic/generator.cpp).
  for (const std::uint64_t n : {std::uint64_t{64}, std::uint64_t{1000}}) {
    constexpr unsigned kDraws = 200000;
    boost::random::mt19937_64 rng(23 + n);
    boost::random::uniform_int_distribution<std::uint64_t> pick(0, n - 1);
    std::vector<std::uint64_t> observed(n, 0);
    for (unsigned i = 0; i < kDraws; ++i) {
      const std::uint64_t k = pick(rng);
      ASSERT_LT(k, n);
      ++observed[k];
    }
    expect_fits(pearson(std::vector<double>(n, double{kDraws} / n), observed),
                "uniform_int_n" + std::to_string(n));
  }
}

TEST(ZipfDistinct, DrawsDistinctRanksAndTheFirstFollowsTheLaw) {
  constexpr std::uint64_t kRanks = 100;
  constexpr double kS = 1.0;
  constexpr unsigned kPerDraw = 8;
  constexpr unsigned kTrials = 50000;
  const ZipfDistribution z(kRanks, kS);
  boost::random::mt19937_64 rng(24);
  std::vector<std::uint64_t> first(kRanks, 0);
  std::uint64_t out[kPerDraw];
  for (unsigned t = 0; t < kTrials; ++t) {
    zipf_distinct(z, kPerDraw, rng, out);
    const std::set<std::uint64_t> seen(out, out + kPerDraw);
    ASSERT_EQ(seen.size(), kPerDraw);
    ASSERT_LT(*seen.rbegin(), kRanks);
    ++first[out[0]];
  }
  expect_fits(pearson(scaled(zipf_law(kRanks, kS), kTrials), first), "distinct_first");
}

TEST(ZipfDistinct, AllRanksAndTooMany) {
  const ZipfDistribution z(10, 0.5);
  boost::random::mt19937_64 rng(25);
  std::uint64_t out[11];
  zipf_distinct(z, 10, rng, out);
  std::vector<std::uint64_t> sorted(out, out + 10);
  std::sort(sorted.begin(), sorted.end());
  for (std::uint64_t k = 0; k < 10; ++k) EXPECT_EQ(sorted[k], k);
  EXPECT_THROW(zipf_distinct(z, 11, rng, out), std::invalid_argument);
  zipf_distinct(z, 0, rng, out);  // nothing to draw
}

TEST(ScatterRank, IsAPermutation) {
  for (const std::uint64_t n : {1, 2, 3, 7, 100, 1000, 4096}) {
    for (const std::uint64_t seed : {0ULL, 1ULL, 0xdeadbeefULL}) {
      std::vector<unsigned> hits(n, 0);
      for (std::uint64_t rank = 0; rank < n; ++rank) {
        const std::uint64_t page = scatter_rank(rank, n, seed);
        ASSERT_LT(page, n) << "n " << n << " seed " << seed;
        ++hits[page];
      }
      for (std::uint64_t page = 0; page < n; ++page) {
        EXPECT_EQ(hits[page], 1u) << "n " << n << " seed " << seed << " page " << page;
      }
    }
  }
}

TEST(ScatterRank, SpreadsTheHotRanks) {
  constexpr std::uint64_t kPages = 4096;
  // The 16 hottest ranks do not stay on the first pages: at least one lands in the upper half
  // (all 16 in the lower half would happen for 1 seed in 2^16 if the pages were random).
  std::uint64_t highest = 0;
  unsigned fixed_points = 0;
  for (std::uint64_t rank = 0; rank < 16; ++rank) {
    const std::uint64_t page = scatter_rank(rank, kPages, 1);
    highest = std::max(highest, page);
    fixed_points += page == rank;
  }
  EXPECT_GE(highest, kPages / 2);
  EXPECT_LT(fixed_points, 16u);
  // Another seed, another permutation.
  unsigned same = 0;
  for (std::uint64_t rank = 0; rank < kPages; ++rank) {
    same += scatter_rank(rank, kPages, 1) == scatter_rank(rank, kPages, 2);
  }
  EXPECT_LT(same, 64u);  // about 1 expected
}

TEST(ScatterRank, HugeDomains) {
  // Odd and even bit counts, up to 64 bits: values stay in range and distinct.
  for (const std::uint64_t n : {(std::uint64_t{1} << 40) + 3, std::uint64_t{1} << 40,
                                (std::uint64_t{1} << 63) + 1, ~std::uint64_t{0}}) {
    std::set<std::uint64_t> pages;
    for (std::uint64_t rank = 0; rank < 1000; ++rank) {
      const std::uint64_t page = scatter_rank(rank, n, 7);
      ASSERT_LT(page, n);
      pages.insert(page);
    }
    EXPECT_EQ(pages.size(), 1000u);
  }
  EXPECT_THROW(scatter_rank(5, 5, 1), std::invalid_argument);
  EXPECT_THROW(scatter_rank(0, 0, 1), std::invalid_argument);
}

}  // namespace
}  // namespace famsim
