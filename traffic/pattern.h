// Deterministic data written by traffic generators, so reads can be checked end to end: the byte
// at virtual address a is a function of (a, data_seed) only.
#pragma once

#include "models/core/hash.h"

#include <cstdint>
#include <cstring>

namespace famsim {

// The pattern's 8-byte word holding address va: byte (va & 7) of it is va's.
inline std::uint64_t pattern_word(std::uint64_t va, std::uint64_t data_seed) {
  return mix64((va >> 3) ^ data_seed);
}

inline unsigned char pattern_byte(std::uint64_t va, std::uint64_t data_seed) {
  return static_cast<unsigned char>(pattern_word(va, data_seed) >> (8 * (va & 7)));
}

// Calls f(i, pattern_byte(va + i, seed)) for i in [0, len), hashing once per 8-byte word rather
// than once per byte: GPUs fill every write's data with the pattern.
template <class F>
inline void for_each_pattern_byte(unsigned len, std::uint64_t va, std::uint64_t seed, F&& f) {
  for (unsigned i = 0; i < len;) {
    const std::uint64_t a = va + i;
    const std::uint64_t word = pattern_word(a, seed);
    for (unsigned b = static_cast<unsigned>(a & 7); b < 8 && i < len; ++b, ++i) {
      f(i, static_cast<unsigned char>(word >> (8 * b)));
    }
  }
}

inline void fill_pattern(unsigned char* dst, unsigned len, std::uint64_t va, std::uint64_t seed) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  // On a little-endian host byte b of a word sits at its address + b, so each whole 8-byte word
  // of the pattern is stored at once: 8 stores fewer and no shifts per word (a 64 B write took
  // about 900 instructions byte by byte).
  unsigned i = 0;
  for (; i < len && ((va + i) & 7) != 0; ++i) dst[i] = pattern_byte(va + i, seed);
  for (; i + 8 <= len; i += 8) {
    const std::uint64_t word = pattern_word(va + i, seed);
    std::memcpy(dst + i, &word, sizeof word);
  }
  for (; i < len; ++i) dst[i] = pattern_byte(va + i, seed);
#else
  for_each_pattern_byte(len, va, seed, [dst](unsigned i, unsigned char v) { dst[i] = v; });
#endif
}

// Number of bytes that differ from the pattern.
inline unsigned count_pattern_mismatches(const unsigned char* src, unsigned len, std::uint64_t va,
                                         std::uint64_t seed) {
  unsigned bad = 0;
  for_each_pattern_byte(len, va, seed,
                        [src, &bad](unsigned i, unsigned char v) { bad += src[i] != v; });
  return bad;
}

}  // namespace famsim
