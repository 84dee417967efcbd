// Routing policies: which downstream port a request leaves a crossbar or switch on. Plain C++ with
// no SystemC in it, so each is tested without a simulation. Responses need no policy: they retrace
// the request's path through the hop records.
#pragma once

#include "models/core/request.h"
#include "models/memory/address_map.h"

#include <cstdint>
#include <string>
#include <vector>

namespace famsim {

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
    std::string target;  // for error messages
    AddressMap spread;   // set by add()
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

}  // namespace famsim
