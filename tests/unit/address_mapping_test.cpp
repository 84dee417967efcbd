// DRAM address mapping: hand-worked decodes for small organisations and several orders, a
// non-power-of-two channel count, the bank XOR option, the channel split, bijection on random
// addresses and the argument checks. Expected fields are worked out from the mixed-radix
// definition in address_mapping.h, not from the code.
#include "models/memory/dram/address_mapping.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <stdexcept>
#include <tuple>

namespace famsim::dram {
namespace {

// 2 ranks x 2 bank groups x 2 banks x 4 rows x 8 columns of one byte, BL2: 2 B bursts, the column
// field has 8 / 2 = 4 values. One channel holds 2 x 4 x 4 x 8 = 256 B.
Organization tiny() {
  Organization o;
  o.ranks = 2;
  o.bank_groups = 2;
  o.banks_per_group = 2;
  o.rows = 4;
  o.columns = 8;
  o.device_width_bits = 8;
  o.channel_width_bits = 8;
  o.burst_length = 2;
  return o;
}

DramAddress addr(unsigned ch, unsigned ra, unsigned bg, unsigned ba, std::uint32_t ro,
                 std::uint32_t co) {
  DramAddress a;
  a.channel = ch;
  a.rank = ra;
  a.bank_group = bg;
  a.bank = ba;
  a.row = ro;
  a.column = co;
  return a;
}

void expect_fields(const DramAddress& a, unsigned ch, unsigned ra, unsigned bg, unsigned ba,
                   std::uint32_t ro, std::uint32_t co) {
  EXPECT_EQ(a.channel, ch);
  EXPECT_EQ(a.rank, ra);
  EXPECT_EQ(a.bank_group, bg);
  EXPECT_EQ(a.bank, ba);
  EXPECT_EQ(a.row, ro);
  EXPECT_EQ(a.column, co);
}

TEST(AddressMapping, ChannelInLowestDigitWithThreeChannels) {
  // RoRaBgBaCoCh over 3 channels: LSB first burst(2) Ch(3) Co(4) Ba(2) Bg(2) Ra(2) Ro(4).
  const AddressMapping m(tiny(), 3, "RoRaBgBaCoCh");
  EXPECT_EQ(m.capacity_bytes(), 768u);  // 3 x 256
  EXPECT_EQ(m.channel_granule_bytes(), 2u);
  // 517: /2 = 258 r1; /3 = 86 r0 (ch 0); /4 = 21 r2 (col 2 x 2 = 4); /2 = 10 r1 (ba 1);
  //      /2 = 5 r0 (bg 0); /2 = 2 r1 (ra 1); row 2.
  expect_fields(m.decode(517), 0, 1, 0, 1, 2, 4);
  // 101: /2 = 50 r1; /3 = 16 r2 (ch 2); /4 = 4 r0; /2 = 2 r0; /2 = 1 r0; /2 = 0 r1 (ra 1); row 0.
  expect_fields(m.decode(101), 2, 1, 0, 0, 0, 0);
  EXPECT_EQ(m.channel_of(517), 0u);
  EXPECT_EQ(m.channel_of(101), 2u);
  // Consecutive bursts go round the three channels.
  EXPECT_EQ(m.decode(0).channel, 0u);
  EXPECT_EQ(m.decode(2).channel, 1u);
  EXPECT_EQ(m.decode(4).channel, 2u);
  EXPECT_EQ(m.decode(6).channel, 0u);
  EXPECT_EQ(m.decode(6).column, 2u);
  // The byte offset within a burst does not change the fields.
  EXPECT_EQ(m.decode(516), m.decode(517));
  EXPECT_EQ(m.encode(m.decode(517)), 516u);
}

TEST(AddressMapping, ChannelAboveColumns) {
  // RoRaBgBaChCo over 2 channels: LSB first burst(2) Co(4) Ch(2) Ba(2) Bg(2) Ra(2) Ro(4);
  // the channel granule is 2 x 4 = 8 B.
  const AddressMapping m(tiny(), 2, "RoRaBgBaChCo");
  EXPECT_EQ(m.channel_granule_bytes(), 8u);
  // 77: /2 = 38 r1; /4 = 9 r2 (col 4); /2 = 4 r1 (ch 1); /2 = 2 r0; /2 = 1 r0; /2 = 0 r1 (ra 1).
  expect_fields(m.decode(77), 1, 1, 0, 0, 0, 4);
  EXPECT_EQ(m.channel_of(77), 1u);
  // Channel-local: (77 / 16) x 8 + 77 mod 8 = 4 x 8 + 5 = 37.
  EXPECT_EQ(m.channel_local(77), 37u);
  EXPECT_EQ(m.from_channel_local(1, 37), 77u);
  const AddressMapping local = m.channel_local_mapping();
  EXPECT_EQ(local.channels(), 1u);
  expect_fields(local.decode(37), 0, 1, 0, 0, 0, 4);
}

TEST(AddressMapping, BankGroupInterleavingOrder) {
  // RoRaCoBaBgCh, one channel: LSB first burst(2) Ch(1) Bg(2) Ba(2) Co(4) Ra(2) Ro(4).
  const AddressMapping m(tiny(), 1, "RoRaCoBaBgCh");
  // Consecutive bursts alternate bank groups first, then banks, then move to the next column.
  const std::tuple<unsigned, unsigned, std::uint32_t> expected[] = {
      {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 2}, {1, 0, 2}};
  for (unsigned k = 0; k < 6; ++k) {
    const DramAddress a = m.decode(2 * k);
    EXPECT_EQ(a.bank_group, std::get<0>(expected[k])) << k;
    EXPECT_EQ(a.bank, std::get<1>(expected[k])) << k;
    EXPECT_EQ(a.column, std::get<2>(expected[k])) << k;
  }
  // Rank above the columns: 2 x 2 x 2 x 4 = 32 B per rank step.
  EXPECT_EQ(m.decode(32).rank, 1u);
  EXPECT_EQ(m.decode(64).row, 1u);
}

TEST(AddressMapping, XorBankSpreadsRowsOfOneBank) {
  // RoRaBgBaCoCh, one channel: a row is 2 x 2 x 2 x 4 x 2 B = 64 B up. Rows 0..3 at bank digit 0.
  const AddressMapping plain(tiny(), 1, "RoRaBgBaCoCh");
  const AddressMapping x(tiny(), 1, "RoRaBgBaCoCh", true);
  // bank ^= row mod 2, bank group ^= (row / 2) mod 2:
  //   row 0 -> (bg 0, ba 0), row 1 -> (0, 1), row 2 -> (1, 0), row 3 -> (1, 1).
  const unsigned bg[] = {0, 0, 1, 1}, ba[] = {0, 1, 0, 1};
  for (std::uint32_t row = 0; row < 4; ++row) {
    const DramAddress p = plain.decode(64 * row), q = x.decode(64 * row);
    EXPECT_EQ(p.bank_group, 0u);
    EXPECT_EQ(p.bank, 0u);
    EXPECT_EQ(q.row, row);
    EXPECT_EQ(q.bank_group, bg[row]) << row;
    EXPECT_EQ(q.bank, ba[row]) << row;
    EXPECT_EQ(x.encode(q), 64u * row);
  }
  // Row 3, bank digit 1 (a bank step is 2 x 1 x 4 = 8 B: address 192 + 8): bank 1 ^ 1 = 0,
  // bank group 0 ^ 1 = 1.
  expect_fields(x.decode(192 + 8), 0, 0, 1, 0, 3, 0);
}

TEST(AddressMapping, EveryBurstOfASmallSpaceIsDistinctAndEncodesBack) {
  for (const char* order : {"RoRaBgBaCoCh", "ChRoRaBgBaCo", "RoCoRaChBaBg", "CoChBaBgRaRo"}) {
    for (bool x : {false, true}) {
      SCOPED_TRACE(std::string(order) + (x ? " xor" : ""));
      const AddressMapping m(tiny(), 3, order, x);
      std::set<std::tuple<unsigned, unsigned, unsigned, unsigned, std::uint32_t, std::uint32_t>>
          seen;
      for (std::uint64_t a = 0; a < m.capacity_bytes(); a += m.burst_bytes()) {
        const DramAddress d = m.decode(a);
        EXPECT_TRUE(seen.insert({d.channel, d.rank, d.bank_group, d.bank, d.row, d.column}).second);
        EXPECT_EQ(m.encode(d), a);
      }
      EXPECT_EQ(seen.size(), 768u / 2);
    }
  }
}

Organization ddr5_x4_subchannel() {
  Organization o;  // as the ddr5_4800_x4 preset: 8 BG x 4 banks, 64 K rows, 2 K columns, BL16
  o.ranks = 2;
  o.bank_groups = 8;
  o.banks_per_group = 4;
  o.rows = 65536;
  o.columns = 2048;
  o.device_width_bits = 4;
  o.channel_width_bits = 32;
  o.burst_length = 16;
  return o;
}

TEST(AddressMapping, BijectionOnRandomAddresses) {
  std::mt19937_64 rng(7);
  for (unsigned channels : {1u, 6u, 12u}) {
    for (const char* order : {"RoRaBgBaCoCh", "RoRaBaChCoBg", "RoRaCoBaBgCh"}) {
      for (bool x : {false, true}) {
        SCOPED_TRACE(std::string(order) + " channels " + std::to_string(channels));
        const AddressMapping m(ddr5_x4_subchannel(), channels, order, x);
        EXPECT_EQ(m.capacity_bytes(), channels * (32ULL << 30));  // 2 ranks x 16 GiB
        std::uniform_int_distribution<std::uint64_t> pick(0, m.capacity_bytes() - 1);
        const AddressMapping local = m.channel_local_mapping();
        for (int i = 0; i < 2000; ++i) {
          const std::uint64_t a = pick(rng);
          const DramAddress d = m.decode(a);
          EXPECT_EQ(d.column % 16, 0u);
          EXPECT_EQ(m.encode(d), a - a % 64);
          // The channel-local address decodes to the same fields under the one-channel mapping.
          const std::uint64_t l = m.channel_local(a);
          EXPECT_EQ(m.channel_of(a), d.channel);
          EXPECT_EQ(m.from_channel_local(d.channel, l), a);
          DramAddress dl = local.decode(l);
          dl.channel = d.channel;
          EXPECT_EQ(dl, d);
        }
        // And fields -> address -> fields.
        std::uniform_int_distribution<unsigned> ch(0, channels - 1), r(0, 1), bg(0, 7), ba(0, 3),
            co(0, 127);
        std::uniform_int_distribution<std::uint32_t> ro(0, 65535);
        for (int i = 0; i < 2000; ++i) {
          const DramAddress d = addr(ch(rng), r(rng), bg(rng), ba(rng), ro(rng), 16 * co(rng));
          EXPECT_EQ(m.decode(m.encode(d)), d);
        }
      }
    }
  }
}

TEST(AddressMapping, RejectsBadArguments) {
  const Organization o = tiny();
  for (const char* order : {"RoRaBgBaCo", "RoRoBgBaCoCh", "RoRaBgBaCoXx", "", "RoRaBgBaCoChCh"}) {
    SCOPED_TRACE(order);
    try {
      AddressMapping(o, 1, order);
      ADD_FAILURE() << "expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("order '" + std::string(order) + "'"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_THROW(AddressMapping(o, 0, "RoRaBgBaCoCh"), std::invalid_argument);
  Organization three = o;
  three.bank_groups = 3;
  EXPECT_NO_THROW(AddressMapping(three, 1, "RoRaBgBaCoCh"));  // any radix without xor
  EXPECT_THROW(AddressMapping(three, 1, "RoRaBgBaCoCh", true), std::invalid_argument);
  Organization odd_columns = o;
  odd_columns.columns = 7;
  EXPECT_THROW(AddressMapping(odd_columns, 1, "RoRaBgBaCoCh"), std::invalid_argument);

  const AddressMapping m(o, 3, "RoRaBgBaCoCh");
  EXPECT_THROW(m.decode(768), std::out_of_range);
  EXPECT_THROW(m.encode(addr(3, 0, 0, 0, 0, 0)), std::out_of_range);  // channel 3 of 3
  EXPECT_THROW(m.encode(addr(0, 0, 0, 0, 0, 1)), std::out_of_range);  // column not burst-aligned
}

}  // namespace
}  // namespace famsim::dram
