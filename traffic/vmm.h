// A CUDA-VMM-like address space (the traffic issue still adds timed remapping and fault
// counting). It mirrors the driver API's explicit model: nothing is reachable until a physical
// allocation is created on a location, mapped into a reserved virtual range, and access is granted
// per GPU. There is no demand paging.
//
//   reserve(size, alignment)           cuMemAddressReserve
//   free_reservation(va)               cuMemAddressFree
//   create(size, location)             cuMemCreate (physical memory on a GPU's HBM or a device)
//   create_striped(size, locations)    one handle whose granules alternate over several locations
//   release(allocation)                cuMemRelease
//   map(va, size, allocation, offset)  cuMemMap (va, size, offset: multiples of the granularity)
//   set_access(va, size, gpu, access)  cuMemSetAccess (mapping alone gives no access)
//   unmap(va, size)                    cuMemUnmap
//
// Physical memory is handed out in pages of one allocation granularity. The granularity defaults
// to 2 MiB (the typical cuMemGetAllocationGranularity answer, CUDA driver API documentation). Each
// location gives out its free page with the lowest physical address first, so allocations on a
// fresh location are contiguous and follow each other in creation order.
//
// Striping: the driver API has no call for it; an application creates one allocation per device
// and maps them side by side into one virtual range (the CUDA sample vectorAddMMAP,
// simpleMallocMultiDeviceMmap, gives each device one equal stripe). create_striped builds the
// finest such layout, stripes of one granule in round robin, as one handle.
//
// Release: "The memory allocation will be freed when all outstanding mappings to the memory are
// unmapped and when all outstanding references to the handle ... are also released" (cuMemRelease,
// CUDA driver API documentation; the sample above releases its handles right after mapping them).
// The handle is unusable at once; its pages stay in use, and keep translating, until the last
// mapping of them is unmapped.
//
// Rule violations throw VmmError.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace famsim {

class VmmError : public std::runtime_error {
 public:
  // kNoRoom: a location had too little free memory for an allocation (the one refusal a size
  // key can cure); kRule: any other misuse.
  enum class Reason { kRule, kNoRoom };
  explicit VmmError(const std::string& what, Reason reason = Reason::kRule)
      : std::runtime_error(what), reason_(reason) {}
  Reason reason() const { return reason_; }

 private:
  Reason reason_;
};

enum class AccessRight : std::uint8_t { kNone = 0, kRead = 1, kReadWrite = 3 };

class AddressSpace {
 public:
  static constexpr std::uint64_t kDefaultGranularity = 2ULL << 20;

  struct Location {
    std::string name;
    std::uint64_t pa_base = 0;
    std::uint64_t capacity = 0;
    // Bytes in pages currently handed out, including the pages of a released allocation that is
    // still mapped.
    std::uint64_t allocated = 0;
  };
  enum class Fault { kNone, kUnmapped, kNoPermission };

  AddressSpace(unsigned gpus, std::uint64_t granularity = kDefaultGranularity);

  unsigned add_location(const std::string& name, std::uint64_t pa_base, std::uint64_t capacity);
  // Index of a location by name; throws VmmError when unknown.
  unsigned location(const std::string& name) const;
  const std::vector<Location>& locations() const { return locations_; }

  std::uint64_t reserve(std::uint64_t size, std::uint64_t alignment = 0);
  // `va` must be the start of a reservation with no mapping inside it. The virtual range is not
  // handed out again, so a stale address keeps faulting as unmapped.
  void free_reservation(std::uint64_t va);

  // A physical allocation of `size` bytes (a multiple of the granularity) on one location.
  unsigned create(std::uint64_t size, unsigned location);
  // Page i of the allocation comes from locations[i % locations.size()]. The locations must be
  // distinct and each must have room for its share; nothing is allocated when one has not.
  unsigned create_striped(std::uint64_t size, const std::vector<unsigned>& locations);
  // The pages the j-th of n locations holds of a striped allocation of `pages` pages (page i on
  // location i % n): the first pages % n locations hold one more.
  static std::uint64_t stripe_pages(std::uint64_t pages, std::size_t n, std::size_t j) {
    return pages / n + (j < pages % n ? 1 : 0);
  }
  // The handle is gone at once; the pages go back to their locations when no mapping uses them.
  void release(unsigned allocation);

