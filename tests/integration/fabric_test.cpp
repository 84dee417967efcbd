// Switch planes and leaf/spine pods: zero-load latency through a leaf/spine plane worked out hop by
// hop, data integrity across planes and pods with peer traffic, and the spread of traffic over the
// planes and the device ports.
#include "tests/support/round_number_device.h"
#include "tests/support/test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

namespace famsim {
namespace {

using test::edge;
using test::edge_after;
using test::ser;
using ::testing::HasSubstr;

// 4 GPUs with one link each fill leaf 0 (4 endpoint ports); the device's port sits on leaf 1.
// Radix 8: 4 uplinks per leaf, 2 spines, 2 links from each leaf to each spine.
const std::string kPod = R"(
name: pod
gpus: {count: 4, clock_mhz: 1000, request_bytes: 128, max_outstanding: 16, issue_width: 1}
links:
  gpu_switch: {lanes: 4, lane_gbps: 32, encoding_efficiency: 1.0, latency_ns: 10, clock_mhz: 1000,
               flit_bytes: 16, per_gpu: 1}
  switch_device: {lanes: 8, lane_gbps: 32, encoding_efficiency: 1.0, latency_ns: 5, clock_mhz: 1000,
                  flit_bytes: 16}
  leaf_spine: {lanes: 8, lane_gbps: 32, encoding_efficiency: 1.0, latency_ns: 7, clock_mhz: 1000,
               flit_bytes: 16}
switch: {radix: 8, topology: leaf_spine, leaf_down_ports: 4, spines: 2, clock_mhz: 1000,
         pipeline_cycles: 10, port_bytes: 64, input_buffer: 4, output_buffer: 4}
)" + test::kRoundNumberDevice;

// A read's round trip from the device's fabric port back to it
// (tests/support/round_number_device.h).
std::uint64_t device_round_trip(std::uint64_t arrive) {
  return test::round_number_device_trip(arrive, false);
}

TEST(LeafSpine, ZeroLoadReadCrossesLeafSpineLeaf) {
  const std::string one_read = R"(
name: one
streams:
  - gpus: [0]
    buffer: {bytes: 2MiB, location: device/fam0}
    pattern: sequential
    read_fraction: 1.0
    access_bytes: 128
    total_bytes: 128
)";
  const nlohmann::json r = test::run_sim(kPod, one_read);
  const double gpu_link = 16.0, fast = 32.0;  // GB/s: 4 x 32 / 8 and 8 x 32 / 8
  const std::uint64_t sw = 1000;
  // Request (16 B header flit): GPU link, leaf 0, up link, spine, down link, leaf 1, device link.
  // Each link starts a transfer on the first edge of its 1000 MHz clock after it arrives.
  const std::uint64_t lk = 1000;
  std::uint64_t t = edge_after(0, lk) + ser(16, gpu_link) + 10000;
  t = edge_after(t, sw) + (10 + 1) * sw;
  t = edge_after(t, lk) + ser(16, fast) + 7000;
  t = edge_after(t, sw) + (10 + 1) * sw;
  t = edge_after(t, lk) + ser(16, fast) + 7000;
  t = edge_after(t, sw) + (10 + 1) * sw;
  t = edge_after(t, lk) + ser(16, fast) + 5000;
  t = device_round_trip(t);
  // Response (16 B header flit + 8 data flits): the same hops back, two 64 B beats per chip.
  t = edge_after(t, lk) + ser(144, fast) + 5000;
  t = edge_after(t, sw) + (10 + 2) * sw;
  t = edge_after(t, lk) + ser(144, fast) + 7000;
  t = edge_after(t, sw) + (10 + 2) * sw;
  t = edge_after(t, lk) + ser(144, fast) + 7000;
  t = edge_after(t, sw) + (10 + 2) * sw;
  t = edge_after(t, lk) + ser(144, gpu_link) + 10000;
  ASSERT_EQ(r["conservation"]["completed"], 1);
  EXPECT_DOUBLE_EQ(r["summary"]["latency_ns"]["max"].get<double>(), t / 1000.0);
  // Exactly one leaf-to-spine link carried the request up (its leaf-to-spine wire, request
  // channel) and one carried it down (spine-to-leaf wire, request channel); the 128 B of data came
  // back over both.
  std::uint64_t up = 0, down = 0, data = 0;
  for (const auto& [name, c] : r["components"].items()) {
    if (name.find("_spine") == std::string::npos) continue;
    up += c["request_direction"]["request_vc"]["transfers"].get<std::uint64_t>();
    down += c["response_direction"]["request_vc"]["transfers"].get<std::uint64_t>();
    data += c["bytes"].get<std::uint64_t>();
  }
  EXPECT_EQ(up, 1u);
  EXPECT_EQ(down, 1u);
  EXPECT_EQ(data, 2u * 128u);
}

