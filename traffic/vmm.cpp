#include "traffic/vmm.h"

#include "models/core/bits.h"

#include <fmt/format.h>

#include <utility>

namespace famsim {

namespace {
// Virtual addresses start well above 0 so that a stray zero address is never valid.
constexpr std::uint64_t kVaBase = 1ULL << 40;
}  // namespace

AddressSpace::AddressSpace(unsigned gpus, std::uint64_t granularity)
    : gpus_(gpus), granularity_(granularity), next_va_(kVaBase), cache_(gpus) {
  if (!is_pow2(granularity_)) {
    throw VmmError("allocation granularity must be a power of two");
  }
}

unsigned AddressSpace::add_location(const std::string& name, std::uint64_t pa_base,
                                    std::uint64_t capacity) {
  for (const Location& l : locations_) {
    if (l.name == name) throw VmmError("location " + name + " added twice");
  }
  locations_.push_back({name, pa_base, capacity, 0});
  free_pages_.push_back({pa_base, {}});
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

void AddressSpace::free_reservation(std::uint64_t va) {
  auto r = reservations_.find(va);
  if (r == reservations_.end()) {
    throw VmmError(fmt::format("free_reservation: 0x{:x} is not the start of a reservation", va));
  }
  // A mapping never straddles reservations, so one inside this one starts at or after `va`.
  auto m = mappings_.lower_bound(va);
  if (m != mappings_.end() && m->first < va + r->second.size) {
    throw VmmError(fmt::format(
        "free_reservation: the reservation 0x{:x}+{} B still holds the mapping at 0x{:x}", va,
        r->second.size, m->first));
  }
  reservations_.erase(r);
}

unsigned AddressSpace::create(std::uint64_t size, unsigned loc) {
  return create_pages(size, {loc}, "create");
}

unsigned AddressSpace::create_striped(std::uint64_t size, const std::vector<unsigned>& locs) {
  return create_pages(size, locs, "create_striped");
}

unsigned AddressSpace::create_pages(std::uint64_t size, const std::vector<unsigned>& locs,
                                    const char* op) {
  if (size == 0) throw VmmError("cannot create an empty physical allocation");
  check_granular(size, "allocation size");
  if (locs.empty()) throw VmmError(fmt::format("{}: the list of locations is empty", op));
  for (std::size_t j = 0; j < locs.size(); ++j) {
    if (locs[j] >= locations_.size()) {
      throw VmmError(
          fmt::format("{}: no location {} (the platform has {})", op, locs[j], locations_.size()));
    }
    for (std::size_t k = 0; k < j; ++k) {
      if (locs[k] == locs[j]) {
        throw VmmError(
            fmt::format("{}: location {} is listed twice", op, locations_[locs[j]].name));
      }
    }
  }
  // Check every location before taking a page, so a refusal leaves all of them untouched.
  const std::uint64_t pages = size / granularity_;
  const std::size_t n = locs.size();
  for (std::size_t j = 0; j < n; ++j) {
    const Location& l = locations_[locs[j]];
    const std::uint64_t share = stripe_pages(pages, n, j) * granularity_;
    const std::uint64_t free = l.capacity / granularity_ * granularity_ - l.allocated;
    if (share > free) {
      throw VmmError(
          n == 1 ? fmt::format("location {} has {} B free; {} B requested", l.name, free, size)
                 : fmt::format("{}: location {} has {} B free; its share of the {} B "
                               "allocation is {} B",
                               op, l.name, free, size, share),
          VmmError::Reason::kNoRoom);
    }
  }
  Allocation a;
  a.size = size;
  a.stripe = locs;
  a.pages.reserve(pages);
  for (std::uint64_t i = 0; i < pages; ++i) {
    const unsigned loc = locs[i % n];
    FreePages& f = free_pages_[loc];
    if (f.returned.empty()) {
      a.pages.push_back(f.untouched);
      f.untouched += granularity_;
    } else {
      a.pages.push_back(*f.returned.begin());
      f.returned.erase(f.returned.begin());
    }
    locations_[loc].allocated += granularity_;
  }
  a.contiguous = true;
  for (std::uint64_t i = 1; i < pages; ++i) {
    if (a.pages[i] != a.pages[0] + i * granularity_) a.contiguous = false;
  }
  allocations_.push_back(std::move(a));
  return static_cast<unsigned>(allocations_.size() - 1);
}

void AddressSpace::release(unsigned allocation) {
  if (allocation >= allocations_.size()) {
    throw VmmError(
        fmt::format("release: no allocation {} ({} created)", allocation, allocations_.size()));
  }
  Allocation& a = allocations_[allocation];
  if (a.released) {
    throw VmmError(fmt::format("release: allocation {} was already released", allocation));
  }
  a.released = true;
  if (a.mappings == 0) return_pages(a);
  invalidate_caches();
}

void AddressSpace::return_pages(Allocation& a) {
  for (std::size_t i = 0; i < a.pages.size(); ++i) {
    const unsigned loc = a.stripe[i % a.stripe.size()];
    free_pages_[loc].returned.insert(a.pages[i]);
    locations_[loc].allocated -= granularity_;
  }
  a.pages = {};
  a.stripe = {};
}

const AddressSpace::Allocation& AddressSpace::live_allocation(unsigned allocation,
                                                              const char* op) const {
  if (allocation >= allocations_.size()) {
    throw VmmError(
        fmt::format("{}: no allocation {} ({} created)", op, allocation, allocations_.size()));
  }
  const Allocation& a = allocations_[allocation];
  if (a.released) throw VmmError(fmt::format("{}: allocation {} was released", op, allocation));
  return a;
}

std::uint64_t AddressSpace::allocation_pa(unsigned allocation) const {
  return live_allocation(allocation, "allocation_pa").pages.front();
}

std::uint64_t AddressSpace::allocation_size(unsigned allocation) const {
  return live_allocation(allocation, "allocation_size").size;
}

std::uint64_t AddressSpace::page_pa(unsigned allocation, std::uint64_t offset) const {
  const Allocation& a = live_allocation(allocation, "page_pa");
  if (offset >= a.size) {
    throw VmmError(fmt::format("page_pa: offset 0x{:x} is past the end of allocation {} ({} B)",
                               offset, allocation, a.size));
  }
  return a.pages[offset / granularity_] + offset % granularity_;
}

unsigned AddressSpace::allocation_location(unsigned allocation, std::uint64_t offset) const {
  const Allocation& a = live_allocation(allocation, "allocation_location");
  if (offset >= a.size) {
    throw VmmError(
        fmt::format("allocation_location: offset 0x{:x} is past the end of allocation {} ({} B)",
                    offset, allocation, a.size));
  }
  return a.stripe[(offset / granularity_) % a.stripe.size()];
}

void AddressSpace::map(std::uint64_t va, std::uint64_t size, unsigned allocation,
                       std::uint64_t offset) {
  if (size == 0) throw VmmError("cannot map an empty range");
  check_granular(va, "map address");
  check_granular(size, "map size");
  check_granular(offset, "map offset");
  const Allocation& a = live_allocation(allocation, "map");
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
  mappings_[va] = {size, allocation, offset, std::vector<AccessRight>(gpus_, AccessRight::kNone)};
  ++allocations_[allocation].mappings;
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
  Allocation& a = allocations_[m->second.allocation];
  mappings_.erase(m);
  if (--a.mappings == 0 && a.released) return_pages(a);
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
  const Mapping& mapping = m->second;
  const std::uint64_t in_mapping = va - m->first;
  if (in_mapping >= mapping.size) return Fault::kUnmapped;
  // A released allocation still mapped keeps its pages until the last unmap.
  const Allocation& a = allocations_[mapping.allocation];
  Cache& c = cache_[gpu];
  if (a.contiguous) {
    c = {m->first, mapping.size, a.pages.front() + mapping.offset, mapping.access[gpu]};
  } else {
    // Mapping address and offset are granule multiples, so the page starts on a granule in VA.
    const std::uint64_t in_allocation = mapping.offset + in_mapping;
    c = {va - in_allocation % granularity_, granularity_, a.pages[in_allocation / granularity_],
         mapping.access[gpu]};
  }
  return translate(gpu, va, write, pa);
}

}  // namespace famsim
