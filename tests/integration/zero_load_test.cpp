// Zero-load latency: one request on an idle platform takes exactly the sum of the configured hop
// latencies plus serialisation. The expected values are worked out here, step by step, from the
// configuration and the timing rules documented in each block's header.
#include "tests/support/round_number_device.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace famsim {
namespace {

using test::edge;
using test::edge_after;
using test::ser;

// The link decides on the first edge of its 1000 MHz clock strictly after a message arrives
// (models/fabric/link.h, timing step 1), then serialises it and adds its latency.
using test::kRoundNumberLinkClock;

// Test platform with round numbers (all times in ps).
//   GPU clock 1000 MHz; link 4 lanes x 32 Gb/s x 1.0 = 16 GB/s per direction, 10 ns, link clock
//   1000 MHz, 16 B flits of one slot, 16 B message headers (a 128 B transfer: 1 + 8 flits);
//   the device of tests/support/round_number_device.h.
// The device both platforms attach, and the switched platform: tests/support/round_number_device.h.

const std::string kDirect = R"(
name: zero_load_direct
gpus: {count: 1, clock_mhz: 1000, request_bytes: 128, max_outstanding: 16, issue_width: 1,
       local_memory: {model: ideal, standard: TEST, data_rate_mtps: 2000, channel_width_bits: 64, clock_mhz: 1000,
                      access_latency_cycles: 20, channels: 4, capacity_gib: 1,
                      interleave: {granule_bytes: 256, channel_select: modulo}}}
links:
  gpu_device: {lanes: 4, lane_gbps: 32, encoding_efficiency: 1.0, latency_ns: 10, clock_mhz: 1000,
               flit_bytes: 16, request_vc_credits: 32, response_vc_credits: 32, per_gpu: 1}
)" + test::kRoundNumberDevice;

class ZeroLoad : public ::testing::TestWithParam<const char*> {
 protected:
  std::vector<std::string> kernel() const { return {std::string("sim.kernel=") + GetParam()}; }
};

TEST_P(ZeroLoad, DirectReadIsTheSumOfHopLatencies) {
  const nlohmann::json r =
      test::run_sim(kDirect, test::one_request_workload("device/fam0", false), kernel());
  // Link: edge after issue, one 16 B header flit at 16 GB/s, then 10 ns; the response is a
  // header flit + 8 data flits.
  const double link = 16.0;
  std::uint64_t t = edge_after(0, kRoundNumberLinkClock) + ser(16, link) + 10000;
  t = test::round_number_device_trip(t, false);
  t = edge_after(t, kRoundNumberLinkClock) + ser(16 + 128, link) + 10000;
  ASSERT_EQ(r["conservation"]["completed"], 1);
  EXPECT_DOUBLE_EQ(r["summary"]["latency_ns"]["max"].get<double>(), t / 1000.0);
  EXPECT_DOUBLE_EQ(r["summary"]["latency_ns"]["min"].get<double>(), t / 1000.0);
  // The arithmetic above, done once by hand: link edge after 0 -> 1, + 1 + 10 -> 12 ns; port
  // logic edge 12 + 3 x 2 -> 18; crossbar next edge 19 + 5 -> 24; memory 24 + 28 -> 52; crossbar
  // 53 + 8 -> 61; egress edge 62 + 2 x 2 -> 66; link edge after 66 -> 67, + 9 + 10 -> 86 ns.
  EXPECT_DOUBLE_EQ(t / 1000.0, 86.0);
}

TEST_P(ZeroLoad, DirectWriteIsTheSumOfHopLatencies) {
  const nlohmann::json r =
      test::run_sim(kDirect, test::one_request_workload("device/fam0", true), kernel());
  const double link = 16.0;
  std::uint64_t t = edge_after(0, kRoundNumberLinkClock) + ser(16 + 128, link) + 10000;
  t = test::round_number_device_trip(t, true);
  t = edge_after(t, kRoundNumberLinkClock) + ser(16, link) + 10000;
  ASSERT_EQ(r["conservation"]["completed"], 1);
  EXPECT_DOUBLE_EQ(r["summary"]["write_latency_ns"]["max"].get<double>(), t / 1000.0);
}

