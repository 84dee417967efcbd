// The model's heap on transparent huge pages, for speed.
//
// With thousands of requests in flight, nearly every step of a request reads state that other
// requests have pushed out of the caches since its last use (README "Speed"), and with 4 KiB
// pages each such read may also miss the TLB: the blocks' state, rings and payloads spread over
// some 80 MiB on nvl8_fam (famsim bench), far more than the TLB reaches with 4 KiB pages (2,048 to
// 3,072 second-level entries on AMD Zen 2 to Zen 4, AMD's Software Optimization Guides for those
// families: 8 to 12 MiB). On 2 MiB pages the same state takes some 40 entries.
//
// Linux gives a process huge pages only where it asks for them (madvise(MADV_HUGEPAGE)) unless
// /sys/kernel/mm/transparent_hugepage/enabled says "always". glibc's malloc asks only when told
// by the environment (GLIBC_TUNABLES=glibc.malloc.hugetlb=1, glibc >= 2.35), which a user should
// not have to know. So famsim does it itself, before the model is built: it has malloc serve
// every block of up to 32 MiB from the heap (not from a mapping of its own), grows the heap by
// `reserve_bytes` of address space without touching it, and asks for huge pages on that range.
// Pages are taken only when first written, 2 MiB at a time, so the peak resident memory grows by
// at most a few MiB; freed memory at the top of the heap is given back only past 1 GiB.
//
// Does nothing (and says nothing) where it cannot work: not Linux with glibc, a sanitised build
// (the sanitiser's allocator does not use glibc's heap), THP switched off, or the environment
// variable FAMSIM_HUGE_PAGES=0. Results never depend on it, only host speed. Should the heap not
// grow, or madvise fail, after malloc was told to serve large blocks from the heap, that stays
// so (glibc cannot be given back its adaptive threshold): a matter of speed and address space
// only, and the function returns false.
#pragma once

#include <cstddef>

namespace famsim {

// FAMSIM_HUGE_PAGES from the environment: unset, empty or "1" (the default): true; "0": false;
// anything else throws std::invalid_argument naming the variable and the values it takes.
bool huge_pages_wanted();

// Returns true when a range of the heap was marked for huge pages. Throws as huge_pages_wanted().
bool place_heap_on_huge_pages(std::size_t reserve_bytes);

}  // namespace famsim
