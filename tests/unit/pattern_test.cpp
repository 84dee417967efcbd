// The data pattern GPUs write and check (traffic/pattern.h): the byte at virtual address a is
// byte (a mod 8) of SplitMix64's finaliser of (a / 8) xor the seed. fill_pattern and
// count_pattern_mismatches work a word at a time; they must give what the byte definition gives
// at every alignment and length.
#include "traffic/pattern.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>

namespace famsim {
namespace {

TEST(Pattern, Mix64IsSplitMix64) {
  // SplitMix64 from state 0 first returns 0xe220a8397b1dcdaf (Steele, Lea and Flood's generator,
  // as in the reference implementation by Vigna, prng.di.unimi.it/splitmix64.c).
  EXPECT_EQ(mix64(0), 0xe220a8397b1dcdafULL);
  // Byte k of a word is the word's k-th least significant byte.
  EXPECT_EQ(pattern_byte(0, 0), 0xaf);
  EXPECT_EQ(pattern_byte(1, 0), 0xcd);
  EXPECT_EQ(pattern_byte(7, 0), 0xe2);
}

TEST(Pattern, Splitmix64NextIsTheReferenceStream) {
  // The link's flit-error draws (models/fabric/link.cpp) use the generator's step. Vigna's
  // splitmix64.c seeded with 1234567 returns these first (the numbers its test harness prints,
  // recomputed by a separate Python implementation).
  std::uint64_t state = 1234567;
  EXPECT_EQ(splitmix64_next(state), 6457827717110365317ULL);
  EXPECT_EQ(splitmix64_next(state), 3203168211198807973ULL);
  EXPECT_EQ(splitmix64_next(state), 9817491932198370423ULL);
  EXPECT_EQ(state, 1234567 + 3 * 0x9e3779b97f4a7c15ULL);
  // mix64 is one step from state x, without keeping the state.
  EXPECT_EQ(mix64(1234567), 6457827717110365317ULL);
}

TEST(Pattern, FillAndCountAgreeWithTheByteDefinitionAtEveryAlignment) {
  const std::uint64_t seed = 0x1234;
  for (std::uint64_t va = 0x1000; va < 0x1000 + 16; ++va) {
    for (unsigned len = 0; len <= 70; ++len) {
      std::array<unsigned char, 80> buf;
      buf.fill(0x5a);
      fill_pattern(buf.data(), len, va, seed);
      for (unsigned i = 0; i < len; ++i) {
        ASSERT_EQ(buf[i], pattern_byte(va + i, seed)) << "va " << va << " len " << len << " i " << i;
      }
      for (unsigned i = len; i < buf.size(); ++i) ASSERT_EQ(buf[i], 0x5a) << "wrote past the end";
      ASSERT_EQ(count_pattern_mismatches(buf.data(), len, va, seed), 0u);
      if (len == 0) continue;
      // Spoil the first and the last byte: two mismatches (one when they are the same byte).
      buf[0] ^= 1;
      buf[len - 1] ^= 0x80;
      ASSERT_EQ(count_pattern_mismatches(buf.data(), len, va, seed), len == 1 ? 1u : 2u)
          << "va " << va << " len " << len;
    }
  }
}

}  // namespace
}  // namespace famsim
