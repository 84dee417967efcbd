// The famsim kernel's Scheduler: wake-ups run in time order, equal times in the order they were
// asked for, whether they wait in the timing wheel (65.5 ns ahead at most) or in its overflow
// heap, and a wake-up asked for earlier leaves its old place. The expected order is worked out by
// hand from that rule.
#include "models/core/wakeup.h"

#include <gtest/gtest.h>

#include <systemc>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace famsim {
namespace {

struct Record {
  char id;
  std::uint64_t at_ps;
};

// A block that records when it runs and may ask for further wake-ups from its behaviour.
struct Block {
  Block(char id, Scheduler& s, std::vector<Record>& log)
      : id(id),
        log(log),
        wake((std::string("wake_") + id).c_str(), &s, this, &Wakeup::call_behaviour<Block>) {}
  void behaviour() {
    wake.fired();
    const std::uint64_t now = now_ps();
    log.push_back({id, now});
    for (auto& [target, at] : then) target->wake.at(at, now);
    then.clear();
  }
  char id;
  std::vector<Record>& log;
  std::vector<std::pair<Block*, std::uint64_t>> then;  // asked for when this block runs
  Wakeup wake;
};

TEST(Scheduler, RunsWakeupsInTimeThenRequestOrderAcrossTheWheelAndItsOverflow) {
  Scheduler s("scheduler");
  std::vector<Record> log;
  std::vector<std::unique_ptr<Block>> blocks;
  auto block = [&](char id) -> Block& {
    blocks.push_back(std::make_unique<Block>(id, s, log));
    return *blocks.back();
  };
  Block& a = block('A');
  Block& b = block('B');
  Block& c = block('C');
  Block& d = block('D');
  Block& e = block('E');
  Block& f = block('F');
  Block& g = block('G');
  Block& h = block('H');
  Block& i = block('I');
  Block& j = block('J');
  Block& k = block('K');
  // Asked for at time 0, in this order. The wheel spans 1024 slots of 64 ps: 65,536 ps ahead.
  a.wake.at(100000, 0);  // overflow heap
  b.wake.at(500, 0);     // wheel
  c.wake.at(500, 0);     // same time, asked after B: runs after B
  d.wake.at(70000, 0);   // overflow heap ...
  e.wake.at(65600, 0);   // slot 1025: just beyond the wheel, overflow heap
  f.wake.at(64000, 0);   // slot 1000: wheel
  g.wake.at(100000, 0);  // same time as A, asked after it: runs after A
  d.wake.at(300, 0);     // ... moved earlier into the wheel: its heap entry is dropped
  h.wake.at(300, 0);     // same time as D's new request, asked after it
  h.wake.at(900, 0);     // later than pending: ignored, H stays at 300
  // Asked for by running blocks: I at B's own time (after C, which was asked for earlier); J by
  // E beyond the wheel (heap), then by A earlier, within the wheel but on a later revolution of
  // it; K by A beyond the wheel.
  b.then.push_back({&i, 500});
  e.then.push_back({&j, 170000});
  a.then.push_back({&j, 160000});
  a.then.push_back({&k, 180000});
  sc_core::sc_start();

  const std::vector<Record> expected = {{'D', 300},    {'H', 300},    {'B', 500},
                                        {'C', 500},    {'I', 500},    {'F', 64000},
                                        {'E', 65600},  {'A', 100000}, {'G', 100000},
                                        {'J', 160000}, {'K', 180000}};
  ASSERT_EQ(log.size(), expected.size());
  for (std::size_t n = 0; n < expected.size(); ++n) {
    EXPECT_EQ(log[n].id, expected[n].id) << "position " << n;
    EXPECT_EQ(log[n].at_ps, expected[n].at_ps) << "position " << n;
  }
  EXPECT_EQ(s.wakeups_run(), expected.size());
}

}  // namespace
}  // namespace famsim
