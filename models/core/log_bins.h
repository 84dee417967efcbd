// Log-linear bins of a non-negative integer (a time in ps): values below 2^SubBits each have a
// bin of their own; above, each octave [2^e, 2^(e+1)) is split into 2^SubBits equal bins, so a bin
// is at most 1/2^SubBits of its values wide. The bin comes from the value's leading bit (no
// logarithm), so it is cheap enough for a per-request hot path. Used by the per-window latency
// histograms (TimeSeries, 3 bits) and the per-hop ones (HopHistogram, 5 bits).
#pragma once

#include <cmath>
#include <cstdint>

namespace famsim {

template <unsigned SubBits>
struct LogLinearBins {
  static constexpr unsigned kSub = 1u << SubBits;
  static constexpr unsigned kCount = (64 - SubBits + 1) * kSub;  // covers every 64-bit value

  // For v >= 2^SubBits with leading bit e: octave bins (e - SubBits + 1) * kSub on, plus the
  // SubBits bits below the leading one. With shift = e - SubBits, v >> shift is kSub plus those
  // bits, so the bin is shift * kSub + (v >> shift). ORing kSub in makes shift 0 below 2^SubBits,
  // where the bin is v itself: one formula, no branch.
  static unsigned index(std::uint64_t v) {
    const unsigned shift = 63u - SubBits - static_cast<unsigned>(__builtin_clzll(v | kSub));
    return shift * kSub + static_cast<unsigned>(v >> shift);
  }
  // Bin b covers [lower(b), upper(b)).
  static double lower(unsigned b) { return edge(b, 0); }
  static double upper(unsigned b) { return edge(b, 1); }
  // The value a bin stands for: itself below 2^SubBits, else the middle of its range.
  static double middle(unsigned b) { return b < kSub ? b : (lower(b) + upper(b)) / 2; }

 private:
  static double edge(unsigned b, unsigned side) {
    if (b < kSub) return b + side;
    const unsigned e = b / kSub + SubBits - 1;
    return std::ldexp(static_cast<double>(kSub + b % kSub + side), static_cast<int>(e - SubBits));
  }
};

}  // namespace famsim