  void map(std::uint64_t va, std::uint64_t size, unsigned allocation, std::uint64_t offset);
  void set_access(std::uint64_t va, std::uint64_t size, unsigned gpu, AccessRight access);
  void unmap(std::uint64_t va, std::uint64_t size);

  std::uint64_t granularity() const { return granularity_; }
  // Queries on a live (not released) allocation; VmmError otherwise.
  std::uint64_t allocation_pa(unsigned allocation) const;  // PA of its first page
  std::uint64_t allocation_size(unsigned allocation) const;
  // PA of byte `offset` of the allocation, and the location that holds it.
  std::uint64_t page_pa(unsigned allocation, std::uint64_t offset) const;
  unsigned allocation_location(unsigned allocation, std::uint64_t offset) const;

  // VA -> PA for `gpu`. Hot path: one cached physically contiguous run per GPU (a whole mapping of
  // a contiguous allocation, else one page), a map lookup otherwise. Never allocates.
  Fault translate(unsigned gpu, std::uint64_t va, bool write, std::uint64_t& pa) const {
    Cache& c = cache_[gpu];
    if (va - c.va < c.size) {
      const AccessRight r = c.access;
      if (r == AccessRight::kNone || (write && r != AccessRight::kReadWrite)) {
        return Fault::kNoPermission;
      }
      pa = c.pa + (va - c.va);
      return Fault::kNone;
    }
    return translate_slow(gpu, va, write, pa);
  }

 private:
  struct Allocation {
    std::uint64_t size = 0;
    std::vector<std::uint64_t> pages;  // PA of each page, in allocation order
    std::vector<unsigned> stripe;      // page i lives on stripe[i % stripe.size()]
    // pages[i] == pages[0] + i * granularity: one cache entry can cover a whole mapping.
    bool contiguous = false;
    bool released = false;
    unsigned mappings = 0;  // live mappings of its pages
  };
  // The free pages of one location: every page at or above `untouched` has never been handed out,
  // and `returned` holds the freed pages below it, so the lowest free page is the first of
  // `returned` if any, else `untouched`.
  struct FreePages {
    std::uint64_t untouched = 0;
    std::set<std::uint64_t> returned;
  };
  struct Mapping {
    std::uint64_t size = 0;
    unsigned allocation = 0;
    std::uint64_t offset = 0;         // into the allocation
    std::vector<AccessRight> access;  // per GPU
  };
  struct Reservation {
    std::uint64_t size = 0;
  };
  struct Cache {
    std::uint64_t va = 0;
    std::uint64_t size = 0;  // 0: empty
    std::uint64_t pa = 0;
    AccessRight access = AccessRight::kNone;
  };

  Fault translate_slow(unsigned gpu, std::uint64_t va, bool write, std::uint64_t& pa) const;
  void check_granular(std::uint64_t v, const char* what) const;
  // The allocation behind a handle that exists and was not released; `op` names the caller.
  const Allocation& live_allocation(unsigned allocation, const char* op) const;
  unsigned create_pages(std::uint64_t size, const std::vector<unsigned>& locations, const char* op);
  void return_pages(Allocation& a);
  void invalidate_caches() const;

  unsigned gpus_;
  std::uint64_t granularity_;
  std::uint64_t next_va_;
  std::vector<Location> locations_;
  std::vector<FreePages> free_pages_;  // per location
  std::vector<Allocation> allocations_;
  std::map<std::uint64_t, Reservation> reservations_;  // by start VA
  std::map<std::uint64_t, Mapping> mappings_;          // by start VA
  mutable std::vector<Cache> cache_;
};

}  // namespace famsim
