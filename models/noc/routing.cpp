#include "models/noc/routing.h"

#include "models/core/bits.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace famsim {

HashSpread::HashSpread(unsigned ports, std::uint64_t granule_bytes, std::uint64_t salt)
    : ports_(ports), salt_(salt) {
  if (ports == 0 || !is_pow2(granule_bytes)) {
    throw std::invalid_argument("hash spreading needs ports and a power-of-two granule");
  }
  while ((std::uint64_t{1} << shift_) < granule_bytes) ++shift_;
}

void AddressRangeRouting::add(const Range& r) {
  if (r.size == 0 || r.ports == 0 || r.interleave_bytes == 0) {
    throw std::invalid_argument("route to " + r.target + " has an empty range or no ports");
  }
  for (const Range& o : ranges_) {
    if (r.base < o.base + o.size && o.base < r.base + r.size) {
      throw std::invalid_argument("address range of " + r.target + " overlaps " + o.target);
    }
  }
  Range stored = r;
  stored.spread = AddressMap(r.ports, r.interleave_bytes, r.select);
  if (r.hashed) stored.hash = HashSpread(r.ports, r.interleave_bytes, kSaltDevicePort);
  ranges_.push_back(stored);
  std::sort(ranges_.begin(), ranges_.end(),
            [](const Range& a, const Range& b) { return a.base < b.base; });
}

unsigned AddressRangeRouting::port_for(std::uint64_t pa) const {
  // Few ranges (one per target): a linear scan beats a binary search here.
  for (const Range& r : ranges_) {
    if (pa >= r.base && pa - r.base < r.size) {
      return r.first_port +
             (r.hashed ? r.hash.pick(pa - r.base) : r.spread.decode(pa - r.base).channel);
    }
  }
  throw std::out_of_range("no route for physical address " + std::to_string(pa));
}

unsigned AddressRangeRouting::route(const RequestExt& r) const {
  return port_for(r.physical_address);
}

DestinationRouting::DestinationRouting(AddressRangeRouting by_address, unsigned first_gpu_port,
                                       unsigned ports_per_gpu, std::uint64_t interleave_bytes,
                                       std::vector<std::uint64_t> gpu_memory_base, bool hashed)
    : by_address_(std::move(by_address)),
      first_gpu_port_(first_gpu_port),
      ports_per_gpu_(ports_per_gpu),
      hashed_(hashed),
      gpu_memory_base_(std::move(gpu_memory_base)) {
  if (ports_per_gpu == 0) throw std::invalid_argument("peer routing needs ports per GPU");
  spread_ =
      AddressMap(ports_per_gpu, interleave_bytes, AddressMap::spreading_select(ports_per_gpu));
  if (hashed) hash_ = HashSpread(ports_per_gpu, interleave_bytes, kSaltPeerPort);
}

unsigned DestinationRouting::port_for_gpu(unsigned gpu, std::uint64_t pa) const {
  if (gpu >= gpu_memory_base_.size()) {
    throw std::out_of_range("no route to GPU " + std::to_string(gpu));
  }
  const std::uint64_t offset = pa - gpu_memory_base_[gpu];
  return first_gpu_port_ + gpu * ports_per_gpu_ +
         (hashed_ ? hash_.pick(offset) : spread_.decode(offset).channel);
}

unsigned DestinationRouting::route(const RequestExt& r) const {
  if (r.dest_gpu == RequestExt::kNoGpu) return by_address_.route(r);
  return port_for_gpu(r.dest_gpu, r.physical_address);
}

unsigned LocalMemoryRouting::channel_for(std::uint64_t pa) const {
  if (pa < base_ || pa - base_ >= size_) {
    throw std::out_of_range("physical address " + std::to_string(pa) +
                            " is outside the local memory");
  }
  return map_.decode(pa - base_).channel;
}

LeafRouting::LeafRouting(std::unique_ptr<Routing> endpoint, std::vector<unsigned> local_port,
                         unsigned first_uplink, unsigned uplinks, std::uint64_t interleave_bytes)
    : endpoint_(std::move(endpoint)),
      local_port_(std::move(local_port)),
      first_uplink_(first_uplink) {
  const bool remote =
      std::find(local_port_.begin(), local_port_.end(), kRemote) != local_port_.end();
  if (remote && uplinks == 0) {
    throw std::invalid_argument("a leaf with endpoints elsewhere needs uplinks");
  }
  if (uplinks > 0) uplink_spread_ = HashSpread(uplinks, interleave_bytes, kSaltUplink);
}

unsigned LeafRouting::route(const RequestExt& r) const {
  const unsigned o = endpoint_->route(r);
  const unsigned local = o < local_port_.size() ? local_port_[o] : kRemote;
  if (local != kRemote) return local;
  return first_uplink_ + uplink_spread_.pick(r.physical_address);
}

SpineRouting::SpineRouting(std::unique_ptr<Routing> endpoint, std::vector<unsigned> leaf_of,
                           unsigned links_per_leaf, std::uint64_t interleave_bytes)
    : endpoint_(std::move(endpoint)),
      leaf_of_(std::move(leaf_of)),
      links_per_leaf_(links_per_leaf) {
  if (links_per_leaf == 0) throw std::invalid_argument("a spine needs links to every leaf");
  link_spread_ = HashSpread(links_per_leaf, interleave_bytes, kSaltSpineLink);
}

unsigned SpineRouting::route(const RequestExt& r) const {
  const unsigned o = endpoint_->route(r);
  if (o >= leaf_of_.size()) {
    throw std::out_of_range("spine: no leaf for out-endpoint " + std::to_string(o));
  }
  return leaf_of_[o] * links_per_leaf_ + link_spread_.pick(r.physical_address);
}

}  // namespace famsim
