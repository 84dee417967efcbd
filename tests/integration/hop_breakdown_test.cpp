// Per-hop latency breakdown (stats.json latency_breakdown_ns, models/core/hop_breakdown.h): the
// hops add up to the end-to-end latency on every request and platform shape; at zero load each
// hop's time is the one worked out by hand from the configuration (the same arithmetic as
// zero_load_test.cpp, cut at every block boundary); a deliberately slow link shows up as the
// largest share.
#include "tests/support/round_number_device.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>

namespace famsim {
namespace {

using test::edge;
using test::edge_after;
using test::ser;

// The hop entry named `hop` in one direction of latency_breakdown_ns, or null.
nlohmann::json hop(const nlohmann::json& dir, const std::string& name) {
  for (const auto& h : dir["hops"]) {
    if (h["hop"] == name) return h;
  }
  return nullptr;
}

// The hop means add up to the end-to-end mean, every request's parts added up, and the
// breakdown saw every completed request of the direction.
void expect_hops_add_up(const nlohmann::json& r, const char* direction, std::uint64_t requests) {
  SCOPED_TRACE(direction);
  const nlohmann::json& d = r["latency_breakdown_ns"][direction];
  EXPECT_EQ(d["mismatched_requests"], 0);
  ASSERT_EQ(d["end_to_end"]["count"].get<std::uint64_t>(), requests);
  ASSERT_GT(requests, 0u);
  const double e2e = d["end_to_end"]["mean"].get<double>();
  // The breakdown's end-to-end is the run's latency for that direction.
  EXPECT_NEAR(e2e, r["summary"][std::string(direction) + "_latency_ns"]["mean"].get<double>(),
              1e-9 * e2e);
  double sum = 0, shares = 0;
  for (const auto& h : d["hops"]) {
    sum += h["mean"].get<double>();
    shares += h["share"].get<double>();
    EXPECT_GE(h["mean"].get<double>(), 0.0) << h["hop"];
  }
  EXPECT_NEAR(sum, e2e, 1e-6 * e2e);
  EXPECT_NEAR(d["sum_of_means"].get<double>(), e2e, 1e-6 * e2e);
  // (A posted write straight into a controller is answered on arrival: no latency to share.)
  if (e2e > 0) {
    EXPECT_NEAR(shares, 1.0, 1e-6);
  }
}

std::uint64_t requests_of(const nlohmann::json& r, const char* direction) {
  return r["summary"][std::string(direction) + "_latency_ns"]["count"].get<std::uint64_t>();
}

std::string mixed(const std::string& location, const std::string& gpus = "all",
                  unsigned access_bytes = 128) {
  return "  - gpus: " + gpus + "\n    buffer: {bytes: 16MiB, location: " + location +
         "}\n    pattern: uniform_random\n    read_fraction: 0.5\n    access_bytes: " +
         std::to_string(access_bytes) + "\n    total_bytes: 512KiB\n    max_outstanding: 32\n";
}

TEST(HopBreakdown, HopsAddUpOnTheMinimalPlatform) {
  const auto r = test::run_sim(test::source_file("platforms/minimal.yaml"),
                               "name: mixed\nstreams:\n" + mixed("device/fam0"));
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  expect_hops_add_up(r, "read", requests_of(r, "read"));
  expect_hops_add_up(r, "write", requests_of(r, "write"));
  // Path order: GPU, link, device port, NoC, memory, and back.
  std::vector<std::string> names;
  for (const auto& h : r["latency_breakdown_ns"]["read"]["hops"]) names.push_back(h["hop"]);
  EXPECT_EQ(names, (std::vector<std::string>{"gpu_issue", "link (request)", "device_port (request)",
                                             "noc (request)", "memory_queue", "memory_service",
                                             "memory_response_wait", "noc (response)",
                                             "device_port (response)", "link (response)"}));
}

TEST(HopBreakdown, SplitRequestsAddUpThroughTheirLastPart) {
  // 512 B requests over 256 B interleave granules: the port logic splits each into two parts.
  const auto r = test::run_sim(test::source_file("platforms/minimal.yaml"),
                               "name: mixed\nstreams:\n" + mixed("device/fam0", "all", 512),
                               {"gpus.request_bytes=512"});
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  ASSERT_GT(r["components"]["fam0.port_logic"]["split_requests"].get<std::uint64_t>(), 0u);
  expect_hops_add_up(r, "read", requests_of(r, "read"));
  expect_hops_add_up(r, "write", requests_of(r, "write"));
  EXPECT_FALSE(hop(r["latency_breakdown_ns"]["read"], "memory_service").is_null());
}

// 2 GPUs with local HBM behind memory hubs, a switch and a device (as in peer_test.cpp): device,
// peer and local requests all at once.
const std::string kSwitched = R"(
name: switched
gpus: {count: 2, clock_mhz: 1000, request_bytes: 128, max_outstanding: 64, issue_width: 2,
       local_memory: {model: ideal, standard: TEST, data_rate_mtps: 2000, channel_width_bits: 64,
                      clock_mhz: 1000, access_latency_cycles: 20, channels: 4, capacity_gib: 1,
                      interleave: {granule_bytes: 256, channel_select: modulo}},
       hub: {clock_mhz: 500, pipeline_cycles: 3, width_bytes: 32, input_buffer: 16,
             output_buffer: 16}}
links:
  gpu_switch: {lanes: 4, lane_gbps: 32, per_gpu: 1, encoding_efficiency: 1.0, latency_ns: 10,
               clock_mhz: 1000, flit_bytes: 16, request_vc_credits: 64, response_vc_credits: 64}
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
    memory: {model: ideal, standard: TEST, data_rate_mtps: 2000, channel_width_bits: 64,
             clock_mhz: 1000, access_latency_cycles: 20, channels: 2}
)";

TEST(HopBreakdown, HopsAddUpOnASwitchedPlatformWithPeerAndLocalTraffic) {
  const auto r = test::run_sim(kSwitched, "name: mixed\nstreams:\n" + mixed("device/fam0") +
                                              mixed("gpu/1", "[0]") + mixed("gpu_local"));
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  expect_hops_add_up(r, "read", requests_of(r, "read"));
  expect_hops_add_up(r, "write", requests_of(r, "write"));
  const nlohmann::json& rd = r["latency_breakdown_ns"]["read"];
  for (const char* h : {"switch (request)", "hub (request)", "hub (response)",
                        "device_port (request)", "noc (response)", "switch (response)"}) {
    EXPECT_FALSE(hop(rd, h).is_null()) << h;
  }
  // Device and peer requests cross two links each way, local ones none.
  const double links = hop(rd, "link (request)")["hops_per_request"].get<double>();
  EXPECT_DOUBLE_EQ(links, 2.0);
  EXPECT_LT(hop(rd, "link (request)")["requests"].get<std::uint64_t>(),
            rd["end_to_end"]["count"].get<std::uint64_t>());
}

// Zero load: the direct platform of zero_load_test.cpp (times in ps). GPU and link clocks
// 1000 MHz; link 16 GB/s, 10 ns, 16 B header flits; port logic 500 MHz, ingress 3, egress 2
// cycles; NoC crossbar 1000 MHz, 4 pipeline cycles, 32 B wide; ideal memory 1000 MHz, 20 cycles
// access, 16 B per clock.
std::string direct(const std::string& lane_gbps) {
  return R"(
name: zero_load_direct
gpus: {count: 1, clock_mhz: 1000, request_bytes: 128, max_outstanding: 16, issue_width: 1}
links:
  gpu_device: {lanes: 4, lane_gbps: )" +
         lane_gbps + R"(, encoding_efficiency: 1.0, latency_ns: 10, clock_mhz: 1000,
               flit_bytes: 16, request_vc_credits: 32, response_vc_credits: 32, per_gpu: 1}
)" + test::kRoundNumberDevice;
}