TEST_P(ZeroLoad, SwitchedReadAddsTwoLinksAndTheSwitch) {
  const nlohmann::json r = test::run_sim(
      test::kRoundNumberSwitched, test::one_request_workload("device/fam0", false), kernel());
  const double gpu_link = 16.0, dev_link = 32.0;
  const std::uint64_t sw = 1000;
  std::uint64_t t = edge_after(0, kRoundNumberLinkClock) + ser(16, gpu_link) + 10000;
  t = edge_after(t, sw) + (10 + 1) * sw;  // switch: pipeline + one beat (header only)
  t = edge_after(t, kRoundNumberLinkClock) + ser(16, dev_link) + 5000;
  t = test::round_number_device_trip(t, false);
  t = edge_after(t, kRoundNumberLinkClock) + ser(16 + 128, dev_link) + 5000;
  t = edge_after(t, sw) + (10 + 128 / 64) * sw;  // switch: pipeline + two 64 B beats
  t = edge_after(t, kRoundNumberLinkClock) + ser(16 + 128, gpu_link) + 10000;
  ASSERT_EQ(r["conservation"]["completed"], 1);
  EXPECT_DOUBLE_EQ(r["summary"]["latency_ns"]["max"].get<double>(), t / 1000.0);
}

TEST_P(ZeroLoad, LocalHbmReadIsTheControllerAlone) {
  const nlohmann::json r =
      test::run_sim(kDirect, test::one_request_workload("gpu_local", false), kernel());
  // Straight to the channel: first edge at 0, access 20 + burst 8 cycles of 1000 ps.
  const std::uint64_t t = (20 + 128 / 16) * 1000;
  ASSERT_EQ(r["conservation"]["completed"], 1);
  EXPECT_DOUBLE_EQ(r["summary"]["latency_ns"]["max"].get<double>(), t / 1000.0);
}

// kDirect with the first `from` (which must be there) replaced by `to`.
std::string direct_with(const std::string& from, const std::string& to) {
  std::string platform = kDirect;
  const auto at = platform.find(from);
  EXPECT_NE(at, std::string::npos) << "'" << from << "' not in kDirect";
  if (at != std::string::npos) platform.replace(at, from.size(), to);
  return platform;
}

// The GPU's local memory as an ideal memory over DDR4-3200
// (platforms/presets/memory/ddr4_3200.yaml: tCK 625 ps, tRCD 22, CL 22, a 64-bit bus at 2 transfers
// per clock = 16 B per clock), whose controller holds 3 bursts of 64 B (as many as a 128 B request
// may span), so the ideal memory one 128 B request (3 / 2 rounded down). Two sequential 128 B
// writes by one GPU share channel 0 (256 B granules); the second is issued at the GPU's next edge,
// 1 ns. A write is done (tRCD 22 + CL 22 + 128 / 16 = 8) x 625 ps = 32.5 ns after its service
// starts.
std::string ideal_over_ddr4_local() {
  return direct_with(
      "local_memory: {model: ideal, standard: TEST, data_rate_mtps: 2000, channel_width_bits: 64, "
      "clock_mhz: 1000,\n                      access_latency_cycles: 20,",
      "local_memory: {preset: ddr4_3200, model: ideal, controller: {write_queue: 3},");
}
const std::string kTwoLocalWrites =
    "name: two\nstreams:\n  - gpus: all\n    buffer: {bytes: 2MiB, location: gpu_local}\n"
    "    pattern: sequential\n    read_fraction: 0.0\n    access_bytes: 128\n    total_bytes: "
    "256\n";
constexpr std::uint64_t kWriteDonePs = (22 + 22 + 128 / 16) * 625;  // 32,500 ps

