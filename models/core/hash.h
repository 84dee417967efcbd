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

}  // namespace famsim
