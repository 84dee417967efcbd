#include "models/memory/address_map.h"

#include "models/core/bits.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace famsim {

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

AddressMap::AddressMap(const std::vector<unsigned>& channel_bits)
    : select_(Select::kBits), bits_(channel_bits), bits_sorted_(channel_bits) {
  if (bits_.empty() || bits_.size() > 16) {
    throw std::invalid_argument("channel_bits must list 1 to 16 address bit positions");
  }
  std::sort(bits_sorted_.begin(), bits_sorted_.end());
  for (std::size_t i = 0; i < bits_sorted_.size(); ++i) {
    if (bits_sorted_[i] > 62) {
      throw std::invalid_argument("channel bit position " + std::to_string(bits_sorted_[i]) +
                                  " is beyond 62");
    }
    if (i > 0 && bits_sorted_[i] == bits_sorted_[i - 1]) {
      throw std::invalid_argument("channel bit " + std::to_string(bits_sorted_[i]) +
                                  " is listed twice");
    }
  }
  channels_ = 1u << bits_.size();
  granule_shift_ = bits_sorted_.front();
  granule_ = std::uint64_t{1} << granule_shift_;
  channel_bits_ = static_cast<unsigned>(bits_.size());
  channel_div_ = FixedDivisor(channels_);
}

AddressMap::Decoded AddressMap::decode_bits(std::uint64_t offset) const {
  Decoded d;
  for (std::size_t i = 0; i < bits_.size(); ++i) {
    d.channel |= static_cast<unsigned>((offset >> bits_[i]) & 1) << i;
  }
  // Take the channel bits out from the highest down, so lower positions stay where they are.
  std::uint64_t a = offset;
  for (std::size_t i = bits_sorted_.size(); i-- > 0;) {
    const unsigned b = bits_sorted_[i];
    const std::uint64_t low = a & ((std::uint64_t{1} << b) - 1);
    a = ((a >> (b + 1)) << b) | low;
  }
  d.channel_address = a;
  return d;
}

std::uint64_t AddressMap::encode_bits(unsigned channel, std::uint64_t channel_address) const {
  // Put the channel bits back in from the lowest up: each opens a gap at its position.
  std::uint64_t a = channel_address;
  for (const unsigned b : bits_sorted_) {
    const std::uint64_t low = a & ((std::uint64_t{1} << b) - 1);
    a = ((a >> b) << (b + 1)) | low;
  }
  for (std::size_t i = 0; i < bits_.size(); ++i) {
    a |= std::uint64_t{(channel >> i) & 1u} << bits_[i];
  }
  return a;
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
  if (select_ == Select::kBits) return decode_bits(offset);
  const std::uint64_t g = offset >> granule_shift_;
  const std::uint64_t upper = channel_div_.quotient(g);
  const unsigned low = static_cast<unsigned>(g - upper * channels_);
  Decoded d;
  d.channel = select_ == Select::kModulo ? low : (low ^ fold(upper));
  d.channel_address = (upper << granule_shift_) | (offset & (granule_ - 1));
  return d;
}

std::uint64_t AddressMap::encode(unsigned channel, std::uint64_t channel_address) const {
  if (select_ == Select::kBits) return encode_bits(channel, channel_address);
  const std::uint64_t upper = channel_address / granule_;
  const unsigned low = select_ == Select::kModulo ? channel : (channel ^ fold(upper));
  return (upper * channels_ + low) * granule_ + channel_address % granule_;
}

AddressMap::Select AddressMap::parse_select(const std::string& s) {
  if (s == "modulo") return Select::kModulo;
  if (s == "xor") return Select::kXor;
  if (s == "bits") return Select::kBits;
  throw std::invalid_argument("channel selection must be modulo, xor or bits, not " + s);
}

InterleaveSpread interleave_spread(std::uint64_t granule_bytes, unsigned channels,
                                   std::uint64_t in_flight_bytes) {
  InterleaveSpread s;
  s.round_bytes = granule_bytes * channels;
  s.coarse =
      channels > 1 && in_flight_bytes > 0 && granule_bytes > 0 && s.round_bytes > in_flight_bytes;
  if (granule_bytes > 0) {
    const std::uint64_t busy =
        std::max<std::uint64_t>(1, (in_flight_bytes + granule_bytes - 1) / granule_bytes);
    s.busy_channels = static_cast<unsigned>(std::min<std::uint64_t>(busy, channels));
  }
  const std::uint64_t even = channels > 0 ? in_flight_bytes / channels : 0;
  s.spreading_granule_bytes = 1;
  while (s.spreading_granule_bytes * 2 <= even) s.spreading_granule_bytes *= 2;
  return s;
}

}  // namespace famsim