// Every GPU writes 1 MiB into the next GPU's HBM and 1 MiB into the device, then reads both back.
std::string cross_traffic(unsigned gpus) {
  std::string w = "name: cross\nstreams:\n";
  for (unsigned g = 0; g < gpus; ++g) {
    const std::string s = std::to_string(g);
    const std::string peer = std::to_string((g + 1) % gpus);
    for (const std::string& where : {"gpu/" + peer, std::string("device/fam0")}) {
      const std::string tag = s + (where[0] == 'g' ? "p" : "d");
      w += "  - name: w" + tag + "\n    gpus: [" + s +
           "]\n    buffer: {bytes: 1MiB, location: " + where +
           "}\n    pattern: sequential\n    read_fraction: 0.0\n    access_bytes: 4KiB\n"
           "    data_seed: 9\n";
      w += "  - name: r" + tag + "\n    gpus: [" + s + "]\n    buffer: {from_stream: w" + tag +
           "}\n    pattern: sequential\n    read_fraction: 1.0\n    access_bytes: 4KiB\n"
           "    verify_reads: true\n    data_seed: 9\n    start_after: [w" +
           tag + "]\n";
    }
  }
  return w;
}

const std::string kHbm = R"(
       local_memory: {model: ideal, standard: TEST, data_rate_mtps: 2000, channel_width_bits: 64,
                      clock_mhz: 1000, access_latency_cycles: 20, channels: 4, capacity_gib: 1,
                      interleave: {granule_bytes: 256, channel_select: modulo}}}
)";

TEST(LeafSpine, PeerAndDeviceDataSurviveThePod) {
  // The pod with local memory: peer requests cross leaf/spine to the next GPU (GPU 3 -> GPU 0 and
  // the others stay on leaf 0), device traffic always crosses to leaf 1.
  std::string pod = kPod;
  pod.replace(pod.find("issue_width: 1}"), std::string("issue_width: 1}").size(),
              "issue_width: 1," + kHbm);
  const auto r = test::run_sim(pod, cross_traffic(4));
  // Per GPU: 2 x 1 MiB written and read back in 128 B requests.
  EXPECT_EQ(r["conservation"]["completed"].get<std::uint64_t>(), 4u * 4u * 8192u);
  EXPECT_EQ(r["conservation"]["data_mismatches"].get<std::uint64_t>(), 0u);
  EXPECT_TRUE(r["conservation"]["ok"].get<bool>());
}

// A workload of uniformly random 128 B reads by `gpus` ("all" or a YAML list) from `location`.
std::string random_reads(const std::string& gpus, const std::string& location,
                         const std::string& total_bytes) {
  return "name: reads\nstreams:\n  - gpus: " + gpus +
         "\n    buffer: {bytes: 64MiB, location: " + location +
         "}\n    pattern: uniform_random\n    read_fraction: 1.0\n    access_bytes: 128\n"
         "    total_bytes: " +
         total_bytes + "\n    max_outstanding: 64\n";
}

