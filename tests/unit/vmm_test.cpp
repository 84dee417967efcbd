// AddressSpace (CUDA-VMM-like): the rules of reserve/create/map/set_access/release, striping and
// translation.
#include "traffic/vmm.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace famsim {
namespace {

constexpr std::uint64_t kMiB = 1ULL << 20;
constexpr std::uint64_t kGran = 2 * kMiB;    // the default granularity
constexpr std::uint64_t kBase = 1ULL << 36;  // physical base of the location
// Physical bases of the second and third locations in the striping tests.
constexpr std::uint64_t kBase1 = 2ULL << 36;
constexpr std::uint64_t kBase2 = 3ULL << 36;

using ::testing::HasSubstr;

struct Vmm {
  AddressSpace as{2};
  unsigned loc = as.add_location("fam0", kBase, 8 * kMiB);
};

// Three 8 MiB locations (4 pages each), far apart in physical address space.
struct Striped {
  AddressSpace as{2};
  unsigned l0 = as.add_location("fam0", kBase, 8 * kMiB);
  unsigned l1 = as.add_location("fam1", kBase1, 8 * kMiB);
  unsigned l2 = as.add_location("fam2", kBase2, 8 * kMiB);
  std::uint64_t allocated(unsigned l) const { return as.locations()[l].allocated; }
};

// The what() of the VmmError `f` throws ("" and a failure when it throws none).
template <typename F>
std::string vmm_error(F f) {
  try {
    f();
  } catch (const VmmError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a VmmError";
  return "";
}

std::string hex(std::uint64_t v) { return fmt::format("0x{:x}", v); }

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

// Only a lack of free memory is a no-room refusal (the one a smaller size cures, which the
// generators' region errors name the size keys for); a misuse is a rule refusal.
TEST(Vmm, RefusalsSayWhetherTheLocationWasFull) {
  auto reason = [](auto f) {
    try {
      f();
    } catch (const VmmError& e) {
      return e.reason();
    }
    ADD_FAILURE() << "expected a VmmError";
    return VmmError::Reason::kRule;
  };
  Vmm v;  // 8 MiB = 4 granules
  EXPECT_EQ(reason([&] { v.as.create(5 * kGran, v.loc); }), VmmError::Reason::kNoRoom);
  EXPECT_EQ(reason([&] { v.as.create(kMiB, v.loc); }), VmmError::Reason::kRule);       // unaligned
  EXPECT_EQ(reason([&] { v.as.create(kGran, v.loc + 1); }), VmmError::Reason::kRule);  // none
  EXPECT_EQ(reason([&] { v.as.reserve(kMiB); }), VmmError::Reason::kRule);
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

// --- Striped allocations ------------------------------------------------------------------------

TEST(Vmm, StripedRoundRobinOverTwoLocations) {
  Striped s;
  // 3 pages over (fam0, fam1): page 0 -> fam0's first page, page 1 -> fam1's first page,
  // page 2 -> fam0's second page.
  const unsigned a = s.as.create_striped(3 * kGran, {s.l0, s.l1});
  EXPECT_EQ(s.as.allocation_size(a), 3 * kGran);
  EXPECT_EQ(s.as.allocation_pa(a), kBase);
  EXPECT_EQ(s.as.page_pa(a, 0), kBase);
  EXPECT_EQ(s.as.page_pa(a, kGran), kBase1);
  EXPECT_EQ(s.as.page_pa(a, kGran + 0x1234), kBase1 + 0x1234);
  EXPECT_EQ(s.as.page_pa(a, 2 * kGran), kBase + kGran);
  EXPECT_EQ(s.as.page_pa(a, 3 * kGran - 1), kBase + 2 * kGran - 1);
  EXPECT_EQ(s.as.allocation_location(a, 0), s.l0);
  EXPECT_EQ(s.as.allocation_location(a, kGran), s.l1);
  EXPECT_EQ(s.as.allocation_location(a, 2 * kGran + 5), s.l0);
  EXPECT_EQ(s.allocated(s.l0), 2 * kGran);  // pages 0 and 2
  EXPECT_EQ(s.allocated(s.l1), kGran);      // page 1
  EXPECT_EQ(s.allocated(s.l2), 0u);
  // The list order sets which location gets page 0: (fam1, fam0) starts on fam1. Each takes its
  // next free page: fam1's second (kBase1 + 2 MiB), fam0's third (kBase + 4 MiB).
  const unsigned b = s.as.create_striped(2 * kGran, {s.l1, s.l0});
  EXPECT_EQ(s.as.page_pa(b, 0), kBase1 + kGran);
  EXPECT_EQ(s.as.page_pa(b, kGran), kBase + 2 * kGran);
  EXPECT_EQ(s.as.allocation_location(b, 0), s.l1);
  // Translation follows the pages: VA page i -> allocation page i.
  const std::uint64_t va = s.as.reserve(3 * kGran);
  s.as.map(va, 3 * kGran, a, 0);
  s.as.set_access(va, 3 * kGran, 0, AccessRight::kReadWrite);
  std::uint64_t pa = 0;
  EXPECT_EQ(s.as.translate(0, va + 100, true, pa), AddressSpace::Fault::kNone);
  EXPECT_EQ(pa, kBase + 100);
  EXPECT_EQ(s.as.translate(0, va + kGran + 100, true, pa), AddressSpace::Fault::kNone);
  EXPECT_EQ(pa, kBase1 + 100);
  EXPECT_EQ(s.as.translate(0, va + 2 * kGran + 100, true, pa), AddressSpace::Fault::kNone);
  EXPECT_EQ(pa, kBase + kGran + 100);
}

TEST(Vmm, StripedRoundRobinOverThreeLocations) {
  Striped s;
  // 5 pages over (fam0, fam1, fam2): pages 0, 1, 2 take the first page of fam0, fam1, fam2;
  // pages 3 and 4 take the second page of fam0 and fam1.
  const unsigned a = s.as.create_striped(5 * kGran, {s.l0, s.l1, s.l2});
  EXPECT_EQ(s.as.page_pa(a, 0 * kGran), kBase);
  EXPECT_EQ(s.as.page_pa(a, 1 * kGran), kBase1);
  EXPECT_EQ(s.as.page_pa(a, 2 * kGran), kBase2);
  EXPECT_EQ(s.as.page_pa(a, 3 * kGran), kBase + kGran);
  EXPECT_EQ(s.as.page_pa(a, 4 * kGran), kBase1 + kGran);
  EXPECT_EQ(s.as.allocation_location(a, 2 * kGran), s.l2);
  EXPECT_EQ(s.as.allocation_location(a, 3 * kGran), s.l0);
  EXPECT_EQ(s.as.allocation_location(a, 4 * kGran), s.l1);
  EXPECT_EQ(s.allocated(s.l0), 2 * kGran);
  EXPECT_EQ(s.allocated(s.l1), 2 * kGran);
  EXPECT_EQ(s.allocated(s.l2), kGran);
  // The whole allocation: byte 0x1000 + i of VA page i lands at 0x1000 + i in page i's PA.
  const std::uint64_t va = s.as.reserve(5 * kGran);
  s.as.map(va, 5 * kGran, a, 0);
  s.as.set_access(va, 5 * kGran, 0, AccessRight::kRead);
  const std::uint64_t page_pa[5] = {kBase, kBase1, kBase2, kBase + kGran, kBase1 + kGran};
  std::uint64_t pa = 0;
  for (std::uint64_t i = 0; i < 5; ++i) {
    EXPECT_EQ(s.as.translate(0, va + i * kGran + 0x1000 + i, false, pa),
              AddressSpace::Fault::kNone);
    EXPECT_EQ(pa, page_pa[i] + 0x1000 + i) << "page " << i;
  }
  // A second mapping of the same allocation from offset 3 granules: VA page 0 -> page 3 (fam0's
  // second page), VA page 1 -> page 4 (fam1's second page).
  const std::uint64_t va2 = s.as.reserve(2 * kGran);
  s.as.map(va2, 2 * kGran, a, 3 * kGran);
  s.as.set_access(va2, 2 * kGran, 0, AccessRight::kRead);
  EXPECT_EQ(s.as.translate(0, va2 + 7, false, pa), AddressSpace::Fault::kNone);
  EXPECT_EQ(pa, kBase + kGran + 7);
  EXPECT_EQ(s.as.translate(0, va2 + kGran + 7, false, pa), AddressSpace::Fault::kNone);
  EXPECT_EQ(pa, kBase1 + kGran + 7);
}

TEST(Vmm, StripedPageBoundaryChangesLocation) {
  Striped s;
  const unsigned a = s.as.create_striped(2 * kGran, {s.l0, s.l1});  // kBase, kBase1
  const std::uint64_t va = s.as.reserve(2 * kGran);
  s.as.map(va, 2 * kGran, a, 0);
  s.as.set_access(va, 2 * kGran, 0, AccessRight::kReadWrite);
  s.as.set_access(va, 2 * kGran, 1, AccessRight::kRead);
  std::uint64_t pa = 0;
  // Alternating across the boundary: a cached page must not be stretched over the next one.
  for (int i = 0; i < 3; ++i) {
    // Last byte of page 0: the last byte of fam0's first page.
    EXPECT_EQ(s.as.translate(0, va + kGran - 1, true, pa), AddressSpace::Fault::kNone);
    EXPECT_EQ(pa, kBase + kGran - 1);
    // First byte of page 1: the first byte of fam1.
    EXPECT_EQ(s.as.translate(0, va + kGran, true, pa), AddressSpace::Fault::kNone);
    EXPECT_EQ(pa, kBase1);
    // GPU 1 reads both, may write neither.
    EXPECT_EQ(s.as.translate(1, va + kGran - 1, false, pa), AddressSpace::Fault::kNone);
    EXPECT_EQ(pa, kBase + kGran - 1);
    EXPECT_EQ(s.as.translate(1, va + kGran, true, pa), AddressSpace::Fault::kNoPermission);
    EXPECT_EQ(s.as.translate(1, va, true, pa), AddressSpace::Fault::kNoPermission);
  }
  // Revoking GPU 0 reaches both pages (its cached page must not survive).
  s.as.set_access(va, 2 * kGran, 0, AccessRight::kNone);
  EXPECT_EQ(s.as.translate(0, va + kGran, false, pa), AddressSpace::Fault::kNoPermission);
  EXPECT_EQ(s.as.translate(0, va, false, pa), AddressSpace::Fault::kNoPermission);
  // Just past the mapping is unmapped.
  EXPECT_EQ(s.as.translate(1, va + 2 * kGran, false, pa), AddressSpace::Fault::kUnmapped);
}

TEST(Vmm, StripedCapacityRefusalAllocatesNothing) {
  AddressSpace as(1);
  const unsigned l0 = as.add_location("fam0", kBase, 8 * kMiB);   // 4 pages
  const unsigned l1 = as.add_location("fam1", kBase1, 4 * kMiB);  // 2 pages
  as.create(kGran, l1);                                           // fam1: 1 page left
  // 4 pages over (fam0, fam1): 2 each; fam1 has 1. fam0, listed first and with room, must not
  // have handed out its pages either.
  const std::string m = vmm_error([&] { as.create_striped(4 * kGran, {l0, l1}); });
  EXPECT_THAT(m, HasSubstr("location fam1 has 2097152 B free"));
  EXPECT_THAT(m, HasSubstr("its share of the 8388608 B allocation is 4194304 B"));
  EXPECT_EQ(as.locations()[l0].allocated, 0u);
  EXPECT_EQ(as.locations()[l1].allocated, kGran);
  // 3 pages over (fam1, fam0): fam1 gets pages 0 and 2, one too many.
  EXPECT_THROW(as.create_striped(3 * kGran, {l1, l0}), VmmError);
  EXPECT_EQ(as.locations()[l0].allocated, 0u);
  EXPECT_EQ(as.locations()[l1].allocated, kGran);
  // 3 pages over (fam0, fam1): fam0 gets pages 0 and 2 (its first two pages), fam1 page 1 (its
  // second page, the first is taken).
  const unsigned a = as.create_striped(3 * kGran, {l0, l1});
  EXPECT_EQ(as.page_pa(a, 0), kBase);
  EXPECT_EQ(as.page_pa(a, kGran), kBase1 + kGran);
  EXPECT_EQ(as.page_pa(a, 2 * kGran), kBase + kGran);
  EXPECT_EQ(as.locations()[l0].allocated, 2 * kGran);
  EXPECT_EQ(as.locations()[l1].allocated, 2 * kGran);
}

TEST(Vmm, StripedArgumentsRejected) {
  Striped s;
  EXPECT_THAT(vmm_error([&] { s.as.create_striped(kGran, {}); }), HasSubstr("is empty"));
  EXPECT_THAT(vmm_error([&] {
                s.as.create_striped(2 * kGran, {s.l0, s.l1, s.l0});
              }),
              HasSubstr("location fam0 is listed twice"));
  EXPECT_THAT(vmm_error([&] {
                s.as.create_striped(2 * kGran, {s.l0, 7});
              }),
              HasSubstr("no location 7 (the platform has 3)"));
  EXPECT_THAT(vmm_error([&] { s.as.create(kGran, 3); }), HasSubstr("no location 3"));
  EXPECT_THAT(vmm_error([&] {
                s.as.create_striped(3 * kMiB, {s.l0, s.l1});
              }),
              HasSubstr("allocation size 0x300000 is not a multiple"));
  EXPECT_THROW(s.as.create_striped(0, {s.l0, s.l1}), VmmError);
  EXPECT_EQ(s.allocated(s.l0), 0u);
  EXPECT_EQ(s.allocated(s.l1), 0u);
  EXPECT_EQ(s.allocated(s.l2), 0u);
}

// --- Release and free_reservation ---------------------------------------------------------------

TEST(Vmm, ReleaseOfUnmappedAllocationFreesItsPagesAtOnce) {
  Vmm v;                                          // fam0: 4 pages from kBase
  v.as.create(kGran, v.loc);                      // page 0: kBase
  const unsigned a1 = v.as.create(kGran, v.loc);  // page 1: kBase + 2 MiB
  v.as.create(kGran, v.loc);                      // page 2: kBase + 4 MiB
  v.as.release(a1);
  EXPECT_EQ(v.as.locations()[v.loc].allocated, 2 * kGran);
  // The lowest free page is the released page 1, then the never-used page 3.
  EXPECT_EQ(v.as.allocation_pa(v.as.create(kGran, v.loc)), kBase + kGran);
  EXPECT_EQ(v.as.allocation_pa(v.as.create(kGran, v.loc)), kBase + 3 * kGran);
  EXPECT_THROW(v.as.create(kGran, v.loc), VmmError);  // full again
}

TEST(Vmm, ReleaseWhileMappedKeepsPagesUntilUnmap) {
  Vmm v;
  const unsigned a = v.as.create(2 * kGran, v.loc);  // pages 0, 1: kBase, kBase + 2 MiB
  v.as.create(kGran, v.loc);                         // page 2: kBase + 4 MiB, kept
  const std::uint64_t va = v.as.reserve(2 * kGran);
  v.as.map(va, 2 * kGran, a, 0);
  v.as.set_access(va, 2 * kGran, 0, AccessRight::kReadWrite);
  v.as.release(a);
  // Still mapped: the pages stay allocated and translation goes on.
  EXPECT_EQ(v.as.locations()[v.loc].allocated, 3 * kGran);
  std::uint64_t pa = 0;
  EXPECT_EQ(v.as.translate(0, va + kGran + 8, true, pa), AddressSpace::Fault::kNone);
  EXPECT_EQ(pa, kBase + kGran + 8);
  // Access on the surviving mapping can still change (it belongs to the mapping, not the handle).
  EXPECT_NO_THROW(v.as.set_access(va, 2 * kGran, 1, AccessRight::kRead));
  EXPECT_EQ(v.as.translate(1, va + 8, false, pa), AddressSpace::Fault::kNone);
  EXPECT_EQ(pa, kBase + 8);
  // The handle itself is gone.
  const std::uint64_t other = v.as.reserve(kGran);
  EXPECT_THAT(vmm_error([&] { v.as.map(other, kGran, a, 0); }),
              HasSubstr("map: allocation 0 was released"));
  EXPECT_THAT(vmm_error([&] { v.as.release(a); }),
              HasSubstr("release: allocation 0 was already released"));
  EXPECT_THROW(v.as.allocation_pa(a), VmmError);
  EXPECT_THROW(v.as.page_pa(a, 0), VmmError);
  // The last unmap frees pages 0 and 1; page 2 stays.
  v.as.unmap(va, 2 * kGran);
  EXPECT_EQ(v.as.locations()[v.loc].allocated, kGran);
  EXPECT_EQ(v.as.translate(0, va + kGran + 8, true, pa), AddressSpace::Fault::kUnmapped);
  // Reuse, lowest page first: one page takes page 0; two pages take page 1 and the never-used
  // page 3, which are not adjacent.
  EXPECT_EQ(v.as.allocation_pa(v.as.create(kGran, v.loc)), kBase);
  const unsigned d = v.as.create(2 * kGran, v.loc);
  EXPECT_EQ(v.as.page_pa(d, 0), kBase + kGran);
  EXPECT_EQ(v.as.page_pa(d, kGran + 5), kBase + 3 * kGran + 5);
  EXPECT_EQ(v.as.locations()[v.loc].allocated, 8 * kMiB);
  // The unmapped range is a reservation again; map `d` there. The VA page boundary is now a
  // physical jump from the end of page 1 to the start of page 3.
  v.as.map(va, 2 * kGran, d, 0);
  v.as.set_access(va, 2 * kGran, 0, AccessRight::kRead);
  EXPECT_EQ(v.as.translate(0, va + kGran - 1, false, pa), AddressSpace::Fault::kNone);
  EXPECT_EQ(pa, kBase + 2 * kGran - 1);
  EXPECT_EQ(v.as.translate(0, va + kGran, false, pa), AddressSpace::Fault::kNone);
  EXPECT_EQ(pa, kBase + 3 * kGran);
  EXPECT_EQ(v.as.translate(0, va + kGran - 1, false, pa), AddressSpace::Fault::kNone);
  EXPECT_EQ(pa, kBase + 2 * kGran - 1);
}

TEST(Vmm, ReleaseOfAllocationMappedTwiceFreesAtLastUnmap) {
  Vmm v;
  const unsigned a = v.as.create(kGran, v.loc);  // kBase
  const std::uint64_t va = v.as.reserve(2 * kGran);
  v.as.map(va, kGran, a, 0);
  v.as.map(va + kGran, kGran, a, 0);  // the same page twice
  v.as.set_access(va, 2 * kGran, 0, AccessRight::kRead);
  v.as.release(a);
  v.as.unmap(va, kGran);
  EXPECT_EQ(v.as.locations()[v.loc].allocated, kGran);  // the second mapping still uses it
  std::uint64_t pa = 0;
  EXPECT_EQ(v.as.translate(0, va + kGran + 3, false, pa), AddressSpace::Fault::kNone);
  EXPECT_EQ(pa, kBase + 3);
  v.as.unmap(va + kGran, kGran);
  EXPECT_EQ(v.as.locations()[v.loc].allocated, 0u);
  EXPECT_EQ(v.as.translate(0, va + kGran + 3, false, pa), AddressSpace::Fault::kUnmapped);
}

TEST(Vmm, ReleaseOfStripedAllocationReturnsPagesToEachLocation) {
  Striped s;
  const unsigned a = s.as.create_striped(3 * kGran, {s.l0, s.l1});  // fam0 2 pages, fam1 1
  s.as.create(kGran, s.l1);                                         // fam1's second page
  s.as.release(a);
  EXPECT_EQ(s.allocated(s.l0), 0u);
  EXPECT_EQ(s.allocated(s.l1), kGran);
  // fam1's lowest free page is its first again.
  EXPECT_EQ(s.as.allocation_pa(s.as.create(kGran, s.l1)), kBase1);
}

TEST(Vmm, UnknownAllocationRejected) {
  Vmm v;
  const std::uint64_t va = v.as.reserve(kGran);
  EXPECT_THAT(vmm_error([&] { v.as.release(99); }), HasSubstr("release: no allocation 99"));
  EXPECT_THAT(vmm_error([&] { v.as.map(va, kGran, 99, 0); }), HasSubstr("map: no allocation 99"));
  EXPECT_THROW(v.as.allocation_size(99), VmmError);
  EXPECT_THROW(v.as.allocation_location(99, 0), VmmError);
  const unsigned a = v.as.create(kGran, v.loc);
  EXPECT_THAT(vmm_error([&] { v.as.page_pa(a, kGran); }),
              HasSubstr("offset 0x200000 is past the end of allocation 0"));
  EXPECT_THROW(v.as.allocation_location(a, kGran), VmmError);
}

TEST(Vmm, FreeReservation) {
  Vmm v;
  const unsigned a = v.as.create(kGran, v.loc);
  const std::uint64_t r = v.as.reserve(2 * kGran);
  v.as.map(r + kGran, kGran, a, 0);
  EXPECT_THAT(vmm_error([&] { v.as.free_reservation(r); }),
              HasSubstr("still holds the mapping at " + hex(r + kGran)));
  EXPECT_THAT(vmm_error([&] { v.as.free_reservation(r + kGran); }),
              HasSubstr(hex(r + kGran) + " is not the start of a reservation"));
  v.as.unmap(r + kGran, kGran);
  EXPECT_NO_THROW(v.as.free_reservation(r));
  EXPECT_THROW(v.as.free_reservation(r), VmmError);  // already freed
  EXPECT_THROW(v.as.map(r, kGran, a, 0), VmmError);  // no longer reserved
  // Freed virtual ranges are not handed out again: the next reservation follows the freed one.
  const std::uint64_t r2 = v.as.reserve(kGran);
  EXPECT_EQ(r2, r + 2 * kGran);
  // A mapping in the next reservation does not hold this one.
  const std::uint64_t r3 = v.as.reserve(kGran);
  v.as.map(r3, kGran, a, 0);
  EXPECT_NO_THROW(v.as.free_reservation(r2));
}

TEST(Vmm, ErrorMessagesGiveAddressesInHex) {
  Vmm v;
  const std::uint64_t va = v.as.reserve(4 * kGran);
  const unsigned a = v.as.create(2 * kGran, v.loc);
  EXPECT_THAT(vmm_error([&] { v.as.map(va + 4096, kGran, a, 0); }),
              HasSubstr("map address " + hex(va + 4096) + " is not a multiple"));
  v.as.map(va + kGran, kGran, a, 0);
  EXPECT_THAT(vmm_error([&] { v.as.map(va, 2 * kGran, a, 0); }),
              HasSubstr("overlaps the mapping at " + hex(va + kGran)));
  EXPECT_THAT(vmm_error([&] { v.as.unmap(va, kGran); }),
              HasSubstr("unmap " + hex(va) + "+2097152 B does not match a mapping"));
  EXPECT_THAT(vmm_error([&] { v.as.set_access(va, kGran, 0, AccessRight::kRead); }),
              HasSubstr(hex(va) + " is not mapped"));
}

}  // namespace
}  // namespace famsim
