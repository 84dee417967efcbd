#include "sc_main/huge_pages.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#define FAMSIM_HEAP_ON_HUGE_PAGES 1
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#undef FAMSIM_HEAP_ON_HUGE_PAGES
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#undef FAMSIM_HEAP_ON_HUGE_PAGES
#endif
#endif

namespace famsim {

bool huge_pages_wanted() {
  const char* v = std::getenv("FAMSIM_HUGE_PAGES");
  if (!v || *v == '\0' || std::strcmp(v, "1") == 0) return true;
  if (std::strcmp(v, "0") == 0) return false;
  throw std::invalid_argument(std::string("environment variable FAMSIM_HUGE_PAGES is '") + v +
                              "': expected 0 (the heap on ordinary pages) or 1 (on huge pages, "
                              "the default)");
}

bool place_heap_on_huge_pages(std::size_t reserve_bytes) {
  // Checked in every build, so that a bad value is refused whether or not it could matter here.
  if (!huge_pages_wanted()) return false;
#ifdef FAMSIM_HEAP_ON_HUGE_PAGES
  {
    // "always [madvise] never": huge pages where asked (madvise) or everywhere (always).
    std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string modes;
    if (!std::getline(thp, modes) || modes.find("[never]") != std::string::npos) return false;
  }
  constexpr std::size_t kHugePage = std::size_t{2} << 20;  // x86-64 and arm64 (4 KiB granule)
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  // Blocks up to 32 MiB (glibc's largest mmap threshold on 64-bit) come from the heap, so that
  // the rings, pools and tables built at elaboration land in the range marked below.
  if (mallopt(M_MMAP_THRESHOLD, static_cast<int>(32 * kMiB)) != 1) return false;
  // Free space at the top of the heap is kept up to 1 GiB, so the marked range is not given
  // back and taken again without the mark.
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(1024 * kMiB));
  // One block whose growth of the heap brings the reserve with it as padding: malloc writes
  // only the block's header, so no page of the reserve is taken yet.
  mallopt(M_TOP_PAD, static_cast<int>(reserve_bytes));
  void* block = std::malloc(kHugePage);
  mallopt(M_TOP_PAD, 128 * 1024);  // glibc's default again
  if (!block) return false;
  const auto first = reinterpret_cast<std::uintptr_t>(block);
  const auto end = reinterpret_cast<std::uintptr_t>(sbrk(0));
  std::free(block);
  // Where the heap could not grow, glibc took the block from a mapping instead: not the heap.
  if (end < first || end - first < kHugePage) return false;
  const std::uintptr_t lo = (first + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t hi = end & ~(kHugePage - 1);
  if (hi <= lo + kHugePage) return false;
  // Marked from the page holding `first`, where the heap's free top now starts: every later
  // block from the top lies in the marked range. Only whole aligned 2 MiB stretches get a huge
  // page when first touched, so the part below `lo` keeps small pages.
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const std::uintptr_t from = first & ~(page - 1);
  if (madvise(reinterpret_cast<void*>(from), hi - from, MADV_HUGEPAGE) != 0) return false;
  // A block that fills the gap below `lo` and is never freed (address space only: malloc writes
  // its header, nothing else) makes the next blocks start on a huge page. glibc's chunk of a
  // request of n bytes spans n + 8 rounded up to 16 from 16 bytes before the pointer returned
  // (malloc.c, request2size), so n = lo - first + 8 spans [first - 16, lo). A gap small enough
  // for a chunk this process freed before is served from that chunk instead (seen about once in
  // 100 starts): the next blocks then start at `first`, still in the marked range.
  void* filler = std::malloc(lo - first + 8);
  if (filler != block) std::free(filler);
  return true;
#else
  (void)reserve_bytes;
  return false;
#endif
}

}  // namespace famsim