TEST(LeafSpine, StarvedDownLinkCreditsAreNamedAheadOfTheChipsFilledBehindThem) {
  // 8 GPUs fill leaves 0 and 1, the device port sits on leaf 2. Each leaf-spine link's request VC
  // holds one message whose credit takes 200 ns to come back: a round trip of 0.5 ns (one 16 B
  // flit at 32 GB/s) + 7 ns latency + 200 ns + up to one 1 GHz edge = 208 ns, so a link carries
  // one 128 B read per 208 ns. All reads go down the 4 links from the spines into leaf 2
  // (4 x 128 B / 208 ns = 2.46 GB/s) but up the 8 from leaves 0 and 1: the down links' credits
  // limit, far below the GPU links (16 GB/s), the device link (32 GB/s), the memory (2 x 16 GB/s)
  // and the 64 device tags. The chips before them fill: the source leaves' and the spines' input
  // buffers and the up links' credits are entered earlier on the way and are blocked, not
  // limiting, although all are switch pools or links into one.
  const auto r = test::run_sim(
      kPod, random_reads("all", "device/fam0", "256KiB"),
      {"gpus.count=8", "gpus.max_outstanding=64", "devices.0.port_logic.tags_per_port=64",
       "links.leaf_spine.credit_unit=message", "links.leaf_spine.request_vc_credits=1",
       "links.leaf_spine.credit_return_ns=200"});
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  const auto& b = r["bottlenecks"];
  ASSERT_TRUE(b.contains("limiter")) << b["sentence"];
  const auto& l = b["limiter"];
  EXPECT_EQ(l["component"].get<std::string>().rfind("leaf2_spine", 0), 0u) << b["sentence"];
  // The down links' credits as a server (their credit round trip: each read holds the one
  // credit at least 0.5 + 7 + 200 ns) cap the run at 4 x 128 B / 207.5 ns = 2.467 GB/s.
  EXPECT_EQ(l["resource"], "request VC credit round trip (response direction)") << b["sentence"];
  EXPECT_EQ(l["reason"], "bandwidth");
  const double bound = 4 * 128 / 208.0;
  EXPECT_LE(b["achieved_gbps"].get<double>(), bound * 1.001);
  EXPECT_GE(b["achieved_gbps"].get<double>(), bound * 0.95);
  EXPECT_NEAR(b["analytic_bound_gbps"].get<double>(), 4 * 128 / 207.5, 0.02 * 4 * 128 / 207.5);
  bool spines = false, leaves = false, up_links = false;
  for (const auto& x : b["blocks"]) {
    spines |= x["class"] == "spine*";
    leaves |= x["class"] == "leaf*";
    up_links |= x["class"] == "leaf*_spine*_link*" && x["resource"] == "request VC credits";
  }
  EXPECT_TRUE(spines) << b["sentence"];
  EXPECT_TRUE(leaves) << b["sentence"];
  EXPECT_TRUE(up_links) << b["sentence"];
}

TEST(LeafSpine, AnOutputBufferShorterThanItsPipelineLimitsThePortAndIsNamed) {
  // Every read goes down to the device through leaf 1's one output to its port. An output buffer
  // holds a message from its grant until it leaves the 100-cycle pipeline (store-and-forward, a
  // read request is one beat: 101 cycles of the 1 GHz clock), so 2 slots let that output send 2
  // requests per 101 ns: 2 x 128 B / 101 ns = 2.53 GB/s of reads, below the links (16 and 32
  // GB/s), the memory (2 x 16 GB/s), the 8 device tags (8 x 128 B over a device round trip of
  // about 60 ns) and the 4 outputs each of leaf 0 and the spines that share the traffic. The
  // buffer is the limiter and the input buffers that fill behind it, in leaf 1, the spines and
  // leaf 0, are blocked (the old report, without output buffers, named a leaf 1 input buffer).
  const auto r = test::run_sim(
      kPod, random_reads("all", "device/fam0", "256KiB"),
      {"switch.pipeline_cycles=100", "switch.output_buffer=2", "switch.input_buffer=16"});
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  const auto& b = r["bottlenecks"];
  ASSERT_TRUE(b.contains("limiter")) << b["sentence"];
  const auto& l = b["limiter"];
  EXPECT_EQ(l["component"], "leaf1") << b["sentence"];
  EXPECT_EQ(l["resource"], "request output 0 buffer") << b["sentence"];
  EXPECT_EQ(l["reason"], "slots");
  EXPECT_EQ(l["capacity"].get<double>(), 2.0);
  const double bound = 2 * 128 / 101.0;
  EXPECT_LE(b["achieved_gbps"].get<double>(), bound * 1.001);
  EXPECT_GE(b["achieved_gbps"].get<double>(), bound * 0.98);
  bool inputs = false;
  for (const auto& x : b["blocks"]) {
    inputs |= x["class"] == "leaf*" && x["resource"] == "request input * buffer";
  }
  EXPECT_TRUE(inputs) << b["sentence"];
}

