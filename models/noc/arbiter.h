// Arbitration policies: which of several requesters wins a shared resource this cycle. Plain C++,
// no SystemC, tested alone. Requesters are a bit set; the arbiter keeps its own fairness state.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace famsim {

// A fixed-size bit set sized at elaboration (dynamic size, no allocation after construction).
// A set of up to 64 indices (every set of a shipped platform) keeps its word inside the object:
// a crossbar reads and writes several sets per message, and a word on the heap was a cache line
// of its own, apart from the one holding the set (famsim bench, cachegrind).
class RequestSet {
 public:
  RequestSet() = default;
  explicit RequestSet(unsigned n) : n_(n), words_count_((n + 63) / 64) {
    if (words_count_ > 1) {
      heap_.reset(new std::uint64_t[words_count_]());
      words_ = heap_.get();
    }
  }
  RequestSet(const RequestSet& other) { *this = other; }
  RequestSet& operator=(const RequestSet& other) {
    if (this == &other) return *this;
    n_ = other.n_;
    words_count_ = other.words_count_;
    local_ = other.local_;
    if (words_count_ > 1) {
      heap_.reset(new std::uint64_t[words_count_]);
      std::copy(other.words_, other.words_ + words_count_, heap_.get());
      words_ = heap_.get();
    } else {
      heap_.reset();
      words_ = &local_;
    }
    return *this;
  }

  unsigned size() const { return n_; }
  // The bits of indices 64k .. 64k + 63.
  std::size_t words() const { return words_count_; }
  std::uint64_t word(std::size_t k) const { return words_[k]; }
  // Clears every bit (no allocation).
  void reset() {
    for (std::size_t k = 0; k < words_count_; ++k) words_[k] = 0;
  }
  // Takes the bits of `other`, a set of the same size (not empty). Word by word, the first
  // outside the loop: for a set of up to 64 indices, the common case, that is one load and one
  // store, where the vector's assignment (or a loop GCC turns into one) calls memmove.
  void copy_from(const RequestSet& other) {
    words_[0] = other.words_[0];
    for (std::size_t k = 1; k < words_count_; ++k) words_[k] = other.words_[k];
  }
  void set(unsigned i) { words_[i >> 6] |= (std::uint64_t{1} << (i & 63)); }
  void clear(unsigned i) { words_[i >> 6] &= ~(std::uint64_t{1} << (i & 63)); }
  bool test(unsigned i) const { return (words_[i >> 6] >> (i & 63)) & 1U; }
  bool any() const {
    for (std::size_t k = 0; k < words_count_; ++k) {
      if (words_[k]) return true;
    }
    return false;
  }
  unsigned count() const {
    unsigned c = 0;
    for (std::size_t k = 0; k < words_count_; ++k) {
      c += static_cast<unsigned>(__builtin_popcountll(words_[k]));
    }
    return c;
  }
  // First set index at or after `from` without wrapping; size() when none.
  unsigned next_at_or_after(unsigned from) const {
    if (from >= n_) return n_;
    std::size_t wi = from >> 6;
    std::uint64_t w = words_[wi] & (~std::uint64_t{0} << (from & 63));
    while (true) {
      if (w) {
        const unsigned i =
            static_cast<unsigned>((wi << 6) + static_cast<unsigned>(__builtin_ctzll(w)));
        return i < n_ ? i : n_;
      }
      if (++wi >= words_count_) return n_;
      w = words_[wi];
    }
  }
  // First set index at or after `from`, wrapping around; size() when empty.
  unsigned next_from(unsigned from) const {
    if (words_count_ == 1) {
      // Up to 64 indices (every arbiter of a shipped platform, once per grant): the set is one
      // word, so the first index at or after `from`, else the first at all, is a mask and a
      // count of trailing zeros, without next_at_or_after()'s word loop run twice.
      const std::uint64_t w = words_[0];
      if (w == 0) return n_;
      const std::uint64_t later = from < 64 ? w & (~std::uint64_t{0} << from) : 0;
      return static_cast<unsigned>(__builtin_ctzll(later != 0 ? later : w));
    }
    const unsigned i = next_at_or_after(from);
    return i < n_ ? i : next_at_or_after(0);
  }
  // As next_from, over the indices set here and clear in `excluded` (same size): the first
  // requester at or after `from` that is not yet taken.
  unsigned next_from_excluding(unsigned from, const RequestSet& excluded) const {
    const unsigned i = next_at_or_after_excluding(from, excluded);
    return i < n_ ? i : next_at_or_after_excluding(0, excluded);
  }
  unsigned next_at_or_after_excluding(unsigned from, const RequestSet& excluded) const {
    if (from >= n_) return n_;
    std::size_t wi = from >> 6;
    std::uint64_t w = words_[wi] & ~excluded.words_[wi] & (~std::uint64_t{0} << (from & 63));
    while (true) {
      if (w) {
        const unsigned i =
            static_cast<unsigned>((wi << 6) + static_cast<unsigned>(__builtin_ctzll(w)));
        return i < n_ ? i : n_;
      }
      if (++wi >= words_count_) return n_;
      w = words_[wi] & ~excluded.words_[wi];
    }
  }
  // Sets every index set in `other` (same size).
  void merge(const RequestSet& other) {
    for (std::size_t k = 0; k < words_count_; ++k) words_[k] |= other.words_[k];
  }
  // True when some index is set here and clear in `excluded` (same size).
  bool any_excluding(const RequestSet& excluded) const {
    for (std::size_t k = 0; k < words_count_; ++k) {
      if (words_[k] & ~excluded.words_[k]) return true;
    }
    return false;
  }
  // True when some index is set both here and in `other` (same size).
  bool intersects(const RequestSet& other) const {
    for (std::size_t k = 0; k < words_count_; ++k) {
      if (words_[k] & other.words_[k]) return true;
    }
    return false;
  }

 private:
  unsigned n_ = 0;
  unsigned words_count_ = 0;
  // The words: local_ for up to 64 indices, else heap_'s.
  std::uint64_t* words_ = &local_;
  std::uint64_t local_ = 0;
  std::unique_ptr<std::uint64_t[]> heap_;
};

class Arbiter {
 public:
  virtual ~Arbiter() = default;
  // Picks one requester from a non-empty set and updates fairness state.
  virtual unsigned pick(const RequestSet& requests) = 0;
};

// Round-robin: the requester after the last winner goes first.
class RoundRobinArbiter : public Arbiter {
 public:
  unsigned pick(const RequestSet& requests) override {
    const unsigned w = requests.next_from(next_ >= requests.size() ? 0 : next_);
    next_ = w + 1;
    return w;
  }

 private:
  unsigned next_ = 0;
};

}  // namespace famsim
