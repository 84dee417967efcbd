// Routing policies: which downstream port a request leaves a crossbar or switch on. Plain C++ with
// no SystemC in it, so each is tested without a simulation. Responses need no policy: they retrace
// the request's path through the hop records.
#pragma once

#include "models/core/hash.h"
#include "models/core/request.h"
#include "models/memory/address_map.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace famsim {

// Spreads addresses over n ports by a mixing hash of the address's `granule_bytes` block index:
// even for any stride, and independent of any other spreading decision taken on the same address
// with another salt. Switch planes and leaf/spine pods take several in a row (the GPU's link, so
// the plane; the device port inside the plane; the uplink; the spine's link down), and xor-folding
// the same address bits for each would tie them together: with 4 planes, 4 links per GPU and 2
// device ports per plane, the xor-folded port would follow from the plane and half the device
// ports would idle. The mix is SplitMix64's output function (models/core/hash.h); the pick is the
// high half of hash x n.
class HashSpread {
 public:
  HashSpread() = default;
  // Throws std::invalid_argument for no ports or a granule that is not a power of two.
  HashSpread(unsigned ports, std::uint64_t granule_bytes, std::uint64_t salt);
  unsigned pick(std::uint64_t address) const {
    const std::uint64_t x = splitmix64_mix((address >> shift_) ^ salt_);
    return static_cast<unsigned>((static_cast<unsigned __int128>(x) * ports_) >> 64);
  }
  unsigned ports() const { return ports_; }

 private:
  unsigned ports_ = 1;
  unsigned shift_ = 0;
  std::uint64_t salt_ = 0;
};

// Salts of the spreading decisions, one per decision along a path.
enum SpreadSalt : std::uint64_t {
  kSaltDevicePort = 0x1d5a7c3e,
  kSaltPeerPort = 0x2b6e9f41,
  kSaltUplink = 0x3c7fa052,
  kSaltSpineLink = 0x4d80b163,
};

class Routing {
 public:
  virtual ~Routing() = default;
  virtual unsigned route(const RequestExt& r) const = 0;
};

// Physical address ranges -> a group of ports. Inside a range, `interleave_bytes` blocks are spread
// over the ports of the group (a device reached through several fabric ports) with the same rule
// as memory channels (AddressMap): modulo, or xor-folded so power-of-two strides do not all land
// on one port.
class AddressRangeRouting : public Routing {
 public:
  struct Range {
    std::uint64_t base = 0;
    std::uint64_t size = 0;
    unsigned first_port = 0;
    unsigned ports = 1;
    std::uint64_t interleave_bytes = 128;
    AddressMap::Select select = AddressMap::Select::kModulo;
    // Spread by HashSpread instead of `select` (switch planes: see HashSpread).
    bool hashed = false;
    std::string target;  // for error messages
    AddressMap spread;   // set by add()
    HashSpread hash;     // set by add() when hashed
  };

  // Throws std::invalid_argument when ranges overlap or a range is empty.
  void add(const Range& r);
  unsigned route(const RequestExt& r) const override;
  // The port for an address; throws std::out_of_range when no range holds it.
  unsigned port_for(std::uint64_t physical_address) const;
  const std::vector<Range>& ranges() const { return ranges_; }

 private:
  std::vector<Range> ranges_;  // sorted by base
};

// Decoded memory channel -> port (a device's crossbar towards its memory controllers).
class ChannelRouting : public Routing {
 public:
  unsigned route(const RequestExt& r) const override { return r.channel; }
};

