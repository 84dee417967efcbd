// Sparse backing store: the data a memory target holds, so a read returns what was written.
// Pages are created on first write only; reading a never-written byte gives 0.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>

namespace famsim {

class BackingStore {
 public:
  static constexpr std::uint64_t kPageBytes = 4096;

  void write(std::uint64_t addr, const unsigned char* src, std::uint64_t len) {
    while (len > 0) {
      const std::uint64_t off = addr % kPageBytes;
      const std::uint64_t n = std::min(len, kPageBytes - off);
      auto& page = pages_[addr / kPageBytes];
      if (!page) page.reset(new unsigned char[kPageBytes]());
      std::memcpy(page.get() + off, src, n);
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
        std::memcpy(dst, it->second.get() + off, n);
      }
      addr += n;
      dst += n;
      len -= n;
    }
  }

  std::uint64_t pages() const { return pages_.size(); }

 private:
  std::unordered_map<std::uint64_t, std::unique_ptr<unsigned char[]>> pages_;
};

}  // namespace famsim
