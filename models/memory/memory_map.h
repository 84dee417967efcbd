// The whole address mapping of a DRAM memory (a device's or a GPU's): a byte offset into the
// memory's range -> (channel, rank, bank group, bank, row, column). It is the composition of the
// two pure maps the blocks use on the path, so that the full decode and the blocks can never
// disagree:
//   AddressMap            offset -> (channel, channel address): the interleave, applied by the
//                         device port logic (or the GPU for its local memory)
//   within_channel()      channel address -> (rank, bank group, bank, row, column): the one
//                         mapping every DRAM controller of the memory decodes with
// No SystemC in it. RTL teams and tests use decode() to say where a physical address lives.
#pragma once

#include "models/memory/address_map.h"
#include "models/memory/dram/address_mapping.h"

#include <cstdint>
#include <string>

namespace famsim {

class MemoryMap {
 public:
  // `order`: the within-channel field order (dram_controller.h mapping_order; a "Ch" digit in it
  // has radix 1 here). Throws std::invalid_argument as dram::AddressMapping does.
  MemoryMap(const AddressMap& channels, const dram::Organization& org, const std::string& order,
            bool xor_bank);

  // The mapping a DRAM controller applies to its channel addresses.
  static dram::AddressMapping within_channel(const dram::Organization& org,
                                             const std::string& order, bool xor_bank) {
    return dram::AddressMapping(org, 1, order, xor_bank);
  }

  // offset < channels x the within-channel capacity; the column is the burst's first column.
  dram::DramAddress decode(std::uint64_t offset) const;
  // The offset of the first byte of the burst at `a` (inverse of decode for burst-aligned
  // offsets).
  std::uint64_t encode(const dram::DramAddress& a) const;

  const AddressMap& channels() const { return channels_; }
  const dram::AddressMapping& within_channel() const { return local_; }

 private:
  AddressMap channels_;
  dram::AddressMapping local_;
};

}  // namespace famsim