// Posted (write_response: posted, the controller's default): the first write is accepted at 0 and
// answered then; its entry is held until it is done, 32.5 ns. The second waits for that entry, is
// accepted and answered at 32.5 ns, 31.5 ns after its issue.
TEST_P(ZeroLoad, IdealOverDramPostsWritesAndHoldsTheirEntries) {
  const nlohmann::json r = test::run_sim(ideal_over_ddr4_local(), kTwoLocalWrites, kernel());
  ASSERT_EQ(r["conservation"]["completed"], 2);
  EXPECT_DOUBLE_EQ(r["summary"]["write_latency_ns"]["min"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(r["summary"]["write_latency_ns"]["max"].get<double>(),
                   (kWriteDonePs - 1000) / 1000.0);
}

// Unposted (write_response: on_completion): each write is answered when done, the first at
// 32.5 ns; the second, accepted then, at 32.5 + 32.5 ns, 64 ns after its issue.
TEST_P(ZeroLoad, IdealOverDramAnswersWritesWhenDoneUnlessPosted) {
  std::vector<std::string> set = kernel();
  set.push_back("gpus.local_memory.controller.write_response=on_completion");
  const nlohmann::json r = test::run_sim(ideal_over_ddr4_local(), kTwoLocalWrites, set);
  ASSERT_EQ(r["conservation"]["completed"], 2);
  EXPECT_DOUBLE_EQ(r["summary"]["write_latency_ns"]["min"].get<double>(), kWriteDonePs / 1000.0);
  EXPECT_DOUBLE_EQ(r["summary"]["write_latency_ns"]["max"].get<double>(),
                   (2 * kWriteDonePs - 1000) / 1000.0);
}

// The same direct platform with a DDR4-3200 device memory (platforms/presets/memory/ddr4_3200.yaml:
// tCK 625 ps, tRCD 22, CL 22, tRRD_S 4, tCCD_S 4, tBL 4 clocks, 64 B bursts).
TEST_P(ZeroLoad, DirectReadThroughDdr4IsTheSumOfHopLatenciesAndDramTiming) {
  const std::string platform = direct_with(
      "memory: {model: ideal, standard: TEST, data_rate_mtps: 2000, channel_width_bits: 64, "
      "clock_mhz: 1000,\n             access_latency_cycles: 20, channels: 2,",
      "memory: {preset: ddr4_3200, channels: 2,");
  const nlohmann::json r =
      test::run_sim(platform, test::one_request_workload("device/fam0", false), kernel());
  const double link = 16.0;
  const std::uint64_t port = 2000, noc = 1000, tck = 625;
  std::uint64_t t = edge_after(0, kRoundNumberLinkClock) + ser(16, link) + 10000;
  t = edge(t, port) + 3 * port;
  t = edge_after(t, noc) + (4 + 1) * noc;
  // DRAM: the controller decides on the first clock after arrival (c0). The 128 B read is two
  // 64 B bursts in bank groups 0 and 1 (mapping RoRaBaCoBg puts the bank group lowest), both
  // banks closed: ACT at c0 and c0 + tRRD_S 4, RD at c0 + tRCD 22 and c0 + 4 + 22 = c0 + 26
  // (tCCD_S 4 after the first), last data at c0 + 26 + CL 22 + tBL 4 = c0 + 52.
  const std::uint64_t c0 = t / tck + 1;
  t = (c0 + 52) * tck;
  t = edge_after(t, noc) + (4 + 128 / 32) * noc;
  t = edge(t, port) + 2 * port;
  t = edge_after(t, kRoundNumberLinkClock) + ser(16 + 128, link) + 10000;
  ASSERT_EQ(r["conservation"]["completed"], 1);
  EXPECT_DOUBLE_EQ(r["summary"]["latency_ns"]["max"].get<double>(), t / 1000.0);
  const nlohmann::json& ch = r["components"]["fam0.memory.ch0"];
  EXPECT_EQ(ch["commands"]["ACT"], 2);
  EXPECT_EQ(ch["commands"]["RD"], 2);
  EXPECT_DOUBLE_EQ(ch["row_miss_rate"].get<double>(), 1.0);
}

INSTANTIATE_TEST_SUITE_P(Kernels, ZeroLoad, ::testing::Values("famsim", "systemc"));

}  // namespace
}  // namespace famsim
