// Ring: fixed-capacity FIFO.
#include "models/core/ring.h"

#include <gtest/gtest.h>

#include <deque>
#include <stdexcept>

namespace famsim {
namespace {

TEST(Ring, FullAndEmpty) {
  Ring<int> r(3);
  EXPECT_EQ(r.capacity(), 3u);
  EXPECT_TRUE(r.empty());
  EXPECT_FALSE(r.full());
  EXPECT_EQ(r.size(), 0u);
  r.push_back(1);
  r.push_back(2);
  EXPECT_FALSE(r.empty());
  EXPECT_FALSE(r.full());
  r.push_back(3);
  EXPECT_TRUE(r.full());
  EXPECT_EQ(r.size(), 3u);
  EXPECT_THROW(r.push_back(4), std::logic_error);
  // The failed push changed nothing.
  EXPECT_EQ(r.size(), 3u);
  EXPECT_EQ(r.front(), 1);
  EXPECT_EQ(r[2], 3);
  r.pop_front();
  r.pop_front();
  r.pop_front();
  EXPECT_TRUE(r.empty());
  EXPECT_THROW(r.pop_front(), std::logic_error);
}

TEST(Ring, FifoOrderAcrossWrapAround) {
  Ring<int> r(3);
  r.push_back(1);
  r.push_back(2);
  r.push_back(3);
  r.pop_front();
  r.pop_front();
  r.push_back(4);  // stored in slot 0: wraps
  r.push_back(5);  // slot 1
  EXPECT_TRUE(r.full());
  EXPECT_EQ(r.front(), 3);
  EXPECT_EQ(r[0], 3);
  EXPECT_EQ(r[1], 4);
  EXPECT_EQ(r[2], 5);
  r.pop_front();
  EXPECT_EQ(r.front(), 4);
  r.pop_front();
  EXPECT_EQ(r.front(), 5);
  r.pop_front();
  EXPECT_TRUE(r.empty());
}

TEST(Ring, MatchesAQueueOverManyWraps) {
  // Push/pop in an irregular pattern that wraps many times; a std::deque is the reference.
  Ring<int> r(5);
  std::deque<int> ref;
  int next = 0;
  for (int step = 0; step < 1000; ++step) {
    const int pushes = step % 4;      // 0..3
    const int pops = (step * 7) % 3;  // 0..2
    for (int i = 0; i < pushes && !r.full(); ++i) {
      r.push_back(next);
      ref.push_back(next);
      ++next;
    }
    for (int i = 0; i < pops && !r.empty(); ++i) {
      ASSERT_EQ(r.front(), ref.front()) << "step " << step;
      r.pop_front();
      ref.pop_front();
    }
    ASSERT_EQ(r.size(), ref.size());
    for (std::size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(r[i], ref[i]) << "step " << step;
  }
  EXPECT_GT(next, 100);  // the ring really wrapped many times
}

TEST(Ring, ZeroCapacityIsAlwaysFull) {
  Ring<int> r;
  EXPECT_TRUE(r.empty());
  EXPECT_TRUE(r.full());
  EXPECT_THROW(r.push_back(1), std::logic_error);
}

TEST(Ring, SetCapacity) {
  Ring<int> r(2);
  r.push_back(1);
  EXPECT_THROW(r.set_capacity(4), std::logic_error);  // not empty
  r.pop_front();
  r.set_capacity(4);
  EXPECT_EQ(r.capacity(), 4u);
  for (int i = 0; i < 4; ++i) r.push_back(10 + i);
  EXPECT_TRUE(r.full());
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(r.front(), 10 + i);
    r.pop_front();
  }
}

}  // namespace
}  // namespace famsim
