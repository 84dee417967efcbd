#include "models/memory/address_map.h"

#include <stdexcept>

namespace famsim {

namespace {
bool is_pow2(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }
}  // namespace

AddressMap::AddressMap(unsigned channels, std::uint64_t granule_bytes, Select select)
    : channels_(channels), granule_(granule_bytes), select_(select) {
  if (channels_ == 0) throw std::invalid_argument("address map needs at least one channel");
  if (!is_pow2(granule_)) throw std::invalid_argument("interleave granule must be a power of two");
  if (select_ == Select::kXor && !is_pow2(channels_)) {
    throw std::invalid_argument("xor channel selection needs a power-of-two channel count");
  }
  granule_shift_ = static_cast<unsigned>(__builtin_ctzll(granule_));
  channel_div_ = FixedDivisor(channels_);
  if (is_pow2(channels_)) channel_bits_ = static_cast<unsigned>(__builtin_ctzll(channels_));
}

unsigned AddressMap::fold(std::uint64_t upper) const {
  if (channels_ == 1) return 0;
  if (channel_bits_ > 0 && (channel_bits_ & (channel_bits_ - 1)) == 0) {
    // Digits of a power-of-two width: xor them all in log steps (64 / width is a power of two).
    for (unsigned shift = 32; shift >= channel_bits_; shift /= 2) upper ^= upper >> shift;
    return static_cast<unsigned>(upper & (channels_ - 1));
  }
  unsigned x = 0;
  while (upper != 0) {
    const std::uint64_t q = channel_div_.quotient(upper);
    x ^= static_cast<unsigned>(upper - q * channels_);
    upper = q;
  }
  return x;
}

AddressMap::Decoded AddressMap::decode(std::uint64_t offset) const {
  const std::uint64_t g = offset >> granule_shift_;
  const std::uint64_t upper = channel_div_.quotient(g);
  const unsigned low = static_cast<unsigned>(g - upper * channels_);
  Decoded d;
  d.channel = select_ == Select::kModulo ? low : (low ^ fold(upper));
  d.channel_address = (upper << granule_shift_) | (offset & (granule_ - 1));
  return d;
}

std::uint64_t AddressMap::encode(unsigned channel, std::uint64_t channel_address) const {
  const std::uint64_t upper = channel_address / granule_;
  const unsigned low = select_ == Select::kModulo ? channel : (channel ^ fold(upper));
  return (upper * channels_ + low) * granule_ + channel_address % granule_;
}

AddressMap::Select AddressMap::parse_select(const std::string& s) {
  if (s == "modulo") return Select::kModulo;
  if (s == "xor") return Select::kXor;
  throw std::invalid_argument("channel selection must be modulo or xor, not " + s);
}

}  // namespace famsim
