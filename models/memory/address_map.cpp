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
}

unsigned AddressMap::fold(std::uint64_t upper) const {
  if (channels_ == 1) return 0;
  unsigned x = 0;
  while (upper != 0) {
    x ^= static_cast<unsigned>(upper % channels_);
    upper /= channels_;
  }
  return x;
}

AddressMap::Decoded AddressMap::decode(std::uint64_t offset) const {
  const std::uint64_t g = offset / granule_;
  const std::uint64_t upper = g / channels_;
  const unsigned low = static_cast<unsigned>(g % channels_);
  Decoded d;
  d.channel = select_ == Select::kModulo ? low : (low ^ fold(upper));
  d.channel_address = upper * granule_ + offset % granule_;
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
