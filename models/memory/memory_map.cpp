#include "models/memory/memory_map.h"

namespace famsim {

MemoryMap::MemoryMap(const AddressMap& channels, const dram::Organization& org,
                     const std::string& order, bool xor_bank)
    : channels_(channels), local_(within_channel(org, order, xor_bank)) {}

dram::DramAddress MemoryMap::decode(std::uint64_t offset) const {
  const AddressMap::Decoded c = channels_.decode(offset);
  dram::DramAddress a = local_.decode(c.channel_address);
  a.channel = c.channel;
  return a;
}

std::uint64_t MemoryMap::encode(const dram::DramAddress& a) const {
  dram::DramAddress local = a;
  local.channel = 0;
  return channels_.encode(a.channel, local_.encode(local));
}

}  // namespace famsim