// The device's clock periods in ps: port logic, NoC, memory.
constexpr std::uint64_t kDevicePort = 2000, kDeviceNoc = 1000, kDeviceMem = 1000;
using test::kRoundNumberLinkClock;

// The time of hop `name` in ns for the single request of `direction`.
double hop_ns(const nlohmann::json& r, const char* direction, const std::string& name) {
  const nlohmann::json h = hop(r["latency_breakdown_ns"][direction], name);
  EXPECT_FALSE(h.is_null()) << name;
  return h.is_null() ? -1.0 : h["mean"].get<double>();
}

// The device's round trip, cut at each block boundary (zero_load_test.cpp, Device::round_trip).
struct DeviceHops {
  std::uint64_t port_req, noc_req, mem_queue, mem_service, noc_resp, port_resp;
  std::uint64_t leave;  // the response leaves the port logic
  DeviceHops(std::uint64_t arrive, bool data_forward) {
    // Port logic ingress: first edge, then 3 cycles.
    std::uint64_t t = edge(arrive, kDevicePort) + 3 * kDevicePort;
    port_req = t - arrive;
    // Crossbar towards memory: next edge, pipeline 4 + beats (data / 32 B, at least 1).
    const std::uint64_t at_noc = t;
    t = edge_after(t, kDeviceNoc) + (4 + (data_forward ? 128 / 32 : 1)) * kDeviceNoc;
    noc_req = t - at_noc;
    // Memory: service starts at the first edge; ready after 20 + 128 / 16 burst cycles.
    const std::uint64_t start = edge(t, kDeviceMem);
    mem_queue = start - t;
    t = start + (20 + 128 / 16) * kDeviceMem;
    mem_service = t - start;
    // Crossbar back, then port logic egress: first edge, 2 cycles.
    const std::uint64_t at_noc_back = t;
    t = edge_after(t, kDeviceNoc) + (4 + (data_forward ? 1 : 128 / 32)) * kDeviceNoc;
    noc_resp = t - at_noc_back;
    const std::uint64_t at_port_back = t;
    t = edge(t, kDevicePort) + 2 * kDevicePort;
    port_resp = t - at_port_back;
    leave = t;
  }
};

