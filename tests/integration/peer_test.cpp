// Peer-to-peer traffic: a GPU reads and writes another GPU's HBM through its links, the switch
// (routing by destination GPU), the destination's peer link and its memory hub. Zero-load
// latency and throughput bounds are worked out here from the configuration and the timing rules
// in each block's header; integrity is checked byte for byte.
#include "tests/support/test_support.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace famsim {
namespace {

using test::edge;
using test::edge_after;
using test::ser;
using ::testing::HasSubstr;

// 2 GPUs at 1000 MHz, each with 4 ideal HBM channels (2000 MT/s x 64 bit = 16 B per 1000 MHz
// clock, 20 cycles access) behind a memory hub at 500 MHz (3 pipeline cycles, 32 B wide).
// Links to the switch: 4 lanes x 32 Gb/s = 16 GB/s, 10 ns, 16 B header. Switch: 1000 MHz,
// 10 pipeline cycles, 64 B wide. The device is there because a switch needs one; it is idle.
std::string peer_platform(
    const std::string& gpu_link = "lanes: 4, lane_gbps: 32, per_gpu: 1",
    const std::string& hub = "clock_mhz: 500, pipeline_cycles: 3, width_bytes: 32",
    const std::string& hbm_channels = "4", unsigned max_outstanding = 16) {
  return R"(
name: peer
gpus: {count: 2, clock_mhz: 1000, request_bytes: 128, max_outstanding: )" +
         std::to_string(max_outstanding) + R"(, issue_width: 2,
       local_memory: {model: ideal, standard: TEST, data_rate_mtps: 2000, channel_width_bits: 64,
                      clock_mhz: 1000, access_latency_cycles: 20, channels: )" +
         hbm_channels + R"(, capacity_gib: 1,
                      controller: {read_queue: 128, write_queue: 128},
                      interleave: {granule_bytes: 256, channel_select: modulo}},
       hub: {)" +
         hub +
         R"(, input_buffer: 16, output_buffer: 16}}
links:
  gpu_switch: {)" +
         gpu_link + R"(, encoding_efficiency: 1.0, latency_ns: 10, clock_mhz: 1000,
               flit_bytes: 16, request_vc_credits: 64, response_vc_credits: 64}
  switch_device: {lanes: 8, lane_gbps: 32, encoding_efficiency: 1.0, latency_ns: 5, clock_mhz: 1000,
                  flit_bytes: 16, request_vc_credits: 32, response_vc_credits: 32}
switch: {radix: 8, clock_mhz: 1000, pipeline_cycles: 10, port_bytes: 64, input_buffer: 16,
         output_buffer: 16}
devices:
  - name: fam0
    capacity_gib: 1
    fabric_ports: 1
    port_logic: {clock_mhz: 500, ingress_cycles: 3, egress_cycles: 2, tags_per_port: 8}
    noc: {kind: crossbar, clock_mhz: 1000, pipeline_cycles: 4, width_bytes: 32}
    memory: {model: ideal, standard: TEST, data_rate_mtps: 2000, channel_width_bits: 64, clock_mhz: 1000,
             access_latency_cycles: 20, channels: 1}
)";
}

// One 128 B request by GPU 0 to a buffer at `location`.
std::string peer_request(const std::string& location, bool write) {
  return std::string("name: one\nstreams:\n  - gpus: [0]\n    buffer: {bytes: 2MiB, location: ") +
         location + "}\n    pattern: sequential\n    read_fraction: " + (write ? "0.0" : "1.0") +
         "\n    access_bytes: 128\n    total_bytes: 128\n";
}

// Times in ps. Link 16 GB/s, 10 ns; switch period 1000, 10 cycles, 64 B beats; hub period 2000,
// 3 cycles, 32 B beats; memory period 1000, 20 cycles + 128 B / 16 B = 8 burst cycles.
constexpr double kLinkGbps = 16.0;
// The links decide on the edge of their 1000 MHz clock strictly after a message arrives, then
// send a 16 B header flit (+ 128 / 16 = 8 data flits for data) and add 10 ns.
constexpr std::uint64_t kLinkPs = 10000, kLinkClock = 1000, kSwitch = 1000, kHub = 2000,
                        kMem = 1000;
std::uint64_t beats(std::uint64_t data, std::uint64_t width) {
  return data == 0 ? 1 : (data + width - 1) / width;
}
// Request data forward (write) or back (read).
std::uint64_t peer_round_trip(bool write) {
  const std::uint64_t fwd = write ? 128 : 0, back = write ? 0 : 128;
  std::uint64_t t = 0;                                                  // GPU issues at edge 0
  t = edge_after(t, kLinkClock) + ser(16 + fwd, kLinkGbps) + kLinkPs;   // GPU 0's link
  t = edge_after(t, kSwitch) + (10 + beats(fwd, 64)) * kSwitch;         // switch
  t = edge_after(t, kLinkClock) + ser(16 + fwd, kLinkGbps) + kLinkPs;   // GPU 1's peer link
  t = edge_after(t, kHub) + (3 + beats(fwd, 32)) * kHub;                // GPU 1's hub
  t = edge(t, kMem) + (20 + 128 / 16) * kMem;                           // HBM channel
  t = edge_after(t, kHub) + (3 + beats(back, 32)) * kHub;               // hub back
  t = edge_after(t, kLinkClock) + ser(16 + back, kLinkGbps) + kLinkPs;  // peer link back
  t = edge_after(t, kSwitch) + (10 + beats(back, 64)) * kSwitch;        // switch back
  t = edge_after(t, kLinkClock) + ser(16 + back, kLinkGbps) + kLinkPs;  // GPU 0's link back
  return t;
}

