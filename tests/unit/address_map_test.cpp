// AddressMap: channel selection (modulo, xor, an explicit bit list), bijection, dense channel
// addresses, argument checks. Expected channels are worked out by hand from the definition in
// address_map.h.
#include "models/memory/address_map.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <array>
#include <cstdlib>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

namespace famsim {
namespace {

constexpr unsigned kChannels = 4;
constexpr std::uint64_t kGranule = 256;
constexpr std::uint64_t kRowStride = kChannels * kGranule;  // 1024 B: one granule per channel

std::array<unsigned, kChannels> count_strided(const AddressMap& m, std::uint64_t stride,
                                              unsigned n) {
  std::array<unsigned, kChannels> counts{};
  for (unsigned k = 0; k < n; ++k) ++counts.at(m.decode(k * stride).channel);
  return counts;
}

TEST(AddressMap, ModuloSendsAChannelsTimesGranuleStrideToOneChannel) {
  const AddressMap m(kChannels, kGranule, AddressMap::Select::kModulo);
  // Offset k*1024 is granule 4k; 4k mod 4 = 0 for every k.
  const auto counts = count_strided(m, kRowStride, 1024);
  EXPECT_EQ(counts[0], 1024u);
  EXPECT_EQ(counts[1], 0u);
  EXPECT_EQ(counts[2], 0u);
  EXPECT_EQ(counts[3], 0u);
}

TEST(AddressMap, XorSpreadsTheSameStrideEvenly) {
  const AddressMap m(kChannels, kGranule, AddressMap::Select::kXor);
  // Offset k*1024 is granule 4k: low digit 0, upper = k, channel = xor of the base-4 digits of k.
  // For k = 0..15 (k = 4*d1 + d0) that is d0 ^ d1:
  const unsigned expected[16] = {0, 1, 2, 3,   // d1 = 0
                                 1, 0, 3, 2,   // d1 = 1
                                 2, 3, 0, 1,   // d1 = 2
                                 3, 2, 1, 0};  // d1 = 3
  for (unsigned k = 0; k < 16; ++k) {
    EXPECT_EQ(m.decode(k * kRowStride).channel, expected[k]) << "k=" << k;
  }
  // Every group of 4 consecutive k shares its upper digits and varies d0 over 0..3, so the xor
  // visits each channel once per group: 1024 accesses give 256 per channel.
  const auto counts = count_strided(m, kRowStride, 1024);
  for (unsigned c = 0; c < kChannels; ++c) EXPECT_EQ(counts[c], 256u) << "channel " << c;
}

TEST(AddressMap, DecodeOfHandWorkedOffsets) {
  // Offset 5*256 + 17 = 1297: granule 5, low digit 1, upper 1, 17 bytes into the granule.
  const AddressMap mod(kChannels, kGranule, AddressMap::Select::kModulo);
  const AddressMap xr(kChannels, kGranule, AddressMap::Select::kXor);
  const auto dm = mod.decode(1297);
  EXPECT_EQ(dm.channel, 1u);
  EXPECT_EQ(dm.channel_address, 256u + 17u);
  const auto dx = xr.decode(1297);
  EXPECT_EQ(dx.channel, 0u);  // 1 xor 1
  EXPECT_EQ(dx.channel_address, 256u + 17u);
  // Granule 4*4*3 + 4*2 + 1 = 57 (base-4 digits 3,2,1): xor channel 1^2^3 = 0, upper 14.
  const auto d57 = xr.decode(57 * kGranule + 3);
  EXPECT_EQ(d57.channel, 0u);
  EXPECT_EQ(d57.channel_address, 14 * kGranule + 3);
  // Modulo with a non-power-of-two channel count: granule 20 over 6 channels -> channel 2, upper 3.
  const AddressMap six(6, kGranule, AddressMap::Select::kModulo);
  const auto d6 = six.decode(20 * kGranule + 100);
  EXPECT_EQ(d6.channel, 2u);
  EXPECT_EQ(d6.channel_address, 3 * kGranule + 100);
}

void check_round_trip(const AddressMap& m) {
  std::set<std::pair<unsigned, std::uint64_t>> seen;
  // Offsets that are not granule-aligned, spread over many granules (step is odd and < granule).
  for (std::uint64_t off = 0; off < 300 * m.granule_bytes(); off += 37) {
    const auto d = m.decode(off);
    ASSERT_LT(d.channel, m.channels()) << "offset " << off;
    EXPECT_EQ(m.encode(d.channel, d.channel_address), off) << "offset " << off;
    EXPECT_TRUE(seen.insert({d.channel, d.channel_address}).second)
        << "two offsets decode to channel " << d.channel << " address " << d.channel_address;
  }
  // Large offsets (many base-C digits in the xor fold).
  for (std::uint64_t off : {std::uint64_t{1} << 40, (std::uint64_t{1} << 47) + 12345,
                            (std::uint64_t{0xdeadbeef} << 12) + 255}) {
    const auto d = m.decode(off);
    EXPECT_EQ(m.encode(d.channel, d.channel_address), off) << "offset " << off;
  }
}

TEST(AddressMap, EncodeInvertsDecode) {
  check_round_trip(AddressMap(kChannels, kGranule, AddressMap::Select::kModulo));
  check_round_trip(AddressMap(kChannels, kGranule, AddressMap::Select::kXor));
  check_round_trip(AddressMap(16, 4096, AddressMap::Select::kXor));
  check_round_trip(AddressMap(6, 128, AddressMap::Select::kModulo));
  check_round_trip(AddressMap(1, 256, AddressMap::Select::kModulo));
}

// One channel is a power of two, so the constructor (and the platform reader) accept xor with it;
// every offset must then be on channel 0 at its own address. Runs in a child process with an
// alarm so that a hang in decode() fails this test at once instead of stalling the suite until the
// ctest timeout: a hang guard, not a timing assertion.
TEST(AddressMapDeathTest, XorWithOneChannelIsTheIdentity) {
  EXPECT_EXIT(
      {
        alarm(10);
        const AddressMap m(1, 256, AddressMap::Select::kXor);
        for (std::uint64_t off = 0; off < 64 * 256; off += 37) {
          const auto d = m.decode(off);
          if (d.channel != 0 || d.channel_address != off || m.encode(0, off) != off) std::_Exit(1);
        }
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

void check_dense(const AddressMap& m, unsigned granules) {
  // Walking the memory granule by granule, each channel must see channel addresses 0, G, 2G, ...
  // in order: the channel's address space has no holes.
  std::vector<std::uint64_t> next(m.channels(), 0);
  for (std::uint64_t g = 0; g < granules; ++g) {
    const auto d = m.decode(g * m.granule_bytes());
    ASSERT_LT(d.channel, m.channels());
    EXPECT_EQ(d.channel_address, next[d.channel]) << "granule " << g << " channel " << d.channel;
    next[d.channel] = d.channel_address + m.granule_bytes();
  }
  // A whole number of rows of C granules fills every channel to the same height.
  if (granules % m.channels() == 0) {
    for (unsigned c = 0; c < m.channels(); ++c) {
      EXPECT_EQ(next[c], granules / m.channels() * m.granule_bytes()) << "channel " << c;
    }
  }
}

TEST(AddressMap, ChannelAddressesAreDense) {
  check_dense(AddressMap(kChannels, kGranule, AddressMap::Select::kModulo), 4096);
  check_dense(AddressMap(kChannels, kGranule, AddressMap::Select::kXor), 4096);
  check_dense(AddressMap(8, 512, AddressMap::Select::kXor), 8 * 600);
  check_dense(AddressMap(6, 256, AddressMap::Select::kModulo), 6 * 100);
}

TEST(AddressMap, ConstructorRejectsBadArguments) {
  EXPECT_THROW(AddressMap(4, 0, AddressMap::Select::kModulo), std::invalid_argument);
  EXPECT_THROW(AddressMap(4, 384, AddressMap::Select::kModulo), std::invalid_argument);
  EXPECT_THROW(AddressMap(4, 384, AddressMap::Select::kXor), std::invalid_argument);
  EXPECT_THROW(AddressMap(0, 256, AddressMap::Select::kModulo), std::invalid_argument);
  EXPECT_THROW(AddressMap(6, 256, AddressMap::Select::kXor), std::invalid_argument);
  EXPECT_NO_THROW(AddressMap(6, 256, AddressMap::Select::kModulo));
  EXPECT_NO_THROW(AddressMap(8, 1, AddressMap::Select::kXor));
}

TEST(AddressMapBits, HandWorkedOffsets) {
  // Channel bits [8, 13]: channel bit 0 = offset bit 8, channel bit 1 = offset bit 13.
  const AddressMap m(std::vector<unsigned>{8, 13});
  EXPECT_EQ(m.channels(), 4u);
  EXPECT_EQ(m.granule_bytes(), 256u);  // 2^8: the bytes below the lowest channel bit
  // 0x2100 + 0x2a: bits 8 and 13 set -> channel 0b11 = 3; removing them leaves 0x2a.
  const auto d = m.decode(0x2100 + 0x2a);
  EXPECT_EQ(d.channel, 3u);
  EXPECT_EQ(d.channel_address, 0x2au);
  // 0x4300 = bits 14, 9, 8: channel 1 (bit 8); bit 9 drops to 8 and bit 14 to 12 -> 0x1100.
  const auto e = m.decode(0x4300);
  EXPECT_EQ(e.channel, 1u);
  EXPECT_EQ(e.channel_address, 0x1100u);
  EXPECT_EQ(m.encode(1, 0x1100), 0x4300u);
  // The order of the list sets which channel bit an address bit is: [13, 8] swaps them.
  const AddressMap swapped(std::vector<unsigned>{13, 8});
  EXPECT_EQ(swapped.decode(0x0100).channel, 2u);
  EXPECT_EQ(swapped.decode(0x2000).channel, 1u);
}

TEST(AddressMapBits, StrideOfChannelsTimesGranuleOnTheLowBitsHitsOneChannel) {
  // Bits [8, 9] are modulo over 4 channels of 256 B: a 1 KiB stride keeps both at 0.
  const AddressMap low(std::vector<unsigned>{8, 9});
  const auto counts = count_strided(low, kRowStride, 1024);
  EXPECT_EQ(counts[0], 1024u);
  // Bits [10, 11] (a channel per 1 KiB) spread the same stride: k*1024 has channel k mod 4.
  const AddressMap high(std::vector<unsigned>{10, 11});
  const auto spread = count_strided(high, kRowStride, 1024);
  for (unsigned c = 0; c < kChannels; ++c) EXPECT_EQ(spread[c], 256u) << "channel " << c;
}

TEST(AddressMapBits, BijectionAndDenseChannels) {
  check_round_trip(AddressMap(std::vector<unsigned>{8, 9}));
  check_round_trip(AddressMap(std::vector<unsigned>{12, 7, 20}));
  // Contiguous low bits behave as modulo: dense like it.
  check_dense(AddressMap(std::vector<unsigned>{8, 9, 10}), 8 * 200);
  // Equal to the modulo map where they coincide.
  const AddressMap bits(std::vector<unsigned>{8, 9});
  const AddressMap mod(kChannels, kGranule, AddressMap::Select::kModulo);
  for (std::uint64_t off = 0; off < 64 * kGranule; off += 53) {
    EXPECT_EQ(bits.decode(off).channel, mod.decode(off).channel) << off;
    EXPECT_EQ(bits.decode(off).channel_address, mod.decode(off).channel_address) << off;
  }
}

TEST(AddressMapBits, RejectsBadLists) {
  EXPECT_THROW(AddressMap(std::vector<unsigned>{}), std::invalid_argument);
  EXPECT_THROW(AddressMap(std::vector<unsigned>{8, 8}), std::invalid_argument);
  EXPECT_THROW(AddressMap(std::vector<unsigned>{63}), std::invalid_argument);
  EXPECT_THROW(AddressMap(std::vector<unsigned>(17, 1)), std::invalid_argument);
}

TEST(AddressMap, ParseSelect) {
  EXPECT_EQ(AddressMap::parse_select("modulo"), AddressMap::Select::kModulo);
  EXPECT_EQ(AddressMap::parse_select("xor"), AddressMap::Select::kXor);
  EXPECT_EQ(AddressMap::parse_select("bits"), AddressMap::Select::kBits);
  EXPECT_THROW(AddressMap::parse_select("XOR"), std::invalid_argument);
  EXPECT_THROW(AddressMap::parse_select(""), std::invalid_argument);
}

}  // namespace
}  // namespace famsim

namespace famsim {
namespace {

// famsim validate and the bottleneck analysis's arithmetic for a coarse interleave, by hand. One
// GPU keeping 1024 x 128 B = 131072 B in flight:
//  - 1 MiB granules x 8 channels = 8388608 B a round, more than 131072: coarse; the walk sits in
//    ceil(131072 / 1048576) = 1 granule, 1 channel; 131072 / 8 = 16384 B spreads it over all 8.
//  - 32 KiB x 8 = 262144 B, coarse; 131072 / 32768 = 4 channels busy.
//  - 16 KiB x 8 = 131072 B, not more than in flight: not coarse.
//  - 6 channels: 131072 / 6 = 21845.3, and the largest power of two (a granule is one) at most
//    that is 16384.
TEST(InterleaveSpread, CoarseGranuleAgainstTheBytesInFlightByHand) {
  const InterleaveSpread a = interleave_spread(1048576, 8, 131072);
  EXPECT_TRUE(a.coarse);
  EXPECT_EQ(a.round_bytes, 8388608u);
  EXPECT_EQ(a.busy_channels, 1u);
  EXPECT_EQ(a.spreading_granule_bytes, 16384u);
  const InterleaveSpread b = interleave_spread(32768, 8, 131072);
  EXPECT_TRUE(b.coarse);
  EXPECT_EQ(b.busy_channels, 4u);
  EXPECT_FALSE(interleave_spread(16384, 8, 131072).coarse);
  EXPECT_EQ(interleave_spread(1048576, 6, 131072).spreading_granule_bytes, 16384u);
  EXPECT_FALSE(interleave_spread(1048576, 1, 131072).coarse);  // one channel: nothing to share
  EXPECT_FALSE(interleave_spread(1048576, 8, 0).coarse);       // bytes in flight unknown
}

}  // namespace
}  // namespace famsim
