// The per-phase bottleneck analysis (models/core/phases.h) on resources whose work is set by hand:
// each phase's span, limiter and utilisation worked out from the work put in.
#include "models/core/initiator.h"
#include "models/core/occupancy.h"
#include "models/core/phases.h"
#include "tests/support/test_initiator.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace famsim {
namespace {

// A block with one bandwidth resource whose busy time the test sets. Its probe reads the counter
// (as a crossbar's output ports do) or, for names starting with 'b', asks a function for it in 0.1
// ns (as a link's wires do, in fs): both kinds of probe in every test.
class Server : public Component {
 public:
  Server(ComponentRegistry& reg, const std::string& name)
      : Component(reg, name, BlockKind::kLink) {}
  void report(ComponentReport&, const ReportWindow&) const override {}
  std::size_t occupancy() const override { return 0; }
  void probes(std::vector<ResourceProbe>& out) const override {
    ResourceProbe p;
    p.use.name = "wire";
    p.use.capacity = 100;  // GB/s
    if (component_name()[0] == 'b') {
      p.work = [this](std::uint64_t) { return busy_ps / 100; };  // in 0.1 ns: exact in the tests
      p.scale = 100;
    } else {
      p.counter = &busy_ps;
    }
    out.push_back(std::move(p));
  }
  std::uint64_t busy_ps = 0;
};

// A block with one pool of 4 slots.
class Pool : public Component {
 public:
  Pool(ComponentRegistry& reg, const std::string& name)
      : Component(reg, name, BlockKind::kDevicePort), gauge(4) {}
  void report(ComponentReport&, const ReportWindow&) const override {}
  std::size_t occupancy() const override { return 0; }
  void probes(std::vector<ResourceProbe>& out) const override {
    out.push_back(pool_probe("tags", gauge));
  }
  OccupancyGauge gauge;
};

// An initiator whose completed bytes the test sets (reads to a device, 1 ps each).
class PhaseSource : public test::TestInitiator {
 public:
  void complete(std::uint32_t bytes) {
    TestInitiator::complete(TargetClass::kDevice, 0, false, bytes, 1);
  }
};

constexpr std::uint64_t kW = 1000;  // window, ps

// Two servers and an initiator; a test adds any other block before start().
class Phases : public ::testing::Test {
 protected:
  void start(std::uint64_t end_ps = PhaseSampler::kNever) {
    s.set_window_ps(kW);
    s.set_end_ps(end_ps);
    s.attach(reg, {&src});
  }
  // Samples windows 1..n, each after `work(k)` and 50 bytes completed, and analyses them.
  template <class Work>
  nlohmann::json windows(std::uint64_t n, Work work) {
    for (std::uint64_t k = 1; k <= n; ++k) {
      work(k);
      src.complete(50);
      s.before(k * kW);
    }
    return s.analyze({0, n * kW}, 0.85);
  }
  ComponentRegistry reg;
  Server a{reg, "a0"};
  Server b{reg, "b0"};
  PhaseSource src;
  PhaseSampler s;
};

TEST_F(Phases, TwoServersTakingTurnsAreTwoPhases) {
  start();
  // Windows 0-9: a busy all the time, b a tenth; windows 10-19 the other way round. 50 bytes per
  // window: 50 B / 1 ns = 50 GB/s.
  for (std::uint64_t k = 1; k <= 20; ++k) {
    const bool first = k <= 10;
    a.busy_ps += first ? kW : kW / 10;
    b.busy_ps += first ? kW / 10 : kW;
    src.complete(50);
    EXPECT_EQ(s.before(k * kW), (k + 1) * kW);
  }
  const nlohmann::json j = s.analyze({0, 20 * kW}, 0.85);
  EXPECT_DOUBLE_EQ(j["window_ns"].get<double>(), 1.0);
  EXPECT_EQ(j["windows"], 20);
  const nlohmann::json& p = j["phases"];
  ASSERT_EQ(p.size(), 2u) << j.dump(1);
  EXPECT_DOUBLE_EQ(p[0]["start_ns"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(p[0]["end_ns"].get<double>(), 10.0);
  EXPECT_EQ(p[0]["limiter"]["component"], "a0");
  EXPECT_EQ(p[0]["limiter"]["reason"], "bandwidth");
  EXPECT_DOUBLE_EQ(p[0]["limiter"]["utilization"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(p[1]["start_ns"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(p[1]["end_ns"].get<double>(), 20.0);
  EXPECT_EQ(p[1]["limiter"]["component"], "b0");
  EXPECT_NEAR(p[0]["achieved_gbps"].get<double>(), 50.0, 1e-9);
  EXPECT_NEAR(p[1]["by_target_gbps"]["device"].get<double>(), 50.0, 1e-9);
  // The bound: achieved / the limiter's utilisation = 50 / 1.
  EXPECT_NEAR(p[1]["analytic_bound_gbps"].get<double>(), 50.0, 1e-9);
  EXPECT_EQ(changed_phases({{"phases", j}}).size(), 2u);
}

TEST_F(Phases, LikeServersSaturatedInTurnAreTwoPhases) {
  // a1 is of a0's class (a*). Windows 0-9: a0 busy all the time, a1 idle; windows 10-19 the
  // other way round. Over both halves each is half busy: nothing saturated, so the halves stay two
  // phases, each limited by its own server.
  Server a1{reg, "a1"};
  start();
  const nlohmann::json j = windows(20, [&](std::uint64_t k) { (k <= 10 ? a : a1).busy_ps += kW; });
  const nlohmann::json& p = j["phases"];
  ASSERT_EQ(p.size(), 2u) << j.dump(1);
  EXPECT_EQ(p[0]["limiter"]["component"], "a0");
  EXPECT_DOUBLE_EQ(p[0]["end_ns"].get<double>(), 10.0);
  EXPECT_EQ(p[1]["limiter"]["component"], "a1");
  EXPECT_DOUBLE_EQ(p[1]["limiter"]["utilization"].get<double>(), 1.0);
}

TEST_F(Phases, LikeServersTradingTheTopPlaceWhileSaturatedAreOnePhase) {
  // a0 and a1 both 95 % busy or more over 20 windows, the busier one changing every second window
  // (a0 at 100 % and a1 at 95 %, then the reverse): saturated together, one phase with a limiter
  // of their class, each 10 x 1000 + 10 x 950 ps = 19.5 ns busy of 20: 97.5 %.
  Server a1{reg, "a1"};
  start();
  const nlohmann::json j = windows(20, [&](std::uint64_t k) {
    const bool a0_first = (k - 1) / 2 % 2 == 0;
    a.busy_ps += a0_first ? kW : kW * 95 / 100;
    a1.busy_ps += a0_first ? kW * 95 / 100 : kW;
  });
  const nlohmann::json& p = j["phases"];
  ASSERT_EQ(p.size(), 1u) << j.dump(1);
  EXPECT_EQ(p[0]["limiter"]["class"], "a*");
  EXPECT_DOUBLE_EQ(p[0]["limiter"]["utilization"].get<double>(), 0.975);
}

TEST_F(Phases, WindowsMergePairwiseWhenTheRunOutgrowsThem) {
  start();
  // a limits up to 12 ns, b after, over 40 ns, each with work and bytes that differ from window
  // to window. At the 32nd boundary the 32 windows of 1 ns become 16 of 2 ns; the next boundary
  // is then 34 ns. Window k (of 1 ns) carries a: 900 + 5k ps, b: 100 + 2k ps before 12 ns; a:
  // 50 ps, b: 970 - k ps after; and 10 + k bytes.
  double a12 = 0, b_after = 0, bytes12 = 0, bytes_after = 0;
  for (std::uint64_t k = 0; k < 40; ++k) {
    const bool first = k < 12;
    const std::uint64_t wa = first ? 900 + 5 * k : 50;
    const std::uint64_t wb = first ? 100 + 2 * k : 970 - k;
    a.busy_ps += wa;
    b.busy_ps += wb - wb % 100;  // b's probe counts in 0.1 ns
    src.complete(static_cast<std::uint32_t>(10 + k));
    (first ? a12 : b_after) += first ? wa : wb - wb % 100;
    (first ? bytes12 : bytes_after) += 10 + k;
    if ((k + 1) * kW == s.next_boundary()) s.before((k + 1) * kW);
    if (k + 1 == 32) {
      EXPECT_EQ(s.next_boundary(), 34 * kW);
    }
  }
  const nlohmann::json j = s.analyze({0, 40 * kW}, 0.85);
  EXPECT_DOUBLE_EQ(j["window_ns"].get<double>(), 2.0);
  EXPECT_EQ(j["windows"], 20);
  const nlohmann::json& p = j["phases"];
  ASSERT_EQ(p.size(), 2u) << j.dump(1);
  EXPECT_DOUBLE_EQ(p[0]["end_ns"].get<double>(), 12.0);
  EXPECT_EQ(p[0]["windows"], 6);
  EXPECT_EQ(p[0]["limiter"]["component"], "a0");
  // a over 0-12 ns: 12 x 900 + 5 x (0 + ... + 11) = 11130 ps of 12000; float sums to 1e-6.
  EXPECT_NEAR(p[0]["limiter"]["utilization"].get<double>(), a12 / 12000.0, 1e-6);
  EXPECT_NEAR(p[0]["limiter"]["utilization"].get<double>(), 11130.0 / 12000.0, 1e-6);
  EXPECT_EQ(p[1]["limiter"]["component"], "b0");
  EXPECT_NEAR(p[1]["limiter"]["utilization"].get<double>(), b_after / 28000.0, 1e-6);
  // Bytes: 10 + k in window k, over 12 ns and 28 ns (1 B / ns = 1 GB/s).
  EXPECT_NEAR(p[0]["achieved_gbps"].get<double>(), bytes12 / 12.0, 1e-9);
  EXPECT_NEAR(p[0]["achieved_gbps"].get<double>(), (12 * 10 + 66) / 12.0, 1e-9);
  EXPECT_NEAR(p[1]["achieved_gbps"].get<double>(), bytes_after / 28.0, 1e-9);
}

TEST_F(Phases, NoBoundaryAtOrAfterTheEndIsSampled) {
  start(3 * kW + 1);
  // A run cut off at 3 ns + 1 ps: asked to sample up to 10 ns, it samples 1, 2 and 3 ns only.
  a.busy_ps = 3 * kW;
  EXPECT_EQ(s.before(10 * kW), 4 * kW);
  EXPECT_TRUE(s.done());
  const nlohmann::json j = s.analyze({0, 3 * kW + 1}, 0.85);
  // Windows 0-1, 1-2, 2-3 and the 1 ps after; a's work all in the first.
  EXPECT_EQ(j["windows"], 4);
}

TEST_F(Phases, AOneWindowBlipIsNotAPhase) {
  start();
  // a busy all the time but in window 9, where it is half busy and b is busy.
  for (std::uint64_t k = 1; k <= 20; ++k) {
    a.busy_ps += k == 10 ? kW / 2 : kW;
    b.busy_ps += k == 10 ? kW : 0;
    s.before(k * kW);
  }
  const nlohmann::json j = s.analyze({0, 20 * kW}, 0.85);
  ASSERT_EQ(j["phases"].size(), 1u) << j.dump(1);
  // a over the run: 19.5 of 20 ns.
  EXPECT_DOUBLE_EQ(j["phases"][0]["limiter"]["utilization"].get<double>(), 19.5 / 20);
  EXPECT_TRUE(changed_phases({{"phases", j}}).empty());
}

TEST_F(Phases, AFullPoolLimitsWhereNoServerSaturates) {
  Pool tags(reg, "dev0");
  start();
  // 0-8 ns: the pool full (4 of 4), a half busy; 8-16 ns: the pool holds 1, a busy. The run's
  // report window starts at 2 ns: the first phase is 2-8 ns.
  tags.gauge.set(4, 0);
  for (std::uint64_t k = 1; k <= 16; ++k) {
    if (k == 9) tags.gauge.set(1, 8 * kW);
    a.busy_ps += k <= 8 ? kW / 2 : kW;
    s.before(k * kW);
  }
  const nlohmann::json j = s.analyze({2 * kW, 16 * kW}, 0.85);
  const nlohmann::json& p = j["phases"];
  ASSERT_EQ(p.size(), 2u) << j.dump(1);
  EXPECT_DOUBLE_EQ(p[0]["start_ns"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(p[0]["end_ns"].get<double>(), 8.0);
  EXPECT_EQ(p[0]["limiter"]["component"], "dev0");
  EXPECT_EQ(p[0]["limiter"]["resource"], "tags");
  EXPECT_EQ(p[0]["limiter"]["reason"], "slots");
  EXPECT_DOUBLE_EQ(p[0]["limiter"]["utilization"].get<double>(), 1.0);
  EXPECT_EQ(p[1]["limiter"]["component"], "a0");
}

TEST_F(Phases, TheEndOfTheRunIsSampledByTheAnalysis) {
  start();
  // Busy through 3 ns, sampled; the run ends at 3.5 ns with a busy 0.25 ns since: 50 % of the
  // span the analysis samples itself.
  for (std::uint64_t k = 1; k <= 3; ++k) {
    a.busy_ps += kW;
    s.before(k * kW);
  }
  a.busy_ps += kW / 4;
  const nlohmann::json j = s.analyze({0, 3 * kW + kW / 2}, 0.85);
  EXPECT_EQ(j["windows"], 4);
  ASSERT_EQ(j["phases"].size(), 1u);
  // Over the run: 3.25 of 3.5 ns.
  EXPECT_DOUBLE_EQ(j["phases"][0]["limiter"]["utilization"].get<double>(), 3.25 / 3.5);
}

}  // namespace
}  // namespace famsim
