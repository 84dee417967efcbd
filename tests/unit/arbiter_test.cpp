// RequestSet (a bit set over several 64-bit words) and RoundRobinArbiter grant order.
#include "models/noc/arbiter.h"

#include <gtest/gtest.h>

#include <vector>

namespace famsim {
namespace {

// 130 requesters: three words, the last holding only bits 128 and 129.
constexpr unsigned kN = 130;

RequestSet make_set(const std::vector<unsigned>& bits) {
  RequestSet s(kN);
  for (unsigned b : bits) s.set(b);
  return s;
}

TEST(RequestSet, EmptySet) {
  const RequestSet s(kN);
  EXPECT_EQ(s.size(), kN);
  EXPECT_FALSE(s.any());
  EXPECT_EQ(s.count(), 0u);
  EXPECT_EQ(s.next_at_or_after(0), kN);
  EXPECT_EQ(s.next_from(0), kN);
  EXPECT_EQ(s.next_from(129), kN);
  for (unsigned i = 0; i < kN; ++i) EXPECT_FALSE(s.test(i)) << i;
}

TEST(RequestSet, SetTestClearAcrossWords) {
  RequestSet s = make_set({0, 63, 64, 127, 128, 129});
  EXPECT_TRUE(s.any());
  EXPECT_EQ(s.count(), 6u);
  for (unsigned i = 0; i < kN; ++i) {
    const bool want = i == 0 || i == 63 || i == 64 || i == 127 || i == 128 || i == 129;
    EXPECT_EQ(s.test(i), want) << i;
  }
  s.clear(63);
  s.clear(128);
  EXPECT_EQ(s.count(), 4u);
  EXPECT_FALSE(s.test(63));
  EXPECT_FALSE(s.test(128));
  EXPECT_TRUE(s.test(64));
  EXPECT_TRUE(s.test(129));
  s.clear(0);
  s.clear(64);
  s.clear(127);
  s.clear(129);
  EXPECT_FALSE(s.any());
  EXPECT_EQ(s.count(), 0u);
}

TEST(RequestSet, NextAtOrAfterDoesNotWrap) {
  const RequestSet s = make_set({3, 63, 64, 129});
  EXPECT_EQ(s.next_at_or_after(0), 3u);
  EXPECT_EQ(s.next_at_or_after(3), 3u);
  EXPECT_EQ(s.next_at_or_after(4), 63u);
  EXPECT_EQ(s.next_at_or_after(63), 63u);
  EXPECT_EQ(s.next_at_or_after(64), 64u);
  EXPECT_EQ(s.next_at_or_after(65), 129u);   // skips the whole of word 1 from bit 65
  EXPECT_EQ(s.next_at_or_after(128), 129u);  // inside the last, partial word
  EXPECT_EQ(s.next_at_or_after(129), 129u);
  EXPECT_EQ(s.next_at_or_after(130), kN);  // past the end
  EXPECT_EQ(s.next_at_or_after(1000), kN);

  const RequestSet low = make_set({3, 63, 64});
  EXPECT_EQ(low.next_at_or_after(65), kN);  // nothing after 64, no wrap
}

TEST(RequestSet, NextFromWraps) {
  const RequestSet s = make_set({3, 63, 64, 129});
  EXPECT_EQ(s.next_from(0), 3u);
  EXPECT_EQ(s.next_from(65), 129u);
  EXPECT_EQ(s.next_from(130), 3u);  // from past the end wraps to the first
  const RequestSet low = make_set({3, 63, 64});
  EXPECT_EQ(low.next_from(65), 3u);   // wraps
  EXPECT_EQ(low.next_from(129), 3u);  // wraps from the last index
  const RequestSet one = make_set({129});
  EXPECT_EQ(one.next_from(0), 129u);
  EXPECT_EQ(one.next_from(129), 129u);
}

TEST(RequestSet, NextFromWrapsWithinOneWord) {
  // Up to 64 indices take next_from()'s one-word path: the same answers as across words.
  RequestSet full(64);
  full.set(5);
  full.set(63);
  EXPECT_EQ(full.next_from(0), 5u);
  EXPECT_EQ(full.next_from(5), 5u);
  EXPECT_EQ(full.next_from(6), 63u);
  EXPECT_EQ(full.next_from(63), 63u);  // the word's last bit
  EXPECT_EQ(full.next_from(64), 5u);   // from past the end wraps to the first
  EXPECT_EQ(full.next_from(1000), 5u);
  RequestSet part(40);
  part.set(7);
  part.set(20);
  EXPECT_EQ(part.next_from(21), 7u);  // wraps
  EXPECT_EQ(part.next_from(45), 7u);  // past the end, still inside the word
  part.clear(7);
  part.clear(20);
  EXPECT_EQ(part.next_from(0), 40u);  // empty: size()
  EXPECT_EQ(part.next_from(39), 40u);
}

TEST(RoundRobinArbiter, FixedPatternGrantsInTurn) {
  // Requesters 0, 2, 3 of 4 always request: grants 0, 2, 3, then wrap.
  RequestSet s(4);
  s.set(0);
  s.set(2);
  s.set(3);
  RoundRobinArbiter arb;
  const std::vector<unsigned> expected = {0, 2, 3, 0, 2, 3, 0, 2, 3};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(arb.pick(s), expected[i]) << "grant " << i;
  }
}

TEST(RoundRobinArbiter, ChangingRequestsHandWorked) {
  // Four requesters; the pattern changes between picks. After a grant to w the search starts at
  // w + 1 (wrapping past the last requester to 0).
  RoundRobinArbiter arb;
  RequestSet s(4);
  s.set(1);
  s.set(3);
  EXPECT_EQ(arb.pick(s), 1u);  // search from 0: first is 1
  s.set(2);
  EXPECT_EQ(arb.pick(s), 2u);  // from 2: 2 (a new request right after the winner goes next)
  EXPECT_EQ(arb.pick(s), 3u);  // from 3: 3
  s.set(0);
  EXPECT_EQ(arb.pick(s), 0u);  // from 4 -> wrap to 0
  s.clear(1);
  EXPECT_EQ(arb.pick(s), 2u);  // from 1: 1 dropped out, so 2
  s.clear(3);
  EXPECT_EQ(arb.pick(s), 0u);  // from 3: 3 dropped out, wrap to 0
  EXPECT_EQ(arb.pick(s), 2u);  // from 1: 2
}

TEST(RoundRobinArbiter, EveryRequesterServedOncePerRound) {
  // All 130 requesters request continuously: each round of 130 grants is 0, 1, ..., 129.
  RequestSet s(kN);
  for (unsigned i = 0; i < kN; ++i) s.set(i);
  RoundRobinArbiter arb;
  for (unsigned round = 0; round < 3; ++round) {
    for (unsigned i = 0; i < kN; ++i) {
      ASSERT_EQ(arb.pick(s), i) << "round " << round;
    }
  }
  // A sparse pattern spanning all three words: 5, 64, 129 in turn.
  RequestSet sparse = make_set({5, 64, 129});
  RoundRobinArbiter arb2;
  std::vector<unsigned> grants;
  for (int i = 0; i < 6; ++i) grants.push_back(arb2.pick(sparse));
  EXPECT_EQ(grants, (std::vector<unsigned>{5, 64, 129, 5, 64, 129}));
}

}  // namespace
}  // namespace famsim
