// Integer helpers for sizes, granules and addresses.
#pragma once

#include <cstdint>

namespace famsim {

constexpr bool is_pow2(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// v rounded up to a multiple of a (a > 0).
constexpr std::uint64_t round_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

}  // namespace famsim