class PeerZeroLoad : public ::testing::TestWithParam<const char*> {
 protected:
  std::vector<std::string> kernel() const { return {std::string("sim.kernel=") + GetParam()}; }
};

TEST_P(PeerZeroLoad, PeerReadIsTheSumOfHopLatencies) {
  const nlohmann::json r = test::run_sim(peer_platform(), peer_request("gpu/1", false), kernel());
  const std::uint64_t t = peer_round_trip(false);
  ASSERT_EQ(r["conservation"]["completed"], 1);
  EXPECT_DOUBLE_EQ(r["summary"]["latency_ns"]["max"].get<double>(), t / 1000.0);
  // The same arithmetic by hand: link edge after 0 -> 1, + 1 + 10 -> 12 ns; switch edge 13 + 11
  // -> 24; peer link edge 25 + 1 + 10 -> 36; hub edge 38 + 4 x 2 -> 46; HBM 46 + 28 -> 74; hub
  // edge 76 + 7 x 2 -> 90; peer link edge 91 + 9 + 10 -> 110; switch edge 111 + 12 -> 123; link
  // edge 124 + 9 + 10 -> 143 ns.
  EXPECT_EQ(t, 143000u);
  // It went the peer way: GPU 1's hub and peer link carried it, GPU 0's hub did not.
  EXPECT_EQ(r["components"]["gpu0"]["peer_requests"], 1);
  EXPECT_EQ(r["components"]["gpu1_hub"]["requests"], 1);
  EXPECT_EQ(r["components"]["gpu0_hub"]["requests"], 0);
  EXPECT_DOUBLE_EQ(r["components"]["gpu1_link0"]["bytes"].get<double>(), 128.0);
}

TEST_P(PeerZeroLoad, PeerWriteIsTheSumOfHopLatencies) {
  const nlohmann::json r = test::run_sim(peer_platform(), peer_request("gpu/1", true), kernel());
  const std::uint64_t t = peer_round_trip(true);
  ASSERT_EQ(r["conservation"]["completed"], 1);
  EXPECT_DOUBLE_EQ(r["summary"]["write_latency_ns"]["max"].get<double>(), t / 1000.0);
  // By hand: link edge 1 + 9 + 10 -> 20 ns; switch 21 + 12 -> 33; peer link edge 34 + 19 -> 53;
  // hub 54 + 7 x 2 -> 68; HBM 68 + 28 -> 96; hub 98 + 4 x 2 -> 106; peer link edge 107 + 11 ->
  // 118; switch 119 + 11 -> 130; link edge 131 + 11 -> 142 ns.
  EXPECT_EQ(t, 142000u);
}

TEST_P(PeerZeroLoad, LocalReadPassesThroughTheGpusOwnHub) {
  // With peer paths the GPU's own HBM requests cross its hub too (they share the channels with
  // the peers' requests): hub edge 2 + 4 x 2 -> 10 ns; HBM 10 + 28 -> 38; hub edge 40 + 7 x 2
  // -> 54 ns.
  const nlohmann::json r =
      test::run_sim(peer_platform(), peer_request("gpu_local", false), kernel());
  std::uint64_t t = edge_after(0, kHub) + (3 + 1) * kHub;
  t = edge(t, kMem) + (20 + 8) * kMem;
  t = edge_after(t, kHub) + (3 + 4) * kHub;
  EXPECT_EQ(t, 54000u);
  ASSERT_EQ(r["conservation"]["completed"], 1);
  EXPECT_DOUBLE_EQ(r["summary"]["latency_ns"]["max"].get<double>(), t / 1000.0);
  EXPECT_EQ(r["components"]["gpu0"]["peer_requests"], 0);
  EXPECT_EQ(r["components"]["gpu0_hub"]["requests"], 1);
}

TEST_P(PeerZeroLoad, OwnMemoryNamedByIndexIsLocal) {
  // gpu/0 seen from GPU 0 is its own HBM: the local path, not the fabric.
  const nlohmann::json r = test::run_sim(peer_platform(), peer_request("gpu/0", false), kernel());
  ASSERT_EQ(r["conservation"]["completed"], 1);
  EXPECT_DOUBLE_EQ(r["summary"]["latency_ns"]["max"].get<double>(), 54.0);
  EXPECT_EQ(r["components"]["gpu0"]["peer_requests"], 0);
}

INSTANTIATE_TEST_SUITE_P(Kernels, PeerZeroLoad, ::testing::Values("famsim", "systemc"));

std::string stream(const std::string& gpus, const std::string& location, const std::string& name,
                   const std::string& total = "8MiB") {
  return "  - name: " + name + "\n    gpus: " + gpus +
         "\n    buffer: {bytes: 64MiB, location: " + location +
         "}\n    pattern: sequential\n    read_fraction: 1.0\n    access_bytes: 128\n" +
         "    total_bytes: " + total + "\n";
}