TEST(HopBreakdownZeroLoad, DirectReadHopsAreTheConfiguredLatencies) {
  const auto r = test::run_sim(direct("32"), test::one_request_workload("device/fam0", false));
  ASSERT_EQ(r["conservation"]["completed"], 1);
  // Link: edge after issue at 0, one 16 B header flit at 16 GB/s, then 10 ns.
  const std::uint64_t link_req = edge_after(0, kRoundNumberLinkClock) + ser(16, 16.0) + 10000;
  const DeviceHops dev(link_req, false);
  // Back: edge after the port logic hands it on, header + 128 B of data, 10 ns.
  const std::uint64_t link_resp =
      edge_after(dev.leave, kRoundNumberLinkClock) + ser(16 + 128, 16.0) + 10000 - dev.leave;
  const nlohmann::json& rd = r["latency_breakdown_ns"]["read"];
  EXPECT_DOUBLE_EQ(hop_ns(r, "read", "gpu_issue"), 0.0);
  EXPECT_DOUBLE_EQ(hop_ns(r, "read", "link (request)"), link_req * 1e-3);
  EXPECT_DOUBLE_EQ(hop_ns(r, "read", "device_port (request)"), dev.port_req * 1e-3);
  EXPECT_DOUBLE_EQ(hop_ns(r, "read", "noc (request)"), dev.noc_req * 1e-3);
  EXPECT_DOUBLE_EQ(hop_ns(r, "read", "memory_queue"), dev.mem_queue * 1e-3);
  EXPECT_DOUBLE_EQ(hop_ns(r, "read", "memory_service"), dev.mem_service * 1e-3);
  // Alone on the platform, the response is taken the moment it is ready.
  EXPECT_DOUBLE_EQ(hop_ns(r, "read", "memory_response_wait"), 0.0);
  EXPECT_DOUBLE_EQ(hop_ns(r, "read", "noc (response)"), dev.noc_resp * 1e-3);
  EXPECT_DOUBLE_EQ(hop_ns(r, "read", "device_port (response)"), dev.port_resp * 1e-3);
  EXPECT_DOUBLE_EQ(hop_ns(r, "read", "link (response)"), link_resp * 1e-3);
  // By hand: link 1 + 1 + 10 = 12 ns; port logic 12 -> 18 (6); crossbar 19 + 5 -> 24 (6); memory
  // 0 queue, 28 service -> 52; crossbar 53 + 8 -> 61 (9); egress 62 + 4 -> 66 (5); link 67 + 9 +
  // 10 -> 86 (20). Sum 86 ns, zero_load_test's end to end.
  EXPECT_EQ(link_req, 12000u);
  EXPECT_EQ(dev.port_req, 6000u);
  EXPECT_EQ(dev.mem_service, 28000u);
  EXPECT_EQ(link_resp, 20000u);
  EXPECT_DOUBLE_EQ(rd["end_to_end"]["mean"].get<double>(), 86.0);
  EXPECT_EQ(rd["mismatched_requests"], 0);
  EXPECT_EQ(rd["hops"].size(), 10u);  // the nine above and a memory_response_wait of 0
}

TEST(HopBreakdownZeroLoad, DirectWriteHopsAreTheConfiguredLatencies) {
  const auto r = test::run_sim(direct("32"), test::one_request_workload("device/fam0", true));
  ASSERT_EQ(r["conservation"]["completed"], 1);
  // The write carries its data forward, its response is a header.
  const std::uint64_t link_req = edge_after(0, kRoundNumberLinkClock) + ser(16 + 128, 16.0) + 10000;
  const DeviceHops dev(link_req, true);
  const std::uint64_t link_resp =
      edge_after(dev.leave, kRoundNumberLinkClock) + ser(16, 16.0) + 10000 - dev.leave;
  EXPECT_DOUBLE_EQ(hop_ns(r, "write", "link (request)"), link_req * 1e-3);
  EXPECT_DOUBLE_EQ(hop_ns(r, "write", "device_port (request)"), dev.port_req * 1e-3);
  EXPECT_DOUBLE_EQ(hop_ns(r, "write", "noc (request)"), dev.noc_req * 1e-3);
  EXPECT_DOUBLE_EQ(hop_ns(r, "write", "memory_service"), dev.mem_service * 1e-3);
  EXPECT_DOUBLE_EQ(hop_ns(r, "write", "device_port (response)"), dev.port_resp * 1e-3);
  EXPECT_DOUBLE_EQ(hop_ns(r, "write", "link (response)"), link_resp * 1e-3);
  EXPECT_EQ(r["latency_breakdown_ns"]["write"]["mismatched_requests"], 0);
}