// The scale-up switch with peer traffic: a request that names a destination GPU
// (RequestExt::dest_gpu) leaves on that GPU's group of `ports_per_gpu` ports, starting at
// first_gpu_port + gpu x ports_per_gpu; inside the group the port is chosen from the address's
// offset in that GPU's memory, in `interleave_bytes` blocks, by the same rule as a device's port
// group (AddressMap with AddressMap::spreading_select). Every other request is routed by physical
// address range (`by_address`, the devices).
class DestinationRouting : public Routing {
 public:
  // `gpu_memory_base[g]`: where GPU g's local memory starts in the physical address space.
  // Throws std::invalid_argument for no ports per GPU or a granule that is not a power of two.
  // `hashed`: spread inside the group by HashSpread (switch planes) instead.
  DestinationRouting(AddressRangeRouting by_address, unsigned first_gpu_port,
                     unsigned ports_per_gpu, std::uint64_t interleave_bytes,
                     std::vector<std::uint64_t> gpu_memory_base, bool hashed = false);
  unsigned route(const RequestExt& r) const override;
  // The port of a peer request to `gpu` for `physical_address` (in that GPU's memory); throws
  // std::out_of_range for a GPU the routing does not know.
  unsigned port_for_gpu(unsigned gpu, std::uint64_t physical_address) const;
  unsigned gpus() const { return static_cast<unsigned>(gpu_memory_base_.size()); }

 private:
  AddressRangeRouting by_address_;
  unsigned first_gpu_port_;
  unsigned ports_per_gpu_;
  AddressMap spread_;
  bool hashed_;
  HashSpread hash_;
  std::vector<std::uint64_t> gpu_memory_base_;
};

// A GPU's memory hub (the crossbar in front of its HBM channels): the channel is decoded from the
// physical address, offset from the memory's base, through the memory's interleave (AddressMap),
// for the GPU's own requests and its peers' alike.
class LocalMemoryRouting : public Routing {
 public:
  LocalMemoryRouting(std::uint64_t base, std::uint64_t size, const AddressMap& map)
      : base_(base), size_(size), map_(map) {}
  unsigned route(const RequestExt& r) const override { return channel_for(r.physical_address); }
  // Throws std::out_of_range for an address outside the memory.
  unsigned channel_for(std::uint64_t physical_address) const;

 private:
  std::uint64_t base_;
  std::uint64_t size_;
  AddressMap map_;
};

// A leaf switch of a leaf/spine plane (platforms/fabric_plan.h). `endpoint` names the request's
// out-endpoint in the plane (the down port a single switch would use: AddressRangeRouting or
// DestinationRouting); `local_port[o]` is out-endpoint o's down port on this leaf, or kRemote when
// it hangs off another leaf, in which case the request goes up: uplink `first_uplink + x`, x chosen
// from the address in `interleave_bytes` blocks by HashSpread, so a GPU's requests spread over the
// spines.
class LeafRouting : public Routing {
 public:
  static constexpr unsigned kRemote = ~0U;
  // Throws std::invalid_argument when a remote out-endpoint exists but there are no uplinks.
  LeafRouting(std::unique_ptr<Routing> endpoint, std::vector<unsigned> local_port,
              unsigned first_uplink, unsigned uplinks, std::uint64_t interleave_bytes);
  unsigned route(const RequestExt& r) const override;

 private:
  std::unique_ptr<Routing> endpoint_;
  std::vector<unsigned> local_port_;
  unsigned first_uplink_;
  HashSpread uplink_spread_;
};

// A spine switch of a leaf/spine plane: out-endpoint o hangs off leaf `leaf_of[o]`; the request
// leaves on one of the `links_per_leaf` links to that leaf (down ports leaf x links_per_leaf + t),
// t chosen from the address as LeafRouting chooses an uplink.
class SpineRouting : public Routing {
 public:
  SpineRouting(std::unique_ptr<Routing> endpoint, std::vector<unsigned> leaf_of,
               unsigned links_per_leaf, std::uint64_t interleave_bytes);
  unsigned route(const RequestExt& r) const override;

 private:
  std::unique_ptr<Routing> endpoint_;
  std::vector<unsigned> leaf_of_;
  unsigned links_per_leaf_;
  HashSpread link_spread_;
};

}  // namespace famsim