TEST(PeerThroughputBound, HubPortLimitsPeerReads) {
  // Links 16 x 32 Gb/s = 64 GB/s (56.9 GB/s of read data after the 16 B headers); switch 64 B x
  // 1 GHz = 64 GB/s per port; HBM 4 x 16 GB/s. Hub 16 B x 1000 MHz = 16 GB/s on its port
  // towards GPU 1's single peer link (a 128 B response is 8 beats): the limit.
  const auto r =
      test::run_sim(peer_platform("lanes: 16, lane_gbps: 32, per_gpu: 1",
                                  "clock_mhz: 1000, pipeline_cycles: 3, width_bytes: 16", "4", 256),
                    "name: peer\nstreams:\n" + stream("[0]", "gpu/1", "peer"));
  const double bound = 16 * 1000e6 / 1e9;
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  EXPECT_LE(r["summary"]["read_bandwidth_gbps"].get<double>(), bound * (1 + 1e-9));
  EXPECT_GE(r["summary"]["read_bandwidth_gbps"].get<double>(), bound * 0.98);
}

TEST(PeerThroughputBound, LinksLimitPeerReadsSpreadOverTwoPerGpu) {
  // 2 links per GPU of 4 x 32 Gb/s = 16 GB/s each; a 128 B read response is a 16 B header flit +
  // 8 data flits = 144 B on the wire,
  // so 2 x 16 x 128 / 144 = 28.44 GB/s of data over GPU 0's links and over GPU 1's peer links
  // alike. Sequential 128 B blocks alternate the two links (xor spreading: consecutive blocks 2k,
  // 2k + 1 differ in parity). Switch 64 GB/s per port, hub 64 B x 1000 MHz = 64 GB/s per port,
  // HBM 4 x 16 GB/s.
  const auto r =
      test::run_sim(peer_platform("lanes: 4, lane_gbps: 32, per_gpu: 2",
                                  "clock_mhz: 1000, pipeline_cycles: 3, width_bytes: 64", "4", 256),
                    "name: peer\nstreams:\n" + stream("[0]", "gpu/1", "peer"));
  const double bound = 2 * 4 * 32 / 8.0 * 128.0 / (128.0 + 16.0);
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  EXPECT_LE(r["summary"]["read_bandwidth_gbps"].get<double>(), bound * (1 + 1e-9));
  EXPECT_GE(r["summary"]["read_bandwidth_gbps"].get<double>(), bound * 0.98);
  // Both peer links of GPU 1 carried half the data each (4 MiB).
  EXPECT_DOUBLE_EQ(r["components"]["gpu1_link0"]["bytes"].get<double>(), 4.0 * (1 << 20));
  EXPECT_DOUBLE_EQ(r["components"]["gpu1_link1"]["bytes"].get<double>(), 4.0 * (1 << 20));
}

TEST(PeerThroughputBound, LocalAndPeerReadsShareTheHbmChannels) {
  // GPU 1 reads its own HBM while GPU 0 reads GPU 1's: both pass GPU 1's hub into the same
  // 2 channels x 2000 MT/s x 8 B = 32 GB/s. Alone, either stream would still saturate them
  // (peer: links 56.9 GB/s of data, hub 64 GB/s per port; local: hub 64 GB/s per port), so the
  // two together get 32 GB/s, never more.
  const auto r =
      test::run_sim(peer_platform("lanes: 16, lane_gbps: 32, per_gpu: 1",
                                  "clock_mhz: 1000, pipeline_cycles: 3, width_bytes: 64", "2", 256),
                    "name: shared\nstreams:\n" + stream("[0]", "gpu/1", "peer") +
                        stream("[1]", "gpu_local", "local"));
  const double bound = 2 * 2000e6 * 8 / 1e9;
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  EXPECT_LE(r["summary"]["read_bandwidth_gbps"].get<double>(), bound * (1 + 1e-9));
  EXPECT_GE(r["summary"]["read_bandwidth_gbps"].get<double>(), bound * 0.98);
  // 8 MiB / 128 B = 65536 requests from each GPU, all through GPU 1's hub.
  EXPECT_EQ(r["components"]["gpu1_hub"]["requests"], 2 * 65536);
  EXPECT_EQ(r["components"]["gpu0_hub"]["requests"], 0);
  EXPECT_EQ(r["components"]["gpu0"]["peer_requests"], 65536);
  EXPECT_EQ(r["components"]["gpu1"]["peer_requests"], 0);
  // The channels are the limit, so their full queues held the hub's inputs back (backpressure
  // travels through the hub to the GPU and to the peer link).
  EXPECT_GT(r["components"]["gpu1_hub"]["backpressure_ns"].get<double>(), 0.0);
}

