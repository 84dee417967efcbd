// Deterministic data written by traffic generators, so reads can be checked end to end: the byte
// at virtual address a is a function of (a, data_seed) only.
#pragma once

#include <cstdint>

namespace famsim {

// SplitMix64 finaliser (Steele, Lea, Flood, "Fast splittable pseudorandom number generators",
// OOPSLA 2014): a cheap, well-mixing 64-bit hash.
inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline unsigned char pattern_byte(std::uint64_t va, std::uint64_t data_seed) {
  const std::uint64_t word = mix64((va >> 3) ^ data_seed);
  return static_cast<unsigned char>(word >> (8 * (va & 7)));
}

// pattern_byte(va + i, seed) for i in [0, len), one hash per 8-byte word rather than per byte:
// GPUs fill every write's data with it.
inline void fill_pattern(unsigned char* dst, unsigned len, std::uint64_t va, std::uint64_t seed) {
  for (unsigned i = 0; i < len;) {
    const std::uint64_t a = va + i;
    const std::uint64_t word = mix64((a >> 3) ^ seed);
    for (unsigned b = static_cast<unsigned>(a & 7); b < 8 && i < len; ++b, ++i) {
      dst[i] = static_cast<unsigned char>(word >> (8 * b));
    }
  }
}

// Number of bytes that differ from the pattern (one hash per 8-byte word, as fill_pattern).
inline unsigned count_pattern_mismatches(const unsigned char* src, unsigned len, std::uint64_t va,
                                         std::uint64_t seed) {
  unsigned bad = 0;
  for (unsigned i = 0; i < len;) {
    const std::uint64_t a = va + i;
    const std::uint64_t word = mix64((a >> 3) ^ seed);
    for (unsigned b = static_cast<unsigned>(a & 7); b < 8 && i < len; ++b, ++i) {
      bad += src[i] != static_cast<unsigned char>(word >> (8 * b));
    }
  }
  return bad;
}

}  // namespace famsim
