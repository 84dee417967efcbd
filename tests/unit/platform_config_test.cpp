// Whole-document validation (parse_config): every bad input is a ConfigError naming the file the
// bad key came from and the key's full path; a valid document gives the derived values worked out
// here by hand.
#include "models/core/clock.h"
#include "sc_main/simulation.h"
#include "tests/support/test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace famsim {
namespace {

using test::make_doc;
using ::testing::HasSubstr;
using ::testing::Not;

// No switch: 2 GPUs x 2 links = 4 links straight to the 4 fabric ports of one device.
// Line numbers are given for the keys the tests point at.
constexpr const char* kPlatform =
    "name: unit\n"                                                               // 1
    "gpus:\n"                                                                    // 2
    "  count: 2\n"                                                               // 3
    "  clock_mhz: 1000\n"                                                        // 4
    "  request_bytes: 128\n"                                                     // 5
    "links:\n"                                                                   // 6
    "  gpu_device:\n"                                                            // 7
    "    lanes: 4\n"                                                             // 8
    "    lane_gbps: 50\n"                                                        // 9
    "    encoding_efficiency: 0.8\n"                                             // 10
    "    latency_ns: 10\n"                                                       // 11
    "    per_gpu: 2\n"                                                           // 12
    "devices:\n"                                                                 // 13
    "  - name: fam0\n"                                                           // 14
    "    capacity_gib: 4\n"                                                      // 15
    "    fabric_ports: 4\n"                                                      // 16
    "    port_logic: {clock_mhz: 1000, ingress_cycles: 8, tags_per_port: 64}\n"  // 17
    "    noc: {clock_mhz: 1500, pipeline_cycles: 4, width_bytes: 64}\n"          // 18
    "    memory: {preset: ddr5_4800_x8, channels: 2}\n";                         // 19

// With a switch: 2 GPUs x 4 links + 8 device ports = 16 switch ports.
constexpr const char* kSwitchPlatform =
    "name: unit_switch\n"
    "gpus: {count: 2, clock_mhz: 1000}\n"
    "links:\n"
    "  gpu_switch: {preset: nvlink4, per_gpu: 4}\n"
    "  switch_device: {preset: nvlink4}\n"
    "switch:\n"
    "  radix: 16\n"
    "  clock_mhz: 1500\n"
    "  pipeline_cycles: 40\n"
    "  port_bytes: 64\n"
    "devices:\n"
    "  - name: fam0\n"
    "    capacity_gib: 4\n"
    "    fabric_ports: 8\n"
    "    port_logic: {clock_mhz: 1000, ingress_cycles: 8, tags_per_port: 64}\n"
    "    noc: {clock_mhz: 1500, pipeline_cycles: 4, width_bytes: 64}\n"
    "    memory: {preset: ddr5_4800_x8, channels: 2}\n";

constexpr const char* kWorkload =
    "name: unit_wl\n"                                     // 1
    "streams:\n"                                          // 2
    "  - name: reads\n"                                   // 3
    "    buffer: {bytes: 1MiB, location: device/fam0}\n"  // 4
    "    pattern: uniform_random\n"                       // 5
    "    total_bytes: 64KiB\n";                           // 6

constexpr const char* kPlatformFile = "test-platform.yaml";
constexpr const char* kWorkloadFile = "test-workload.yaml";

// `text` with the first occurrence of `from` replaced by `to` (which must exist).
std::string edit(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "'" << from << "' not in the test YAML";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The ConfigError message of building and parsing the document; fails the test when it parses.
std::string platform_error_of(const std::string& platform, const std::string& workload,
                              const std::vector<std::string>& overrides = {}) {
  try {
    parse_config(make_doc(platform, workload, overrides));
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a ConfigError";
  return "";
}

TEST(PlatformConfig, ValidConfigGivesHandComputedValues) {
  const ResolvedConfig c = parse_config(make_doc(kPlatform, kWorkload));
  const PlatformConfig& p = c.platform;
  EXPECT_EQ(p.name, "unit");
  EXPECT_EQ(p.gpu_count, 2u);
  EXPECT_FALSE(p.sw.present);
  EXPECT_FALSE(p.gpu_local.present);
  ASSERT_TRUE(p.gpu_link.present);
  EXPECT_EQ(p.gpu_link.per_gpu, 2u);
  EXPECT_EQ(p.fabric_ports_per_gpu(), 2u);
  // 4 lanes x 50 Gb/s x 0.8 / 8 bits = 20 GB/s per direction.
  EXPECT_NEAR(p.gpu_link.params.bandwidth_gbps(), 4 * 50 * 0.8 / 8, 1e-12);
  EXPECT_NEAR(p.gpu_link.params.bandwidth_gbps(), 20.0, 1e-12);
  // Defaults from the documented key reference (README "Links"): 16 B flits of one 16 B slot,
  // 16 B message headers, 256 B max payload, 64 flit credits per VC, credit return and replay
  // latency from latency_ns (10 and 2 x 10 ns), 1000 MHz link clock, no errors.
  EXPECT_EQ(p.gpu_link.params.flit.flit_bytes, 16u);
  EXPECT_EQ(p.gpu_link.params.flit.slot_bytes, 16u);
  EXPECT_EQ(p.gpu_link.params.flit.request_header_bytes, 16u);
  EXPECT_EQ(p.gpu_link.params.flit.max_payload_bytes, 256u);
  EXPECT_EQ(p.gpu_link.params.request_vc_credits, 64u);
  EXPECT_EQ(p.gpu_link.params.response_vc_credits, 64u);
  EXPECT_EQ(p.gpu_link.params.credit_unit, CreditUnit::kFlit);
  EXPECT_DOUBLE_EQ(p.gpu_link.params.credit_return_ns, 10.0);
  EXPECT_DOUBLE_EQ(p.gpu_link.params.replay_latency_ns, 20.0);
  EXPECT_DOUBLE_EQ(p.gpu_link.params.clock_mhz, 1000.0);
  EXPECT_DOUBLE_EQ(p.gpu_link.params.flit_error_rate, 0.0);
  ASSERT_EQ(p.devices.size(), 1u);
  const DeviceConfig& d = p.devices[0];
  EXPECT_EQ(d.name, "fam0");
  EXPECT_EQ(d.capacity_bytes, 4ULL << 30);
  EXPECT_EQ(d.memory.capacity_bytes, 4ULL << 30);
  EXPECT_EQ(d.fabric_ports, 4u);
  EXPECT_EQ(p.device_port_total(), 4u);
  // egress_cycles defaults to ingress_cycles.
  EXPECT_EQ(d.port_logic.ingress_cycles, 8u);
  EXPECT_EQ(d.port_logic.egress_cycles, 8u);
  // Memory: channels from the platform, the DRAM from platforms/presets/memory/ddr5_4800_x8.yaml
  // (DDR5-4800B: tCK 0.416 ns, tRCD 16.666 ns -> 40 clocks; a 32-bit sub-channel, BL16).
  EXPECT_EQ(d.memory.channels, 2u);
  EXPECT_EQ(d.memory.model, MemoryConfig::Model::kDram);
  EXPECT_EQ(d.memory.standard(), "DDR5");
  EXPECT_DOUBLE_EQ(d.memory.dram.spec.org.data_rate_mtps, 4800.0);
  EXPECT_EQ(d.memory.dram.spec.org.channel_width_bits, 32u);
  EXPECT_EQ(d.memory.dram.spec.timing.RCD_RD, 40u);
  EXPECT_EQ(d.memory.dram.spec.timing.burst, 8u);  // 16 beats, 2 per clock
  // The bus runs at tCK: 2 transfers per 416 ps x 4 bytes = 19.2308 GB/s per sub-channel (4800
  // MT/s x 4 bytes = 19.2 is the nominal figure; tCK 416 ps is 4807.7 MT/s).
  EXPECT_NEAR(d.memory.channel_peak_gbps(), 2.0 / 416e-12 * 4 * 1e-9, 1e-9);
  // Controller defaults (README key reference).
  EXPECT_EQ(d.memory.dram.core.read_queue, 64u);
  EXPECT_EQ(d.memory.dram.core.scheduler, "frfcfs");
  EXPECT_EQ(d.memory.dram.core.page_policy, "open");
  // Interleave defaults: 256 B granule, modulo.
  EXPECT_EQ(d.memory.granule_bytes, 256u);
  EXPECT_EQ(d.memory.select, AddressMap::Select::kModulo);
  // Workload.
  ASSERT_EQ(c.workload.streams.size(), 1u);
  const StreamConfig& s = c.workload.streams[0];
  EXPECT_EQ(s.name, "reads");
  EXPECT_EQ(s.gpus, (std::vector<unsigned>{0, 1}));  // "all" by default
  EXPECT_EQ(s.buffer_bytes, 1ULL << 20);
  EXPECT_EQ(s.location.kind, Placement::Kind::kDevice);
  EXPECT_EQ(s.location.devices, std::vector<std::string>{"fam0"});
  EXPECT_EQ(s.pattern, Pattern::kUniformRandom);
  EXPECT_EQ(s.total_bytes, 64ULL << 10);
  EXPECT_EQ(s.access_bytes, 128u);  // the GPU's request_bytes
  EXPECT_DOUBLE_EQ(s.read_fraction, 1.0);
  EXPECT_EQ(c.sim.seed, 1u);
}

TEST(PlatformConfig, ValidSwitchPlatform) {
  const ResolvedConfig c = parse_config(make_doc(kSwitchPlatform, kWorkload));
  const PlatformConfig& p = c.platform;
  ASSERT_TRUE(p.sw.present);
  EXPECT_EQ(p.sw.radix, 16u);
  EXPECT_EQ(p.gpu_link.per_gpu, 4u);
  ASSERT_TRUE(p.device_link.present);
  // NVLink4 preset: 2 lanes x 106.25 Gb/s x (100/106.25) / 8 = 25 GB/s per direction.
  EXPECT_NEAR(p.gpu_link.params.bandwidth_gbps(), 25.0, 1e-9);
  EXPECT_NEAR(p.device_link.params.bandwidth_gbps(), 25.0, 1e-9);
  EXPECT_DOUBLE_EQ(p.gpu_link.params.latency_ns, 20.0);
  // nvlink4.yaml: 128 flit credits per VC, 16 B flits.
  EXPECT_EQ(p.gpu_link.params.request_vc_credits, 128u);
  EXPECT_EQ(p.gpu_link.params.flit.flit_bytes, 16u);
}

// GPUs with local HBM only: no devices, no links needed.
constexpr const char* kLocalPlatform =
    "name: local_only\n"
    "gpus:\n"
    "  count: 1\n"
    "  clock_mhz: 1000\n"
    "  local_memory: {preset: hbm3_6400, stacks: 2}\n";

constexpr const char* kLocalWorkload =
    "streams:\n"
    "  - buffer: {bytes: 1MiB, location: gpu_local}\n";

TEST(PlatformConfig, ValidLocalMemoryOnlyPlatform) {
  const ResolvedConfig c = parse_config(make_doc(kLocalPlatform, kLocalWorkload));
  const PlatformConfig& p = c.platform;
  ASSERT_TRUE(p.gpu_local.present);
  EXPECT_TRUE(p.devices.empty());
  EXPECT_FALSE(p.gpu_link.present);
  // hbm3_6400 preset: 16 channels x 2 pseudo-channels and 16 GiB per stack; 2 stacks.
  EXPECT_EQ(p.gpu_local.channels, 64u);
  EXPECT_EQ(p.gpu_local.capacity_bytes, 32ULL << 30);
  EXPECT_EQ(p.gpu_local.standard(), "HBM3");
  EXPECT_EQ(c.workload.streams[0].location.kind, Placement::Kind::kGpuLocal);
}

// A timing the user gives in one unit replaces the preset's in either. DDR5-4800 (tCK 416 ps)
// gives CL as 16.666 ns = 40 clocks and tCCD_L as 5 ns = 12 clocks: a CL_ck of 36 is used, not
// the larger 40; a tCCD_L_ck of 10 likewise (tCCD_S is 8). Given both ways by the user, the
// larger still counts: CL_ck 36 and CL_ns 20 (48.08 clocks, rounded up with JEDEC's 0.3 %
// guard band: 48).
TEST(PlatformConfig, ATimingInOneUnitReplacesThePresetsInTheOther) {
  const auto timing_of = [](const std::vector<std::string>& overrides) {
    return parse_config(make_doc(kPlatform, kWorkload, overrides))
        .platform.devices[0]
        .memory.dram.spec.timing;
  };
  EXPECT_EQ(timing_of({}).CL, 40u);
  EXPECT_EQ(timing_of({}).CCD_L, 12u);
  const auto t =
      timing_of({"devices.0.memory.timing.CL_ck=36", "devices.0.memory.timing.tCCD_L_ck=10"});
  EXPECT_EQ(t.CL, 36u);
  EXPECT_EQ(t.CCD_L, 10u);
  EXPECT_EQ(t.RCD_RD, 40u);  // the others stay the preset's
  EXPECT_EQ(timing_of({"devices.0.memory.timing.CL_ck=36", "devices.0.memory.timing.CL_ns=20"}).CL,
            48u);
}

// HBM3's preset gives tRCD in clocks (31 of 625 ps: 6400 MT/s, 4 transfers a clock) with an
// assumption note: a tRCD_ns of 5 (8 clocks) replaces it, and the note on the value no longer used
// goes with it (a note on a value the memory does not give would be an error), while the other
// notes stay.
TEST(PlatformConfig, ReplacingAPresetsAssumedTimingDropsItsNote) {
  const ResolvedConfig c = parse_config(
      make_doc(kLocalPlatform, kLocalWorkload, {"gpus.local_memory.timing.tRCD_ns=5"}));
  EXPECT_EQ(c.platform.gpu_local.dram.spec.timing.RCD_RD, 8u);
  bool rcd_note = false, cl_note = false;
  for (const ConfigAssumption& a : c.platform.gpu_local.assumptions) {
    rcd_note = rcd_note || a.key.rfind("timing.tRCD_", 0) == 0;
    cl_note = cl_note || a.key == "timing.CL_ck";
  }
  EXPECT_FALSE(rcd_note);
  EXPECT_TRUE(cl_note);
}

TEST(PlatformConfig, UnusedLinkSectionIsStillCheckedForUnknownKeys) {
  // parse_config reads the whole document strictly ("unknown keys anywhere are errors"); a link
  // section the topology does not use must not become a place where typos go unnoticed.
  const std::string m =
      platform_error_of(std::string(kLocalPlatform) +
                            "links:\n"
                            "  gpu_device: {lanes: 2, lane_gbps: 50, latency_ns: 10, "
                            "typo_key: 1}\n",
                        kLocalWorkload);
  EXPECT_THAT(m, HasSubstr(kPlatformFile));
  EXPECT_THAT(m, HasSubstr("links.gpu_device"));
}

TEST(PlatformConfig, LinkCreditsMustHoldAWholeTransfer) {
  // 512 B requests over the default framing (16 B flits and headers, 256 B max payload): a write
  // is 2 messages of 16 + 256 B = 2 x 17 = 34 flits, and a link takes a transfer's credits all at
  // once, so 20 request credits (enough for one 17-flit message) would stall the first write.
  std::string m = platform_error_of(
      kPlatform, kWorkload, {"gpus.request_bytes=512", "links.gpu_device.request_vc_credits=20"});
  EXPECT_THAT(m, HasSubstr("links.gpu_device.request_vc_credits"));
  EXPECT_THAT(m, HasSubstr("expected at least 34 credits"));
  // The read response of 512 B is the same 34 flits on the response VC.
  m = platform_error_of(kPlatform, kWorkload,
                        {"gpus.request_bytes=512", "links.gpu_device.response_vc_credits=33"});
  EXPECT_THAT(m, HasSubstr("links.gpu_device.response_vc_credits"));
  EXPECT_THAT(m, HasSubstr("expected at least 34 credits"));
  const ResolvedConfig c =
      parse_config(make_doc(kPlatform, kWorkload,
                            {"gpus.request_bytes=512", "links.gpu_device.request_vc_credits=34",
                             "links.gpu_device.response_vc_credits=34"}));
  EXPECT_EQ(c.platform.gpu_link.params.request_vc_credits, 34u);
}

TEST(PlatformConfig, OverridesApplyBeforeValidation) {
  const ResolvedConfig c = parse_config(make_doc(
      kPlatform, kWorkload,
      {"links.gpu_device.lanes=8", "workload.streams.0.read_fraction=0.25", "sim.seed=9"}));
  // 8 x 50 x 0.8 / 8 = 40 GB/s.
  EXPECT_NEAR(c.platform.gpu_link.params.bandwidth_gbps(), 40.0, 1e-12);
  EXPECT_DOUBLE_EQ(c.workload.streams[0].read_fraction, 0.25);
  EXPECT_EQ(c.sim.seed, 9u);
}

TEST(PlatformConfig, UnknownTopLevelKey) {
  const std::string m = platform_error_of(std::string(kPlatform) + "bogus_block: 1\n", kWorkload);
  EXPECT_THAT(m, HasSubstr(kPlatformFile));
  EXPECT_THAT(m, HasSubstr("bogus_block"));
  EXPECT_THAT(m, HasSubstr("unknown key"));
}

TEST(PlatformConfig, ValueInAPresetNodeNamesItsOwnLine) {
  // A value the user wrote next to `preset` is reported at its line (19), not at line 1: the
  // expansion used to copy the node, and a copy has no place in any file.
  const std::string m =
      platform_error_of(edit(kPlatform, "channels: 2}", "channels: 0}"), kWorkload);
  EXPECT_THAT(m, HasSubstr(std::string(kPlatformFile) + ":19: devices.0.memory.channels"));
}

TEST(PlatformConfig, KeyMissingFromAPresetNamesThePresetAndItsChoice) {
  // lpddr5x_8533 has no rank-to-rank switch time (its preset is for one rank); asking for two
  // ranks needs it. The message names the preset, where the platform chose it (line 19), the
  // key, and where the ranks were set (line 20), not the preset file's line 1.
  const std::string platform = edit(kPlatform, "    memory: {preset: ddr5_4800_x8, channels: 2}\n",
                                    "    memory: {preset: lpddr5x_8533, channels: 2,\n"  // 19
                                    "             organization: {ranks: 2}}\n");         // 20
  const std::string m = platform_error_of(platform, kWorkload);
  EXPECT_THAT(m, HasSubstr("devices.0.memory.timing.tRTRS_ck"));
  EXPECT_THAT(m, HasSubstr("platforms/presets/memory/lpddr5x_8533.yaml"));
  EXPECT_THAT(m, HasSubstr("not in preset 'lpddr5x_8533', chosen at " + std::string(kPlatformFile) +
                           ":19: devices.0.memory.preset"));
  EXPECT_THAT(m, HasSubstr(std::string(kPlatformFile) +
                           ":20: devices.0.memory.organization.ranks sets 2 ranks"));
  EXPECT_THAT(m, Not(HasSubstr("lpddr5x_8533.yaml:1:")));
}

TEST(PlatformConfig, UnknownNestedKey) {
  std::string m = platform_error_of(
      edit(kPlatform, "tags_per_port: 64}", "tags_per_port: 64, tagz: 3}"), kWorkload);
  EXPECT_THAT(m, HasSubstr("test-platform.yaml:17"));
  EXPECT_THAT(m, HasSubstr("devices.0.port_logic.tagz"));
  EXPECT_THAT(m, HasSubstr("unknown key"));
  // In a node expanded from a preset, the typo is still the user's file's, at its own line.
  m = platform_error_of(edit(kPlatform, "channels: 2}", "channels: 2, chanels: 3}"), kWorkload);
  EXPECT_THAT(m, HasSubstr(std::string(kPlatformFile) + ":19:"));
  EXPECT_THAT(m, HasSubstr("devices.0.memory.chanels"));
  EXPECT_THAT(m, Not(HasSubstr("presets")));
  // In a link.
  m = platform_error_of(edit(kPlatform, "    per_gpu: 2\n", "    per_gpu: 2\n    lane: 3\n"),
                        kWorkload);
  EXPECT_THAT(m, HasSubstr(kPlatformFile));
  EXPECT_THAT(m, HasSubstr("links.gpu_device.lane"));
  // In the workload: the workload file is named.
  m = platform_error_of(kPlatform, edit(kWorkload, "pattern:", "patern:"));
  EXPECT_THAT(m, HasSubstr("test-workload.yaml:5"));
  EXPECT_THAT(m, HasSubstr("workload.streams.0.patern"));
  EXPECT_THAT(m, Not(HasSubstr(kPlatformFile)));
}

TEST(PlatformConfig, UnknownKeyCreatedBySetNamesTheSet) {
  // config.h, apply_override: "Missing map keys are created, so an unknown key is reported later by
  // the strict reader, which names the --set as its source."
  std::string m = platform_error_of(kPlatform, kWorkload, {"no_such_block.width=3"});
  EXPECT_THAT(m, HasSubstr("no_such_block"));
  EXPECT_THAT(m, HasSubstr("--set no_such_block.width=3"));
  EXPECT_THAT(m, Not(HasSubstr(kPlatformFile)));
  // The same one level down, under an existing map.
  m = platform_error_of(kPlatform, kWorkload, {"gpus.typo.x=3"});
  EXPECT_THAT(m, HasSubstr("gpus.typo"));
  EXPECT_THAT(m, HasSubstr("--set gpus.typo.x=3"));
  // A single-segment unknown key is attributed correctly already.
  m = platform_error_of(kPlatform, kWorkload, {"gpus.typo=3"});
  EXPECT_THAT(m, HasSubstr("gpus.typo"));
  EXPECT_THAT(m, HasSubstr("--set gpus.typo=3"));
}

TEST(PlatformConfig, WrongType) {
  const std::string m = platform_error_of(edit(kPlatform, "count: 2", "count: eight"), kWorkload);
  EXPECT_THAT(m, HasSubstr("test-platform.yaml:3"));
  EXPECT_THAT(m, HasSubstr("gpus.count"));
  EXPECT_THAT(m, HasSubstr("'eight'"));
}

TEST(PlatformConfig, NegativeBandwidth) {
  const std::string m =
      platform_error_of(edit(kPlatform, "lane_gbps: 50", "lane_gbps: -5"), kWorkload);
  EXPECT_THAT(m, HasSubstr("test-platform.yaml:9"));
  EXPECT_THAT(m, HasSubstr("links.gpu_device.lane_gbps"));
  // Zero is no bandwidth either.
  const std::string z =
      platform_error_of(edit(kPlatform, "lane_gbps: 50", "lane_gbps: 0"), kWorkload);
  EXPECT_THAT(z, HasSubstr("links.gpu_device.lane_gbps"));
}

TEST(PlatformConfig, NegativeBandwidthFromSetNamesTheSet) {
  const std::string m = platform_error_of(kPlatform, kWorkload, {"links.gpu_device.lane_gbps=-5"});
  EXPECT_THAT(m, HasSubstr("--set links.gpu_device.lane_gbps=-5"));
  EXPECT_THAT(m, HasSubstr("links.gpu_device.lane_gbps"));
}

TEST(PlatformConfig, BufferOnMissingDevice) {
  const std::string m = platform_error_of(
      kPlatform, edit(kWorkload, "location: device/fam0", "location: device/fam9"));
  EXPECT_THAT(m, HasSubstr("test-workload.yaml:4"));
  EXPECT_THAT(m, HasSubstr("workload.streams.0.buffer.location"));
  EXPECT_THAT(m, HasSubstr("fam9"));
  EXPECT_THAT(m, Not(HasSubstr(kPlatformFile)));
}

TEST(PlatformConfig, BufferOnGpuLocalWithoutLocalMemory) {
  const std::string m =
      platform_error_of(kPlatform, edit(kWorkload, "location: device/fam0", "location: gpu_local"));
  EXPECT_THAT(m, HasSubstr(kWorkloadFile));
  EXPECT_THAT(m, HasSubstr("workload.streams.0.buffer.location"));
}

TEST(PlatformConfig, SwitchRadixTooSmall) {
  // 2 GPUs x 4 links + 8 device ports = 16 ports on a radix-15 switch.
  const std::string m =
      platform_error_of(edit(kSwitchPlatform, "radix: 16", "radix: 15"), kWorkload);
  EXPECT_THAT(m, HasSubstr(kPlatformFile));
  EXPECT_THAT(m, HasSubstr("switch.radix"));
  EXPECT_THAT(m, HasSubstr("16"));
}

TEST(PlatformConfig, NoSwitchLinksMustMatchDevicePorts) {
  // 2 GPUs x 2 links = 4 GPU links, but the device has 3 fabric ports.
  const std::string m =
      platform_error_of(edit(kPlatform, "fabric_ports: 4", "fabric_ports: 3"), kWorkload);
  EXPECT_THAT(m, HasSubstr(kPlatformFile));
  EXPECT_THAT(m, HasSubstr("devices"));
  EXPECT_THAT(m, HasSubstr("impossible topology"));
  // The same mismatch from the GPU side, made by a --set: the error names that key.
  const std::string g = platform_error_of(kPlatform, kWorkload, {"links.gpu_device.per_gpu=1"});
  EXPECT_THAT(g, HasSubstr("--set links.gpu_device.per_gpu=1: links.gpu_device.per_gpu: "
                           "impossible topology"));
}

// A link preset's credit and replay loops follow its latency: nvlink4 (20 ns; replay 2 x 20 + a
// 10 ns check = 50 ns) with latency_ns set to 200 returns credits after 200 ns and replays after
// 2 x 200 + 10 = 410 ns. (They were the preset's 20 and 50 ns whatever the latency, and a long
// link's credit-bound bandwidth came out 80 % too high: the architecture audit of 2026-12-04.)
TEST(PlatformConfig, LinkPresetLoopsFollowAChangedLatency) {
  const ResolvedConfig base = parse_config(make_doc(kSwitchPlatform, kWorkload));
  EXPECT_DOUBLE_EQ(base.platform.gpu_link.params.credit_return_ns, 20.0);
  EXPECT_DOUBLE_EQ(base.platform.gpu_link.params.replay_latency_ns, 50.0);
  const ResolvedConfig far =
      parse_config(make_doc(kSwitchPlatform, kWorkload, {"links.gpu_switch.latency_ns=200"}));
  EXPECT_DOUBLE_EQ(far.platform.gpu_link.params.credit_return_ns, 200.0);
  EXPECT_DOUBLE_EQ(far.platform.gpu_link.params.replay_latency_ns, 410.0);
  // Given, they are taken as given.
  const ResolvedConfig own = parse_config(
      make_doc(kSwitchPlatform, kWorkload,
               {"links.gpu_switch.credit_return_ns=5", "links.gpu_switch.replay_latency_ns=7"}));
  EXPECT_DOUBLE_EQ(own.platform.gpu_link.params.credit_return_ns, 5.0);
  EXPECT_DOUBLE_EQ(own.platform.gpu_link.params.replay_latency_ns, 7.0);
}

TEST(PlatformConfig, UnknownPresetName) {
  const std::string bad =
      platform_error_of(edit(kPlatform, "preset: ddr5_4800_x8", "preset: ddr9_9999"), kWorkload);
  EXPECT_THAT(bad, HasSubstr(kPlatformFile));
  EXPECT_THAT(bad, HasSubstr("devices.0.memory.preset"));
  EXPECT_THAT(bad, HasSubstr("ddr9_9999"));
  const std::string link =
      platform_error_of(kSwitchPlatform, kWorkload, {"links.gpu_switch.preset=nvlink9"});
  EXPECT_THAT(link, HasSubstr("links.gpu_switch.preset"));
  EXPECT_THAT(link, HasSubstr("nvlink9"));
}

TEST(PlatformConfig, OtherChecks) {
  // Non-power-of-two request size.
  std::string m =
      platform_error_of(edit(kPlatform, "request_bytes: 128", "request_bytes: 96"), kWorkload);
  EXPECT_THAT(m, HasSubstr("gpus.request_bytes"));
  // Two devices without a switch.
  m = platform_error_of(
      std::string(kPlatform) +
          "  - name: fam1\n"
          "    capacity_gib: 4\n"
          "    fabric_ports: 4\n"
          "    port_logic: {clock_mhz: 1000, ingress_cycles: 8, tags_per_port: 64}\n"
          "    noc: {clock_mhz: 1500, pipeline_cycles: 4, width_bytes: 64}\n"
          "    memory: {preset: ddr5_4800_x8, channels: 2}\n",
      kWorkload);
  EXPECT_THAT(m, HasSubstr("devices"));
  // Two devices with the same name behind a switch (radix raised so the ports fit).
  m = platform_error_of(
      std::string(kSwitchPlatform) +
          "  - name: fam0\n"
          "    capacity_gib: 4\n"
          "    fabric_ports: 8\n"
          "    port_logic: {clock_mhz: 1000, ingress_cycles: 8, tags_per_port: 64}\n"
          "    noc: {clock_mhz: 1500, pipeline_cycles: 4, width_bytes: 64}\n"
          "    memory: {preset: ddr5_4800_x8, channels: 2}\n",
      kWorkload, {"switch.radix=64"});
  EXPECT_THAT(m, HasSubstr("devices.1.name"));
}

TEST(PlatformConfig, XorNeedsPowerOfTwoChannels) {
  const std::string m = platform_error_of(
      edit(kPlatform, "channels: 2}", "channels: 6, interleave: {channel_select: xor}}"),
      kWorkload);
  EXPECT_THAT(m, HasSubstr(kPlatformFile));
  // Both written in the file: the channel count is named, with the way out.
  EXPECT_THAT(m, HasSubstr("devices.0.memory.channels: 6 channels with xor channel selection"));
  EXPECT_THAT(m, HasSubstr("or channel_select: modulo, which takes any count"));
}

TEST(DeviceKeys, PortLogicAndBitInterleaveAreRead) {
  const PlatformConfig pc =
      parse_config(make_doc(edit(edit(kPlatform, "tags_per_port: 64}",
                                      "tags_per_port: 64, width_bytes: 32, response_order: "
                                      "in_order, atomic_cycles: 12}"),
                                 "channels: 2}",
                                 "channels: 4, interleave: {channel_select: bits, "
                                 "channel_bits: [9, 6]}}"),
                            kWorkload))
          .platform;
  const DeviceConfig& d = pc.devices.at(0);
  EXPECT_EQ(d.port_logic.width_bytes, 32u);
  EXPECT_TRUE(d.port_logic.in_order);
  EXPECT_EQ(d.port_logic.atomic_cycles, 12u);
  EXPECT_EQ(d.memory.select, AddressMap::Select::kBits);
  EXPECT_EQ(d.memory.channel_bits, (std::vector<unsigned>{9, 6}));
  EXPECT_EQ(d.memory.granule_bytes, 64u);  // 2^6: below the lowest channel bit
  // A device interleaves below the 128 B request size (its port logic splits); the minimum is 64 B.
  const PlatformConfig small =
      parse_config(
          make_doc(edit(kPlatform, "channels: 2}", "channels: 2, interleave: {granule_bytes: 64}}"),
                   kWorkload))
          .platform;
  EXPECT_EQ(small.devices.at(0).memory.granule_bytes, 64u);
}

TEST(DeviceKeys, ErrorsNameTheKey) {
  auto with_interleave = [](const std::string& il) {
    return edit(kPlatform, "channels: 2}", "channels: 4, interleave: {" + il + "}}");
  };
  std::string m = platform_error_of(with_interleave("granule_bytes: 32"), kWorkload);
  EXPECT_THAT(m, HasSubstr("devices.0.memory.interleave.granule_bytes"));
  EXPECT_THAT(m, HasSubstr(">= 64 B"));
  m = platform_error_of(with_interleave("channel_select: bits, channel_bits: [8]"), kWorkload);
  EXPECT_THAT(m, HasSubstr("devices.0.memory.interleave.channel_bits"));
  EXPECT_THAT(m, HasSubstr("4 channels"));
  m = platform_error_of(with_interleave("channel_select: bits, channel_bits: [8, 8]"), kWorkload);
  EXPECT_THAT(m, HasSubstr("listed twice"));
  m = platform_error_of(with_interleave("channel_select: bits"), kWorkload);
  EXPECT_THAT(m, HasSubstr("channel_bits"));
  m = platform_error_of(with_interleave("channel_select: xor, channel_bits: [8, 9]"), kWorkload);
  EXPECT_THAT(m, HasSubstr("channel_select: bits"));
  m = platform_error_of(
      edit(kPlatform, "tags_per_port: 64}", "tags_per_port: 64, response_order: fifo}"), kWorkload);
  EXPECT_THAT(m, HasSubstr("devices.0.port_logic.response_order"));
  // A GPU's local memory does not split: its granule must hold a request.
  m = platform_error_of(
      edit(kPlatform, "  count: 2\n",
           "  count: 2\n  local_memory: {preset: hbm3_6400, stacks: 1, interleave: "
           "{granule_bytes: 64}}\n"),
      kWorkload);
  EXPECT_THAT(m, HasSubstr("gpus.local_memory.interleave.granule_bytes"));
}

// model: ideal over a DRAM preset ("this memory, were it ideal"): the bus and latency come from
// the DDR5-4800B preset (ddr5_4800_x8.yaml: tCK 416 ps; tRCD 16.666 ns -> JESD79-5 rounding
// truncate((truncate(16666 x 997 / 416) + 1000) / 1000) = truncate(40942 / 1000) = 40 clocks;
// CL 40 clocks; a 32-bit sub-channel moving 2 transfers per clock = 8 B per clock).
TEST(IdealOverDram, TakesTheBusAndTRcdPlusClOfItsPreset) {
  const PlatformConfig pc =
      parse_config(make_doc(kPlatform, kWorkload, {"devices.0.memory.model=ideal"})).platform;
  const MemoryConfig& m = pc.devices.at(0).memory;
  EXPECT_EQ(m.model, MemoryConfig::Model::kIdeal);
  EXPECT_EQ(m.standard(), "DDR5");
  EXPECT_EQ(Clock(m.timing.clock_mhz).period_ps(), 416u);
  EXPECT_EQ(m.timing.channel_width_bits, 32u);
  EXPECT_NEAR(m.timing.bytes_per_clock(), 8.0, 1e-12);
  EXPECT_EQ(m.timing.access_latency_cycles, 40u + 40u);
  // The DRAM model's peak: 2 transfers per 416 ps x 4 bytes.
  EXPECT_NEAR(m.channel_peak_gbps(), 2.0 / 416e-12 * 4 * 1e-9, 1e-9);
  // The DRAM's 64-entry queues count 64 B bursts; a 128 B request takes 2: the same bytes are 32
  // requests.
  EXPECT_EQ(m.controller.read_queue, 32u);
  EXPECT_EQ(m.controller.write_queue, 32u);
  EXPECT_TRUE(m.controller.backing_store);
  // The run says what it assumed; the preset's notes on timing the ideal memory does not use
  // (tRTRS, refresh) are left out.
  bool model_note = false;
  for (const ConfigAssumption& a : m.assumptions) {
    EXPECT_EQ(a.key.find("timing.tRTRS"), std::string::npos) << a.key;
    EXPECT_EQ(a.key.find("timing.tREF"), std::string::npos) << a.key;
    if (a.key == "model") {
      model_note = true;
      EXPECT_THAT(a.why, HasSubstr("tRCD + CL = 40 + 40"));
      EXPECT_THAT(a.why, HasSubstr("no banks, rows, refresh"));
    }
  }
  EXPECT_TRUE(model_note);
  // The DRAM controller's queue sizes carry over; access_latency_cycles overrides the latency.
  // A copy: the resolved configuration parse_config returns is a temporary.
  const MemoryConfig m2 = parse_config(make_doc(kPlatform, kWorkload,
                                                {"devices.0.memory.model=ideal",
                                                 "devices.0.memory.access_latency_cycles=50",
                                                 "devices.0.memory.controller.read_queue=16"}))
                              .platform.devices.at(0)
                              .memory;
  EXPECT_EQ(m2.timing.access_latency_cycles, 50u);
  EXPECT_EQ(m2.controller.read_queue, 8u);
}

TEST(IdealOverDram, ErrorsNameTheKey) {
  const std::string ideal = "devices.0.memory.model=ideal";
  // The bus is the DRAM's: an ideal memory's own bus keys would contradict it.
  std::string m =
      platform_error_of(kPlatform, kWorkload, {ideal, "devices.0.memory.clock_mhz=2000"});
  EXPECT_THAT(m, HasSubstr("devices.0.memory.clock_mhz"));
  EXPECT_THAT(m, HasSubstr("takes its bus from that description"));
  // Only the DRAM model decodes a channel digit in the mapping.
  m = platform_error_of(kPlatform, kWorkload,
                        {ideal, "devices.0.memory.mapping.order=RoRaBaChCoBg"});
  EXPECT_THAT(m, HasSubstr("devices.0.memory.mapping.order"));
  // The DRAM keys are still checked.
  m = platform_error_of(kPlatform, kWorkload,
                        {ideal, "devices.0.memory.controller.scheduler=lifo"});
  EXPECT_THAT(m, HasSubstr("devices.0.memory.controller.scheduler"));
}

TEST(PlatformConfig, AtomicStreamKeys) {
  const std::string atomic8 = "workload.streams.0.access_bytes=8";
  const ResolvedConfig ok = parse_config(
      make_doc(kPlatform, kWorkload,
               {atomic8, "workload.streams.0.atomic={op: compare_swap, compare: 5, swap: 9}"}));
  const StreamConfig& s = ok.workload.streams.at(0);
  EXPECT_EQ(s.atomic, AtomicOp::kCompareSwap);
  EXPECT_EQ(s.atomic_compare, 5u);
  EXPECT_EQ(s.atomic_operand, 9u);
  // Word size, operands that fit it, and keys an atomic stream cannot have.
  std::string m =
      platform_error_of(kPlatform, kWorkload, {"workload.streams.0.atomic={op: fetch_add}"});
  EXPECT_THAT(m, HasSubstr("workload.streams.0.access_bytes"));
  m = platform_error_of(kPlatform, kWorkload,
                        {"workload.streams.0.access_bytes=4",
                         "workload.streams.0.atomic={op: fetch_add, operand: 4294967296}"});
  EXPECT_THAT(m, HasSubstr("workload.streams.0.atomic.operand"));
  m = platform_error_of(kPlatform, kWorkload,
                        {atomic8, "workload.streams.0.atomic={op: compare_swap}"});
  EXPECT_THAT(m, HasSubstr("workload.streams.0.atomic.compare"));
  m = platform_error_of(kPlatform, kWorkload,
                        {atomic8, "workload.streams.0.atomic={op: fetch_add}",
                         "workload.streams.0.read_fraction=0.5"});
  EXPECT_THAT(m, HasSubstr("workload.streams.0.read_fraction"));
  m = platform_error_of(kPlatform, kWorkload, {atomic8, "workload.streams.0.atomic={op: swap}"});
  EXPECT_THAT(m, HasSubstr("workload.streams.0.atomic.op"));
}

TEST(PlatformConfig, WorkloadStreamChecks) {
  // access_bytes larger than the buffer.
  std::string m = platform_error_of(kPlatform, kWorkload, {"workload.streams.0.buffer.bytes=64"});
  EXPECT_THAT(m, HasSubstr("workload.streams.0.access_bytes"));
  // stride_bytes only for strided.
  m = platform_error_of(kPlatform, kWorkload, {"workload.streams.0.stride_bytes=4KiB"});
  EXPECT_THAT(m, HasSubstr("workload.streams.0.stride_bytes"));
  // read_fraction above 1.
  m = platform_error_of(kPlatform, kWorkload, {"workload.streams.0.read_fraction=1.5"});
  EXPECT_THAT(m, HasSubstr("workload.streams.0.read_fraction"));
  // A GPU index past the platform's GPUs (2 GPUs: 0 and 1).
  m = platform_error_of(kPlatform,
                        edit(kWorkload, "  - name: reads\n", "  - name: reads\n    gpus: [2]\n"));
  EXPECT_THAT(m, HasSubstr(kWorkloadFile));
  EXPECT_THAT(m, HasSubstr("workload.streams.0.gpus"));
}

}  // namespace
}  // namespace famsim

namespace famsim {
namespace {

// kSwitchPlatform with HBM on its 2 GPUs: peer paths.
std::string peer_platform(const std::string& hub_line = "") {
  return edit(kSwitchPlatform, "gpus: {count: 2, clock_mhz: 1000}\n",
              "gpus:\n  count: 2\n  clock_mhz: 1000\n  local_memory: {preset: hbm3_6400, "
              "stacks: 1}\n" +
                  hub_line);
}

TEST(PeerPaths, SwitchAndLocalMemoryGivePeerPortsAndAHubWithDefaults) {
  const ResolvedConfig c = parse_config(make_doc(peer_platform(), kWorkload));
  const PlatformConfig& p = c.platform;
  EXPECT_TRUE(p.peer_paths());
  // 2 GPUs x 4 links: 8 peer ports after the 8 device ports.
  EXPECT_EQ(p.peer_port_total(), 8u);
  // Hub defaults (README key reference): the GPU's clock, 4 cycles, 64 B, 16 / 8 entries.
  EXPECT_DOUBLE_EQ(p.gpu_hub.clock_mhz, 1000.0);
  EXPECT_EQ(p.gpu_hub.pipeline_cycles, 4u);
  EXPECT_EQ(p.gpu_hub.width_bytes, 64u);
  EXPECT_EQ(p.gpu_hub.input_buffer, 16u);
  EXPECT_EQ(p.gpu_hub.output_buffer, 8u);
  // Peer ports are the switch-to-GPU halves of the GPU ports: 16 ports still fit radix 16.
  EXPECT_EQ(p.sw.radix, 16u);
}

TEST(PeerPaths, HubKeysAreRead) {
  const ResolvedConfig c = parse_config(
      make_doc(peer_platform("  hub: {clock_mhz: 2000, pipeline_cycles: 6, width_bytes: 32, "
                             "input_buffer: 4, output_buffer: 2}\n"),
               kWorkload));
  const CrossbarParams& h = c.platform.gpu_hub;
  EXPECT_DOUBLE_EQ(h.clock_mhz, 2000.0);
  EXPECT_EQ(h.pipeline_cycles, 6u);
  EXPECT_EQ(h.width_bytes, 32u);
  EXPECT_EQ(h.input_buffer, 4u);
  EXPECT_EQ(h.output_buffer, 2u);
}

TEST(PeerPaths, NoPeerPathsWithoutSwitchLocalMemoryOrASecondGpu) {
  EXPECT_FALSE(parse_config(make_doc(kSwitchPlatform, kWorkload)).platform.peer_paths());
  EXPECT_FALSE(parse_config(make_doc(kPlatform, kWorkload)).platform.peer_paths());
  const std::string one_gpu = edit(peer_platform(), "count: 2", "count: 1");
  EXPECT_FALSE(parse_config(make_doc(one_gpu, kWorkload)).platform.peer_paths());
}

TEST(PeerPaths, HubErrorsNameTheKey) {
  std::string m = platform_error_of(peer_platform("  hub: {width_bytes: 0}\n"), kWorkload);
  EXPECT_THAT(m, HasSubstr("gpus.hub.width_bytes"));
  EXPECT_THAT(m, HasSubstr(kPlatformFile));
  m = platform_error_of(peer_platform("  hub: {widht_bytes: 64}\n"), kWorkload);
  EXPECT_THAT(m, HasSubstr("gpus.hub.widht_bytes"));
  // A hub on a platform without peer paths (no switch) is a mistake, not silently ignored.
  m = platform_error_of(kPlatform, kWorkload, {"gpus.hub.width_bytes=64"});
  EXPECT_THAT(m, HasSubstr("gpus.hub"));
  EXPECT_THAT(m, HasSubstr("peer paths"));
}

TEST(PeerPaths, BufferOnAnotherGpusMemory) {
  const std::string w = edit(kWorkload, "location: device/fam0", "location: gpu/1");
  const ResolvedConfig c = parse_config(make_doc(peer_platform(), w));
  EXPECT_EQ(c.workload.streams[0].location.kind, Placement::Kind::kGpu);
  EXPECT_EQ(c.workload.streams[0].location.gpu, 1u);
}

TEST(PeerPaths, BufferLocationErrors) {
  // A GPU that does not exist.
  std::string m = platform_error_of(peer_platform(),
                                    edit(kWorkload, "location: device/fam0", "location: gpu/2"));
  EXPECT_THAT(m, HasSubstr("test-workload.yaml:4"));
  EXPECT_THAT(m, HasSubstr("workload.streams.0.buffer.location"));
  EXPECT_THAT(m, HasSubstr("no GPU 2"));
  // Not an index.
  m = platform_error_of(peer_platform(),
                        edit(kWorkload, "location: device/fam0", "location: gpu/one"));
  EXPECT_THAT(m, HasSubstr("workload.streams.0.buffer.location"));
  // No local memory.
  m = platform_error_of(kSwitchPlatform,
                        edit(kWorkload, "location: device/fam0", "location: gpu/1"));
  EXPECT_THAT(m, HasSubstr("workload.streams.0.buffer.location"));
  EXPECT_THAT(m, HasSubstr("no local memory"));
  // Local memory but no switch: GPU 0 cannot reach GPU 1's memory.
  const std::string direct = edit(kPlatform, "  request_bytes: 128\n",
                                  "  request_bytes: 128\n  local_memory: {preset: hbm3_6400, "
                                  "stacks: 1}\n");
  m = platform_error_of(direct, edit(kWorkload, "location: device/fam0", "location: gpu/1"));
  EXPECT_THAT(m, HasSubstr("workload.streams.0.buffer.location"));
  EXPECT_THAT(m, HasSubstr("GPU 0 cannot reach GPU 1"));
  // ... while the GPU's own memory by index is fine there.
  const std::string own = edit(edit(kWorkload, "location: device/fam0", "location: gpu/1"),
                               "  - name: reads\n", "  - name: reads\n    gpus: [1]\n");
  EXPECT_EQ(parse_config(make_doc(direct, own)).workload.streams[0].location.gpu, 1u);
}

// Queueing, arbitration and forwarding keys: every crossbar (switch, device NoC, GPU hub) reads
// them; the defaults are the original block (FIFO inputs, round-robin, store-and-forward).
TEST(CrossbarKeys, DefaultsKeepFifoRoundRobinStoreAndForward) {
  const ResolvedConfig c = parse_config(make_doc(peer_platform(), kWorkload));
  for (const CrossbarParams* x :
       {&c.platform.sw.xbar, &c.platform.devices[0].noc, &c.platform.gpu_hub}) {
    EXPECT_EQ(x->input_queues, InputQueues::kFifo);
    EXPECT_EQ(x->arbiter, CrossbarArbiter::kRoundRobin);
    EXPECT_EQ(x->islip_iterations, 0u);  // unused without islip; islip's default is log2 N
    EXPECT_EQ(x->forwarding, Forwarding::kStoreAndForward);
  }
}

TEST(CrossbarKeys, ReadOnEveryCrossbar) {
  const ResolvedConfig c = parse_config(
      make_doc(peer_platform("  hub: {input_queues: voq, arbiter: oldest_first}\n"), kWorkload,
               {"switch.input_queues=voq", "switch.arbiter=islip", "switch.islip_iterations=3",
                "switch.forwarding=cut_through", "devices.0.noc.arbiter=islip"}));
  const CrossbarParams& s = c.platform.sw.xbar;
  EXPECT_EQ(s.input_queues, InputQueues::kVoq);
  EXPECT_EQ(s.arbiter, CrossbarArbiter::kIslip);
  EXPECT_EQ(s.islip_iterations, 3u);
  EXPECT_EQ(s.forwarding, Forwarding::kCutThrough);
  EXPECT_EQ(c.platform.devices[0].noc.arbiter, CrossbarArbiter::kIslip);
  EXPECT_EQ(c.platform.devices[0].noc.input_queues, InputQueues::kFifo);
  EXPECT_EQ(c.platform.gpu_hub.input_queues, InputQueues::kVoq);
  EXPECT_EQ(c.platform.gpu_hub.arbiter, CrossbarArbiter::kOldestFirst);
  // islip's default iteration count: ceil(log2(max(N, M))), at least 1.
  CrossbarParams p;
  EXPECT_EQ(islip_iterations_for(p, 16, 8), 4u);
  EXPECT_EQ(islip_iterations_for(p, 5, 3), 3u);
  EXPECT_EQ(islip_iterations_for(p, 1, 1), 1u);
  p.islip_iterations = 2;
  EXPECT_EQ(islip_iterations_for(p, 64, 64), 2u);
}

TEST(CrossbarKeys, ErrorsNameTheKey) {
  std::string m = platform_error_of(kSwitchPlatform, kWorkload, {"switch.arbiter=fastest"});
  EXPECT_THAT(m, HasSubstr("switch.arbiter"));
  EXPECT_THAT(m, HasSubstr("islip"));  // says what is allowed
  m = platform_error_of(kSwitchPlatform, kWorkload,
                        {"switch.arbiter=islip", "switch.islip_iterations=0"});
  EXPECT_THAT(m, HasSubstr("switch.islip_iterations"));
  m = platform_error_of(kSwitchPlatform, kWorkload, {"switch.islip_iterations=2"});
  EXPECT_THAT(m, HasSubstr("switch.islip_iterations"));
  EXPECT_THAT(m, HasSubstr("arbiter: islip"));
  m = platform_error_of(kSwitchPlatform, kWorkload, {"switch.input_queues=shared"});
  EXPECT_THAT(m, HasSubstr("switch.input_queues"));
  m = platform_error_of(kSwitchPlatform, kWorkload, {"switch.forwarding=wormhole"});
  EXPECT_THAT(m, HasSubstr("switch.forwarding"));
  m = platform_error_of(kSwitchPlatform, kWorkload, {"devices.0.noc.input_queues=7"});
  EXPECT_THAT(m, HasSubstr("devices.0.noc.input_queues"));
  m = platform_error_of(peer_platform("  hub: {arbiter: lottery}\n"), kWorkload);
  EXPECT_THAT(m, HasSubstr("gpus.hub.arbiter"));
  EXPECT_THAT(m, HasSubstr(kPlatformFile));
}

// kPlatform with a 2 x 3 mesh NoC instead of the crossbar (4 fabric ports, 2 memory channels).
std::string mesh_platform(const std::string& extra = "") {
  return edit(kPlatform, "    noc: {clock_mhz: 1500, pipeline_cycles: 4, width_bytes: 64}\n",
              "    noc: {kind: mesh, dims: [2, 3], clock_mhz: 1500, router_cycles: 2, "
              "link_bytes: 32" +
                  extra + "}\n");
}

TEST(MeshKeys, DefaultsAndPlacementFilledIn) {
  const ResolvedConfig c = parse_config(make_doc(mesh_platform(), kWorkload));
  const DeviceConfig& d = c.platform.devices[0];
  ASSERT_EQ(d.noc_kind, NocKind::kMesh);
  const MeshParams& m = d.mesh;
  EXPECT_EQ(m.cols, 2u);
  EXPECT_EQ(m.rows, 3u);
  EXPECT_EQ(m.router_cycles, 2u);
  EXPECT_EQ(m.link_cycles, 1u);
  EXPECT_EQ(m.link_bytes, 32u);
  EXPECT_EQ(m.vcs, 4u);
  // A 128 B write at 32 B flits is 1 + 4 = 5 flits; the default buffer is max(8, 5) = 8.
  EXPECT_EQ(m.vc_buffer_flits, 8u);
  EXPECT_EQ(m.credit_return_cycles, 1u);
  // 4 ports on the west edge of 3 rows: y = floor((2p + 1) 3 / 8) = 0, 1, 1, 2.
  ASSERT_EQ(m.port_nodes.size(), 4u);
  const unsigned ys[] = {0, 1, 1, 2};
  for (unsigned p = 0; p < 4; ++p) EXPECT_EQ(m.port_nodes[p], (MeshCoord{0, ys[p]})) << p;
  // 2 controllers over 6 nodes: floor(6 / 4) = 1 = (1,0) and floor(18 / 4) = 4 = (0,2).
  ASSERT_EQ(m.controller_nodes.size(), 2u);
  EXPECT_EQ(m.controller_nodes[0], (MeshCoord{1, 0}));
  EXPECT_EQ(m.controller_nodes[1], (MeshCoord{0, 2}));
}

TEST(MeshKeys, ExplicitPlacementAndBuffersAreRead) {
  const ResolvedConfig c = parse_config(make_doc(
      mesh_platform(", vcs: 2, vc_buffer_flits: 5, link_cycles: 3, credit_return_cycles: 2, "
                    "port_nodes: [[1, 2], [1, 2], [0, 0], [1, 1]], "
                    "controller_nodes: [[0, 1], [0, 1]]"),
      kWorkload));
  const MeshParams& m = c.platform.devices[0].mesh;
  EXPECT_EQ(m.vcs, 2u);
  EXPECT_EQ(m.vc_buffer_flits, 5u);
  EXPECT_EQ(m.link_cycles, 3u);
  EXPECT_EQ(m.credit_return_cycles, 2u);
  EXPECT_EQ(m.port_nodes[0], (MeshCoord{1, 2}));
  EXPECT_EQ(m.port_nodes[3], (MeshCoord{1, 1}));
  EXPECT_EQ(m.controller_nodes[1], (MeshCoord{0, 1}));
}

TEST(MeshKeys, ErrorsNameTheFileAndKey) {
  struct Case {
    std::string extra;
    std::vector<std::string> needles;
  };
  const std::vector<Case> cases = {
      {", port_nodes: [[0, 0]]", {"devices.0.noc.port_nodes", "expected 4 entries"}},
      {", controller_nodes: [[0, 0], [2, 0]]",
       {"devices.0.noc.controller_nodes", "entry 1 [2, 0] is outside the 2 x 3 mesh"}},
      {", controller_nodes: [[0, 0], [1]]", {"devices.0.noc.controller_nodes", "entry 1"}},
      {", vc_buffer_flits: 4", {"devices.0.noc.vc_buffer_flits", "at least 5 flits"}},
      {", pipeline_cycles: 4", {"devices.0.noc.pipeline_cycles", "unknown key"}},
      {", vcs: 0", {"devices.0.noc.vcs"}},
      {", credit_return_cycles: 0", {"devices.0.noc.credit_return_cycles"}},
  };
  for (const Case& k : cases) {
    const std::string m = platform_error_of(mesh_platform(k.extra), kWorkload);
    EXPECT_THAT(m, HasSubstr(kPlatformFile)) << k.extra;
    for (const std::string& n : k.needles) EXPECT_THAT(m, HasSubstr(n)) << k.extra;
  }
  EXPECT_THAT(platform_error_of(mesh_platform(), kWorkload, {"devices.0.noc.dims=[0, 3]"}),
              HasSubstr("devices.0.noc.dims"));
  EXPECT_THAT(platform_error_of(mesh_platform(), kWorkload, {"devices.0.noc.dims=[2, 3, 4]"}),
              HasSubstr("expected [cols, rows] (2 entries), got 3"));
  EXPECT_THAT(platform_error_of(mesh_platform(), kWorkload, {"devices.0.noc.kind=torus"}),
              HasSubstr("devices.0.noc.kind"));
  EXPECT_THAT(platform_error_of(mesh_platform(), kWorkload, {"devices.0.noc.router_cycles=0"}),
              HasSubstr("devices.0.noc.router_cycles"));
}

}  // namespace
}  // namespace famsim