// Each GPU writes 1 MiB into the other's HBM in 4 KiB accesses, then reads it back and checks
// every byte against the pattern written with data_seed 42.
std::string cross_write_then_read(std::uint64_t read_seed) {
  std::string w = "name: peer_integrity\nstreams:\n";
  for (int g = 0; g < 2; ++g) {
    const std::string s = std::to_string(g), peer = std::to_string(1 - g);
    w += "  - name: write" + s + "\n    gpus: [" + s +
         "]\n    buffer: {bytes: 1MiB, location: gpu/" + peer +
         "}\n    pattern: sequential\n    read_fraction: 0.0\n    access_bytes: 4KiB\n"
         "    data_seed: 42\n";
    w += "  - name: read" + s + "\n    gpus: [" + s + "]\n    buffer: {from_stream: write" + s +
         "}\n    pattern: sequential\n    read_fraction: 1.0\n    access_bytes: 4KiB\n"
         "    verify_reads: true\n    data_seed: " +
         std::to_string(read_seed) + "\n    start_after: [write" + s + "]\n";
  }
  return w;
}

TEST(PeerIntegrity, WhatOneGpuWritesIntoAnothersHbmReadsBack) {
  const auto r = test::run_sim(peer_platform(), cross_write_then_read(42));
  // Per GPU: 1 MiB / 128 B = 8192 write and 8192 read requests, all peer requests.
  EXPECT_EQ(r["conservation"]["completed"].get<std::uint64_t>(), 2 * 2 * 8192u);
  EXPECT_EQ(r["components"]["gpu0"]["peer_requests"], 2 * 8192);
  EXPECT_EQ(r["components"]["gpu1"]["peer_requests"], 2 * 8192);
  EXPECT_EQ(r["summary"]["read_bytes"].get<std::uint64_t>(), 2 * (1u << 20));
  EXPECT_EQ(r["conservation"]["data_mismatches"].get<std::uint64_t>(), 0u);
  EXPECT_TRUE(r["conservation"]["ok"].get<bool>());
}

TEST(PeerIntegrity, AWrongExpectedPatternIsCaughtOnThePeerPath) {
  // Reading back with another seed flags every read request (8192 per GPU): the check looks at
  // the data that came back over the peer path.
  const auto r = test::run_sim(peer_platform(), cross_write_then_read(43));
  EXPECT_EQ(r["conservation"]["data_mismatches"].get<std::uint64_t>(), 2 * 8192u);
  EXPECT_FALSE(r["conservation"]["ok"].get<bool>());
}

TEST(PeerIntegrity, ASharedBufferInOneGpusHbmServesBothGpus) {
  // One buffer in GPU 1's HBM shared by GPUs 0 and 1: GPU 0 reaches it as a peer, GPU 1 locally,
  // both through GPU 1's hub. Both write the same pattern (it depends on the virtual address and
  // the seed, and the shared buffer has one virtual range), then each reads all of it back.
  const std::string w = R"(
name: shared_peer
streams:
  - name: write
    gpus: [0, 1]
    buffer: {bytes: 1MiB, location: gpu/1, shared: true}
    pattern: sequential
    read_fraction: 0.0
    access_bytes: 4KiB
    data_seed: 5
  - name: read_back
    gpus: [0, 1]
    buffer: {from_stream: write}
    pattern: sequential
    verify_reads: true
    access_bytes: 4KiB
    data_seed: 5
    start_after: [write]
)";
  const auto r = test::run_sim(peer_platform(), w);
  EXPECT_EQ(r["conservation"]["completed"].get<std::uint64_t>(), 2 * 2 * 8192u);
  EXPECT_EQ(r["components"]["gpu0"]["peer_requests"], 2 * 8192);
  EXPECT_EQ(r["components"]["gpu1"]["peer_requests"], 0);
  EXPECT_EQ(r["components"]["gpu1_hub"]["requests"], 2 * 2 * 8192);
  EXPECT_EQ(r["components"]["gpu0_hub"]["requests"], 0);
  EXPECT_EQ(r["conservation"]["data_mismatches"].get<std::uint64_t>(), 0u);
  EXPECT_TRUE(r["conservation"]["ok"].get<bool>());
}

TEST(PeerIntegrity, ThroughHbm3OnTheReferencePlatform) {
  // nvl8_fam: GPUs 0 and 3 each write 1 MiB into GPU 5's HBM3 (DRAM timing checked by the test
  // harness) and read it back; GPU 5 meanwhile writes and reads its own.
  const std::string w = R"(
name: peer_hbm3
streams:
  - name: write
    gpus: [0, 3]
    buffer: {bytes: 1MiB, location: gpu/5}
    pattern: sequential
    read_fraction: 0.0
    access_bytes: 4KiB
    data_seed: 7
  - name: read_back
    gpus: [0, 3]
    buffer: {from_stream: write}
    pattern: sequential
    verify_reads: true
    access_bytes: 4KiB
    data_seed: 7
    start_after: [write]
  - name: own_write
    gpus: [5]
    buffer: {bytes: 1MiB, location: gpu_local}
    pattern: sequential
    read_fraction: 0.0
    access_bytes: 4KiB
    data_seed: 9
  - name: own_read
    gpus: [5]
    buffer: {from_stream: own_write}
    pattern: sequential
    verify_reads: true
    access_bytes: 4KiB
    data_seed: 9
    start_after: [own_write]
)";
  const auto r = test::run_sim(test::source_file("platforms/nvl8_fam.yaml"), w);
  // 3 GPUs x 1 MiB written and read: 3 x 2 x 8192 requests, of which GPUs 0 and 3 issue 2 x 8192
  // peer requests each.
  EXPECT_EQ(r["conservation"]["completed"].get<std::uint64_t>(), 3 * 2 * 8192u);
  EXPECT_EQ(r["components"]["gpu0"]["peer_requests"], 2 * 8192);
  EXPECT_EQ(r["components"]["gpu3"]["peer_requests"], 2 * 8192);
  EXPECT_EQ(r["components"]["gpu5"]["peer_requests"], 0);
  EXPECT_EQ(r["components"]["gpu5_hub"]["requests"], 3 * 2 * 8192);
  EXPECT_EQ(r["conservation"]["data_mismatches"].get<std::uint64_t>(), 0u);
  EXPECT_TRUE(r["conservation"]["ok"].get<bool>());
}

