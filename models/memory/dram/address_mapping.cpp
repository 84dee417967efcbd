#include "models/memory/dram/address_mapping.h"

#include "models/core/bits.h"

#include <fmt/format.h>

#include <stdexcept>

namespace famsim::dram {

namespace {

constexpr std::array<std::pair<const char*, AddressMapping::Field>, 6> kFieldNames = {{
    {"Ro", AddressMapping::Field::kRow},
    {"Ra", AddressMapping::Field::kRank},
    {"Bg", AddressMapping::Field::kBankGroup},
    {"Ba", AddressMapping::Field::kBank},
    {"Co", AddressMapping::Field::kColumn},
    {"Ch", AddressMapping::Field::kChannel},
}};

std::size_t index(AddressMapping::Field f) { return static_cast<std::size_t>(f); }

[[noreturn]] void bad_order(const std::string& order, const std::string& why) {
  throw std::invalid_argument(fmt::format(
      "address mapping order '{}': {}; expected each of Ro, Ra, Bg, Ba, Co, Ch exactly once, most "
      "significant first (e.g. RoRaBaChCo)",
      order, why));
}

}  // namespace

AddressMapping::AddressMapping(const Organization& org, unsigned channels, const std::string& order,
                               bool xor_bank)
    : org_(org), channels_(channels), order_(order), xor_bank_(xor_bank) {
  if (channels_ == 0) throw std::invalid_argument("address mapping needs at least one channel");
  if (org.burst_length == 0 || org.columns % org.burst_length != 0) {
    throw std::invalid_argument(
        fmt::format("address mapping: columns ({}) must be a multiple of burst_length ({})",
                    org.columns, org.burst_length));
  }
  if (xor_bank_ && (!is_pow2(org.bank_groups) || !is_pow2(org.banks_per_group))) {
    throw std::invalid_argument(fmt::format(
        "address mapping: xor_bank needs power-of-two bank_groups ({}) and banks_per_group ({})",
        org.bank_groups, org.banks_per_group));
  }

  // Parse MSB -> LSB.
  if (order.size() != 12) bad_order(order, fmt::format("{} characters, not 12", order.size()));
  std::array<bool, 6> seen{};
  std::array<Field, 6> msb_first{};
  for (std::size_t i = 0; i < 6; ++i) {
    const std::string tok = order.substr(2 * i, 2);
    bool found = false;
    for (const auto& [name, field] : kFieldNames) {
      if (tok == name) {
        if (seen[index(field)]) bad_order(order, "'" + tok + "' appears twice");
        seen[index(field)] = true;
        msb_first[i] = field;
        found = true;
      }
    }
    if (!found) bad_order(order, "'" + tok + "' is not a field");
  }

  auto make_digit = [](Field f, std::uint64_t radix) {
    Digit d;
    d.field = f;
    d.radix = radix;
    d.pow2 = is_pow2(radix);
    if (d.pow2) {
      d.shift = static_cast<unsigned>(__builtin_ctzll(radix));
      d.mask = radix - 1;
    } else {
      d.div = FixedDivisor(radix);
    }
    return d;
  };
  auto radix_of = [&](Field f) -> std::uint64_t {
    switch (f) {
      case Field::kRow:
        return org.rows;
      case Field::kRank:
        return org.ranks;
      case Field::kBankGroup:
        return org.bank_groups;
      case Field::kBank:
        return org.banks_per_group;
      case Field::kColumn:
        return org.columns / org.burst_length;
      case Field::kChannel:
        return channels_;
    }
    return 1;
  };

  burst_bytes_ = org.burst_bytes();
  burst_ = make_digit(Field::kColumn, burst_bytes_);
  unsigned __int128 total = burst_bytes_;
  granule_ = burst_bytes_;
  bool below_channel = true;
  for (std::size_t i = 0; i < 6; ++i) {
    const Field f = msb_first[5 - i];
    const std::uint64_t r = radix_of(f);
    if (r == 0) throw std::invalid_argument("address mapping: a field has a zero count");
    digits_[i] = make_digit(f, r);
    if (f == Field::kChannel) below_channel = false;
    if (below_channel) granule_ *= r;
    total *= r;
    if (total > ~std::uint64_t{0}) {
      throw std::invalid_argument("address mapping: capacity exceeds 64 bits");
    }
  }
  capacity_ = static_cast<std::uint64_t>(total);
  all_pow2_ = burst_.pow2;
  unsigned shift = burst_.shift;
  for (const Digit& d : digits_) {
    all_pow2_ = all_pow2_ && d.pow2;
    bit_ranges_[index(d.field)] = {shift, d.mask};
    shift += d.shift;
  }
  granule_digit_ = make_digit(Field::kColumn, granule_);
  channel_digit_ = make_digit(Field::kChannel, channels_);
  bank_bits_ = static_cast<unsigned>(__builtin_ctz(org.banks_per_group));
}

DramAddress AddressMapping::decode_digits(std::uint64_t address) const {
  if (address >= capacity_) {
    throw std::out_of_range(
        fmt::format("address {:#x} beyond the mapping's {} bytes", address, capacity_));
  }
  std::uint64_t x = address;
  split(x, burst_);
  std::uint64_t v[6];
  for (const Digit& d : digits_) v[index(d.field)] = split(x, d);
  DramAddress a;
  a.channel = static_cast<unsigned>(v[index(Field::kChannel)]);
  a.rank = static_cast<unsigned>(v[index(Field::kRank)]);
  a.bank_group = static_cast<unsigned>(v[index(Field::kBankGroup)]);
  a.bank = static_cast<unsigned>(v[index(Field::kBank)]);
  a.row = static_cast<std::uint32_t>(v[index(Field::kRow)]);
  a.column = static_cast<std::uint32_t>(v[index(Field::kColumn)] * org_.burst_length);
  apply_xor_bank(a);
  return a;
}

std::uint64_t AddressMapping::encode(const DramAddress& a) const {
  if (a.channel >= channels_ || a.rank >= org_.ranks || a.bank_group >= org_.bank_groups ||
      a.bank >= org_.banks_per_group || a.row >= org_.rows || a.column >= org_.columns ||
      a.column % org_.burst_length != 0) {
    throw std::out_of_range(fmt::format(
        "DRAM address (channel {}, rank {}, bank group {}, bank {}, row {}, column {}) outside the "
        "organisation or not burst-aligned",
        a.channel, a.rank, a.bank_group, a.bank, a.row, a.column));
  }
  std::uint64_t v[6];
  v[index(Field::kChannel)] = a.channel;
  v[index(Field::kRank)] = a.rank;
  v[index(Field::kBankGroup)] = a.bank_group;
  v[index(Field::kBank)] = a.bank;
  v[index(Field::kRow)] = a.row;
  v[index(Field::kColumn)] = a.column / org_.burst_length;
  if (xor_bank_) {  // XOR is its own inverse and the row is unchanged
    v[index(Field::kBank)] ^= a.row & (org_.banks_per_group - 1);
    v[index(Field::kBankGroup)] ^= (a.row >> bank_bits_) & (org_.bank_groups - 1);
  }
  std::uint64_t x = 0;
  for (std::size_t i = 6; i-- > 0;) x = x * digits_[i].radix + v[index(digits_[i].field)];
  return x * burst_bytes_;
}

unsigned AddressMapping::channel_of(std::uint64_t address) const {
  std::uint64_t x = address;
  split(x, granule_digit_);
  return static_cast<unsigned>(split(x, channel_digit_));
}

std::uint64_t AddressMapping::channel_local(std::uint64_t address) const {
  std::uint64_t x = address;
  const std::uint64_t low = split(x, granule_digit_);
  split(x, channel_digit_);
  return x * granule_ + low;
}

std::uint64_t AddressMapping::from_channel_local(unsigned channel, std::uint64_t local) const {
  std::uint64_t x = local;
  const std::uint64_t low = split(x, granule_digit_);
  return (x * channels_ + channel) * granule_ + low;
}

AddressMapping AddressMapping::channel_local_mapping() const {
  return AddressMapping(org_, 1, order_, xor_bank_);
}

}  // namespace famsim::dram
