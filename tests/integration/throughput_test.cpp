// Throughput bound: a saturating stream gets the smallest configured bandwidth along its path
// (within 2%), and never more. Each platform below is built so that one resource is the
// bottleneck; the bound is worked out here from the configuration.
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace famsim {
namespace {

std::string throughput_platform(const std::string& link, const std::string& noc,
                                const std::string& memory) {
  return R"(
name: bound
gpus: {count: 1, clock_mhz: 1000, request_bytes: 128, max_outstanding: 256, issue_width: 2}
links:
  gpu_device: {)" +
         link + R"(, encoding_efficiency: 1.0, latency_ns: 10, clock_mhz: 1000,
               flit_bytes: 16, request_vc_credits: 64, response_vc_credits: 64, per_gpu: 1}
devices:
  - name: fam0
    capacity_gib: 1
    fabric_ports: 1
    port_logic: {clock_mhz: 1000, ingress_cycles: 3, egress_cycles: 2, tags_per_port: 256}
    noc: {kind: crossbar, clock_mhz: 1000, pipeline_cycles: 4, )" +
         noc + R"(, input_buffer: 16,
          output_buffer: 16}
    memory: {model: ideal, standard: TEST, data_rate_mtps: 2000, channel_width_bits: 64, clock_mhz: 1000,
             access_latency_cycles: 20, )" +
         memory + R"(,
             controller: {read_queue: 128, write_queue: 128},
             interleave: {granule_bytes: 256, channel_select: modulo}}
)";
}

std::string stream(const char* pattern, double read_fraction) {
  return std::string(
             "name: saturate\nstreams:\n  - gpus: all\n    buffer: {bytes: 64MiB, location: "
             "device/fam0}\n    pattern: ") +
         pattern + "\n    read_fraction: " + std::to_string(read_fraction) +
         "\n    access_bytes: 128\n    total_bytes: 8MiB\n";
}

double achieved(const nlohmann::json& r, const char* key) {
  return r["summary"][key].get<double>();
}

TEST(ThroughputBound, LinkLimitsReads) {
  // Link 4 x 32 Gb/s = 16 GB/s per direction. 16 B flits of one 16 B slot, 16 B message headers:
  // a 128 B read response is a header flit + 128 / 16 = 8 data flits = 144 B on the wire. The
  // credit loop (64 flits per VC, round trip 9 + 10 + 10 (credit return = latency) + 1 (clock) =
  // 30 ns: 64 x 16 B / 30 ns = 34 GB/s) is not the limit.
  // Memory 4 channels x 16 GB/s, crossbar 64 B x 1 GHz = 64 GB/s per port: the link is the limit.
  const auto r = test::run_sim(
      throughput_platform("lanes: 4, lane_gbps: 32", "width_bytes: 64", "channels: 4"),
      stream("uniform_random", 1.0));
  const double bound = 4 * 32 / 8.0 * 128.0 / (128.0 + 16.0);
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  EXPECT_LE(achieved(r, "read_bandwidth_gbps"), bound * (1 + 1e-9));
  EXPECT_GE(achieved(r, "read_bandwidth_gbps"), bound * 0.98);
}

TEST(ThroughputBound, LinkLimitsWrites) {
  // Writes carry a header flit + 8 data flits = 144 B forward; completions are one header flit.
  const auto r = test::run_sim(
      throughput_platform("lanes: 4, lane_gbps: 32", "width_bytes: 64", "channels: 4"),
      stream("sequential", 0.0));
  const double bound = 4 * 32 / 8.0 * 128.0 / (128.0 + 16.0);
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  EXPECT_LE(achieved(r, "write_bandwidth_gbps"), bound * (1 + 1e-9));
  EXPECT_GE(achieved(r, "write_bandwidth_gbps"), bound * 0.98);
}

TEST(ThroughputBound, MemoryChannelsLimitReads) {
  // Link 16 x 32 Gb/s = 64 GB/s (56.9 GB/s of data); crossbar 64 GB/s per port; memory
  // 2 channels x 2000 MT/s x 8 B = 32 GB/s. Sequential reads alternate the two channels.
  const auto r = test::run_sim(
      throughput_platform("lanes: 16, lane_gbps: 32", "width_bytes: 64", "channels: 2"),
      stream("sequential", 1.0));
  const double bound = 2 * 2000e6 * 8 / 1e9;
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  EXPECT_LE(achieved(r, "read_bandwidth_gbps"), bound * (1 + 1e-9));
  EXPECT_GE(achieved(r, "read_bandwidth_gbps"), bound * 0.98);
}

TEST(ThroughputBound, CrossbarPortLimitsReads) {
  // Crossbar 16 B x 1 GHz = 16 GB/s on its port towards the fabric (each response is 8 beats);
  // link 64 GB/s, memory 4 x 16 GB/s.
  const auto r = test::run_sim(
      throughput_platform("lanes: 16, lane_gbps: 32", "width_bytes: 16", "channels: 4"),
      stream("sequential", 1.0));
  const double bound = 16 * 1e9 / 1e9;
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  EXPECT_LE(achieved(r, "read_bandwidth_gbps"), bound * (1 + 1e-9));
  EXPECT_GE(achieved(r, "read_bandwidth_gbps"), bound * 0.98);
}

}  // namespace
}  // namespace famsim
