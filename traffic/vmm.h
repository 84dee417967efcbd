// A CUDA-VMM-like address space (first cut; the traffic issue adds striping across devices, timed
// remapping and fault counting). It mirrors the driver API's explicit model: nothing is reachable
// until a physical allocation is created on a location, mapped into a reserved virtual range, and
// access is granted per GPU. There is no demand paging.
//
//   reserve(size, alignment)          cuMemAddressReserve
//   create(size, location)            cuMemCreate (physical memory on a GPU's HBM or a device)
//   map(va, size, allocation, offset) cuMemMap (va, size, offset: multiples of the granularity)
//   set_access(va, size, gpu, access) cuMemSetAccess (mapping alone gives no access)
//   unmap(va, size)                   cuMemUnmap
//
// The allocation granularity defaults to 2 MiB (the typical cuMemGetAllocationGranularity answer,
// CUDA driver API documentation). Rule violations throw VmmError.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace famsim {

class VmmError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class AccessRight : std::uint8_t { kNone = 0, kRead = 1, kReadWrite = 3 };

class AddressSpace {
 public:
  static constexpr std::uint64_t kDefaultGranularity = 2ULL << 20;

  struct Location {
    std::string name;
    std::uint64_t pa_base = 0;
    std::uint64_t capacity = 0;
    std::uint64_t allocated = 0;  // bump pointer
  };
  enum class Fault { kNone, kUnmapped, kNoPermission };

  AddressSpace(unsigned gpus, std::uint64_t granularity = kDefaultGranularity);

  unsigned add_location(const std::string& name, std::uint64_t pa_base, std::uint64_t capacity);
  // Index of a location by name; throws VmmError when unknown.
  unsigned location(const std::string& name) const;
  const std::vector<Location>& locations() const { return locations_; }

  std::uint64_t reserve(std::uint64_t size, std::uint64_t alignment = 0);
  unsigned create(std::uint64_t size, unsigned location);
  void map(std::uint64_t va, std::uint64_t size, unsigned allocation, std::uint64_t offset);
  void set_access(std::uint64_t va, std::uint64_t size, unsigned gpu, AccessRight access);
  void unmap(std::uint64_t va, std::uint64_t size);

  std::uint64_t granularity() const { return granularity_; }
  std::uint64_t allocation_pa(unsigned allocation) const { return allocations_.at(allocation).pa; }

  // VA -> PA for `gpu`. Hot path: one cached mapping per GPU, a map lookup otherwise.
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
    std::uint64_t pa = 0;
    std::uint64_t size = 0;
    unsigned location = 0;
  };
  struct Mapping {
    std::uint64_t size = 0;
    std::uint64_t pa = 0;
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
  void invalidate_caches() const;

  unsigned gpus_;
  std::uint64_t granularity_;
  std::uint64_t next_va_;
  std::vector<Location> locations_;
  std::vector<Allocation> allocations_;
  std::map<std::uint64_t, Reservation> reservations_;  // by start VA
  std::map<std::uint64_t, Mapping> mappings_;          // by start VA
  mutable std::vector<Cache> cache_;
};

}  // namespace famsim
