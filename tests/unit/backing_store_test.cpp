// The sparse backing store: reads return the bytes written, across page edges, and 0 where nothing
// was written; pages are made only where writes land (counted by hand from kPageBytes = 256).
#include "models/memory/backing_store.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace famsim {
namespace {

TEST(BackingStore, ReadsReturnWhatWasWrittenAndZeroElsewhere) {
  BackingStore s;
  // 1000 bytes from address 200 span bytes 200..1199: pages 0 (0-255) to 4 (1024-1279).
  std::vector<unsigned char> data(1000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 7 + 1);
  s.write(200, data.data(), data.size());
  EXPECT_EQ(s.pages(), 5u);
  // Read 1100 bytes from 150: 50 unwritten, the 1000 written, 50 unwritten.
  std::vector<unsigned char> got(1100, 0xAA);
  s.read(150, got.data(), got.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    const unsigned char want = (i < 50 || i >= 1050) ? 0 : data[i - 50];
    ASSERT_EQ(got[i], want) << "byte " << 150 + i;
  }
  // An overwrite inside one page changes those bytes only.
  const unsigned char patch[3] = {9, 8, 7};
  s.write(510, patch, 3);  // bytes 510..512 cross from page 1 into page 2
  unsigned char back[5];
  s.read(509, back, 5);
  EXPECT_EQ(back[0], data[309]);
  EXPECT_EQ(back[1], 9);
  EXPECT_EQ(back[2], 8);
  EXPECT_EQ(back[3], 7);
  EXPECT_EQ(back[4], data[313]);
  EXPECT_EQ(s.pages(), 5u);
}

TEST(BackingStore, ScatteredWritesTakeAPageEachAndSlabsDoNotOverlap) {
  // 600 writes of 128 bytes, 4 KiB apart: 600 pages, more than the 256 pages of one 64 KiB slab,
  // each holding its own write.
  BackingStore s;
  constexpr unsigned kWrites = 600;
  for (unsigned k = 0; k < kWrites; ++k) {
    std::vector<unsigned char> d(128, static_cast<unsigned char>(k % 251 + 1));
    s.write(std::uint64_t{k} * 4096 + 64, d.data(), d.size());
  }
  EXPECT_EQ(s.pages(), kWrites);
  for (unsigned k = 0; k < kWrites; ++k) {
    unsigned char b[192];
    s.read(std::uint64_t{k} * 4096, b, sizeof b);
    for (unsigned i = 0; i < sizeof b; ++i) {
      const unsigned char want = (i < 64) ? 0 : static_cast<unsigned char>(k % 251 + 1);
      ASSERT_EQ(b[i], want) << "write " << k << " byte " << i;
    }
  }
}

}  // namespace
}  // namespace famsim
