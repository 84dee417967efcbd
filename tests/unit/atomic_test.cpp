// The arithmetic of famsim's atomics (models/memory/atomic.h), which the device's memories
// (execute_atomic on their backing store) and the bridge to a foreign memory (atomic_result on the
// word it read) share: each value below is worked out by hand from the operation's definition.
#include "models/memory/atomic.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>

namespace famsim {
namespace {

RequestExt atomic(AtomicOp op, std::uint32_t length, std::uint64_t operand,
                  std::uint64_t compare = 0) {
  RequestExt e;
  e.atomic = op;
  e.length = length;
  e.atomic_operand = operand;
  e.atomic_compare = compare;
  return e;
}

TEST(AtomicResult, FetchAddWrapsAtTheWordsLength) {
  EXPECT_EQ(atomic_result(atomic(AtomicOp::kFetchAdd, 8, 1), 41), 42u);
  // 8 B: 2^64 - 1 + 2 = 1 (mod 2^64).
  EXPECT_EQ(atomic_result(atomic(AtomicOp::kFetchAdd, 8, 2), ~std::uint64_t{0}), 1u);
  // 4 B: 0xFFFFFFFF + 1 = 0 (mod 2^32), nothing carried into bit 32.
  EXPECT_EQ(atomic_result(atomic(AtomicOp::kFetchAdd, 4, 1), 0xFFFFFFFFu), 0u);
  // 4 B with an operand wider than the word: 0x10 + 0x1'0000'0003 = 0x13 (mod 2^32).
  EXPECT_EQ(atomic_result(atomic(AtomicOp::kFetchAdd, 4, 0x100000003ull), 0x10), 0x13u);
  // +0 leaves the word as it is (no write-back then).
  EXPECT_EQ(atomic_result(atomic(AtomicOp::kFetchAdd, 8, 0), 7), 7u);
}

TEST(AtomicResult, CompareAndSwapReplacesOnlyOnAMatch) {
  EXPECT_EQ(atomic_result(atomic(AtomicOp::kCompareSwap, 8, 99, 5), 5), 99u);
  EXPECT_EQ(atomic_result(atomic(AtomicOp::kCompareSwap, 8, 99, 5), 6), 6u);
  // 4 B: compare and operand are cut to the word, 0x1'0000'0005 compares as 5 and 0x2'0000'0009
  // is stored as 9.
  EXPECT_EQ(atomic_result(atomic(AtomicOp::kCompareSwap, 4, 0x200000009ull, 0x100000005ull), 5),
            9u);
}

TEST(AtomicResult, TheWordIsLittleEndian) {
  const unsigned char bytes[8] = {0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11};
  EXPECT_EQ(load_atomic_word(bytes, 8), 0x1122334455667788ull);
  EXPECT_EQ(load_atomic_word(bytes, 4), 0x55667788u);
  unsigned char out[8];
  store_atomic_word(0x0102030405060708ull, out);
  EXPECT_EQ(out[0], 0x08);
  EXPECT_EQ(out[7], 0x01);
}

TEST(AtomicResult, ExecuteOnAStoreWritesOnlyAChangedWordAndReturnsTheOld) {
  BackingStore store;
  const unsigned char ones[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xAB, 0xCD, 0xEF, 0x01};
  store.write(64, ones, 8);
  unsigned char old[4];
  execute_atomic(store, 64, atomic(AtomicOp::kFetchAdd, 4, 1), old);
  EXPECT_EQ(load_atomic_word(old, 4), 0xFFFFFFFFu);
  unsigned char now[8];
  store.read(64, now, 8);
  EXPECT_EQ(load_atomic_word(now, 8), 0x01EFCDAB00000000ull) << "the next 4 B are unchanged";
  EXPECT_THROW(execute_atomic(store, 66, atomic(AtomicOp::kFetchAdd, 4, 1), old),
               std::invalid_argument);
  EXPECT_THROW(check_atomic_word(64, atomic(AtomicOp::kFetchAdd, 2, 1)), std::invalid_argument);
}

}  // namespace
}  // namespace famsim
