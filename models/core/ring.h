// Fixed-capacity FIFO. Every finite buffer in famsim is one of these, sized from configuration at
// elaboration: pushing into a full ring is a logic error (the owning block must have withheld
// END_REQ / END_RESP instead), and nothing allocates after construction.
//
// The storage is the capacity rounded up to a power of two, so that an index wraps with one AND
// and full() compares with a stored capacity: every hop pushes and pops several rings per message,
// and working out the vector's size (a division by the element's size) and comparing cost about
// twice as much (famsim bench, callgrind).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <vector>

namespace famsim {

template <class T>
class Ring {
 public:
  Ring() = default;
  explicit Ring(std::size_t capacity) { set_capacity(capacity); }

  void set_capacity(std::size_t capacity) {
    if (count_ != 0) throw std::logic_error("resizing a non-empty ring");
    std::size_t slots = 1;
    while (slots < capacity) slots *= 2;
    buf_.assign(slots, T{});
    capacity_ = capacity;
    mask_ = slots - 1;
    head_ = 0;
  }

  std::size_t capacity() const { return capacity_; }
  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  bool full() const { return count_ == capacity_; }

  T& front() { return buf_[head_]; }
  const T& front() const { return buf_[head_]; }
  T& operator[](std::size_t i) { return buf_[wrap(head_ + i)]; }
  const T& operator[](std::size_t i) const { return buf_[wrap(head_ + i)]; }

  void push_back(const T& v) {
    if (full()) throw std::logic_error("push into a full ring");
    buf_[wrap(head_ + count_)] = v;
    ++count_;
  }
  void pop_front() {
    if (empty()) throw std::logic_error("pop from an empty ring");
    head_ = wrap(head_ + 1);
    --count_;
  }

 private:
  std::size_t wrap(std::size_t i) const { return i & mask_; }

  std::vector<T> buf_;  // a power of two of slots, at least capacity_
  std::size_t capacity_ = 0;
  std::size_t mask_ = 0;  // slots - 1
  std::size_t head_ = 0;
  std::size_t count_ = 0;
};

}  // namespace famsim
