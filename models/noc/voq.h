// Virtual output queues of one crossbar input: one FIFO per output, all sharing one buffer of a
// fixed number of entries (an input buffer of `capacity` messages, whichever outputs they are
// for). A message for a busy output then never blocks one for a free output behind it (no
// head-of-line blocking), and the buffer an input needs does not grow with the radix.
// Storage is a pool of entries linked into per-output lists: sized once, no allocation after.
// Plain C++, no SystemC (tests/unit/matching_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace famsim {

template <class T>
class VirtualOutputQueues {
 public:
  VirtualOutputQueues() = default;
  VirtualOutputQueues(unsigned outputs, std::size_t capacity) { configure(outputs, capacity); }

  void configure(unsigned outputs, std::size_t capacity) {
    if (count_ != 0) throw std::logic_error("resizing non-empty virtual output queues");
    items_.assign(capacity, T{});
    next_.resize(capacity);
    for (std::size_t k = 0; k < capacity; ++k) {
      next_[k] = k + 1 < capacity ? static_cast<std::uint32_t>(k + 1) : kNil;
    }
    free_ = capacity ? 0 : kNil;
    head_.assign(outputs, kNil);
    tail_.assign(outputs, kNil);
    length_.assign(outputs, 0);
  }

  std::size_t capacity() const { return items_.size(); }
  std::size_t size() const { return count_; }
  bool full() const { return count_ == items_.size(); }
  bool empty() const { return count_ == 0; }
  bool empty(unsigned output) const { return head_[output] == kNil; }
  std::uint32_t size(unsigned output) const { return length_[output]; }

  void push_back(unsigned output, const T& v) {
    if (free_ == kNil) throw std::logic_error("push into full virtual output queues");
    const std::uint32_t k = free_;
    free_ = next_[k];
    items_[k] = v;
    next_[k] = kNil;
    if (tail_[output] == kNil) {
      head_[output] = k;
    } else {
      next_[tail_[output]] = k;
    }
    tail_[output] = k;
    ++length_[output];
    ++count_;
  }
  T& front(unsigned output) { return items_[head_[output]]; }
  const T& front(unsigned output) const { return items_[head_[output]]; }
  void pop_front(unsigned output) {
    const std::uint32_t k = head_[output];
    if (k == kNil) throw std::logic_error("pop from an empty virtual output queue");
    head_[output] = next_[k];
    if (head_[output] == kNil) tail_[output] = kNil;
    next_[k] = free_;
    free_ = k;
    --length_[output];
    --count_;
  }

 private:
  static constexpr std::uint32_t kNil = ~std::uint32_t{0};
  std::vector<T> items_;
  std::vector<std::uint32_t> next_;  // per entry: next in its queue, or in the free list
  std::vector<std::uint32_t> head_;  // per output
  std::vector<std::uint32_t> tail_;  // per output
  std::vector<std::uint32_t> length_;
  std::uint32_t free_ = kNil;
  std::size_t count_ = 0;
};

}  // namespace famsim
