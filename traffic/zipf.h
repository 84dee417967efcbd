// Skewed ("hot page") access popularity for traffic generators.
//
// ZipfDistribution: ranks 0..n-1, rank k drawn with probability (k+1)^-s / H(n, s), where
// H(n, s) = sum_{i=1..n} i^-s (the generalised harmonic number). s = 0 is uniform; s around 1 is
// the classic Zipf law of object/page popularity. n up to 2^53 (tested to 2^40); O(1) memory and
// O(1) expected time per draw, no allocation per draw.
//
// Sampling is rejection-inversion (W. Hörmann, G. Derflinger, "Rejection-inversion to generate
// variates from monotone discrete distributions", ACM TOMACS 6(3), 1996). With 1-based ranks
// j = k + 1 and weight h(x) = x^-s, the hat is the area under h(x) on [1/2, n + 1/2]; rank j owns
// the slice [j - 1/2, j + 1/2], whose area is at least h(j) because h is convex (Jensen). A point
// u uniform in that area is inverted, x = H^-1(u) with H(x) = integral_1^x t^-s dt, and j =
// round(x) is accepted when u lies in the last h(j) of rank j's slice, so every rank is accepted
// with probability proportional to h(j). The hat starts at H(3/2) - h(1) instead of H(1/2), so
// rank 1's slice is exactly h(1) and always accepted. Most draws are accepted by the paper's
// squeeze (j - x <= a constant) without evaluating H, so a typical draw costs one uniform, one exp
// and one log.
//
// Resolution: u is a double, so once a rank's weight h(j) falls below the rounding step of H
// near it (about 1e-16 H), a draw lands within a few ranks of the exact one rather than on it
// (the mass over a range of ranks stays right). For n <= 2^40 this touches no rank when s <= 1.1;
// for s = 2 it touches ranks above about 10^8, which hold 1e-8 of the mass.
//
// scatter_rank: a seeded bijection of 0..n-1, so that the hottest ranks land on pages spread over
// a buffer rather than on its first pages.
#pragma once

#include <boost/random/uniform_01.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace famsim {

class ZipfDistribution {
 public:
  // std::invalid_argument for n == 0, n > 2^53 (ranks no longer exact in a double), s < 0 or s
  // not finite. For n <= 10^7 the constructor sums H(n, s) directly (up to about 0.2 s at 10^7).
  ZipfDistribution(std::uint64_t n, double s);

  // One rank in 0..n-1; 0 is the most popular. `rng`: a Boost.Random / <random> engine
  // (boost::random::mt19937_64 in famsim).
  template <class Rng>
  std::uint64_t operator()(Rng& rng) const;

  std::uint64_t n() const { return n_; }
  double s() const { return s_; }

  // Exact probability of rank k, (k+1)^-s / H(n, s); 0 for k >= n. H(n, s) is computed once in the
  // constructor: by compensated summation for n <= 10^7, else as the direct sum of the first 999
  // terms plus the Euler-Maclaurin formula for the rest (terms up to the B4 correction). The
  // Euler-Maclaurin remainder is below 3.3e-5 * s(s+1)(s+2)(s+3)(s+4) * 1000^-(s+5) (under 1e-19
  // for s <= 4, and smaller still for larger s), so H is accurate to double rounding: relative
  // error below 1e-14.
  double probability(std::uint64_t k) const;

 private:
  // x^-s, the unnormalised weight of 1-based rank x.
  double weight(double x) const { return std::exp(-s_ * std::log(x)); }
  // H(x) = integral_1^x t^-s dt = (x^(1-s) - 1) / (1 - s), or log(x) at s = 1; written as
  // log(x) * expm1(t) / t with t = (1 - s) log(x) so that it is continuous and accurate through
  // s = 1.
  double hat_integral(double x) const {
    const double log_x = std::log(x);
    return log_x * expm1_over(one_minus_s_ * log_x);
  }
  // H^-1(y) = exp(y * log1p(t) / t) with t = (1 - s) y.
  double hat_integral_inverse(double y) const { return std::exp(y * log1p_over(one_minus_s_ * y)); }
  // expm1(t) / t and log1p(t) / t, with their limit 1 at t = 0 (series below 1e-8, where the
  // first omitted term is under 1e-16).
  static double expm1_over(double t) {
    return std::fabs(t) < 1e-8 ? 1.0 + t / 2.0 : std::expm1(t) / t;
  }
  static double log1p_over(double t) {
    return std::fabs(t) < 1e-8 ? 1.0 - t / 2.0 : std::log1p(t) / t;
  }

  std::uint64_t n_;
  double s_;
  double one_minus_s_;
  double last_rank_;   // n as a double
  double area_begin_;  // H(3/2) - h(1): rank 1's slice is exactly h(1)
  double area_end_;    // H(n + 1/2)
  double squeeze_;     // accept without evaluating H when j - x <= squeeze_
  double normaliser_;  // H(n, s)
};

template <class Rng>
std::uint64_t ZipfDistribution::operator()(Rng& rng) const {
  boost::random::uniform_01<double> unit;
  for (;;) {
    // u runs from the tail end (unit() == 0) towards rank 1: the uniform's finest resolution,
    // near 0, goes to the narrow slices of the tail ranks.
    const double u = area_end_ + unit(rng) * (area_begin_ - area_end_);
    const double x = hat_integral_inverse(u);
    const double rank = std::min(std::max(std::floor(x + 0.5), 1.0), last_rank_);
    // Squeeze: x >= rank - squeeze_ implies u >= H(rank + 1/2) - h(rank) for every rank >= 2,
    // because rank - H^-1(H(rank + 1/2) - h(rank)) grows with rank (checked numerically, to 1200
    // digits, for s in [0, 50] and ranks up to 10^8) and squeeze_ is its value at rank 2; rank 1
    // always passes the full test.
    if (rank - x <= squeeze_ || u >= hat_integral(rank + 0.5) - weight(rank)) {
      return static_cast<std::uint64_t>(rank) - 1;
    }
  }
}

// Draws k distinct ranks of `z` by repeated draws, dropping repeats, and writes them to out[0..k)
// in draw order (out[0] is a plain Zipf draw). Meant for k << n: the expected number of draws
// grows sharply once k approaches the number of ranks holding most of the mass. O(k^2)
// comparisons, no allocation. std::invalid_argument if k > n.
template <class Rng>
void zipf_distinct(const ZipfDistribution& z, unsigned k, Rng& rng, std::uint64_t* out) {
  if (k > z.n()) throw std::invalid_argument("zipf_distinct: k is larger than n");
  for (unsigned drawn = 0; drawn < k;) {
    const std::uint64_t rank = z(rng);
    if (std::find(out, out + drawn, rank) == out + drawn) out[drawn++] = rank;
  }
}

// A seeded permutation of 0..n-1 (any n >= 1), O(1) memory: a 4-round Feistel network on the
// smallest power of two >= n (unbalanced halves when the bit count is odd), cycle-walked back
// into 0..n-1 (Black and Rogaway, "Ciphers with arbitrary finite domains", CT-RSA 2002). Expected
// under 2 network passes per call. Maps a popularity rank to a page index so that the hot pages
// are scattered over a buffer. std::invalid_argument if rank >= n.
std::uint64_t scatter_rank(std::uint64_t rank, std::uint64_t n, std::uint64_t seed);

}  // namespace famsim
