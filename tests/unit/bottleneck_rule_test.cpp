// The bottleneck rule (models/core/bottleneck.h) on hand-made resources: which one is named, in
// what order, with what bound, and how the saturation threshold moves the verdict. Every expected
// value follows from the rule's text and the numbers below.
#include "models/core/bottleneck.h"

#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <vector>

namespace famsim {
namespace {

ResourceRecord wire(const std::string& component, double u, double capacity_gbps) {
  ResourceRecord r;
  r.component = component;
  r.kind = BlockKind::kLink;
  r.use.name = "response wire";
  r.use.type = ResourceUse::Type::kBandwidth;
  r.use.utilization = u;
  r.use.capacity = capacity_gbps;
  r.use.used = u * capacity_gbps;
  return r;
}

ResourceRecord pool(const std::string& component, BlockKind kind, const std::string& name, double u,
                    double slots) {
  ResourceRecord r;
  r.component = component;
  r.kind = kind;
  r.use.name = name;
  r.use.type = ResourceUse::Type::kSlots;
  r.use.utilization = u;
  r.use.capacity = slots;
  r.use.used = u * slots;
  return r;
}

// A pool entered before a bandwidth limiter that keeps requests from it: the device tags feeding
// a DRAM channel (the architecture audit of 2026-12-04: 16 tags per port, the data bus named at
// 85 % with its read queue a third full; 32 tags gave +7.4 %). The rule: the limiter is short of
// 97 % busy, its own queues are under half full on average, and a pool before it on the round
// trip is at least 99 % full: that pool is named as starving it, not as held back by it.
TEST(BottleneckRule, AFullPoolBeforeAServerWithShortQueuesIsNamedAsStarvingIt) {
  auto resources = [](double bus_u, double queue_u) {
    ResourceRecord bus;
    bus.component = "fam0.memory.ch1";
    bus.kind = BlockKind::kMemory;
    bus.use.name = "data bus";
    bus.use.utilization = bus_u;
    bus.use.capacity = 19.2;
    bus.use.used = bus_u * 19.2;
    return std::vector<ResourceRecord>{
        bus, pool("fam0.memory.ch1", BlockKind::kMemory, "read queue", queue_u, 64),
        pool("fam0.port_logic", BlockKind::kDevicePort, "tags (port 2)", 0.999, 16),
        pool("fam0.port_logic", BlockKind::kDevicePort, "tags (port 3)", 0.995, 16),
        pool("gpu0", BlockKind::kGpu, "outstanding window", 0.995, 1024)};
  };
  // Data bus 85 %, read queue 32 %: the tags (entered at depth 3, after the GPU's window at 0 and
  // before the memory at 5) starve it; the fuller of the two tag pools is named. The GPU window
  // fills behind the tags: still held back.
  auto j = analyze_bottlenecks(resources(0.85, 0.32), 129.0);
  ASSERT_TRUE(j["limiter"].contains("starved_by")) << j["sentence"];
  EXPECT_EQ(j["limiter"]["starved_by"]["resource"], "tags (port 2)");
  EXPECT_DOUBLE_EQ(j["limiter"]["starved_by"]["own_queue_utilization"].get<double>(), 0.32);
  EXPECT_NE(j["sentence"].get<std::string>().find("more of its 16 slots"), std::string::npos)
      << j["sentence"];
  ASSERT_EQ(j["blocks"].size(), 1u) << j["sentence"];
  EXPECT_EQ(j["blocks"][0]["class"], "gpu*");
  // The read queue 78 % full on average: the channel had work; the tags filled behind it.
  j = analyze_bottlenecks(resources(0.85, 0.78), 129.0);
  EXPECT_FALSE(j["limiter"].contains("starved_by")) << j["sentence"];
  EXPECT_EQ(j["blocks"].size(), 2u) << j["sentence"];
  // The data bus 98 % busy: saturated whatever fed it.
  j = analyze_bottlenecks(resources(0.98, 0.32), 129.0);
  EXPECT_FALSE(j["limiter"].contains("starved_by")) << j["sentence"];
}

// The same rule on the way back: a device link's response wire (placed at its response credits,
// 10 - (3 - 0.5) = 7.5) fed through a device NoC whose FIFO inputs are blocked at their heads
// (a review's nvl8_fam with a 16 B NoC: the wire 89.6 % busy, its transmit queue 39 % full, the
// NoC's response inputs 98.6 % full). The wire's own queue is its transmit queue (feeds), not the
// link's other pools; the NoC's response input (10 - 4 = 6) is the latest full pool before it,
// after the device tags (3). A pool counts as full when full for at least half the time the wire
// idled: 0.896 + (1 - 0.896) / 2 = 0.948. Its advice, not "more slots", says what would help.
TEST(BottleneckRule, AResponseWireStarvedByAHeadBlockedNocNamesTheNocAndItsAdvice) {
  auto resources = [](double noc_u, double tx_u) {
    ResourceRecord w = wire("fam0_link4", 0.896, 25.0);
    w.use.response_path = true;
    w.use.path_depth = 2.5;
    w.use.from = "fam0.port_logic";
    w.use.to = "plane0_switch";
    ResourceRecord tx =
        pool("fam0_link4", BlockKind::kLink, "response VC transmit queue", tx_u, 16);
    tx.use.response_path = true;
    tx.use.path_depth = 2.51;
    tx.use.feeds = "response wire";
    // The link's request credits, full: a pool of the link, but not the response wire's queue.
    ResourceRecord credits = pool("fam0_link4", BlockKind::kLink, "request VC credits", 0.95, 64);
    credits.use.path_depth = 2.5;
    ResourceRecord noc = pool("fam0.noc", BlockKind::kNoc, "response input 15 buffer", noc_u, 16);
    noc.use.response_path = true;
    noc.use.more_slots_help = false;
    noc.use.advice = "Per-output queues remove the blocking.";
    return std::vector<ResourceRecord>{
        w, tx, credits, noc,
        pool("fam0.port_logic", BlockKind::kDevicePort, "tags (port 4)", 0.999, 64)};
  };
  auto j = analyze_bottlenecks(resources(0.986, 0.391), 142.5);
  EXPECT_EQ(j["limiter"]["component"], "fam0_link4");
  ASSERT_TRUE(j["limiter"].contains("starved_by")) << j["sentence"];
  EXPECT_EQ(j["limiter"]["starved_by"]["component"], "fam0.noc");
  EXPECT_DOUBLE_EQ(j["limiter"]["starved_by"]["own_queue_utilization"].get<double>(), 0.391);
  const std::string sentence = j["sentence"].get<std::string>();
  EXPECT_NE(
      sentence.find("kept responses from reaching it. Per-output queues remove the blocking."),
      std::string::npos)
      << sentence;
  EXPECT_EQ(sentence.find("more of its"), std::string::npos) << sentence;
  // Full 94 % of the run, under 94.8 %: the tags (99.9 %, entered earlier) are the latest pool
  // full enough.
  j = analyze_bottlenecks(resources(0.94, 0.391), 142.5);
  ASSERT_TRUE(j["limiter"].contains("starved_by")) << j["sentence"];
  EXPECT_EQ(j["limiter"]["starved_by"]["resource"], "tags (port 4)");
  EXPECT_NE(j["sentence"].get<std::string>().find("more of its 64 slots"), std::string::npos)
      << j["sentence"];
  // The transmit queue half full: the wire had work waiting; nothing starved it.
  j = analyze_bottlenecks(resources(0.986, 0.5), 142.5);
  EXPECT_FALSE(j["limiter"].contains("starved_by")) << j["sentence"];
}

// A wire's own queue (its transmit queue, feeds) is full because the wire is busy or held, so it
// is never the limiter nor held back by its wire (write_then_verify.yaml had named a transmit queue
// 99 % full the limiter, asking for slots that changed nothing). A wire at 80 %, under the 0.85
// threshold, with its transmit queue 99 % full and a GPU window 90 % full: the window is the
// innermost full pool that is no server's queue. With the wire at 90 %, the wire limits and its
// queue is not listed as held back behind it; the window is.
TEST(BottleneckRule, AServersOwnQueueIsNeverTheLimiterNorHeldBackByIt) {
  auto resources = [](double wire_u) {
    ResourceRecord w = wire("gpu0_link", wire_u, 50.0);
    w.use.path_depth = 1;
    w.use.from = "gpu0";
    w.use.to = "switch0";
    ResourceRecord tx = pool("gpu0_link", BlockKind::kLink, "response VC transmit queue", 0.99, 16);
    tx.use.path_depth = 1.01;
    tx.use.feeds = "response wire";
    return std::vector<ResourceRecord>{
        w, tx, pool("gpu0", BlockKind::kGpu, "outstanding window", 0.90, 256)};
  };
  auto j = analyze_bottlenecks(resources(0.80), 40.0);
  ASSERT_TRUE(j.contains("limiter")) << j["sentence"];
  EXPECT_EQ(j["limiter"]["component"], "gpu0") << j["sentence"];
  EXPECT_EQ(j["limiter"]["resource"], "outstanding window");
  j = analyze_bottlenecks(resources(0.90), 45.0);
  EXPECT_EQ(j["limiter"]["component"], "gpu0_link") << j["sentence"];
  EXPECT_EQ(j["limiter"]["resource"], "response wire");
  ASSERT_EQ(j["blocks"].size(), 1u) << j["sentence"];
  EXPECT_EQ(j["blocks"][0]["class"], "gpu*");
  EXPECT_EQ(j["sentence"].get<std::string>().find("transmit queue"), std::string::npos)
      << j["sentence"];
}

// A DRAM data bus under all-bank refresh can carry data only 1 - tRFC / tREFI of the time
// (DDR4-3200 16 Gb: 1 - 560 / 12480 = 95.5 %): at 95 % it is busy 99.5 % of that, saturated
// whatever feeds it, so a full window before it is not said to starve it (a review: 256 slots
// instead of 32 gave the same 24.5 GB/s). Without refresh (available 1) the same 95 % is short of
// 97 %: starved.
TEST(BottleneckRule, AServerIsJudgedBusyAgainstTheTimeRefreshLeavesIt) {
  auto resources = [](double available) {
    ResourceRecord bus;
    bus.component = "memory.ch0";
    bus.kind = BlockKind::kMemory;
    bus.use.name = "data bus";
    bus.use.utilization = 0.95;
    bus.use.capacity = 25.6;
    bus.use.used = 0.95 * 25.6;
    bus.use.available = available;
    return std::vector<ResourceRecord>{
        bus, pool("memory.ch0", BlockKind::kMemory, "read queue", 0.2, 64),
        pool("trace_player", BlockKind::kTracePlayer, "outstanding window", 0.999, 32)};
  };
  auto j = analyze_bottlenecks(resources(1.0 - 560.0 / 12480.0), 24.3);
  EXPECT_FALSE(j["limiter"].contains("starved_by")) << j["sentence"];
  EXPECT_NE(j["sentence"].get<std::string>().find(
                "all-bank refresh leaves it 95.5% of the time, and it was busy 99.5% of that"),
            std::string::npos)
      << j["sentence"];
  j = analyze_bottlenecks(resources(1.0), 24.3);
  EXPECT_TRUE(j["limiter"].contains("starved_by")) << j["sentence"];
  EXPECT_EQ(j["sentence"].get<std::string>().find("refresh"), std::string::npos) << j["sentence"];
}

TEST(BottleneckRule, ASaturatedWireOutranksFullPoolsAndSetsTheBound) {
  // 90 GB/s achieved. link0 carried it at 90 % busy: bound 90 / 0.9 = 100 GB/s. link1 at 45 %:
  // bound 200. The GPU window and the device tags are full, held back by the wire.
  const std::vector<ResourceRecord> rs = {
      wire("link1", 0.45, 100), wire("link0", 0.90, 100),
      pool("gpu0", BlockKind::kGpu, "outstanding window", 0.99, 64),
      pool("dev0_port0", BlockKind::kDevicePort, "tags", 0.95, 32)};
  const auto j = analyze_bottlenecks(rs, 90.0);
  EXPECT_EQ(j["limiter"]["component"], "link0");
  EXPECT_EQ(j["limiter"]["reason"], "bandwidth");
  EXPECT_DOUBLE_EQ(j["analytic_bound_gbps"].get<double>(), 100.0);
  EXPECT_EQ(j["bound_set_by"], "link0 response wire");
  EXPECT_DOUBLE_EQ(j["achieved_fraction_of_bound"].get<double>(), 0.9);
  ASSERT_EQ(j["blocks"].size(), 2u);
  // Ranked: limiter, then the full pools (blocked) by utilisation, then the rest.
  EXPECT_EQ(j["ranked"][0]["state"], "limiting");
  EXPECT_EQ(j["ranked"][1]["component"], "gpu0");
  EXPECT_EQ(j["ranked"][1]["state"], "blocked");
  EXPECT_EQ(j["ranked"][2]["component"], "dev0_port0");
  EXPECT_EQ(j["ranked"][3]["component"], "link1");
  EXPECT_EQ(j["ranked"][3]["state"], "ok");
}

TEST(BottleneckRule, WithNoWireSaturatedTheInnermostFullPoolLimits) {
  // Wires at 60 %: nothing saturates by bandwidth. The GPU window (depth 0), the device tags
  // (depth 3) and a memory read queue (depth 5) are full: the memory queue is innermost.
  const std::vector<ResourceRecord> rs = {
      wire("link0", 0.60, 100), pool("gpu0", BlockKind::kGpu, "outstanding window", 1.0, 64),
      pool("dev0_port0", BlockKind::kDevicePort, "tags", 0.97, 32),
      pool("dev0_mc0", BlockKind::kMemory, "read queue", 0.88, 64)};
  const auto j = analyze_bottlenecks(rs, 60.0);
  EXPECT_EQ(j["limiter"]["component"], "dev0_mc0");
  EXPECT_EQ(j["limiter"]["reason"], "slots");
  // The bound still comes from the wire: 60 / 0.6 = 100 GB/s.
  EXPECT_DOUBLE_EQ(j["analytic_bound_gbps"].get<double>(), 100.0);
  ASSERT_EQ(j["blocks"].size(), 2u);
  // Little's law: the queue's 64 slots, 88 % full, carry at most 60 / 0.88 = 68.18 GB/s at the
  // latency they see now; the wire's 100 GB/s would take 64 x 100 / 68.18 = 93.87 slots at that
  // latency, or the latency cut 100 / 68.18 = 1.47x.
  EXPECT_NEAR(j["limiter"]["littles_law_bound_gbps"].get<double>(), 68.1818, 1e-4);
  EXPECT_NEAR(j["limiter"]["slots_for_analytic_bound"].get<double>(), 93.8667, 1e-4);
  const std::string sentence = j["sentence"].get<std::string>();
  EXPECT_NE(sentence.find("its 64 slots hold the run's total to at most 68.2 GB/s"),
            std::string::npos)
      << sentence;
  EXPECT_NE(sentence.find("about 94 slots in it at that latency, or that latency cut 1.5x"),
            std::string::npos)
      << sentence;
}

TEST(BottleneckRule, PoolsRankByWhereARequestEntersThemOnItsRoundTrip) {
  // Out: GPU 0, switch 2, device port 3, memory 5; back: 10 minus those. A link's credits sit
  // just before the block it feeds: a switch-to-device link's request credits at 3 - 0.5 = 2.5,
  // after the switch's input buffers (2), so a starved link is named, not the switch behind it.
  auto link_credits = [](const std::string& name, double u, double far_depth, bool response) {
    ResourceRecord r = pool("fam0_link0", BlockKind::kLink, name, u, 128);
    r.use.path_depth = far_depth - 0.5;
    r.use.response_path = response;
    return r;
  };
  const ResourceRecord switch_in =
      pool("plane0_switch", BlockKind::kSwitch, "request input 3 buffer", 0.99, 16);
  auto out = analyze_bottlenecks({switch_in, link_credits("request VC credits", 0.90, 3, false)},
                                 10.0);
  EXPECT_EQ(out["limiter"]["resource"], "request VC credits");
  // Back: the device-to-switch link's response credits (10 - 2.5 = 7.5) are entered before the
  // switch's response buffers (10 - 2 = 8): the switch is the later, so it limits.
  ResourceRecord switch_resp =
      pool("plane0_switch", BlockKind::kSwitch, "response input 5 buffer", 0.90, 16);
  switch_resp.use.response_path = true;
  out = analyze_bottlenecks({switch_resp, link_credits("response VC credits", 0.99, 3, true)},
                            10.0);
  EXPECT_EQ(out["limiter"]["resource"], "response input 5 buffer");
  // A pool on the way back (a NoC response buffer, 10 - 4 = 6) comes after the memory queue (5).
  ResourceRecord noc_resp = pool("fam0.noc", BlockKind::kNoc, "response input 0 buffer", 0.9, 8);
  noc_resp.use.response_path = true;
  out = analyze_bottlenecks(
      {pool("fam0.memory.ch0", BlockKind::kMemory, "read queue", 0.99, 64), noc_resp}, 10.0);
  EXPECT_EQ(out["limiter"]["component"], "fam0.noc");
}

TEST(BottleneckRule, LeafSpineStagesKeepTheirPathOrderBetweenTheGpuLinkAndTheDeviceLink) {
  // A request through a leaf/spine plane meets, in this order: the GPU link's credits (feeding the
  // source leaf, 2 - 0.5), the source leaf's input and output buffers, the up link's credits, the
  // spine's, the down link's credits, the destination leaf's, then the device link's credits
  // (3 - 0.5). Each depth must lie strictly after the one before.
  auto out_buffer = [](double input) { return output_buffer_depth(input, false); };
  const double order[] = {link_into_switch_stage_depth(0),
                          switch_stage_depth(0),
                          out_buffer(switch_stage_depth(0)),
                          link_into_switch_stage_depth(1),
                          switch_stage_depth(1),
                          out_buffer(switch_stage_depth(1)),
                          link_into_switch_stage_depth(2),
                          switch_stage_depth(2),
                          out_buffer(switch_stage_depth(2)),
                          path_depth(BlockKind::kDevicePort) - 0.5};
  EXPECT_DOUBLE_EQ(order[0], 1.5);
  EXPECT_DOUBLE_EQ(order[1], 2.0);
  for (std::size_t i = 1; i < std::size(order); ++i) EXPECT_LT(order[i - 1], order[i]) << i;
  // On the way back (10 - depth) a response output buffer comes after its input buffer and
  // before the link it feeds (from the source leaf, the GPU link: its response credits at
  // 10 - 1.5).
  const double back_in = 10 - switch_stage_depth(0);
  const double back_out = 10 - output_buffer_depth(switch_stage_depth(0), true);
  EXPECT_LT(back_in, back_out);
  EXPECT_LT(back_out, 10 - link_into_switch_stage_depth(0));
  // So a starved down link (its credits full) is named ahead of the spine buffers that fill
  // behind it. On the way back the order turns (10 - depth): the pools at those depths there (the
  // link's response VC, the spine's response buffers) are met link first, so the spine is later.
  ResourceRecord spine_in = pool("spine0", BlockKind::kSwitch, "request input 0 buffer", 0.99, 4);
  spine_in.use.path_depth = switch_stage_depth(1);
  ResourceRecord down = pool("leaf2_spine0_link0", BlockKind::kLink,
                             "request VC credits (response direction)", 0.90, 1);
  down.use.path_depth = link_into_switch_stage_depth(2);
  auto out = analyze_bottlenecks({spine_in, down}, 1.0);
  EXPECT_EQ(out["limiter"]["component"], "leaf2_spine0_link0");
  spine_in.use.response_path = down.use.response_path = true;
  out = analyze_bottlenecks({spine_in, down}, 1.0);
  EXPECT_EQ(out["limiter"]["component"], "spine0");
}

TEST(BottleneckRule, TheThresholdDecidesWhatCountsAsSaturated) {
  // A wire at 80 %: below the default 0.85 nobody limits; at 0.75 the wire does.
  const std::vector<ResourceRecord> rs = {
      wire("link0", 0.80, 100), pool("gpu0", BlockKind::kGpu, "outstanding window", 0.5, 64)};
  const auto def = analyze_bottlenecks(rs, 80.0);
  EXPECT_FALSE(def.contains("limiter"));
  EXPECT_DOUBLE_EQ(def["saturation_threshold"].get<double>(), kSaturated);
  EXPECT_NE(def["sentence"].get<std::string>().find("No resource is saturated"), std::string::npos);
  const auto low = analyze_bottlenecks(rs, 80.0, 0.75);
  ASSERT_TRUE(low.contains("limiter"));
  EXPECT_EQ(low["limiter"]["component"], "link0");
  EXPECT_DOUBLE_EQ(low["saturation_threshold"].get<double>(), 0.75);
  // At 0.81 the wire is below again.
  EXPECT_FALSE(analyze_bottlenecks(rs, 80.0, 0.81).contains("limiter"));
}

TEST(BottleneckRule, WithNothingSaturatedTheInitiatorsRequestsInFlightAreNamed) {
  // Two GPUs keeping 1.5 and 2.5 of 64 requests out (u = 1.5 / 64, 2.5 / 64) and a wire at 10 %:
  // nothing saturates, and the initiators held 1.5 + 2.5 = 4 requests of 64 + 64 = 128 slots.
  // A device's tag pool is not an initiator's window and does not count.
  const std::vector<ResourceRecord> rs = {
      wire("link0", 0.10, 100), pool("gpu0", BlockKind::kGpu, "outstanding window", 1.5 / 64, 64),
      pool("gpu1", BlockKind::kGpu, "outstanding window", 2.5 / 64, 64),
      pool("dev0.port_logic", BlockKind::kDevicePort, "tags (port 0)", 0.5, 32)};
  const auto j = analyze_bottlenecks(rs, 10.0);
  ASSERT_FALSE(j.contains("limiter"));
  EXPECT_DOUBLE_EQ(j["in_flight"]["mean_requests"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(j["in_flight"]["window_slots"].get<double>(), 128.0);
  const std::string s = j["sentence"].get<std::string>();
  EXPECT_NE(s.find("kept 4.0 requests in flight on average, of 128 window slots"),
            std::string::npos);
  EXPECT_NE(s.find("the bound extrapolates"), std::string::npos);
  // A saturated run names its limiter instead, and its bound is no extrapolation.
  const auto sat = analyze_bottlenecks({wire("link0", 0.95, 100), rs[1]}, 95.0);
  EXPECT_FALSE(sat.contains("in_flight"));
  EXPECT_EQ(sat["sentence"].get<std::string>().find("extrapolates"), std::string::npos);
}

TEST(BottleneckRule, WithNothingDeliveredTheSentenceSaysWhyInsteadOfTheWorkloadsPace) {
  // A run cut 20 ns in: its wire was busy half that time and a GPU kept 3 of 64 requests out, but
  // none came back. Nothing saturated, yet no pace of the workload set a throughput: there is none.
  const std::vector<ResourceRecord> cut = {
      wire("link0", 0.5, 100), pool("gpu0", BlockKind::kGpu, "outstanding window", 3.0 / 64, 64)};
  const auto j = analyze_bottlenecks(cut, 0.0);
  EXPECT_FALSE(j.contains("limiter"));
  EXPECT_FALSE(j.contains("analytic_bound_gbps"));
  EXPECT_FALSE(j.contains("in_flight"));
  EXPECT_EQ(j["nothing_delivered"]["cause"], "none_completed");
  EXPECT_DOUBLE_EQ(j["nothing_delivered"]["mean_requests_in_flight"].get<double>(), 3.0);
  const std::string s = j["sentence"].get<std::string>();
  EXPECT_NE(s.find("(3.0 requests in flight on average, none completed)"), std::string::npos) << s;
  EXPECT_NE(s.find("Busiest: link0 response wire at 50.0%"), std::string::npos) << s;
  EXPECT_EQ(s.find("pace"), std::string::npos) << s;
  // A wire busy all the time is still named, and the sentence still says nothing came back.
  const auto busy = analyze_bottlenecks({wire("link0", 1.0, 100), cut[1]}, 0.0);
  EXPECT_EQ(busy["limiter"]["component"], "link0");
  EXPECT_NE(busy["sentence"].get<std::string>().find("none completed"), std::string::npos);
  // No initiator window reported (a GPU reports one once it issues): nothing was issued.
  const auto none = analyze_bottlenecks({wire("link0", 0.0, 100)}, 0.0);
  EXPECT_EQ(none["nothing_delivered"], nlohmann::json({{"cause", "no_request_issued"}}));
  EXPECT_EQ(none["sentence"].get<std::string>(),
            "No data was delivered: the workload issued no request (as when every access hits a "
            "cache), so there is no throughput to explain and no analytic bound.");
  // Data delivered: no such key.
  EXPECT_FALSE(analyze_bottlenecks(cut, 10.0).contains("nothing_delivered"));
}

TEST(BottleneckRule, LikeResourcesAreCountedInTheLimitersClass) {
  // Four links of one class, three of them saturated: the limiter is the busiest, two alike.
  const std::vector<ResourceRecord> rs = {
      wire("fam0_link0", 0.95, 25), wire("fam0_link1", 0.99, 25), wire("fam0_link2", 0.90, 25),
      wire("fam0_link3", 0.50, 25)};
  const auto j = analyze_bottlenecks(rs, 84.0);
  EXPECT_EQ(j["limiter"]["component"], "fam0_link1");
  EXPECT_EQ(j["limiter"]["alike"].size(), 2u);
  EXPECT_EQ(j["limiter"]["class_size"], 4u);
  ASSERT_EQ(j["classes"].size(), 1u);
  EXPECT_EQ(j["classes"][0]["class"], "fam*_link*");
  EXPECT_EQ(j["classes"][0]["saturated"], 3u);
  EXPECT_DOUBLE_EQ(j["classes"][0]["mean_utilization"].get<double>(),
                   (0.95 + 0.99 + 0.90 + 0.50) / 4);
}

TEST(BottleneckRule, FullPoolsLikeTheLimiterAreAlikeNotHeldBackBehindIt) {
  // A switch's one-slot output buffers, three of four full, limit (wires at 30 %); the switch's
  // input buffers and the GPU window fill behind them. The limiter's like buffers need the same
  // remedy (more slots), so they are listed as alike, and only the other two classes as blocked.
  const std::vector<ResourceRecord> rs = {
      wire("link0", 0.30, 100),
      pool("plane0_switch", BlockKind::kSwitch, "request output 0 buffer", 0.99, 1),
      pool("plane0_switch", BlockKind::kSwitch, "request output 1 buffer", 0.97, 1),
      pool("plane1_switch", BlockKind::kSwitch, "request output 0 buffer", 0.95, 1),
      pool("plane1_switch", BlockKind::kSwitch, "request output 1 buffer", 0.40, 1),
      pool("plane0_switch", BlockKind::kSwitch, "request input 0 buffer", 0.98, 4),
      pool("gpu0", BlockKind::kGpu, "outstanding window", 1.0, 64)};
  const auto j = analyze_bottlenecks(rs, 30.0);
  ASSERT_EQ(j["limiter"]["component"], "plane0_switch");
  EXPECT_EQ(j["limiter"]["resource"], "request output 0 buffer");
  EXPECT_EQ(j["limiter"]["alike"].size(), 2u);
  ASSERT_EQ(j["blocks"].size(), 2u) << j["blocks"].dump();
  for (const auto& b : j["blocks"]) EXPECT_NE(b["resource"], "request output * buffer");
  const std::string s = j["sentence"].get<std::string>();
  EXPECT_EQ(s.find("request output * buffer (2 full)"), std::string::npos) << s;
}

TEST(BottleneckRule, TheSentenceSaysTheAchievedFigureIsOverAllTargetsWhenSeveralCarriedTraffic) {
  // 100 GB/s achieved, 80 to the device and 20 to local HBM; the wire is 80 % busy: bound
  // 100 / 0.8 = 125 GB/s, on the total. The figures stay those of the total; the sentence names
  // the parts.
  const std::vector<ResourceRecord> rs = {wire("link0", 0.80, 200)};
  const auto j =
      analyze_bottlenecks(rs, 100.0, kSaturated, {{"expansion device", 80.0}, {"local HBM", 20.0}});
  EXPECT_DOUBLE_EQ(j["achieved_gbps"].get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(j["analytic_bound_gbps"].get<double>(), 125.0);
  const std::string sentence = j["sentence"];
  EXPECT_NE(sentence.find("Achieved 100.0 GB/s over all targets (expansion device 80.0, local HBM "
                          "20.0 GB/s) of an analytic bound of 125.0 GB/s (80.0%)"),
            std::string::npos)
      << sentence;
  EXPECT_NE(sentence.find("each target keeps its share"), std::string::npos) << sentence;

  // One target: nothing to split, and the sentence is as without the parts.
  const auto one = analyze_bottlenecks(rs, 100.0, kSaturated, {{"expansion device", 100.0}});
  EXPECT_EQ(one["sentence"], analyze_bottlenecks(rs, 100.0)["sentence"]);
  EXPECT_EQ(one["sentence"].get<std::string>().find("over all targets"), std::string::npos);
}

TEST(BottleneckRule, AnUnevenlyLoadedLimitingClassGivesTheBoundItsEvenLoadWouldAllow) {
  // 90 GB/s achieved over four 25 GB/s wires of one class at 100, 100, 80 and 80 % busy: the
  // bound is 90 / 1.0 = 90 GB/s. Their work is 25 + 25 + 20 + 20 = 90 of 100 GB/s, so spread
  // evenly each is 90 % busy and the class allows 90 / 0.9 = 100 GB/s. A NoC port at 50 % (its
  // own bound 180) does not cap that.
  ResourceRecord noc = wire("fam0_noc", 0.5, 100);
  noc.use.name = "request output 0";
  const std::vector<ResourceRecord> rs = {wire("fam0_link0", 1.0, 25), wire("fam0_link1", 1.0, 25),
                                          wire("fam0_link2", 0.8, 25), wire("fam0_link3", 0.8, 25),
                                          noc};
  const auto j = analyze_bottlenecks(rs, 90.0);
  ASSERT_EQ(j["limiter"]["component"], "fam0_link0");
  EXPECT_DOUBLE_EQ(j["analytic_bound_gbps"].get<double>(), 90.0);
  const auto& b = j["limiter"]["class_balance"];
  EXPECT_EQ(b["members"], 4u);
  EXPECT_DOUBLE_EQ(b["min_utilization"].get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(b["even_utilization"].get<double>(), 0.9);
  EXPECT_DOUBLE_EQ(b["even_bound_gbps"].get<double>(), 100.0);
  EXPECT_EQ(b["even_bound_set_by"], "fam*_link* response wire");
  const std::string sentence = j["sentence"];
  EXPECT_NE(sentence.find("The 4 fam*_link* response wire are unevenly loaded (80.0% to 100.0%): "
                          "spread evenly, the same traffic would load each 90.0%, and the "
                          "analytic bound would be 100.0 GB/s (1.11x), still set by them."),
            std::string::npos)
      << sentence;
  // Said after the bound it is compared with.
  EXPECT_LT(sentence.find("of an analytic bound of 90.0"), sentence.find("unevenly"));

  // The NoC port at 95 %: its bound, 90 / 0.95 = 94.7 GB/s, comes first once the wires are even.
  std::vector<ResourceRecord> capped = rs;
  capped.back().use.utilization = 0.95;
  const auto c = analyze_bottlenecks(capped, 90.0);
  EXPECT_DOUBLE_EQ(c["limiter"]["class_balance"]["even_bound_gbps"].get<double>(), 90.0 / 0.95);
  EXPECT_EQ(c["limiter"]["class_balance"]["even_bound_set_by"], "fam0_noc request output 0");
  EXPECT_NE(
      c["sentence"].get<std::string>().find("(1.05x), set then by fam0_noc request output 0."),
      std::string::npos)
      << c["sentence"];
}

TEST(BottleneckRule, AClassOfUnequalWiresIsEvenWhenEachCarriesItsCapacitysShare) {
  // A 50 GB/s and a 25 GB/s wire of one class at 90 % each: their work is 45 + 22.5 of 75 GB/s,
  // 90 % either way. Nothing to even out, so no class_balance and no word of it.
  const std::vector<ResourceRecord> even = {wire("fam0_link0", 0.9, 50),
                                            wire("fam0_link1", 0.9, 25)};
  const auto j = analyze_bottlenecks(even, 60.0);
  ASSERT_TRUE(j.contains("limiter"));
  EXPECT_FALSE(j["limiter"].contains("class_balance"));
  EXPECT_EQ(j["sentence"].get<std::string>().find("unevenly"), std::string::npos);

  // The 50 GB/s wire at 60 % (30 GB/s) and the 25 GB/s one at 100 %: 55 of 75 GB/s, 73.3 % even;
  // 100 % is more than 1.05 times that. Even, 55 GB/s achieved would allow 55 / (55 / 75) = 75.
  const std::vector<ResourceRecord> uneven = {wire("fam0_link0", 0.6, 50),
                                              wire("fam0_link1", 1.0, 25)};
  const auto u = analyze_bottlenecks(uneven, 55.0);
  EXPECT_DOUBLE_EQ(u["limiter"]["class_balance"]["even_utilization"].get<double>(), 55.0 / 75.0);
  EXPECT_DOUBLE_EQ(u["limiter"]["class_balance"]["even_bound_gbps"].get<double>(), 75.0);

  // An idle member (a link of a GPU that issued nothing) cannot take the others' traffic: the
  // balance is over the two that carried some, 25 + 20 of 50 GB/s, 90 % even; 45 GB/s achieved
  // would allow 45 / 0.9 = 50.
  const std::vector<ResourceRecord> idle = {
      wire("fam0_link0", 1.0, 25), wire("fam0_link1", 0.8, 25), wire("fam0_link2", 0.0, 25)};
  const auto i = analyze_bottlenecks(idle, 45.0);
  EXPECT_EQ(i["limiter"]["class_balance"]["members"], 2u);
  EXPECT_DOUBLE_EQ(i["limiter"]["class_balance"]["min_utilization"].get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(i["limiter"]["class_balance"]["even_bound_gbps"].get<double>(), 50.0);
  EXPECT_NE(i["sentence"].get<std::string>().find(
                "The 2 fam*_link* response wire that carried traffic are unevenly loaded (80.0% "
                "to 100.0%)"),
            std::string::npos)
      << i["sentence"];
  // One busy member and idle ones: nothing to spread over.
  const std::vector<ResourceRecord> lone = {wire("fam0_link0", 1.0, 25),
                                            wire("fam0_link1", 0.0, 25)};
  EXPECT_FALSE(analyze_bottlenecks(lone, 22.0)["limiter"].contains("class_balance"));

  // Within 5 %: 100 % against an even 96 % is not called uneven.
  const std::vector<ResourceRecord> close = {wire("fam0_link0", 1.0, 25),
                                             wire("fam0_link1", 0.92, 25)};
  EXPECT_FALSE(analyze_bottlenecks(close, 48.0)["limiter"].contains("class_balance"));

  // A limiting pool has no balance: its limit is slots over latency, not shares of a bandwidth.
  const std::vector<ResourceRecord> pools = {
      pool("gpu0", BlockKind::kGpu, "outstanding window", 1.0, 64),
      pool("gpu1", BlockKind::kGpu, "outstanding window", 0.5, 64)};
  const auto p = analyze_bottlenecks(pools, 10.0);
  ASSERT_EQ(p["limiter"]["reason"], "slots");
  EXPECT_FALSE(p["limiter"].contains("class_balance"));
}

}  // namespace
}  // namespace famsim