// summary.by_target: the GPU's own HBM, a peer's and the expansion device apart. A stream of
// `total` bytes in 128 B requests, all reads (read_fraction 1) or all writes (0).
std::string split_stream(const std::string& name, const std::string& location, bool write,
                         const std::string& total, const std::string& extra = "") {
  return "  - name: " + name + "\n    gpus: [0]\n    buffer: {bytes: 2MiB, location: " + location +
         "}\n    pattern: sequential\n    read_fraction: " + (write ? "0.0" : "1.0") +
         "\n    access_bytes: 128\n    total_bytes: " + total + "\n" + extra;
}

TEST(TargetSplit, BytesCountForTheTargetTheGpuRoutedThemTo) {
  // GPU 0, all at once: reads 64 KiB of its own HBM, reads 16 KiB and writes 8 KiB of the
  // device, writes 32 KiB into GPU 1's HBM.
  const auto r =
      test::run_sim(peer_platform(),
                    "name: split\nstreams:\n" + split_stream("local", "gpu_local", false, "64KiB") +
                        split_stream("device_read", "device/fam0", false, "16KiB") +
                        split_stream("device_write", "device/fam0", true, "8KiB") +
                        split_stream("peer_write", "gpu/1", true, "32KiB"));
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  const auto& by = r["summary"]["by_target"];
  struct Expected {
    const char* target;
    std::uint64_t read, write;
  };
  for (const Expected& x :
       {Expected{"local_hbm", 64 * 1024, 0}, Expected{"device", 16 * 1024, 8 * 1024},
        Expected{"peer_gpu", 0, 32 * 1024}, Expected{"standalone_memory", 0, 0}}) {
    SCOPED_TRACE(x.target);
    const auto& t = by[x.target];
    EXPECT_EQ(t["read_bytes"].get<std::uint64_t>(), x.read);
    EXPECT_EQ(t["write_bytes"].get<std::uint64_t>(), x.write);
    // 128 B requests.
    EXPECT_EQ(t["read_latency_ns"]["count"].get<std::uint64_t>(), x.read / 128);
    EXPECT_EQ(t["write_latency_ns"]["count"].get<std::uint64_t>(), x.write / 128);
    EXPECT_EQ(t["latency_ns"]["count"].get<std::uint64_t>(), (x.read + x.write) / 128);
    // GB/s: bytes over the report window, from the first issue to the last completion.
    const double secs =
        (r["sim"]["simulated_time_ns"].get<double>() - r["sim"]["active_from_ns"].get<double>()) *
        1e-9;
    EXPECT_NEAR(t["read_bandwidth_gbps"].get<double>(), x.read / secs * 1e-9, 1e-9);
    EXPECT_NEAR(t["write_bandwidth_gbps"].get<double>(), x.write / secs * 1e-9, 1e-9);
    EXPECT_NEAR(t["bandwidth_gbps"].get<double>(), (x.read + x.write) / secs * 1e-9, 1e-9);
    // Per GPU: all of it GPU 0's.
    if (std::string(x.target) != "standalone_memory") {
      EXPECT_EQ(r["components"]["gpu0"]["by_target"][x.target]["read_bytes"], x.read);
      EXPECT_EQ(r["components"]["gpu0"]["by_target"][x.target]["write_bytes"], x.write);
      EXPECT_EQ(r["components"]["gpu1"]["by_target"][x.target]["read_bytes"], 0);
      EXPECT_EQ(r["components"]["gpu1"]["by_target"][x.target]["write_bytes"], 0);
    }
  }
  // The totals keep their meaning: every target together.
  EXPECT_EQ(r["summary"]["read_bytes"].get<std::uint64_t>(), (64 + 16) * 1024u);
  EXPECT_EQ(r["summary"]["write_bytes"].get<std::uint64_t>(), (8 + 32) * 1024u);
  EXPECT_NEAR(r["summary"]["bandwidth_gbps"].get<double>(),
              by["local_hbm"]["bandwidth_gbps"].get<double>() +
                  by["device"]["bandwidth_gbps"].get<double>() +
                  by["peer_gpu"]["bandwidth_gbps"].get<double>(),
              1e-9);
  EXPECT_EQ(r["components"]["gpu0"]["peer_requests"], 32 * 1024 / 128);
}

