#include "models/noc/routing.h"

#include <algorithm>
#include <stdexcept>

namespace famsim {

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
  ranges_.push_back(stored);
  std::sort(ranges_.begin(), ranges_.end(),
            [](const Range& a, const Range& b) { return a.base < b.base; });
}

unsigned AddressRangeRouting::port_for(std::uint64_t pa) const {
  // Few ranges (one per target): a linear scan beats a binary search here.
  for (const Range& r : ranges_) {
    if (pa >= r.base && pa - r.base < r.size) {
      return r.first_port + r.spread.decode(pa - r.base).channel;
    }
  }
  throw std::out_of_range("no route for physical address " + std::to_string(pa));
}

unsigned AddressRangeRouting::route(const RequestExt& r) const {
  return port_for(r.physical_address);
}

}  // namespace famsim
