// The mesh NoC (models/noc/mesh.h): zero-load latency worked out from the configuration,
// saturation throughput against the Dally & Towles bisection bound, backpressure with tiny
// buffers, and data integrity / no deadlock on a whole device.
//
// Harness (tests/support/mesh_harness.h): the mesh between test sources and sinks, requests
// only. Clock 1000 MHz: 1 cycle = 1000 ps.
#include "tests/support/crossbar_harness.h"  // run_until
#include "tests/support/mesh_harness.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace famsim {
namespace {

using test::MeshDelivery;
using test::MeshHarness;
using test::MeshMessage;

constexpr std::uint64_t kMeshCycle = 1000;  // ps at 1000 MHz

MeshParams mesh_params(unsigned cols, unsigned rows) {
  MeshParams p;
  p.cols = cols;
  p.rows = rows;
  p.clock_mhz = 1000;
  p.router_cycles = 2;
  p.link_cycles = 1;
  p.link_bytes = 32;
  p.vcs = 2;
  p.vc_buffer_flits = 8;
  p.credit_return_cycles = 1;
  return p;
}

// Every node holds one port and one controller (endpoint i at node i, row-major).
std::vector<MeshCoord> every_node(unsigned cols, unsigned rows) {
  std::vector<MeshCoord> v;
  for (unsigned y = 0; y < rows; ++y) {
    for (unsigned x = 0; x < cols; ++x) v.push_back({x, y});
  }
  return v;
}

// Zero-load latency (mesh.h, "Timing"): a message taken at t over H hops, F flits, with router
// pipeline R and link latency L cycles, reaches its endpoint at
//   edge(t) + ((H + 1) R + H L + F) cycles
// (H + 1 routers each take R cycles from head arrival to competing, H links L cycles each, and
// the ejection moves the F flits). Each case below runs alone on the idle mesh.
struct ZeroLoadCase {
  MeshCoord port;
  MeshCoord controller;
  std::uint64_t at_ps;
  unsigned data_bytes;
  std::uint64_t expected_ps;  // worked out by hand in the comment
};

std::vector<std::uint64_t> zero_load_run(const MeshParams& base,
                                         const std::vector<ZeroLoadCase>& cases) {
  MeshParams p = base;
  for (const ZeroLoadCase& c : cases) {
    p.port_nodes.push_back(c.port);
    p.controller_nodes.push_back(c.controller);
  }
  SimContext ctx(4096, 1);
  const unsigned n = static_cast<unsigned>(cases.size());
  MeshHarness h(ctx, "zl", p, n, n);
  for (unsigned i = 0; i < n; ++i) h.script(i, {{cases[i].at_ps, i, cases[i].data_bytes}});
  test::run_until(ctx, 1000 * kMeshCycle);
  std::vector<std::uint64_t> at(n, 0);
  for (const MeshDelivery& d : h.deliveries()) at[d.port] = d.at_ps;
  EXPECT_EQ(h.deliveries().size(), n);
  return at;
}

TEST(MeshZeroLoad, HopsTimesRouterPlusLinksPlusSerialisation) {
  // R = 2, L = 1, 32 B flits. Each case is alone in time, or on links no other case uses.
  const std::vector<ZeroLoadCase> cases = {
      // (0,0) -> (3,3): H = 6, a read (F = 1), t = 500: edge 1000;
      // 1000 + (7 x 2 + 6 x 1 + 1) x 1000 = 1000 + 21000 = 22000.
      {{0, 0}, {3, 3}, 500, 0, 22000},
      // (3,3) -> (0,0): H = 6, a 64 B write (F = 1 + 64/32 = 3), t = 0 (west then north: no
      // link shared with the first case); 0 + (14 + 6 + 3) x 1000 = 23000.
      {{3, 3}, {0, 0}, 0, 64, 23000},
      // Same node (1,2) -> (1,2): H = 0, a read, t = 100000: 100000 + (2 + 0 + 1) x 1000.
      {{1, 2}, {1, 2}, 100000, 0, 103000},
      // (0,0) -> (1,2): H = 1 + 2 = 3, a 128 B write (F = 1 + 4 = 5), t = 200000:
      // 200000 + (4 x 2 + 3 x 1 + 5) x 1000 = 216000.
      {{0, 0}, {1, 2}, 200000, 128, 216000},
  };
  const auto at = zero_load_run(mesh_params(4, 4), cases);
  for (std::size_t i = 0; i < cases.size(); ++i) EXPECT_EQ(at[i], cases[i].expected_ps) << i;
}

TEST(MeshZeroLoad, LongLinksAndShortRouters) {
  // R = 1, L = 3, 64 B flits on an 8 x 2 mesh.
  MeshParams p = mesh_params(8, 2);
  p.router_cycles = 1;
  p.link_cycles = 3;
  p.link_bytes = 64;
  const std::vector<ZeroLoadCase> cases = {
      // (0,0) -> (7,1): H = 8, a read, t = 0: (9 x 1 + 8 x 3 + 1) x 1000 = 34000.
      {{0, 0}, {7, 1}, 0, 0, 34000},
      // (7,0) -> (2,0): H = 5, a 128 B write (F = 3), t = 100000 + 1 (edge 101000):
      // 101000 + (6 + 15 + 3) x 1000 = 125000.
      {{7, 0}, {2, 0}, 100001, 128, 125000},
  };
  const auto at = zero_load_run(p, cases);
  for (std::size_t i = 0; i < cases.size(); ++i) EXPECT_EQ(at[i], cases[i].expected_ps) << i;
}

// Saturation throughput under uniform random traffic with XY routing: a port and a controller at
// every node, every port always offering a 1-flit read for a uniformly random controller (itself
// included), sinks always ready. Accepted throughput is measured in flits per node per cycle
// after a warm-up.
//
// Bound (Dally & Towles, "Principles and Practices of Interconnection Networks", section 3.3.1):
// a k x k mesh with channel bandwidth b flits/cycle saturates under uniform traffic at
// Theta = 4b/k flits per node per cycle (k even), and never above the injection bandwidth of
// 1 flit/cycle per node. Here b = 1:
//   4 x 4: min(1, 4/4) = 1.0      8 x 8: min(1, 4/8) = 0.5
// Asserted: within 15% of the bound (and not above it).
double saturation(unsigned k, const MeshParams& p, std::uint64_t warmup, std::uint64_t cycles,
                  nlohmann::json* report) {
  MeshParams q = p;
  q.port_nodes = every_node(k, k);
  q.controller_nodes = every_node(k, k);
  SimContext ctx(4096, 1);
  MeshHarness h(ctx, "sat" + std::to_string(k), q, k * k, k * k);
  h.saturate_uniform(100 + k);
  test::run_until(ctx, (warmup + cycles) * kMeshCycle);
  const double tp = static_cast<double>(h.delivered_since(warmup * kMeshCycle)) /
                    (static_cast<double>(k * k) * static_cast<double>(cycles));
  const nlohmann::json r = h.report((warmup + cycles) * kMeshCycle);
  std::printf("%u x %u mesh, %u VCs x %u flits: %.4f flits/node/cycle, busiest link %.4f\n", k, k,
              p.vcs, p.vc_buffer_flits, tp, r["utilization"].get<double>());
  if (report) *report = r;
  return tp;
}

// Buffering: 4 VCs of 8 flits per input (the MeshParams default). With 2 VCs x 8 flits the 4 x 4
// mesh reaches about 0.81 and the 8 x 8 about 0.42: head-of-line blocking inside a VC costs more
// than the 15% allowed. 4 VCs x 4 flits also passes (credit round trip L + R + 1 = 4 cycles).
MeshParams saturation_params(unsigned k) {
  MeshParams p = mesh_params(k, k);
  p.vcs = 4;
  p.vc_buffer_flits = 8;
  return p;
}

TEST(MeshSaturation, FourByFourWithin15PercentOfBisectionBound) {
  const MeshParams p = saturation_params(4);
  nlohmann::json r;
  const double bound = 1.0;  // min(1, 4 x 1 / 4)
  const double tp = saturation(4, p, 2000, 20000, &r);
  EXPECT_GE(tp, 0.85 * bound);
  EXPECT_LE(tp, bound + 1e-9);
  // The report's own bound and the busiest link agree with the hand figure.
  EXPECT_DOUBLE_EQ(r["bisection_bound_flits_per_node"].get<double>(), bound);
  EXPECT_LE(r["utilization"].get<double>(), 1.0);
  EXPECT_GT(r["stall_ns"].get<double>(), 0.0);
}

TEST(MeshSaturation, EightByEightWithin15PercentOfBisectionBound) {
  const MeshParams p = saturation_params(8);
  nlohmann::json r;
  const double bound = 0.5;  // min(1, 4 x 1 / 8)
  const double tp = saturation(8, p, 2000, 20000, &r);
  EXPECT_GE(tp, 0.85 * bound);
  EXPECT_LE(tp, bound + 1e-9);
  EXPECT_DOUBLE_EQ(r["bisection_bound_flits_per_node"].get<double>(), bound);
  // At saturation the central links run near 1 flit/cycle: the bisection is the bottleneck.
  EXPECT_GE(r["utilization"].get<double>(), 0.85);
  // The busiest link is one of the most loaded ones by the channel-load formula: a link between
  // columns (or rows) c - 1 and c carries c (8 - c) / 8 per unit injection: 2 at c = 4, 1.875 at
  // c = 3 and 5, 1.5 at c = 2 and 6. Random traffic makes the three top ones compete.
  const auto& busiest = r["busiest_link"];
  const unsigned fx = busiest["from"][0], tx = busiest["to"][0];
  const unsigned fy = busiest["from"][1], ty = busiest["to"][1];
  const unsigned c = fx != tx ? std::max(fx, tx) : std::max(fy, ty);
  EXPECT_TRUE(c >= 3 && c <= 5) << busiest.dump();
}

// Backpressure with the smallest buffers: 1 VC of 1 flit everywhere (1-flit reads fit), four
// ports on node (0,0) and one controller on (1,1) of a 2 x 2 mesh whose sink takes one message
// per 10 cycles and withholds END_REQ meanwhile. Each port offers 25 reads: 100 in all.
//   Buffering between a port's END_REQ and the sink: 4 injection VCs at (0,0) (1 flit each), the
//   west input at (1,0) and the north input at (1,1) (XY: east, then south; 1 flit each), the
//   ejection channel (vcs x vc_buffer_flits = 1 flit): 7 messages at most. So at any time
//   accepted - delivered <= 7: the rest are held back by withheld END_REQs.
//   The sink takes one per 10 cycles: deliveries are at least 10 cycles apart, the last at least
//   99 x 10 cycles after the first. Nothing is lost: 25 deliveries per port, 100 in all.
TEST(MeshBackpressure, TinyBuffersThrottleInjectionAndLoseNothing) {
  MeshParams p = mesh_params(2, 2);
  p.vcs = 1;
  p.vc_buffer_flits = 1;
  p.port_nodes = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
  p.controller_nodes = {{1, 1}};
  SimContext ctx(4096, 1);
  MeshHarness h(ctx, "bp", p, 4, 1);
  h.saturate_uniform(7, 25);
  h.set_sink_service(10 * kMeshCycle);
  test::run_until(ctx, 1500 * kMeshCycle);
  // In flight = accepted (END_REQ given) - delivered, at every acceptance.
  const auto& accepted_at = h.accept_times();
  std::uint64_t worst = 0;
  std::size_t delivered = 0;
  for (std::size_t a = 0; a < accepted_at.size(); ++a) {
    while (delivered < h.deliveries().size() && h.deliveries()[delivered].at_ps <= accepted_at[a]) {
      ++delivered;
    }
    const std::uint64_t in_flight = a + 1 - delivered;
    worst = std::max(worst, in_flight);
    EXPECT_LE(in_flight, 7u) << "at " << accepted_at[a] << " ps";
  }
  EXPECT_GE(worst, 4u);  // the buffers did fill
  const auto& d = h.deliveries();
  ASSERT_EQ(d.size(), 100u);
  EXPECT_EQ(h.accepted(), 100u);
  std::map<unsigned, unsigned> per_port;
  for (std::size_t k = 0; k < d.size(); ++k) {
    ++per_port[d[k].port];
    if (k > 0) {
      EXPECT_GE(d[k].at_ps - d[k - 1].at_ps, 10 * kMeshCycle) << k;
    }
  }
  for (unsigned i = 0; i < 4; ++i) EXPECT_EQ(per_port[i], 25u) << i;
  EXPECT_GE(d.back().at_ps - d.front().at_ps, 99 * 10 * kMeshCycle);
  const nlohmann::json r = h.report(1500 * kMeshCycle);
  EXPECT_GT(r["backpressure_ns"].get<double>(), 0.0);
  EXPECT_EQ(r["requests"], 100);
  EXPECT_EQ(h.mesh().occupancy(), 0u);
}

// The mesh's buffers as slot pools (the bottleneck report's view), worked out cycle by cycle on a
// 2 x 1 mesh: one port at (0,0), one controller at (1,0), R = 2, L = 1, credit return 1 cycle,
// 1 VC of B = 3 or 4 flits, 32 B flits, the port offering 64 B writes (1 + 2 = 3 flits, the
// largest packet: one fills a buffer, and in 4 flits the one left is no use to another), the
// sink always ready. Times in cycles:
//  - message 1 is injected at 0, competes from 2 and is granted the link at 2 (credits B -> B-3);
//    its head competes at (1,0) from 2 + L + R = 5 and is granted the ejection channel at 5; its
//    tail leaves that input at 5 + 3 = 8, when the sink takes it, and its credits are back at
//    5 + (3 - 1) + 1 = 8;
//  - the injection buffer frees at the grant at 2; message 2, held since 0, is offered the room
//    from the next edge, 3, competes from 5, and waits for the credits until 8.
// So the link is granted every 6 cycles (2, 8, 14, ...): in each period the credits are out all
// 6 cycles, the injection buffer holds a packet for 5 (from grant + 1 to the next grant) and the
// ejection channel for 3 (from grant + 3 to grant + 6). Each pool's capacity is the room for
// whole largest packets, 3 flits, and while it holds one it is full.
struct PoolRun {
  nlohmann::json credits, injection, ejection, link;
};
PoolRun pool_run(unsigned buffer_flits, std::uint64_t messages, std::uint64_t end_cycles) {
  MeshParams p = mesh_params(2, 1);
  p.vcs = 1;
  p.vc_buffer_flits = buffer_flits;
  p.largest_packet_bytes = 64;  // 1 + 64 / 32 = 3 flits
  p.port_nodes = {{0, 0}};
  p.controller_nodes = {{1, 0}};
  SimContext ctx(4096, 1);
  MeshHarness h(ctx, "pools", p, 1, 1);
  h.saturate_uniform(3, messages, 64);
  test::run_until(ctx, end_cycles * kMeshCycle);
  const nlohmann::json res = h.report(end_cycles * kMeshCycle)["resources"];
  // The sinks never respond: the response network is idle and reports no pools.
  for (const auto& [name, u] : res.items()) {
    EXPECT_EQ(name.rfind("response", 0), std::string::npos) << name;
  }
  PoolRun r{res["request VC credits (0,0)->(1,0)"], res["request injection buffer (port 0)"],
            res["request ejection buffer (controller 0)"], res["request link (0,0)->(1,0)"]};
  for (const auto* u : {&r.credits, &r.injection, &r.ejection}) {
    EXPECT_TRUE(u->is_object()) << res.dump(1);
    if (!u->is_object()) continue;
    EXPECT_TRUE((*u)["slots"].get<bool>());
    EXPECT_EQ((*u)["capacity"].get<double>(), 3.0) << buffer_flits;
    EXPECT_FALSE((*u)["response_path"].get<bool>());
  }
  return r;
}

// Saturating, over [0, 602] (100 periods after the first grant, the last ending at 602):
//   link credits    full over 600 of 602 cycles              -> 600 / 602
//   injection       full over 2 + 100 x 5 = 502 cycles       -> 502 / 602
//   ejection        full over 100 x 3 = 300 cycles           -> 300 / 602
//   link            100 packets x 3 flits = 300 flits        -> 300 / 602 flits per cycle
// The same with 4-flit buffers: the flit left over is not room for a packet, so the pools are as
// full (counted in flits, 3 of 4 would have read as 75 %, never full). The link is half busy: the
// buffers, not the wire, set the pace, and the report says so by showing the link's credits full.
// (One simulation per test process: each buffer size is its own test.)
void expect_credit_loop(unsigned buffer_flits) {
  const PoolRun r = pool_run(buffer_flits, 0, 602);
  if (!r.credits.is_object() || !r.injection.is_object() || !r.ejection.is_object()) return;
  EXPECT_NEAR(r.credits["utilization"].get<double>(), 600.0 / 602, 1e-9);
  EXPECT_NEAR(r.injection["utilization"].get<double>(), 502.0 / 602, 1e-9);
  EXPECT_NEAR(r.ejection["utilization"].get<double>(), 300.0 / 602, 1e-9);
  EXPECT_NEAR(r.link["utilization"].get<double>(), 300.0 / 602, 1e-9);
  // In the order a message meets them (bottleneck.h noc_pool_depth): the injection channel at
  // fraction 0, the router input behind the link at the middle of a 1-hop route, the ejection
  // channel at 1; between the device ports (3) and the memory (5).
  EXPECT_DOUBLE_EQ(r.injection["path_depth"].get<double>(), 4.0 - 0.4);
  EXPECT_DOUBLE_EQ(r.credits["path_depth"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(r.ejection["path_depth"].get<double>(), 4.0 + 0.4);
}

TEST(MeshPools, CreditLoopKeepsTheLinkHalfBusyAndItsCreditsFull) { expect_credit_loop(3); }

TEST(MeshPools, AFlitTooFewForAnotherPacketCountsAsFull) { expect_credit_loop(4); }

// 10 messages only: link grants at 2 + 6k, k = 0..9. The last credits come back at 56 + 6 = 62,
// when nothing asks that output for credits again (the block collects returns lazily), so the
// report must count them back from 62: credits full over [2, 62) = 60 cycles. Injection: [0, 2)
// and [3 + 6k, 8 + 6k) for messages 2..10 (k = 0..8) = 2 + 9 x 5 = 47 cycles; ejection
// [5 + 6k, 8 + 6k), k = 0..9 = 30 cycles; link 10 x 3 = 30 flits. Over [0, 602].
TEST(MeshPools, CreditsStillOnTheirWayBackAtTheEndCountFromTheirReturn) {
  const PoolRun r = pool_run(4, 10, 602);
  if (!r.credits.is_object() || !r.injection.is_object() || !r.ejection.is_object()) return;
  EXPECT_NEAR(r.credits["utilization"].get<double>(), 60.0 / 602, 1e-9);
  EXPECT_NEAR(r.injection["utilization"].get<double>(), 47.0 / 602, 1e-9);
  EXPECT_NEAR(r.ejection["utilization"].get<double>(), 30.0 / 602, 1e-9);
  EXPECT_NEAR(r.link["utilization"].get<double>(), 30.0 / 602, 1e-9);
}

// A whole device with a mesh NoC: 4 GPUs with 2 NVLink4-like links each straight to a device of
// 8 fabric ports, a 4 x 4 mesh and 16 DDR5 channels (one controller per node by default).
std::string mesh_platform(const std::string& mesh_extra) {
  return R"(
name: mesh_device
gpus: {count: 4, clock_mhz: 1980, request_bytes: 128, max_outstanding: 256, issue_width: 8}
links:
  gpu_device: {preset: nvlink4, per_gpu: 2}
devices:
  - name: fam0
    capacity_gib: 64
    fabric_ports: 8
    port_logic: {clock_mhz: 1000, ingress_cycles: 8, egress_cycles: 8, tags_per_port: 128}
    noc: {kind: mesh, dims: [4, 4], clock_mhz: 1500, router_cycles: 2, link_cycles: 1,
          link_bytes: 64)" +
         mesh_extra + R"(}
    memory: {preset: ddr5_4800_x4, channels: 16, interleave: {granule_bytes: 256, channel_select: xor}}
)";
}

// Every GPU: 2 MiB of uniformly random 128 B accesses over 1 GiB of fam0, `reads` of them reads,
// `in_flight` outstanding (16384 requests per GPU).
std::string random_128b(double reads, unsigned in_flight) {
  return "name: random\nstreams:\n  - name: random\n    gpus: all\n"
         "    buffer: {bytes: 1GiB, location: device/fam0}\n    pattern: uniform_random\n"
         "    read_fraction: " +
         std::to_string(reads) +
         "\n    access_bytes: 128\n    total_bytes: 2MiB\n    max_outstanding: " +
         std::to_string(in_flight) + "\n";
}

TEST(MeshDevice, WhatIsWrittenReadsBackThroughTheMesh) {
  // Every GPU writes 1 MiB in 4 KiB accesses, then reads it back and checks every byte.
  const std::string workload = R"(
name: integrity
streams:
  - name: write
    gpus: all
    buffer: {bytes: 1MiB, location: device/fam0}
    pattern: sequential
    read_fraction: 0.0
    access_bytes: 4KiB
    data_seed: 42
  - name: read_back
    gpus: all
    buffer: {from_stream: write}
    pattern: sequential
    read_fraction: 1.0
    access_bytes: 4KiB
    verify_reads: true
    data_seed: 42
    start_after: [write]
)";
  const auto r = test::run_sim(mesh_platform(""), workload);
  // 1 MiB / 128 B = 8192 requests per GPU and direction: 4 x 2 x 8192 = 65536.
  const std::uint64_t requests = 4 * 2 * 8192;
  EXPECT_EQ(r["conservation"]["completed"].get<std::uint64_t>(), requests);
  EXPECT_EQ(r["summary"]["read_bytes"].get<std::uint64_t>(), 4 * (1ULL << 20));
  EXPECT_EQ(r["conservation"]["data_mismatches"].get<std::uint64_t>(), 0u);
  EXPECT_TRUE(r["conservation"]["ok"].get<bool>());
  // Every request crosses the mesh once each way; write data forward, read data back.
  const auto& noc = r["components"]["fam0.noc"];
  EXPECT_EQ(noc["requests"].get<std::uint64_t>(), requests);
  EXPECT_EQ(noc["responses"].get<std::uint64_t>(), requests);
  EXPECT_DOUBLE_EQ(noc["bytes"].get<double>(), 2.0 * 4 * (1ULL << 20));
}

TEST(MeshDevice, SaturatingMixedTrafficCompletesWithSmallestBuffers) {
  // Uniform random reads and writes, half each, 512 in flight per GPU, through the smallest
  // legal buffers (2 VCs of 3 flits: a 128 B packet at 64 B flits is 1 + 2 flits): no deadlock,
  // every request completes exactly once. 2 MiB / 128 B = 16384 requests per GPU, 65536 in all.
  const auto r =
      test::run_sim(mesh_platform(", vcs: 2, vc_buffer_flits: 3"), random_128b(0.5, 512),
                    {"gpus.max_outstanding=512", "devices.0.port_logic.tags_per_port=256"});
  EXPECT_EQ(r["conservation"]["completed"].get<std::uint64_t>(), 65536u);
  EXPECT_EQ(r["conservation"]["issued"].get<std::uint64_t>(), 65536u);
  EXPECT_TRUE(r["conservation"]["ok"].get<bool>());
  const auto& noc = r["components"]["fam0.noc"];
  EXPECT_EQ(noc["requests"].get<std::uint64_t>(), 65536u);
  EXPECT_EQ(noc["responses"].get<std::uint64_t>(), 65536u);
  EXPECT_GT(noc["backpressure_ns"].get<double>(), 0.0);  // the small buffers did push back
}

TEST(MeshDevice, StarvedVcBuffersAreNamedAsTheLimiter) {
  // 1 VC of 3 flits: a 128 B read response at 64 B flits (1 + 2 flits) fills a router input, and
  // a link sends its next packet only when the last one's credits are back: granted at E, the head
  // competes at the next router from E + L + R = E + 3 and leaves it by E + 6, credits back at
  // E + 6 (3 - 1 flits + 1 cycle). So no mesh link carries more than 3 flits in 6 cycles, half its
  // bandwidth (below the 85 % at which a link counts as saturated), and none can be the limiter.
  // Responses go X first, then along column 0 to the ports (two per row on the west edge): the
  // link (0,2)->(0,1) carries those from the 8 controllers of rows 2 and 3 to the ports of rows 0
  // and 1, a quarter of them, at most 128 B per 6 cycles at 1500 MHz = 32 GB/s: the reads get at
  // most about 4 x 32 = 128 GB/s, below the 8 device links' 8 x 25 GB/s. The report must name the
  // mesh's response VC credits (it named the port logic's tags, filled behind them, before).
  const auto r =
      test::run_sim(mesh_platform(", vcs: 1, vc_buffer_flits: 3"), random_128b(1.0, 256));
  EXPECT_TRUE(r["conservation"]["ok"].get<bool>());
  const auto& b = r["bottlenecks"];
  const auto& l = b["limiter"];
  ASSERT_TRUE(l.is_object()) << b["sentence"];
  EXPECT_EQ(l["component"], "fam0.noc") << b["sentence"];
  EXPECT_EQ(l["type"], "slots") << b["sentence"];
  EXPECT_EQ(l["resource"].get<std::string>().rfind("response VC credits (", 0), 0u)
      << b["sentence"];
  EXPECT_LE(r["summary"]["read_bandwidth_gbps"].get<double>(), 128.0 * 1.05);
  // Controllers whose response injection buffer is full keep their ready responses: the hop
  // breakdown shows that wait apart from the DRAM's service.
  double wait = -1;
  for (const auto& h : r["latency_breakdown_ns"]["read"]["hops"]) {
    if (h["hop"] == "memory_response_wait") wait = h["mean"].get<double>();
  }
  EXPECT_GT(wait, 0.0);
  // Response links: 3 flits per 6 cycles. Request links carry 1-flit reads, whose credits are
  // back 1 + 2 + 0 + 1 = 4 cycles after they are sent: 3 flits per 4 cycles.
  for (const auto& [net, most] : {std::pair{"request", 0.75}, std::pair{"response", 0.5}}) {
    for (const auto& link : r["components"]["fam0.noc"]["links"][net]) {
      EXPECT_LE(link["flits_per_cycle"].get<double>(), most + 1e-3) << net << link.dump();
    }
  }
}

}  // namespace
}  // namespace famsim