TEST(TargetSplit, EachTargetKeepsItsOwnLatency) {
  // One read of GPU 0's own HBM at 0, and one of GPU 1's at 1000 ns, long after the first has
  // come back (1000 ns is an edge of every clock here, so the second sees the same edges as one
  // issued at 0): 54 ns and 143 ns, worked out by hand in PeerZeroLoad above.
  const auto r =
      test::run_sim(peer_platform(),
                    "name: split\nstreams:\n" + split_stream("local", "gpu_local", false, "128") +
                        split_stream("peer", "gpu/1", false, "128", "    start_ns: 1000\n"));
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  const auto& by = r["summary"]["by_target"];
  EXPECT_EQ(by["local_hbm"]["latency_ns"]["count"], 1);
  EXPECT_DOUBLE_EQ(by["local_hbm"]["latency_ns"]["mean"].get<double>(), 54.0);
  EXPECT_DOUBLE_EQ(by["local_hbm"]["read_latency_ns"]["max"].get<double>(), 54.0);
  EXPECT_EQ(by["peer_gpu"]["latency_ns"]["count"], 1);
  EXPECT_DOUBLE_EQ(by["peer_gpu"]["latency_ns"]["mean"].get<double>(), 143.0);
  EXPECT_DOUBLE_EQ(by["peer_gpu"]["read_latency_ns"]["max"].get<double>(), 143.0);
  EXPECT_EQ(by["device"]["latency_ns"]["count"], 0);
  EXPECT_EQ(by["device"]["bandwidth_gbps"], 0.0);
  // Over both: (54 + 143) / 2.
  EXPECT_DOUBLE_EQ(r["summary"]["latency_ns"]["mean"].get<double>(), 98.5);
}

// --- all-reduces over the fabric (kv_decode all_reduce) ---------------------------------------

// Four GPUs of the peer platform decode one sequence of 16 cached tokens as one tensor-parallel
// group, one layer (2 all-reduces: after attention and after the FFN) of a Llama-3-8B narrowed to
// hidden_size 256, so that a message is 1 token x 256 x 2 B = 512 B and a ring round's share
// 512 / 4 = 128 B: one request each. KV in each GPU's own HBM; 1000 ns of compute.
std::string all_reduce_workload(const std::string& algorithm) {
  return R"(name: ar
streams:
  - gpus: all
    kv_decode:
      model: {preset: llama3_8b, hidden_size: 256}
      batch: 1
      context_tokens: 16
      tensor_parallel: 4
      layers: 1
      compute: {layer_ns: 1000}
      all_reduce: )" +
         algorithm + "\n";
}

nlohmann::json all_reduce_result(const nlohmann::json& r) {
  return r["workload"]["streams"]["stream0"]["result"];
}

// Ring: 2 x 2(4 - 1) = 12 rounds, in each every GPU writes 128 B to the next. The writes of a
// round cross disjoint links and switch ports (GPU g's link up and g + 1's down; the responses
// back the other way, long after the requests), so each takes the zero-load peer write round trip,
// 142 ns (PeerZeroLoad above). The first round issues at the compute's end, an edge of the 1 ns
// GPU clock; each later one starts once the group's previous round has ended: its last completion
// arrives on an edge, the GPU takes it at the next edge (+1 ns), where the barrier releases, and
// sees the release from the edge after (+1 ns), when it issues: 144 ns a round. So the step's
// all-reduces take 142 + 11 x 144 = 1726 ns. Each GPU writes 12 x 128 = 1536 B, in 12 peer
// requests.
TEST(AllReduceOverFabric, RingRoundsAreZeroLoadPeerWrites) {
  const nlohmann::json r =
      test::run_sim(peer_platform(), all_reduce_workload("ring"), {"gpus.count=4"});
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  const nlohmann::json& res = all_reduce_result(r);
  ASSERT_EQ(res["steps_done"], 1);
  const double ar = res["mean_all_reduce_ns_per_step"].get<double>();
  EXPECT_DOUBLE_EQ(ar, 142.0 + 11 * 144.0);
  EXPECT_EQ(res["all_reduce_bytes_written"], 4 * 1536);
  for (int g = 0; g < 4; ++g) {
    EXPECT_EQ(r["components"][fmt::format("gpu{}", g)]["peer_requests"], 12) << g;
  }
  // The step holds the compute and the all-reduces after it.
  EXPECT_GE(res["mean_step_ns"].get<double>(), 1000.0 + ar);
  const nlohmann::json& sum = r["workload"]["streams"]["stream0"]["summary"];
  EXPECT_EQ(sum["all_reduce_message_bytes"], 512);
  EXPECT_EQ(sum["all_reduces_per_step"], 2);
  EXPECT_EQ(sum["all_reduce_bytes_written_per_step_per_gpu"], 1536);
}

// Two-shot: 2 rounds an all-reduce, 4 in the step, in each 128 B to each of the 3 others: the
// ring's 1536 B a GPU, in 4 rounds instead of 12. Each round is at least a peer write's round
// trip (142 ns); the three writes of a round share the GPU's link and each peer's memory, but
// stay far below 3 rounds' time, so the all-reduces take less than 12 round trips (1704 ns).
TEST(AllReduceOverFabric, TwoShotWritesAsMuchInFewerRounds) {
  const nlohmann::json r =
      test::run_sim(peer_platform(), all_reduce_workload("two_shot"), {"gpus.count=4"});
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  const nlohmann::json& res = all_reduce_result(r);
  const double ar = res["mean_all_reduce_ns_per_step"].get<double>();
  EXPECT_GE(ar, 4 * 142.0);
  EXPECT_LT(ar, 1704.0);
  EXPECT_EQ(res["all_reduce_bytes_written"], 4 * 1536);
  EXPECT_EQ(r["components"]["gpu0"]["peer_requests"], 4 * 3);
}