// 2 GPUs x 4 links over 2 planes; one device with 4 ports (2 per plane); peer paths.
const std::string kPlanes = R"(
name: planes
gpus: {count: 2, clock_mhz: 1000, request_bytes: 128, max_outstanding: 64, issue_width: 2,)" +
                            kHbm + R"(
links:
  gpu_switch: {lanes: 4, lane_gbps: 32, encoding_efficiency: 1.0, latency_ns: 10, clock_mhz: 1000,
               flit_bytes: 16, per_gpu: 4}
  switch_device: {lanes: 4, lane_gbps: 32, encoding_efficiency: 1.0, latency_ns: 5, clock_mhz: 1000,
                  flit_bytes: 16}
switch: {radix: 8, planes: 2, clock_mhz: 1000, pipeline_cycles: 10, port_bytes: 64, input_buffer: 4,
         output_buffer: 4}
devices:
  - name: fam0
    capacity_gib: 1
    fabric_ports: 4
    port_logic: {clock_mhz: 1000, ingress_cycles: 3, egress_cycles: 2, tags_per_port: 64}
    noc: {kind: crossbar, clock_mhz: 1000, pipeline_cycles: 4, width_bytes: 32, input_buffer: 4,
          output_buffer: 4}
    memory: {model: ideal, standard: TEST, data_rate_mtps: 2000, channel_width_bits: 64,
             clock_mhz: 1000, access_latency_cycles: 20, channels: 4,
             interleave: {granule_bytes: 256, channel_select: xor}}
)";

TEST(SwitchPlanes, PeerAndDeviceDataSurviveTwoPlanes) {
  const auto r = test::run_sim(kPlanes, cross_traffic(2));
  EXPECT_EQ(r["conservation"]["completed"].get<std::uint64_t>(), 2u * 4u * 8192u);
  EXPECT_EQ(r["conservation"]["data_mismatches"].get<std::uint64_t>(), 0u);
  EXPECT_TRUE(r["conservation"]["ok"].get<bool>());
  // Both planes carried traffic: each has its own switch chip.
  EXPECT_GT(r["components"]["plane0_switch"]["requests"].get<std::uint64_t>(), 0u);
  EXPECT_GT(r["components"]["plane1_switch"]["requests"].get<std::uint64_t>(), 0u);
}

TEST(SwitchPlanes, PeerPathPoolsRankInTheOrderAPeerRequestMeetsThem) {
  // GPUs 0 and 1 read GPU 2's memory, whose hub is slow to take them (a 1-message output buffer
  // behind a 400-cycle pipeline, in front of its one HBM channel), so every pool on the way fills
  // to some degree. A peer request meets, in this order: its own GPU link's request credits
  // (feeding the switch), the switch's input buffer, GPU 2's link's switch-to-GPU request credits
  // (feeding the hub), the hub's peer input buffer, the hub's output buffer. The ranking must
  // place them in that order, and name the hub's output buffer, entered last.
  const auto r =
      test::run_sim(kPlanes, random_reads("[0, 1]", "gpu/2", "1MiB"),
                    {"gpus.count=3", "links.gpu_switch.credit_unit=message",
                     "links.gpu_switch.request_vc_credits=2", "links.gpu_switch.tx_queue_entries=1",
                     "gpus.hub.pipeline_cycles=400", "gpus.hub.output_buffer=1",
                     "gpus.hub.input_buffer=1", "gpus.local_memory.channels=1"});
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  // The position of the first ranked pool of `component_prefix` whose resource is `resource`
  // (exactly, or as a prefix when `prefix` is set).
  auto position = [&](const std::string& component_prefix, const std::string& resource,
                      bool prefix) {
    for (const auto& x : r["bottlenecks"]["ranked"]) {
      const std::string c = x["component"], res = x["resource"];
      if (c.rfind(component_prefix, 0) != 0) continue;
      if (prefix ? res.rfind(resource, 0) != 0 : res != resource) continue;
      return x["round_trip_position"].get<double>();
    }
    ADD_FAILURE() << component_prefix << " " << resource << " not ranked";
    return -1.0;
  };
  const double sender = position("gpu0_link", "request VC credits", false);
  const double sw = position("plane", "request input", true);
  const double into_hub = position("gpu2_link", "request VC credits (response direction)", false);
  const double hub = position("gpu2_hub", "request input", true);
  const double hub_out = position("gpu2_hub", "request output 0 buffer", false);
  EXPECT_LT(sender, sw);
  EXPECT_LT(sw, into_hub);
  EXPECT_LT(into_hub, hub);
  EXPECT_LT(hub, hub_out);
  EXPECT_EQ(r["bottlenecks"]["limiter"]["component"], "gpu2_hub") << r["bottlenecks"]["sentence"];
  EXPECT_EQ(r["bottlenecks"]["limiter"]["resource"], "request output 0 buffer");
}

