// Atomic read-modify-write on a memory's backing store: the functional half of an atomic request
// (RequestExt::atomic). A memory target calls it when the request arrives, in arrival order, the
// same order in which it applies writes and serves reads; a channel is the one place every access
// to its addresses passes, so two atomics on one word can never interleave. The timing half (a
// read and a write-back of the word's burst, and the atomic unit's latency) is the caller's.
// No SystemC in it.
#pragma once

#include "models/core/request.h"
#include "models/memory/backing_store.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace famsim {

// Word sizes an atomic may have, bytes.
inline bool valid_atomic_length(std::uint32_t length) { return length == 4 || length == 8; }

// Executes `e.atomic` on the little-endian word at `address` of `store` and writes the word's old
// value to `old_value` (e.length bytes). Throws std::invalid_argument for a word size other than
// 4 or 8 B or an address that is not a multiple of it.
inline void execute_atomic(BackingStore& store, std::uint64_t address, const RequestExt& e,
                           unsigned char* old_value) {
  const std::uint32_t len = e.length;
  if (!valid_atomic_length(len) || address % len != 0) {
    throw std::invalid_argument("atomic request " + std::to_string(e.id) + " of " +
                                std::to_string(len) + " B at channel address " +
                                std::to_string(address) +
                                ": atomics act on naturally aligned 4 or 8 B words");
  }
  store.read(address, old_value, len);
  std::uint64_t old = 0;
  for (std::uint32_t i = 0; i < len; ++i) old |= std::uint64_t{old_value[i]} << (8 * i);
  const std::uint64_t mask = len == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * len)) - 1;
  std::uint64_t now = old;
  if (e.atomic == AtomicOp::kFetchAdd) {
    now = (old + e.atomic_operand) & mask;
  } else if (e.atomic == AtomicOp::kCompareSwap) {
    if (old == (e.atomic_compare & mask)) now = e.atomic_operand & mask;
  }
  if (now == old) return;
  // All eight bytes are filled (the loop bound is a constant), the first `len` written: GCC's
  // overflow analysis cannot see that `len` is at most 8 and rejects a loop bounded by it.
  unsigned char bytes[8];
  for (std::uint32_t i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(now >> (8 * i));
  store.write(address, bytes, len);
}

}  // namespace famsim
