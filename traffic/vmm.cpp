#include "traffic/vmm.h"

#include <fmt/format.h>

namespace famsim {

namespace {
// Virtual addresses start well above 0 so that a stray zero address is never valid.
constexpr std::uint64_t kVaBase = 1ULL << 40;

std::uint64_t round_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }
}  // namespace

AddressSpace::AddressSpace(unsigned gpus, std::uint64_t granularity)
    : gpus_(gpus), granularity_(granularity), next_va_(kVaBase), cache_(gpus) {
  if (granularity_ == 0 || (granularity_ & (granularity_ - 1)) != 0) {
    throw VmmError("allocation granularity must be a power of two");
  }
}

unsigned AddressSpace::add_location(const std::string& name, std::uint64_t pa_base,
                                    std::uint64_t capacity) {
  for (const Location& l : locations_) {
    if (l.name == name) throw VmmError("location " + name + " added twice");
  }
  locations_.push_back({name, pa_base, capacity, 0});
  return static_cast<unsigned>(locations_.size() - 1);
}

unsigned AddressSpace::location(const std::string& name) const {
  for (unsigned i = 0; i < locations_.size(); ++i) {
    if (locations_[i].name == name) return i;
  }
  std::string known;
  for (const Location& l : locations_) known += (known.empty() ? "" : ", ") + l.name;
  throw VmmError("no memory location named '" + name + "' (the platform has: " + known + ")");
}

void AddressSpace::check_granular(std::uint64_t v, const char* what) const {
  if (v % granularity_ != 0) {
    throw VmmError(fmt::format("{} 0x{:x} is not a multiple of the allocation granularity ({} B)",
                               what, v, granularity_));
  }
}

std::uint64_t AddressSpace::reserve(std::uint64_t size, std::uint64_t alignment) {
  if (size == 0) throw VmmError("cannot reserve an empty virtual range");
  check_granular(size, "reservation size");
  const std::uint64_t align = std::max(alignment, granularity_);
  const std::uint64_t va = round_up(next_va_, align);
  next_va_ = va + size;
  reservations_[va] = {size};
  return va;
}

unsigned AddressSpace::create(std::uint64_t size, unsigned loc) {
  if (size == 0) throw VmmError("cannot create an empty physical allocation");
  check_granular(size, "allocation size");
  Location& l = locations_.at(loc);
  if (l.allocated + size > l.capacity) {
    throw VmmError(fmt::format("location {} has {} B free; {} B requested", l.name,
                               l.capacity - l.allocated, size));
  }
  allocations_.push_back({l.pa_base + l.allocated, size, loc});
  l.allocated += size;
  return static_cast<unsigned>(allocations_.size() - 1);
}

void AddressSpace::map(std::uint64_t va, std::uint64_t size, unsigned allocation,
                       std::uint64_t offset) {
  if (size == 0) throw VmmError("cannot map an empty range");
  check_granular(va, "map address");
  check_granular(size, "map size");
  check_granular(offset, "map offset");
  const Allocation& a = allocations_.at(allocation);
  if (offset + size > a.size) {
    throw VmmError(fmt::format("mapping 0x{:x}+{} B runs past the end of its allocation ({} B)", va,
                               size, a.size));
  }
  // The range must lie in one reservation.
  auto r = reservations_.upper_bound(va);
  if (r == reservations_.begin() || (--r, va + size > r->first + r->second.size)) {
    throw VmmError(fmt::format("mapping 0x{:x}+{} B is not inside a reserved range", va, size));
  }
  // No overlap with an existing mapping.
  auto next = mappings_.lower_bound(va);
  if (next != mappings_.end() && next->first < va + size) {
    throw VmmError(
        fmt::format("mapping 0x{:x}+{} B overlaps the mapping at 0x{:x}", va, size, next->first));
  }
  if (next != mappings_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second.size > va) {
      throw VmmError(
          fmt::format("mapping 0x{:x}+{} B overlaps the mapping at 0x{:x}", va, size, prev->first));
    }
  }
  mappings_[va] = {size, a.pa + offset, std::vector<AccessRight>(gpus_, AccessRight::kNone)};
  invalidate_caches();
}

void AddressSpace::set_access(std::uint64_t va, std::uint64_t size, unsigned gpu,
                              AccessRight access) {
  if (gpu >= gpus_) throw VmmError(fmt::format("no GPU {} (the platform has {})", gpu, gpus_));
  // Every byte of the range must be mapped; access is set on each mapping it covers.
  std::uint64_t cur = va;
  const std::uint64_t end = va + size;
  while (cur < end) {
    auto m = mappings_.upper_bound(cur);
    if (m == mappings_.begin() || (--m, cur >= m->first + m->second.size)) {
      throw VmmError(fmt::format("set_access on 0x{:x}+{} B: 0x{:x} is not mapped", va, size, cur));
    }
    m->second.access[gpu] = access;
    cur = m->first + m->second.size;
  }
  invalidate_caches();
}

void AddressSpace::unmap(std::uint64_t va, std::uint64_t size) {
  auto m = mappings_.find(va);
  if (m == mappings_.end() || m->second.size != size) {
    throw VmmError(fmt::format("unmap 0x{:x}+{} B does not match a mapping", va, size));
  }
  mappings_.erase(m);
  invalidate_caches();
}

void AddressSpace::invalidate_caches() const {
  for (Cache& c : cache_) c = Cache{};
}

AddressSpace::Fault AddressSpace::translate_slow(unsigned gpu, std::uint64_t va, bool write,
                                                 std::uint64_t& pa) const {
  auto m = mappings_.upper_bound(va);
  if (m == mappings_.begin()) return Fault::kUnmapped;
  --m;
  if (va - m->first >= m->second.size) return Fault::kUnmapped;
  Cache& c = cache_[gpu];
  c = {m->first, m->second.size, m->second.pa, m->second.access[gpu]};
  return translate(gpu, va, write, pa);
}

}  // namespace famsim
