// Crossbar matching policies (models/noc/matching.h) and virtual output queues (voq.h), without a
// simulation. Every expected matching and pointer below is worked out by hand in the comments.
#include "models/noc/matching.h"
#include "models/noc/voq.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace famsim {
namespace {

// Requests of an inputs x outputs crossbar as per-output requester sets.
struct Requests {
  Requests(unsigned inputs, unsigned outputs) : by_output(outputs, RequestSet(inputs)) {}
  void add(unsigned input, unsigned output) { by_output[output].set(input); }
  const RequestSet& operator()(unsigned o) const { return by_output[o]; }
  std::vector<RequestSet> by_output;
};

RequestSet all_outputs(unsigned n) {
  RequestSet s(n);
  for (unsigned i = 0; i < n; ++i) s.set(i);
  return s;
}

std::vector<Grant> sorted(std::vector<Grant> g) {
  std::sort(g.begin(), g.end(), [](const Grant& a, const Grant& b) { return a.input < b.input; });
  return g;
}

TEST(RequestSet, NextFromExcluding) {
  RequestSet s(130);
  RequestSet taken(130);
  for (unsigned i : {2u, 5u, 70u, 129u}) s.set(i);
  taken.set(5);
  taken.set(129);
  EXPECT_EQ(s.next_from_excluding(0, taken), 2u);
  EXPECT_EQ(s.next_from_excluding(3, taken), 70u);  // 5 is taken
  EXPECT_EQ(s.next_from_excluding(71, taken), 2u);  // 129 taken: wraps to 2
  taken.set(2);
  taken.set(70);
  EXPECT_EQ(s.next_from_excluding(0, taken), 130u);  // all taken
  EXPECT_TRUE(s.intersects(taken));
  RequestSet none(130);
  EXPECT_FALSE(s.intersects(none));
  s.reset();
  EXPECT_FALSE(s.any());
}

// The 4x4 example worked by hand. Requests (input: outputs):
//   I0: O0 O1 O3    I1: O0 O2    I2: O1    I3: O0 O2 O3
// so the requesters are O0 {0,1,3}, O1 {0,2}, O2 {1,3}, O3 {0,3}. All pointers start at 0.
// Iteration 1: grants O0->I0, O1->I0, O2->I1, O3->I0. Accepts: I0 (grants O0 O1 O3, a=0) takes
//   O0; I1 takes O2. Pointers: a[0]=1, g[O0]=1; a[1]=3, g[O2]=2. The grants of O1 and O3 to I0
//   were not accepted: g[O1], g[O3] stay 0.
// Iteration 2 (inputs 2, 3 and outputs 1, 3 left): O1 {0,2} minus matched I0 -> I2; O3 {0,3}
//   -> I3. Both accepted; no pointer moves in iteration 2.
Requests example_4x4() {
  Requests r(4, 4);
  for (unsigned o : {0u, 1u, 3u}) r.add(0, o);
  for (unsigned o : {0u, 2u}) r.add(1, o);
  r.add(2, 1);
  for (unsigned o : {0u, 2u, 3u}) r.add(3, o);
  return r;
}

TEST(IslipMatcher, HandWorked4x4TwoIterations) {
  const Requests r = example_4x4();
  IslipMatcher m(4, 4, 2);
  std::vector<Grant> g;
  m.match(all_outputs(4), r, g);
  EXPECT_EQ(sorted(g), (std::vector<Grant>{{0, 0}, {1, 2}, {2, 1}, {3, 3}}));
  EXPECT_EQ(m.matches_per_iteration(), (std::vector<unsigned>{2, 2}));
  EXPECT_EQ(m.grant_pointer(0), 1u);
  EXPECT_EQ(m.grant_pointer(1), 0u);  // granted I0 (refused) then I2 (iteration 2): unmoved
  EXPECT_EQ(m.grant_pointer(2), 2u);
  EXPECT_EQ(m.grant_pointer(3), 0u);
  EXPECT_EQ(m.accept_pointer(0), 1u);
  EXPECT_EQ(m.accept_pointer(1), 3u);
  EXPECT_EQ(m.accept_pointer(2), 0u);  // accepted in iteration 2 only
  EXPECT_EQ(m.accept_pointer(3), 0u);
}

TEST(IslipMatcher, HandWorked4x4OneIterationThenNextEdge) {
  const Requests r = example_4x4();
  IslipMatcher m(4, 4, 1);
  std::vector<Grant> g;
  m.match(all_outputs(4), r, g);
  EXPECT_EQ(sorted(g), (std::vector<Grant>{{0, 0}, {1, 2}}));
  // Next edge, same requests, pointers g = [1,0,2,0], a = [1,3,0,0]:
  //   grants: O0 {0,1,3} from 1 -> I1; O1 {0,2} from 0 -> I0; O2 {1,3} from 2 -> I3;
  //           O3 {0,3} from 0 -> I0.
  //   accepts: I0 (O1, O3) from a=1 -> O1: a[0]=2, g[O1]=1. I1 (O0) from 3 wraps -> O0: a[1]=1,
  //            g[O0]=2. I3 (O2) -> O2: a[3]=3, g[O2]=0.
  g.clear();
  m.match(all_outputs(4), r, g);
  EXPECT_EQ(sorted(g), (std::vector<Grant>{{0, 1}, {1, 0}, {3, 2}}));
  EXPECT_EQ(m.grant_pointer(0), 2u);
  EXPECT_EQ(m.grant_pointer(1), 1u);
  EXPECT_EQ(m.grant_pointer(2), 0u);
  EXPECT_EQ(m.grant_pointer(3), 0u);
  EXPECT_EQ(m.accept_pointer(0), 2u);
  EXPECT_EQ(m.accept_pointer(1), 1u);
  EXPECT_EQ(m.accept_pointer(3), 3u);
}

TEST(IslipMatcher, UnavailableOutputsTakePartInNothing) {
  // Same requests with O0 unavailable (busy): iteration 1 grants O1->I0, O2->I1, O3->I0;
  // I0 accepts O1 (a=0 -> first of {1,3}), I1 accepts O2. Iteration 2: O3 {0,3} minus I0 -> I3.
  const Requests r = example_4x4();
  IslipMatcher m(4, 4, 4);
  RequestSet avail = all_outputs(4);
  avail.clear(0);
  std::vector<Grant> g;
  m.match(avail, r, g);
  EXPECT_EQ(sorted(g), (std::vector<Grant>{{0, 1}, {1, 2}, {3, 3}}));
  EXPECT_EQ(m.grant_pointer(0), 0u);
  EXPECT_EQ(m.matches_per_iteration(), (std::vector<unsigned>{2, 1}));  // stops: nothing left
}

TEST(IslipMatcher, GrantPointersDesynchroniseUnderFullLoad) {
  // 3x3, every input requests every output at every edge, one iteration, pointers at 0.
  //   edge 1: all outputs grant I0; I0 accepts O0. g=[1,0,0]. 1 match.
  //   edge 2: O0->I1, O1->I0, O2->I0; I0 accepts O1 (a[0]=1), I1 accepts O0. g=[2,1,0]. 2 matches.
  //   edge 3: O0->I2, O1->I1, O2->I0: one grant per input, all accepted. g=[0,2,1]. 3 matches.
  // From then on the grant pointers are all different and each moves by one per edge: a full
  // matching at every edge (McKeown 1999, section III: the pointers desynchronise).
  Requests r(3, 3);
  for (unsigned i = 0; i < 3; ++i) {
    for (unsigned o = 0; o < 3; ++o) r.add(i, o);
  }
  IslipMatcher m(3, 3, 1);
  const std::vector<unsigned> sizes = {1, 2, 3};
  const std::vector<std::vector<unsigned>> pointers = {{1, 0, 0}, {2, 1, 0}, {0, 2, 1}};
  for (unsigned edge = 0; edge < 3; ++edge) {
    std::vector<Grant> g;
    m.match(all_outputs(3), r, g);
    EXPECT_EQ(g.size(), sizes[edge]) << "edge " << edge + 1;
    for (unsigned o = 0; o < 3; ++o) {
      EXPECT_EQ(m.grant_pointer(o), pointers[edge][o]) << "edge " << edge + 1 << " O" << o;
    }
  }
  // And at 16x16 under the same full load: every edge from the 16th on is a full matching.
  Requests big(16, 16);
  for (unsigned i = 0; i < 16; ++i) {
    for (unsigned o = 0; o < 16; ++o) big.add(i, o);
  }
  IslipMatcher m16(16, 16, 1);
  for (unsigned edge = 1; edge <= 100; ++edge) {
    std::vector<Grant> g;
    m16.match(all_outputs(16), big, g);
    if (edge >= 16) {
      ASSERT_EQ(g.size(), 16u) << "edge " << edge;
    }
  }
}

TEST(IslipMatcher, ResultIsAMatching) {
  // Whatever the requests, no input and no output appears twice.
  Requests r(8, 8);
  for (unsigned i = 0; i < 8; ++i) {
    for (unsigned o = 0; o < 8; ++o) {
      if ((i * 7 + o * 3) % 4 != 0) r.add(i, o);
    }
  }
  IslipMatcher m(8, 8, 3);
  for (int edge = 0; edge < 20; ++edge) {
    std::vector<Grant> g;
    m.match(all_outputs(8), r, g);
    std::vector<int> in_used(8, 0), out_used(8, 0);
    for (const Grant& x : g) {
      EXPECT_TRUE(r(x.output).test(x.input));
      EXPECT_EQ(++in_used[x.input], 1);
      EXPECT_EQ(++out_used[x.output], 1);
    }
  }
}

TEST(RoundRobinMatcher, HandWorked) {
  // Requesters: O0 {0,1}, O1 {0}, O2 {1,2}.
  //   edge 1, outputs from O0: O0 grants I0; O1's only requester I0 is taken; O2 grants I1
  //     (from 0, I0 is not a requester of O2). Pointers: O0 -> 1, O2 -> 2.
  //   edge 2, outputs from O1: O1 grants I0; O2 from 2 grants I2; O0 from 1 grants I1.
  Requests r(3, 3);
  r.add(0, 0);
  r.add(1, 0);
  r.add(0, 1);
  r.add(1, 2);
  r.add(2, 2);
  RoundRobinMatcher m(3, 3);
  std::vector<Grant> g;
  m.match(all_outputs(3), r, g, 0);
  EXPECT_EQ(g, (std::vector<Grant>{{0, 0}, {1, 2}}));
  g.clear();
  m.match(all_outputs(3), r, g, 1);
  EXPECT_EQ(g, (std::vector<Grant>{{0, 1}, {2, 2}, {1, 0}}));
}

TEST(RoundRobinMatcher, FirstOutputFollowsTheEdgeNumberNotTheCalls) {
  // 2x2, input I0 requests both outputs, I1 nothing. The output that goes first wins I0.
  //   edge 0: first output 0 mod 2 = O0: O0 grants I0; O1's only requester is taken.
  //   no call at edges 1 to 3 (a block that had nothing to grant there);
  //   edge 4: first output 4 mod 2 = O0 again: O0 grants I0.
  // A matcher that turned per call would start its second call at O1 and grant O1 -> I0.
  Requests r(2, 2);
  r.add(0, 0);
  r.add(0, 1);
  RoundRobinMatcher m(2, 2);
  std::vector<Grant> g;
  m.match(all_outputs(2), r, g, 0);
  EXPECT_EQ(g, (std::vector<Grant>{{0, 0}}));
  g.clear();
  m.match(all_outputs(2), r, g, 4);
  EXPECT_EQ(g, (std::vector<Grant>{{0, 0}}));
  g.clear();
  m.match(all_outputs(2), r, g, 5);  // 5 mod 2 = O1 first
  EXPECT_EQ(g, (std::vector<Grant>{{0, 1}}));
}

TEST(OldestFirstMatcher, OldestPairFirstTiesToLowerIndex) {
  // Candidates (arrival ps, input, output): sorted (1,I1,O1) (3,I0,O1) (3,I1,O0) (3,I2,O1)
  // (5,I0,O0). Greedy: I1-O1; I0-O1 output taken; I1-O0 input taken; I2-O1 taken; I0-O0.
  std::vector<OldestFirstMatcher::Candidate> c = {
      {5, 0, 0}, {3, 1, 0}, {3, 2, 1}, {1, 1, 1}, {3, 0, 1}};
  OldestFirstMatcher m(3, 2);
  std::vector<Grant> g;
  m.match(c, g);
  EXPECT_EQ(g, (std::vector<Grant>{{1, 1}, {0, 0}}));
  // FIFO inputs (one candidate each) for one output: I1 and I2 arrived at 7, I3 at 9: the tie
  // goes to the lower input index.
  std::vector<OldestFirstMatcher::Candidate> fifo = {{7, 2, 0}, {9, 3, 0}, {7, 1, 0}};
  OldestFirstMatcher m4(4, 1);
  g.clear();
  m4.match(fifo, g);
  EXPECT_EQ(g, (std::vector<Grant>{{1, 0}}));
}

TEST(VirtualOutputQueues, SharedCapacityPerOutputOrder) {
  VirtualOutputQueues<int> q(3, 4);
  EXPECT_TRUE(q.empty());
  q.push_back(2, 20);
  q.push_back(0, 1);
  q.push_back(2, 21);
  q.push_back(0, 2);
  EXPECT_TRUE(q.full());  // 4 entries shared by all outputs
  EXPECT_EQ(q.size(), 4u);
  EXPECT_EQ(q.size(2), 2u);
  EXPECT_TRUE(q.empty(1));
  EXPECT_EQ(q.front(2), 20);
  q.pop_front(2);
  EXPECT_FALSE(q.full());
  q.push_back(1, 10);  // the freed entry is reused by another output's queue
  EXPECT_EQ(q.front(0), 1);
  q.pop_front(0);
  EXPECT_EQ(q.front(0), 2);
  q.pop_front(0);
  EXPECT_TRUE(q.empty(0));
  EXPECT_EQ(q.front(1), 10);
  EXPECT_EQ(q.front(2), 21);
  q.pop_front(2);
  q.pop_front(1);
  EXPECT_TRUE(q.empty());
  EXPECT_THROW(q.pop_front(1), std::logic_error);
  for (int k = 0; k < 4; ++k) q.push_back(1, k);
  EXPECT_THROW(q.push_back(0, 9), std::logic_error);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(q.front(1), k);
    q.pop_front(1);
  }
}

}  // namespace
}  // namespace famsim
