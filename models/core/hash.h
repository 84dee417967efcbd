// Stable hashes: the same value on every host, compiler and run (std::hash promises none of that),
// for what is stored or seeds a random stream.
#pragma once

#include <cstdint>
#include <string_view>

namespace famsim {

// FNV-1a, 64 bit (Fowler, Noll, Vo; the offset basis and prime of the published 64-bit variant).
inline std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return h;
}

// SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014;
// the constants of Vigna's reference splitmix64.c). Its output function alone is a cheap,
// well-mixing 64-bit hash: every output bit depends on every input bit.
inline std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
inline constexpr std::uint64_t kSplitmix64Gamma = 0x9e3779b97f4a7c15ULL;

// The generator's step: advances `state` and returns the next number of its stream.
inline std::uint64_t splitmix64_next(std::uint64_t& state) {
  return splitmix64_mix(state += kSplitmix64Gamma);
}

// A stateless hash of x: the generator's number for state x (the step applied once), so that
// mix64(0) is not 0.
inline std::uint64_t mix64(std::uint64_t x) { return splitmix64_mix(x + kSplitmix64Gamma); }

}  // namespace famsim