// One-shot: 1 round an all-reduce, all 512 B to each of the 3 others: 2 x 3 x 512 = 3072 B a GPU
// in 2 x 3 x 4 = 24 requests of 128 B; at least 2 round trips.
TEST(AllReduceOverFabric, OneShotSendsTheWholeMessageToEveryPeer) {
  const nlohmann::json r =
      test::run_sim(peer_platform(), all_reduce_workload("one_shot"), {"gpus.count=4"});
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  const nlohmann::json& res = all_reduce_result(r);
  EXPECT_GE(res["mean_all_reduce_ns_per_step"].get<double>(), 2 * 142.0);
  EXPECT_EQ(res["all_reduce_bytes_written"], 4 * 3072);
  EXPECT_EQ(r["components"]["gpu3"]["peer_requests"], 24);
}

// With the next layer's KV fetched ahead (prefetch_layers: 1) the ring's writes run beside that
// fetch, apart from it (the stream's side lane), not behind it in the stream's window. The test
// above's group, with 64 cached tokens and 2 layers, the stream keeping one request in flight
// (max_outstanding: 1): each layer reads a GPU's 64 x 1024 B of KV (2 of the 8 KV heads x 128 x
// 2 B x K and V) from its own HBM, 512 reads of 128 B one after another, each at least the 54 ns
// of a zero-load local read (PeerZeroLoad): at least 27,648 ns a layer. Layer 1's fetch starts
// when layer 0's ends, so it runs through layer 0's compute and all-reduces. Each round's write
// still takes the zero-load 142 ns (+ 2 cycles of barrier, as above), but may meet the one local
// read its peer has in flight in the peer's hub and HBM: at most that read's 54 ns more. So the
// step's 4 all-reduces take 2 x 1726 ns plus at most 24 x 54. In the stream's window a round
// would instead wait for the fetch's reads queued before it, each 54 ns at least. And the step
// is shorter than its two fetches, computes and all-reduces end to end (2 x (27,648 + 1000 +
// 1726) ns): the fetch overlapped them.
TEST(AllReduceOverFabric, RingRunsBesideTheLayersFetchedAhead) {
  const nlohmann::json r = test::run_sim(peer_platform(),
                                         R"(name: ar
streams:
  - gpus: all
    max_outstanding: 1
    kv_decode:
      model: {preset: llama3_8b, hidden_size: 256}
      batch: 1
      context_tokens: 64
      tensor_parallel: 4
      layers: 2
      prefetch_layers: 1
      compute: {layer_ns: 1000}
      all_reduce: ring
)",
                                         {"gpus.count=4"});
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  const nlohmann::json& res = all_reduce_result(r);
  ASSERT_EQ(res["steps_done"], 1);
  EXPECT_EQ(res["read_bytes_kv_location"], 4 * 2 * 64 * 1024);
  const double ar = res["mean_all_reduce_ns_per_step"].get<double>();
  EXPECT_GE(ar, 2 * 1726.0);
  EXPECT_LE(ar, 2 * 1726.0 + 24 * 54.0);
  EXPECT_EQ(res["all_reduce_bytes_written"], 4 * 2 * 1536);
  EXPECT_LT(res["mean_step_ns"].get<double>(), 2 * (512 * 54.0 + 1000.0 + 1726.0));
  // The stream's requests count the lane's: 1024 reads, 16 KV writes of the new token, 24 writes.
  EXPECT_EQ(r["components"]["gpu0"]["streams"]["stream0"]["requests"], 1024 + 16 + 24);
  // Its one step is the run's last, whose last layer's all-reduces met no next fetch: no
  // whole-model estimate from it.
  EXPECT_FALSE(res.contains("mean_step_ns_whole_model_estimate"));
  EXPECT_THAT(res["note"].get<std::string>(), HasSubstr("give steps: 2 or more"));
  // The lane's writes are not in the fetches' window (the stream's 1 slot), but in their own.
  EXPECT_EQ(r["components"]["gpu0"]["outstanding_occupancy"]["capacity"], 1);
  bool lanes_window = false;
  for (const nlohmann::json& u : r["components"]["gpu0"]["resources"])
    lanes_window = lanes_window || (u["name"] == "collectives window" && u["capacity"] == 1.0);
  EXPECT_TRUE(lanes_window);
}

