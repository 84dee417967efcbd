// Sparse backing store: the data a memory target holds, so a read returns what was written.
// Pages are created on first write only; reading a never-written byte gives 0.
//
// A page is 256 bytes, two default-sized requests: what a scattered write touches. With 4 KiB
// pages a random 128-byte write made a page of its own, 32 times the bytes it wrote: nvl8_fam at
// read_fraction 0.7, 16 MiB per GPU, took 1297 MiB of peak RSS (89 k requests per host second,
// the zeroing of each new page included); with 256-byte pages from slabs of 64 KiB, so that a
// new page costs no allocation of its own, 164 MiB (174 k). 128-byte pages took that to 131 MiB
// and 7 % less simulation time (tests/bench/ab_pair.sh, 2026-12-07), but bulk writes, which fill
// whole pages, then needed twice the table slots: traffic/kv_decode_qwen3_next.yaml at 8 layers,
// 393 MiB stored, peaked at 654 MiB against 609 MiB with 256-byte pages.
//
// The pages are found through an open-addressing table of (page number, page) slots, probed in
// a row from the page number's multiplicative hash, at most 5/8 full (grown by doubling). It took
// the place of a std::unordered_map, whose lookup divided by its bucket count and then followed
// three pointers (the bucket, the node before the page's node, the node), each a likely cache
// miss with thousands of requests in flight, and which allocated a node per page: on famsim bench
// with 30 % writes perf put about 6 % of the samples on that lookup, and the table took 6 % off
// the simulation time (tests/bench/ab_pair.sh, median of 8 pairs, 2026-12-07); the 8-layer
// kv_decode_qwen3_next run above 11 % (median of 4 pairs, 0.81-0.97), peaking at 609 MiB against
// 641 MiB. A lookup is a multiply, a shift and, mostly, one cache line. The slots are the
// overhead left: 16 bytes at 31-62 % fill, 26-51 bytes a page. A store never written to
// allocates nothing (a platform has thousands of channels, most idle).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace famsim {

class BackingStore {
 public:
  static constexpr std::uint64_t kPageBytes = 256;

  void write(std::uint64_t addr, const unsigned char* src, std::uint64_t len) {
    while (len > 0) {
      const std::uint64_t off = addr % kPageBytes;
      const std::uint64_t n = std::min(len, kPageBytes - off);
      std::memcpy(page_for_write(addr / kPageBytes) + off, src, n);
      addr += n;
      src += n;
      len -= n;
    }
  }

  void read(std::uint64_t addr, unsigned char* dst, std::uint64_t len) const {
    while (len > 0) {
      const std::uint64_t off = addr % kPageBytes;
      const std::uint64_t n = std::min(len, kPageBytes - off);
      const unsigned char* page = find(addr / kPageBytes);
      if (page == nullptr) {
        std::memset(dst, 0, n);
      } else {
        std::memcpy(dst, page + off, n);
      }
      addr += n;
      dst += n;
      len -= n;
    }
  }

  // Pages written to, of kPageBytes each.
  std::uint64_t pages() const { return pages_; }

 private:
  static constexpr std::uint64_t kSlabBytes = 64 * 1024;
  static constexpr std::uint64_t kPagesPerSlab = kSlabBytes / kPageBytes;
  static constexpr unsigned kFirstTableBits = 6;  // 64 slots, 1 KiB, on the first write

  // A slot holds page number `number` when `page` is set; an empty slot ends a probe.
  struct Slot {
    std::uint64_t number = 0;
    unsigned char* page = nullptr;
  };

  // The slot a probe for page number `number` starts at: the top table_bits_ bits of the number
  // times 2^64 / golden ratio (Knuth, TAOCP vol. 3, 6.4, multiplicative hashing), which spreads
  // runs of neighbouring page numbers over the table.
  std::size_t home(std::uint64_t number) const {
    return static_cast<std::size_t>((number * 0x9E3779B97F4A7C15ull) >> (64 - table_bits_));
  }

  // The slot holding page number `number`, or the empty slot that ends its probe (where it would
  // go). The table has an empty slot: it is at most 5/8 full.
  std::size_t probe(std::uint64_t number) const {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = home(number);
    while (slots_[i].page != nullptr && slots_[i].number != number) i = (i + 1) & mask;
    return i;
  }

  const unsigned char* find(std::uint64_t number) const {
    return pages_ == 0 ? nullptr : slots_[probe(number)].page;
  }

  unsigned char* page_for_write(std::uint64_t number) {
    if (slots_.empty()) {
      table_bits_ = kFirstTableBits;
      slots_.resize(std::size_t{1} << table_bits_);
    }
    std::size_t i = probe(number);
    if (slots_[i].page != nullptr) return slots_[i].page;
    if ((pages_ + 1) * 8 > slots_.size() * 5) {
      grow();
      i = probe(number);
    }
    slots_[i] = Slot{number, new_page()};
    ++pages_;
    return slots_[i].page;
  }

  // Doubles the table and puts every page back in it (each in the empty slot its probe ends at:
  // page numbers are unique).
  void grow() {
    const std::vector<Slot> old = std::move(slots_);
    ++table_bits_;
    slots_.assign(std::size_t{1} << table_bits_, Slot{});
    for (const Slot& s : old) {
      if (s.page != nullptr) slots_[probe(s.number)] = s;
    }
  }

  // A zeroed page from the current slab, a new slab when it is used up.
  unsigned char* new_page() {
    if (slab_used_ == kPagesPerSlab) {
      slabs_.push_back(std::make_unique<unsigned char[]>(kSlabBytes));  // value-initialised: 0
      slab_used_ = 0;
    }
    return slabs_.back().get() + kPageBytes * slab_used_++;
  }

  std::vector<Slot> slots_;  // a power of two of them, or none before the first write
  unsigned table_bits_ = 0;  // log2 of slots_.size()
  std::uint64_t pages_ = 0;
  std::vector<std::unique_ptr<unsigned char[]>> slabs_;
  std::uint64_t slab_used_ = kPagesPerSlab;
};

}  // namespace famsim