TEST(HopBreakdownZeroLoad, SwitchedReadSumsBothLinksIntoOneClass) {
  const auto r =
      test::run_sim(test::kRoundNumberSwitched, test::one_request_workload("device/fam0", false));
  ASSERT_EQ(r["conservation"]["completed"], 1);
  const std::uint64_t sw = 1000;
  // GPU link 16 GB/s + 10 ns; switch next edge + 10 pipeline + 1 beat; device link 32 GB/s + 5 ns.
  const std::uint64_t gpu_link = edge_after(0, kRoundNumberLinkClock) + ser(16, 16.0) + 10000;
  const std::uint64_t at_switch = gpu_link;
  const std::uint64_t switch_req = edge_after(at_switch, sw) + 11 * sw - at_switch;
  const std::uint64_t at_dev_link = at_switch + switch_req;
  const std::uint64_t dev_link =
      edge_after(at_dev_link, kRoundNumberLinkClock) + ser(16, 32.0) + 5000 - at_dev_link;
  const DeviceHops dev(at_dev_link + dev_link, false);
  EXPECT_DOUBLE_EQ(hop_ns(r, "read", "link (request)"), (gpu_link + dev_link) * 1e-3);
  EXPECT_DOUBLE_EQ(hop_ns(r, "read", "switch (request)"), switch_req * 1e-3);
  EXPECT_DOUBLE_EQ(hop_ns(r, "read", "device_port (request)"), dev.port_req * 1e-3);
  EXPECT_DOUBLE_EQ(hop_ns(r, "read", "memory_service"), dev.mem_service * 1e-3);
  const nlohmann::json link = hop(r["latency_breakdown_ns"]["read"], "link (request)");
  EXPECT_DOUBLE_EQ(link["hops_per_request"].get<double>(), 2.0);
  EXPECT_EQ(link["requests"], 1);
}

TEST(HopBreakdown, SlowLinkIsTheLargestShare) {
  // 4 lanes x 1 Gb/s = 0.5 GB/s: a 144 B read response takes 288 ns on the wire, against tens of
  // ns for every other hop; with 16 reads in flight they also queue in the link.
  const auto r = test::run_sim(
      direct("1"),
      "name: slow\nstreams:\n  - gpus: all\n    buffer: {bytes: 2MiB, location: device/fam0}\n"
      "    pattern: sequential\n    read_fraction: 1.0\n    access_bytes: 128\n"
      "    total_bytes: 32KiB\n    max_outstanding: 16\n");
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  expect_hops_add_up(r, "read", 256);
  const nlohmann::json& hops = r["latency_breakdown_ns"]["read"]["hops"];
  std::string largest;
  double share = 0;
  for (const auto& h : hops) {
    if (h["share"].get<double>() > share) {
      share = h["share"].get<double>();
      largest = h["hop"];
    }
  }
  EXPECT_EQ(largest, "link (response)");
  EXPECT_GT(share, 0.5);
}

TEST(HopBreakdown, TracePlayerHopsAddUp) {
  // The standalone DDR4 platform (platforms/dram_ddr4.yaml) replaying 400 Ramulator lines, reads
  // and writes, 32 in flight: the player's issue, the controller's queue and its service.
  std::ostringstream trace;
  for (unsigned i = 0; i < 400; ++i) {
    trace << (i % 3 == 0 ? "ST" : "LD") << " 0x" << std::hex << (i * 0x1040u) % 0x100000 << std::dec
          << "\n";
  }
  const nlohmann::json r = test::run_trace_platform("platforms/dram_ddr4.yaml", trace.str());
  ASSERT_TRUE(r["conservation"]["ok"].get<bool>());
  expect_hops_add_up(r, "read", requests_of(r, "read"));
  expect_hops_add_up(r, "write", requests_of(r, "write"));
  std::vector<std::string> names;
  for (const auto& h : r["latency_breakdown_ns"]["read"]["hops"]) names.push_back(h["hop"]);
  EXPECT_EQ(names, (std::vector<std::string>{"trace_player_issue", "memory_queue", "memory_service",
                                             "memory_response_wait"}));
}

}  // namespace
}  // namespace famsim
