// AddressSpace (CUDA-VMM-like): the rules of reserve/create/map/set_access and translation.
#include "traffic/vmm.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace famsim {
namespace {

constexpr std::uint64_t kMiB = 1ULL << 20;
constexpr std::uint64_t kGran = 2 * kMiB;    // the default granularity
constexpr std::uint64_t kBase = 1ULL << 36;  // physical base of the location

struct Vmm {
  AddressSpace as{2};
  unsigned loc = as.add_location("fam0", kBase, 8 * kMiB);
};

TEST(Vmm, DefaultGranularityIsTwoMiB) {
  AddressSpace as(1);
  EXPECT_EQ(as.granularity(), kGran);
  EXPECT_THROW(AddressSpace(1, 3 * kMiB), VmmError);
  EXPECT_THROW(AddressSpace(1, 0), VmmError);
}

TEST(Vmm, LocationsAndBumpAllocation) {
  Vmm v;
  EXPECT_EQ(v.as.location("fam0"), v.loc);
  EXPECT_THROW(v.as.location("fam9"), VmmError);
  EXPECT_THROW(v.as.add_location("fam0", 0, kGran), VmmError);  // added twice
  const unsigned a0 = v.as.create(kGran, v.loc);
  const unsigned a1 = v.as.create(2 * kGran, v.loc);
  EXPECT_EQ(v.as.allocation_pa(a0), kBase);
  EXPECT_EQ(v.as.allocation_pa(a1), kBase + kGran);
  EXPECT_EQ(v.as.locations()[v.loc].allocated, 3 * kGran);
}

TEST(Vmm, AllocationBeyondCapacityRejected) {
  Vmm v;  // 8 MiB = 4 granules
  v.as.create(2 * kGran, v.loc);
  EXPECT_THROW(v.as.create(3 * kGran, v.loc), VmmError);  // 6 MiB asked, 4 MiB free
  EXPECT_NO_THROW(v.as.create(2 * kGran, v.loc));         // exactly the rest
  EXPECT_THROW(v.as.create(kGran, v.loc), VmmError);      // full
}

TEST(Vmm, UnalignedSizesAndAddressesRejected) {
  Vmm v;
  EXPECT_THROW(v.as.reserve(kMiB), VmmError);
  EXPECT_THROW(v.as.reserve(0), VmmError);
  EXPECT_THROW(v.as.create(kMiB, v.loc), VmmError);
  EXPECT_THROW(v.as.create(0, v.loc), VmmError);
  const std::uint64_t va = v.as.reserve(4 * kGran);
  EXPECT_EQ(va % kGran, 0u);
  const unsigned a = v.as.create(2 * kGran, v.loc);
  EXPECT_THROW(v.as.map(va + 4096, kGran, a, 0), VmmError);  // address
  EXPECT_THROW(v.as.map(va, kMiB, a, 0), VmmError);          // size
  EXPECT_THROW(v.as.map(va, kGran, a, kMiB), VmmError);      // offset
  EXPECT_NO_THROW(v.as.map(va, kGran, a, kGran));
}

TEST(Vmm, ZeroSizeMapRejectedAndExistingMappingKept) {
  // reserve() and create() reject an empty range; so must map() (cuMemMap with size 0 is
  // CUDA_ERROR_INVALID_VALUE). In particular an empty map at the start of an existing mapping must
  // not replace that mapping.
  Vmm v;
  const std::uint64_t va = v.as.reserve(2 * kGran);
  const unsigned a = v.as.create(kGran, v.loc);
  v.as.map(va, kGran, a, 0);
  v.as.set_access(va, kGran, 0, AccessRight::kRead);
  EXPECT_THROW(v.as.map(va, 0, a, 0), VmmError);
  std::uint64_t pa = 0;
  EXPECT_EQ(v.as.translate(0, va + 64, false, pa), AddressSpace::Fault::kNone);
  EXPECT_EQ(pa, kBase + 64);
}

TEST(Vmm, ReservationAlignment) {
  AddressSpace as(1);
  as.reserve(kGran);
  const std::uint64_t va = as.reserve(kGran, 1ULL << 30);
  EXPECT_EQ(va % (1ULL << 30), 0u);
}

TEST(Vmm, MappingPastAllocationRejected) {
  Vmm v;
  const std::uint64_t va = v.as.reserve(4 * kGran);
  const unsigned a = v.as.create(2 * kGran, v.loc);
  EXPECT_THROW(v.as.map(va, 3 * kGran, a, 0), VmmError);
  EXPECT_THROW(v.as.map(va, 2 * kGran, a, kGran), VmmError);
}

TEST(Vmm, OverlappingMappingRejected) {
  Vmm v;
  const std::uint64_t va = v.as.reserve(4 * kGran);
  const unsigned small = v.as.create(kGran, v.loc);
  const unsigned big = v.as.create(2 * kGran, v.loc);
  v.as.map(va + kGran, kGran, small, 0);
  // Same start.
  EXPECT_THROW(v.as.map(va + kGran, kGran, big, 0), VmmError);
  // Starts before, runs into the existing mapping.
  EXPECT_THROW(v.as.map(va, 2 * kGran, big, 0), VmmError);
  // Starts inside the existing mapping is impossible at granule alignment with a one-granule
  // mapping, so make a two-granule one and start in its second granule.
  Vmm w;
  const std::uint64_t wva = w.as.reserve(4 * kGran);
  const unsigned wbig = w.as.create(2 * kGran, w.loc);
  const unsigned wsmall = w.as.create(kGran, w.loc);
  w.as.map(wva, 2 * kGran, wbig, 0);
  EXPECT_THROW(w.as.map(wva + kGran, kGran, wsmall, 0), VmmError);
  // Right after it is fine.
  EXPECT_NO_THROW(w.as.map(wva + 2 * kGran, kGran, wsmall, 0));
  // And right before the first mapping of `v` is fine too.
  EXPECT_NO_THROW(v.as.map(va, kGran, big, 0));
}

TEST(Vmm, MapOutsideReservationRejected) {
  Vmm v;
  const unsigned a = v.as.create(2 * kGran, v.loc);
  // Before any reservation.
  EXPECT_THROW(v.as.map(kGran, kGran, a, 0), VmmError);
  const std::uint64_t r1 = v.as.reserve(2 * kGran);
  const std::uint64_t r2 = v.as.reserve(2 * kGran);
  ASSERT_EQ(r2, r1 + 2 * kGran);  // back to back: the next case straddles the boundary
  // Straddles two reservations.
  EXPECT_THROW(v.as.map(r1 + kGran, 2 * kGran, a, 0), VmmError);
  // Past the last reservation.
  EXPECT_THROW(v.as.map(r2 + 2 * kGran, kGran, a, 0), VmmError);
  // Below the first.
  EXPECT_THROW(v.as.map(r1 - kGran, kGran, a, 0), VmmError);
  EXPECT_NO_THROW(v.as.map(r2, 2 * kGran, a, 0));
}

TEST(Vmm, SetAccessOnUnmappedRangeRejected) {
  Vmm v;
  const std::uint64_t va = v.as.reserve(4 * kGran);
  const unsigned a = v.as.create(kGran, v.loc);
  EXPECT_THROW(v.as.set_access(va, kGran, 0, AccessRight::kRead), VmmError);  // nothing mapped
  v.as.map(va, kGran, a, 0);
  EXPECT_NO_THROW(v.as.set_access(va, kGran, 0, AccessRight::kRead));
  // Runs past the mapping into unmapped space.
  EXPECT_THROW(v.as.set_access(va, 2 * kGran, 0, AccessRight::kRead), VmmError);
  // No such GPU (2 GPUs: 0 and 1).
  EXPECT_THROW(v.as.set_access(va, kGran, 2, AccessRight::kRead), VmmError);
}

TEST(Vmm, Translate) {
  Vmm v;
  const std::uint64_t va = v.as.reserve(4 * kGran);
  v.as.create(kGran, v.loc);                         // PA kBase .. +2 MiB (not mapped)
  const unsigned a = v.as.create(2 * kGran, v.loc);  // PA kBase + 2 MiB
  // Map the allocation's second granule at va + 2 MiB.
  v.as.map(va + kGran, kGran, a, kGran);
  std::uint64_t pa = 0;
  // Mapped, but no access granted yet.
  EXPECT_EQ(v.as.translate(0, va + kGran, false, pa), AddressSpace::Fault::kNoPermission);
  v.as.set_access(va + kGran, kGran, 0, AccessRight::kRead);
  // Unmapped: the reserved granule before the mapping, and the one after it.
  EXPECT_EQ(v.as.translate(0, va, false, pa), AddressSpace::Fault::kUnmapped);
  EXPECT_EQ(v.as.translate(0, va + 2 * kGran, false, pa), AddressSpace::Fault::kUnmapped);
  EXPECT_EQ(v.as.translate(0, 0, false, pa), AddressSpace::Fault::kUnmapped);
  // Read: PA = allocation PA (kBase + 2 MiB) + map offset (2 MiB) + offset in the mapping.
  pa = 0;
  EXPECT_EQ(v.as.translate(0, va + kGran + 12345, false, pa), AddressSpace::Fault::kNone);
  EXPECT_EQ(pa, kBase + kGran + kGran + 12345);
  EXPECT_EQ(pa, v.as.allocation_pa(a) + kGran + 12345);
  // Last byte of the mapping.
  EXPECT_EQ(v.as.translate(0, va + 2 * kGran - 1, false, pa), AddressSpace::Fault::kNone);
  EXPECT_EQ(pa, kBase + 3 * kGran - 1);
  // Write with read-only access.
  EXPECT_EQ(v.as.translate(0, va + kGran, true, pa), AddressSpace::Fault::kNoPermission);
  // The other GPU was never granted access.
  EXPECT_EQ(v.as.translate(1, va + kGran, false, pa), AddressSpace::Fault::kNoPermission);
  // Upgrade to read-write: writes now translate (the cached read-only entry must not survive).
  v.as.set_access(va + kGran, kGran, 0, AccessRight::kReadWrite);
  EXPECT_EQ(v.as.translate(0, va + kGran + 64, true, pa), AddressSpace::Fault::kNone);
  EXPECT_EQ(pa, kBase + 2 * kGran + 64);
  // Revoke: no access again.
  v.as.set_access(va + kGran, kGran, 0, AccessRight::kNone);
  EXPECT_EQ(v.as.translate(0, va + kGran + 64, false, pa), AddressSpace::Fault::kNoPermission);
  // Unmap: unmapped (the cached entry must not survive).
  v.as.set_access(va + kGran, kGran, 0, AccessRight::kRead);
  EXPECT_EQ(v.as.translate(0, va + kGran, false, pa), AddressSpace::Fault::kNone);
  EXPECT_THROW(v.as.unmap(va + kGran, 2 * kGran), VmmError);  // size does not match
  v.as.unmap(va + kGran, kGran);
  EXPECT_EQ(v.as.translate(0, va + kGran, false, pa), AddressSpace::Fault::kUnmapped);
}

TEST(Vmm, TranslateAlternatingBetweenMappings) {
  // Two mappings of different allocations; alternating lookups exercise the per-GPU cache.
  Vmm v;
  const std::uint64_t va = v.as.reserve(2 * kGran);
  const unsigned a0 = v.as.create(kGran, v.loc);  // kBase
  const unsigned a1 = v.as.create(kGran, v.loc);  // kBase + 2 MiB
  // Mapped crosswise: va -> a1, va + 2 MiB -> a0.
  v.as.map(va, kGran, a1, 0);
  v.as.map(va + kGran, kGran, a0, 0);
  v.as.set_access(va, 2 * kGran, 0, AccessRight::kReadWrite);  // covers both mappings
  v.as.set_access(va, kGran, 1, AccessRight::kRead);
  std::uint64_t pa = 0;
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(v.as.translate(0, va + 100, true, pa), AddressSpace::Fault::kNone);
    EXPECT_EQ(pa, kBase + kGran + 100);
    EXPECT_EQ(v.as.translate(0, va + kGran + 100, true, pa), AddressSpace::Fault::kNone);
    EXPECT_EQ(pa, kBase + 100);
    EXPECT_EQ(v.as.translate(1, va + 100, false, pa), AddressSpace::Fault::kNone);
    EXPECT_EQ(pa, kBase + kGran + 100);
    EXPECT_EQ(v.as.translate(1, va + kGran + 100, false, pa), AddressSpace::Fault::kNoPermission);
  }
}

}  // namespace
}  // namespace famsim