// A stream with all-reduces cut by its duration during a layer's compute: the next round would
// start after the duration, so the stream ends with its last request (the layer's fetch), and a
// stream started after it runs. The test above's all_reduce_workload on 4 GPUs: each GPU reads its
// 16 tokens x 1024 B of KV from its own HBM (128 requests) and writes the new token's 1024 B (8),
// 16 at a time, each at least a zero-load local access (54 ns): done after 459 ns and well before
// 1200 ns, when the duration ends, inside the 1000 ns of compute that follow. The second stream
// reads 4 KiB in 32 requests on each GPU.
TEST(AllReduceOverFabric, ADurationCutBeforeTheRoundsEndsTheStream) {
  const std::string workload = all_reduce_workload("ring") + R"(    duration_ns: 1200
  - name: after
    gpus: all
    buffer: {bytes: 2MiB, location: gpu_local}
    pattern: sequential
    read_fraction: 1.0
    access_bytes: 128
    total_bytes: 4KiB
    start_after: [stream0]
)";
  const nlohmann::json r = test::run_sim(peer_platform(), workload, {"gpus.count=4"});
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  for (int g = 0; g < 4; ++g) {
    const nlohmann::json& st = r["components"][fmt::format("gpu{}", g)]["streams"];
    EXPECT_TRUE(st["stream0"]["finished"].get<bool>()) << g;
    EXPECT_EQ(st["stream0"]["requests"], 128 + 8) << g;
    EXPECT_TRUE(st["after"]["finished"].get<bool>()) << g;
    EXPECT_EQ(st["after"]["requests"], 32) << g;
  }
  EXPECT_EQ(all_reduce_result(r)["all_reduce_bytes_written"], 0);
}

// Expert parallelism over the 2 GPUs of the peer platform: gpt-oss-120b narrowed to hidden_size 64,
// 2 experts, each token picking both: expert 0 on rank 0, expert 1 on rank 1. Token 0 is rank 0's,
// token 1 rank 1's, so each rank dispatches its token to the other (64 x 2 B = 128 B: one request)
// and, once both have, returns the other's token's output (128 B). Each round is one zero-load
// peer write round trip on disjoint paths, 142 ns (PeerZeroLoad) when issued on an even ns, 143 on
// an odd one (the peer's hub, at 500 MHz, has its edges on even ns). The first round issues at the
// compute's end, whose parity the expert fetches before it set; the second 2 GPU cycles after the
// first's last completion (as the ring's rounds above), so on an even ns: 142 or 143, + 144 ns.
TEST(AllToAllOverFabric, DispatchAndCombineAreOnePeerWriteEach) {
  const std::string workload = R"(name: a2a
streams:
  - gpus: all
    moe_experts:
      model: {preset: gpt_oss_120b, hidden_size: 64, moe: {experts: 2, top_k: 2}}
      location: device/fam0
      expert_parallel: 2
      batch: 2
      layers: 1
      compute: {layer_ns: 1000}
      all_to_all: direct
)";
  const nlohmann::json r = test::run_sim(peer_platform(), workload);
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  const nlohmann::json& res = all_reduce_result(r);
  ASSERT_EQ(res["steps_done"], 1);
  const double a2a = res["mean_all_to_all_ns_per_step"].get<double>();
  EXPECT_TRUE(a2a == 142.0 + 144.0 || a2a == 143.0 + 144.0) << a2a;
  EXPECT_GE(r["summary"]["write_latency_ns"]["min"].get<double>(), 142.0);
  EXPECT_LE(r["summary"]["write_latency_ns"]["max"].get<double>(), 143.0);
  EXPECT_EQ(res["all_to_all_bytes_written"], 2 * 2 * 128);
  EXPECT_EQ(r["components"]["gpu0"]["peer_requests"], 2);
  EXPECT_EQ(r["components"]["gpu1"]["peer_requests"], 2);
}

// moe_experts under tensor parallelism all-reduces too: the 4 GPUs of the peer platform as one
// group, gpt-oss-120b narrowed to hidden_size 256, batch 1: each all-reduce is 1 x 256 x 2 = 512 B,
// the ring's 2 x 3 rounds of 128 B, one request each, as the kv_decode ring above: 2 all-reduces
// (after attention and after the experts) of 6 rounds a step, each round one zero-load peer write
// (142 or 143 ns by the first round's issue parity, as the all-to-all above) + 2 cycles of barrier:
// 142 + 11 x 144 = 1726 ns, or 1727. Each GPU writes 12 x 128 = 1536 B.
TEST(AllReduceOverFabric, MoeExpertsUnderTensorParallelismAllReduce) {
  const std::string workload = R"(name: moe_tp
streams:
  - gpus: all
    moe_experts:
      model: {preset: gpt_oss_120b, hidden_size: 256, moe: {experts: 4, top_k: 2}}
      location: device/fam0
      tensor_parallel: 4
      batch: 1
      layers: 1
      compute: {layer_ns: 1000}
      all_reduce: ring
)";
  const nlohmann::json r = test::run_sim(peer_platform(), workload, {"gpus.count=4"});
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  const nlohmann::json& res = all_reduce_result(r);
  ASSERT_EQ(res["steps_done"], 1);
  const double ar = res["mean_all_reduce_ns_per_step"].get<double>();
  EXPECT_TRUE(ar == 1726.0 || ar == 1727.0) << ar;
  EXPECT_EQ(res["all_reduce_bytes_written"], 4 * 1536);
  for (int g = 0; g < 4; ++g) {
    EXPECT_EQ(r["components"][fmt::format("gpu{}", g)]["peer_requests"], 12) << g;
  }
  const nlohmann::json& sum = r["workload"]["streams"]["stream0"]["summary"];
  EXPECT_EQ(sum["all_reduce_message_bytes"], 512);
  EXPECT_EQ(sum["all_reduces_per_step"], 2);
  EXPECT_EQ(sum["all_reduce_bytes_written_per_step_per_gpu"], 1536);
}

}  // namespace
}  // namespace famsim
