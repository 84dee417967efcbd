// Sparse backing store: the data a memory target holds, so a read returns what was written.
// Pages are created on first write only; reading a never-written byte gives 0.
//
// A page is 256 bytes, two default-sized requests: what a scattered write touches. With 4 KiB
// pages a random 128-byte write made a page of its own, 32 times the bytes it wrote: nvl8_fam at
// read_fraction 0.7, 16 MiB per GPU, took 1297 MiB of peak RSS (89 k requests per host second,
// the zeroing of each new page included); with 256-byte pages from slabs of 64 KiB, so that a
// new page costs no allocation of its own, 164 MiB (174 k). The map's entry per page is the
// overhead left, about a sixth of a page.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

namespace famsim {

class BackingStore {
 public:
  static constexpr std::uint64_t kPageBytes = 256;

  void write(std::uint64_t addr, const unsigned char* src, std::uint64_t len) {
    while (len > 0) {
      const std::uint64_t off = addr % kPageBytes;
      const std::uint64_t n = std::min(len, kPageBytes - off);
      auto [it, fresh] = pages_.try_emplace(addr / kPageBytes, nullptr);
      if (fresh) it->second = new_page();
      std::memcpy(it->second + off, src, n);
      addr += n;
      src += n;
      len -= n;
    }
  }

  void read(std::uint64_t addr, unsigned char* dst, std::uint64_t len) const {
    while (len > 0) {
      const std::uint64_t off = addr % kPageBytes;
      const std::uint64_t n = std::min(len, kPageBytes - off);
      const auto it = pages_.find(addr / kPageBytes);
      if (it == pages_.end()) {
        std::memset(dst, 0, n);
      } else {
        std::memcpy(dst, it->second + off, n);
      }
      addr += n;
      dst += n;
      len -= n;
    }
  }

  // Pages written to, of kPageBytes each.
  std::uint64_t pages() const { return pages_.size(); }

 private:
  static constexpr std::uint64_t kSlabBytes = 64 * 1024;
  static constexpr std::uint64_t kPagesPerSlab = kSlabBytes / kPageBytes;

  // A zeroed page from the current slab, a new slab when it is used up.
  unsigned char* new_page() {
    if (slab_used_ == kPagesPerSlab) {
      slabs_.push_back(std::make_unique<unsigned char[]>(kSlabBytes));  // value-initialised: 0
      slab_used_ = 0;
    }
    return slabs_.back().get() + kPageBytes * slab_used_++;
  }

  std::unordered_map<std::uint64_t, unsigned char*> pages_;
  std::vector<std::unique_ptr<unsigned char[]>> slabs_;
  std::uint64_t slab_used_ = kPagesPerSlab;
};

}  // namespace famsim
