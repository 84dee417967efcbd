#include "traffic/zipf.h"

#include "traffic/pattern.h"

#include <utility>

namespace famsim {
namespace {

// Above this n, H(n, s) comes from Euler-Maclaurin instead of a sum of n powers.
constexpr std::uint64_t kDirectSumLimit = 10000000;
// Ranks must be exact in a double (the sampler works on x in [1/2, n + 1/2]).
constexpr std::uint64_t kMaxRanks = std::uint64_t{1} << 53;
// Terms summed directly before the Euler-Maclaurin tail starts.
constexpr std::uint64_t kEulerMaclaurinStart = 1000;

double power(double x, double s) { return std::exp(-s * std::log(x)); }  // x^-s

// Neumaier-compensated sum of i^-s for i in [first, last], smallest terms first.
double direct_sum(std::uint64_t first, std::uint64_t last, double s) {
  double sum = 0.0;
  double compensation = 0.0;
  for (std::uint64_t i = last; i >= first; --i) {
    const double term = power(static_cast<double>(i), s);
    const double next = sum + term;
    compensation += std::fabs(sum) >= term ? (sum - next) + term : (term - next) + sum;
    sum = next;
  }
  return sum + compensation;
}

// integral_a^b x^-s dx = a^(1-s) * log(b/a) * expm1(t)/t with t = (1-s) log(b/a): continuous and
// accurate through s = 1.
double power_integral(double a, double b, double s) {
  const double log_ratio = std::log(b / a);
  const double t = (1.0 - s) * log_ratio;
  const double expm1_over = std::fabs(t) < 1e-8 ? 1.0 + t / 2.0 : std::expm1(t) / t;
  return std::exp((1.0 - s) * std::log(a)) * log_ratio * expm1_over;
}

// H(n, s) = sum_{i=1..n} i^-s. For large n: sum_{i=m..n} f(i) = integral_m^n f + (f(m) + f(n))/2
// + B2/2! (f'(n) - f'(m)) + B4/4! (f'''(n) - f'''(m)) + R, with B2 = 1/6, B4 = -1/30,
// f(x) = x^-s, f'(x) = -s x^-(s+1), f'''(x) = -s(s+1)(s+2) x^-(s+3), and
// by the usual remainder bound |R| <= 2 zeta(6) / (2 pi)^6 * integral_m^n |f^(6)|
// <= 3.3e-5 |f^(5)(m)|.
double generalized_harmonic(std::uint64_t n, double s) {
  if (n <= kDirectSumLimit) return direct_sum(1, n, s);
  const double m = static_cast<double>(kEulerMaclaurinStart);
  const double nd = static_cast<double>(n);
  const double d1 = -s * (power(nd, s + 1.0) - power(m, s + 1.0));
  const double d3 = -s * (s + 1.0) * (s + 2.0) * (power(nd, s + 3.0) - power(m, s + 3.0));
  const double tail =
      power_integral(m, nd, s) + (power(m, s) + power(nd, s)) / 2.0 + d1 / 12.0 - d3 / 720.0;
  return direct_sum(1, kEulerMaclaurinStart - 1, s) + tail;
}

std::uint64_t low_mask(unsigned bits) { return (std::uint64_t{1} << bits) - 1; }  // bits <= 32

// One pass of the 4-round Feistel network on values of left_bits + right_bits bits. A round maps
// (left, right) to (right, left ^ F(right)), the halves swapping widths, so each round (and so
// the network) is a bijection for any round function F.
std::uint64_t feistel(std::uint64_t value, unsigned left_bits, unsigned right_bits,
                      std::uint64_t seed) {
  std::uint64_t left = value >> right_bits;
  std::uint64_t right = value & low_mask(right_bits);
  for (std::uint64_t round = 0; round < 4; ++round) {
    const std::uint64_t key = mix64(seed ^ mix64(round));
    const std::uint64_t mixed = left ^ (mix64(right ^ key) & low_mask(left_bits));
    left = right;
    right = mixed;
    std::swap(left_bits, right_bits);
  }
  return (left << right_bits) | right;
}

}  // namespace

ZipfDistribution::ZipfDistribution(std::uint64_t n, double s)
    : n_(n), s_(s), one_minus_s_(1.0 - s), last_rank_(static_cast<double>(n)) {
  if (n == 0 || n > kMaxRanks) {
    throw std::invalid_argument("ZipfDistribution: n must be in 1..2^53");
  }
  if (!std::isfinite(s) || s < 0.0) {
    throw std::invalid_argument("ZipfDistribution: s must be finite and >= 0");
  }
  area_begin_ = hat_integral(1.5) - 1.0;
  area_end_ = hat_integral(last_rank_ + 0.5);
  squeeze_ = 2.0 - hat_integral_inverse(hat_integral(2.5) - weight(2.0));
  normaliser_ = generalized_harmonic(n, s);
}

double ZipfDistribution::probability(std::uint64_t k) const {
  if (k >= n_) return 0.0;
  return weight(static_cast<double>(k) + 1.0) / normaliser_;
}

std::uint64_t scatter_rank(std::uint64_t rank, std::uint64_t n, std::uint64_t seed) {
  if (rank >= n) throw std::invalid_argument("scatter_rank: rank must be below n");
  if (n == 1) return 0;
  unsigned bits = 0;  // smallest with 2^bits >= n
  while (bits < 64 && ((n - 1) >> bits) != 0) ++bits;
  const unsigned left_bits = bits / 2;
  const unsigned right_bits = bits - left_bits;
  // Cycle walking: follow the network's cycle from rank until it comes back into 0..n-1. The
  // cycle through rank returns to rank itself, so this ends, and it gives a bijection of 0..n-1.
  std::uint64_t value = rank;
  do {
    value = feistel(value, left_bits, right_bits, seed);
  } while (value >= n);
  return value;
}

}  // namespace famsim
