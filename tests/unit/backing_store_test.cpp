// The sparse backing store: reads return the bytes written, across page edges, and 0 where nothing
// was written; pages are made only where writes land (counted by hand from kPageBytes = 256); its
// page table keeps every page as it grows, wherever the page numbers lie.
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

TEST(BackingStore, ThePageTableKeepsEveryPageAsItGrows) {
  // 100,000 one-byte writes, each to its own page: page numbers 0 .. 49,999 one after another
  // (the start of a sequential stream) and 50,000 more spread down from the top of a 2^40-byte
  // channel (2^32 pages), 2^16 + 1 pages apart (the lowest is 2^32 - 1 - 49,999 x 65,537 =
  // 1,018,182,832), so the table doubles from 64 slots many times over with neighbouring and
  // far-apart numbers in it. Every byte reads back, a byte between them reads 0.
  BackingStore s;
  constexpr std::uint64_t kRun = 50'000;
  constexpr std::uint64_t kStride = (std::uint64_t{1} << 16) + 1;
  const auto far_page = [&](std::uint64_t k) { return (std::uint64_t{1} << 32) - 1 - k * kStride; };
  const auto value = [](std::uint64_t k) { return static_cast<unsigned char>(k % 253 + 1); };
  for (std::uint64_t k = 0; k < kRun; ++k) {
    const unsigned char a = value(k), b = value(k + 7);
    s.write(k * BackingStore::kPageBytes + 5, &a, 1);
    s.write(far_page(k) * BackingStore::kPageBytes + 127, &b, 1);
  }
  EXPECT_EQ(s.pages(), 2 * kRun);
  for (std::uint64_t k = 0; k < kRun; ++k) {
    unsigned char near[2] = {0xAA, 0xAA}, far[2] = {0xAA, 0xAA};
    s.read(k * BackingStore::kPageBytes + 4, near, 2);
    s.read(far_page(k) * BackingStore::kPageBytes + 126, far, 2);
    ASSERT_EQ(near[0], 0) << "page " << k;
    ASSERT_EQ(near[1], value(k)) << "page " << k;
    ASSERT_EQ(far[0], 0) << "page " << far_page(k);
    ASSERT_EQ(far[1], value(k + 7)) << "page " << far_page(k);
  }
  // Pages never written, beside written ones and between the far ones, read 0.
  unsigned char gap[3] = {1, 1, 1};
  s.read(kRun * BackingStore::kPageBytes, gap, 1);
  s.read((far_page(0) - 1) * BackingStore::kPageBytes, gap + 1, 1);
  s.read((far_page(1) + 1) * BackingStore::kPageBytes + 127, gap + 2, 1);
  EXPECT_EQ(gap[0], 0);
  EXPECT_EQ(gap[1], 0);
  EXPECT_EQ(gap[2], 0);
  EXPECT_EQ(s.pages(), 2 * kRun);
}

TEST(BackingStore, AStoreNeverWrittenReadsZero) {
  const BackingStore s;
  unsigned char b[300];
  for (unsigned char& x : b) x = 0xEE;
  s.read(123'456'789, b, sizeof b);
  for (unsigned i = 0; i < sizeof b; ++i) ASSERT_EQ(b[i], 0) << "byte " << i;
  EXPECT_EQ(s.pages(), 0u);
}

}  // namespace
}  // namespace famsim
