// DRAM address mapping: a memory's byte address space onto (channel, rank, bank group, bank, row,
// column). No SystemC in it; one decode() per request on the hot path.
//
// The mapping is mixed-radix. An order string names the fields from the most to the least
// significant digit, each of Ro, Ra, Bg, Ba, Co, Ch exactly once (e.g. "RoBaRaCoCh", "RoRaBaChCo",
// "RoRaCoBaBgCh" for bank-group interleaving). Below all fields sits the byte offset within one
// burst (Organization::burst_bytes()). The radix of each field:
//   Ch  channels (any count >= 1)           Ra  ranks        Bg  bank_groups
//   Ba  banks_per_group                     Ro  rows         Co  columns / burst_length
// So for order F5 F4 F3 F2 F1 F0 with radices r5..r0 and burst bytes B:
//   address = ((((f5 * r4 + f4) * r3 + f3) * r2 + f2) * r1 + f1) * r0 + f0) * B + offset.
// decode() takes digits from the least significant one upwards (mask and shift for a power-of-two
// radix, a multiply by a precomputed reciprocal otherwise); encode() is its exact inverse.
//
// xor_bank: the bank and bank-group indices are XORed with the low bits of the row (permutation-
// based interleaving, Zhang, Zhu and Zhang, MICRO 2000), so that rows which conflict in one bank
// under the plain mapping spread over banks:
//   bank       = bank digit       ^ (row mod banks_per_group)
//   bank_group = bank-group digit ^ ((row / banks_per_group) mod bank_groups)
// It needs power-of-two bank and bank-group counts; the row is unchanged, so it stays a bijection.
//
// Channel split: channel_granule_bytes() is the bytes of all fields below Ch (the interleave
// granule), channel_of() the channel digit, and channel_local() the address with the channel digit
// removed, which a mapping of the same order with one channel (channel_local_mapping()) decodes to
// the same rank, bank group, bank, row and column. The device layer splits by channel; each
// controller decodes the rest.
#pragma once

#include "models/core/clock.h"
#include "models/memory/dram/dram_spec.h"

#include <array>
#include <cstdint>
#include <string>

namespace famsim::dram {

struct DramAddress {
  unsigned channel = 0;
  unsigned rank = 0;
  unsigned bank_group = 0;
  unsigned bank = 0;  // within its bank group
  std::uint32_t row = 0;
  std::uint32_t column = 0;  // in columns: the first column of the burst, a multiple of
                             // burst_length

  bool operator==(const DramAddress& o) const {
    return channel == o.channel && rank == o.rank && bank_group == o.bank_group && bank == o.bank &&
           row == o.row && column == o.column;
  }
  bool operator!=(const DramAddress& o) const { return !(*this == o); }
};

class AddressMapping {
 public:
  enum class Field : std::uint8_t { kRow, kRank, kBankGroup, kBank, kColumn, kChannel };

  // Throws std::invalid_argument for a bad order string, no channels, columns not a multiple of
  // burst_length, xor_bank with non-power-of-two bank or bank-group counts, or a capacity beyond
  // 64 bits.
  AddressMapping(const Organization& org, unsigned channels, const std::string& order,
                 bool xor_bank = false);

  // address < capacity_bytes() (std::out_of_range otherwise). Inline: the caller keeps the result
  // in registers (returned through memory, its fields were re-read with a store-forwarding stall).
  DramAddress decode(std::uint64_t address) const {
    if (!all_pow2_ || address >= capacity_) return decode_digits(address);
    auto field = [&](Field f) { return bit_ranges_[static_cast<std::size_t>(f)].of(address); };
    DramAddress a;
    a.channel = static_cast<unsigned>(field(Field::kChannel));
    a.rank = static_cast<unsigned>(field(Field::kRank));
    a.bank_group = static_cast<unsigned>(field(Field::kBankGroup));
    a.bank = static_cast<unsigned>(field(Field::kBank));
    a.row = static_cast<std::uint32_t>(field(Field::kRow));
    a.column = static_cast<std::uint32_t>(field(Field::kColumn) * org_.burst_length);
    apply_xor_bank(a);
    return a;
  }
  // The address of the first byte of the burst; std::out_of_range for a field beyond its count or
  // a column that is not a multiple of burst_length.
  std::uint64_t encode(const DramAddress& a) const;

  unsigned channel_of(std::uint64_t address) const;
  std::uint64_t channel_granule_bytes() const { return granule_; }
  std::uint64_t channel_local(std::uint64_t address) const;
  // Inverse of (channel_of, channel_local).
  std::uint64_t from_channel_local(unsigned channel, std::uint64_t local) const;
  // The same order over one channel: decodes channel_local() addresses.
  AddressMapping channel_local_mapping() const;

  unsigned channels() const { return channels_; }
  std::uint64_t burst_bytes() const { return burst_bytes_; }
  std::uint64_t capacity_bytes() const { return capacity_; }
  const std::string& order() const { return order_; }
  bool xor_bank() const { return xor_bank_; }

 private:
  struct Digit {
    Field field = Field::kRow;
    std::uint64_t radix = 1;
    bool pow2 = true;
    unsigned shift = 0;      // log2(radix) when pow2
    std::uint64_t mask = 0;  // radix - 1 when pow2
    FixedDivisor div;        // otherwise
  };

  // Quotient and remainder of x by a fixed radix.
  static std::uint64_t split(std::uint64_t& x, const Digit& d) {
    if (d.pow2) {
      const std::uint64_t r = x & d.mask;
      x >>= d.shift;
      return r;
    }
    const std::uint64_t q = d.div.quotient(x);
    const std::uint64_t r = x - q * d.radix;
    x = q;
    return r;
  }

  // decode() in general: digit by digit (also reports an address beyond the capacity).
  DramAddress decode_digits(std::uint64_t address) const;
  void apply_xor_bank(DramAddress& a) const {
    if (xor_bank_) {
      a.bank ^= a.row & (org_.banks_per_group - 1);
      a.bank_group ^= (a.row >> bank_bits_) & (org_.bank_groups - 1);
    }
  }

  // Every radix a power of two (every shipped preset): each field is a bit range of the address,
  // and decode() extracts the six with a shift and a mask each, without the digit loop (whose
  // per-digit branches and indexed stores made decode 2-3% of the nvl8 bench).
  struct BitRange {
    unsigned shift = 0;
    std::uint64_t mask = 0;
    std::uint64_t of(std::uint64_t address) const { return (address >> shift) & mask; }
  };
  bool all_pow2_ = false;
  std::array<BitRange, 6> bit_ranges_{};  // indexed by Field

  Organization org_;
  unsigned channels_ = 1;
  std::string order_;
  bool xor_bank_ = false;
  std::array<Digit, 6> digits_{};  // least significant first
  Digit burst_;                    // radix burst_bytes
  Digit granule_digit_;            // radix granule_
  Digit channel_digit_;            // radix channels_
  std::uint64_t burst_bytes_ = 64;
  std::uint64_t granule_ = 64;
  std::uint64_t capacity_ = 0;
  unsigned bank_bits_ = 0;  // log2(banks_per_group), for xor_bank
};

}  // namespace famsim::dram
