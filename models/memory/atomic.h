// Atomic read-modify-write on a memory's backing store: the functional half of an atomic request
// (RequestExt::atomic). A memory target calls it when the request arrives, in arrival order, the
// same order in which it applies writes and serves reads; a channel is the one place every access
// to its addresses passes, so two atomics on one word can never interleave. The timing half (a
// read and a write-back of the word's burst, and the atomic unit's latency) is the caller's.
// The arithmetic (atomic_result) stands alone for a unit that reads and writes the word through
// another memory's interface instead (TlmMemoryBridge, models/cosim/tlm_memory_bridge.h).
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

// Throws std::invalid_argument for a word size other than 4 or 8 B or an `address` that is not a
// multiple of it: famsim's initiators and TlmBridge only make aligned 4 or 8 B atomics, so one
// that reaches a memory otherwise is famsim's own error.
inline void check_atomic_word(std::uint64_t address, const RequestExt& e) {
  const std::uint32_t len = e.length;
  if (!valid_atomic_length(len) || address % len != 0) {
    throw std::invalid_argument("atomic request " + std::to_string(e.id) + " of " +
                                std::to_string(len) + " B at channel address " +
                                std::to_string(address) +
                                ": atomics act on naturally aligned 4 or 8 B words");
  }
}

// The little-endian word of `len` (4 or 8) bytes at `bytes`, and back.
inline std::uint64_t load_atomic_word(const unsigned char* bytes, std::uint32_t len) {
  std::uint64_t w = 0;
  for (std::uint32_t i = 0; i < len; ++i) w |= std::uint64_t{bytes[i]} << (8 * i);
  return w;
}
// All eight bytes of `out` are filled (the loop bound is a constant), the first `len` of them the
// word's: GCC's overflow analysis cannot see that a length is at most 8 and rejects a loop
// bounded by it.
inline void store_atomic_word(std::uint64_t w, unsigned char (&out)[8]) {
  for (std::uint32_t i = 0; i < 8; ++i) out[i] = static_cast<unsigned char>(w >> (8 * i));
}

// The word `e.atomic` leaves in place of `old` (a word of e.length bytes, 4 or 8):
//   fetch-add          (old + operand) mod 2^(8 x length)
//   compare-and-swap   operand (cut to the length) if old == compare (cut to the length), else old
// A result equal to `old` (a compare-and-swap that missed, a fetch-add of 0) changes nothing, and
// the callers skip the write-back then.
inline std::uint64_t atomic_result(const RequestExt& e, std::uint64_t old) {
  const std::uint32_t len = e.length;
  const std::uint64_t mask = len == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * len)) - 1;
  if (e.atomic == AtomicOp::kFetchAdd) return (old + e.atomic_operand) & mask;
  if (e.atomic == AtomicOp::kCompareSwap && old == (e.atomic_compare & mask)) {
    return e.atomic_operand & mask;
  }
  return old;
}

// Executes `e.atomic` on the little-endian word at `address` of `store` and writes the word's old
// value to `old_value` (e.length bytes). Throws as check_atomic_word.
inline void execute_atomic(BackingStore& store, std::uint64_t address, const RequestExt& e,
                           unsigned char* old_value) {
  check_atomic_word(address, e);
  const std::uint32_t len = e.length;
  store.read(address, old_value, len);
  const std::uint64_t old = load_atomic_word(old_value, len);
  const std::uint64_t now = atomic_result(e, old);
  if (now == old) return;
  unsigned char bytes[8];
  store_atomic_word(now, bytes);
  store.write(address, bytes, len);
}

}  // namespace famsim