// (planes, device fabric ports): 4 links per GPU. With 4 planes each GPU link alone picks the
// plane, and xor-folding the same address bits again for the device port would send each plane's
// traffic to one of its 2 ports (see HashSpread); the hashed port choice spreads it evenly.
class PlaneSpread : public ::testing::TestWithParam<std::pair<unsigned, unsigned>> {};

TEST_P(PlaneSpread, RandomAndSequentialReadsSpreadEvenlyOverPlanesAndDevicePorts) {
  const auto [planes, ports] = GetParam();
  std::string p = kPlanes;
  p.replace(p.find("planes: 2"), 9, "planes: " + std::to_string(planes));
  p.replace(p.find("fabric_ports: 4"), 15, "fabric_ports: " + std::to_string(ports));
  p.replace(p.find("radix: 8"), 8, "radix: 16");
  const std::string w = R"(
name: spread
streams:
  - gpus: all
    buffer: {bytes: 64MiB, location: device/fam0}
    pattern: uniform_random
    read_fraction: 1.0
    access_bytes: 128
    total_bytes: 2MiB
  - gpus: all
    buffer: {bytes: 2MiB, location: device/fam0}
    pattern: sequential
    read_fraction: 1.0
    access_bytes: 4KiB
)";
  const auto r = test::run_sim(p, w);
  // 2 GPUs x (2 MiB random + 2 MiB sequential) / 128 B = 65536 requests, a 1/ports share per
  // device port: binomial sd = sqrt(65536 x (1/ports) x (1 - 1/ports)) <= 111, so 4% of 8192
  // (328) is > 2.9 sd and 3% of 16384 (492) > 4 sd.
  const double total = 65536.0;
  const double expected = total / ports;
  for (unsigned q = 0; q < ports; ++q) {
    const auto& link = r["components"]["fam0_link" + std::to_string(q)];
    const double requests = link["request_direction"]["messages"].get<double>();
    EXPECT_NEAR(requests, expected, 0.04 * expected) << "device port " << q;
  }
  for (unsigned k = 0; k < planes; ++k) {
    const double in_plane =
        r["components"]["plane" + std::to_string(k) + "_switch"]["requests"].get<double>();
    EXPECT_NEAR(in_plane, total / planes, 0.04 * total / planes) << "plane " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(SwitchPlanes, PlaneSpread,
                         ::testing::Values(std::make_pair(2u, 4u), std::make_pair(4u, 8u)));

TEST(SwitchPlanes, APlaneWithoutAPortOfEveryDeviceIsRejected) {
  std::string p = kPlanes;
  p.replace(p.find("planes: 2"), 9, "planes: 8");
  try {
    parse_config(test::make_doc(p, "name: w\nstreams: []\n"));
    FAIL() << "8 planes over 4 links per GPU must be rejected";
  } catch (const std::exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("switch.planes"));
    EXPECT_THAT(e.what(), HasSubstr("every GPU needs a link on every plane"));
  }
}

}  // namespace
}  // namespace famsim
