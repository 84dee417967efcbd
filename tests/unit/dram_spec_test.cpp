// DRAM presets and their loader: every preset loads; peak bandwidths, clock conversions (JEDEC
// rounding with its guard bands, max(nCK, ns) pairs, derived parameters) and energies are checked
// against values worked out by hand from the preset's numbers; bad keys and values are
// ConfigErrors naming the key path.
#include "models/memory/dram/dram_spec.h"

#include "models/core/config.h"
#include "platforms/presets.h"
#include "tests/support/test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

namespace famsim::dram {
namespace {

using ::testing::HasSubstr;

constexpr const char* kSource = "edited.yaml";

YAML::Node preset_yaml(const std::string& name) {
  const std::string path = "platforms/presets/memory/" + name + ".yaml";
  const auto text = embedded_file(path);
  EXPECT_TRUE(text.has_value()) << path;
  return load_yaml_text(text.value_or(""), path);
}

Spec load_node(const YAML::Node& root) {
  ConfigNode node(root, "", std::make_shared<ConfigSources>(kSource));
  Spec s = load_spec(node, "edited");
  // A preset's notes on its assumed values are the memory reader's (parse_memory), not the spec's.
  node.ignore("assumptions");
  node.finish();
  return s;
}

// --- presets ---------------------------------------------------------------------------------

TEST(DramSpec, EveryPresetLoads) {
  const auto names = spec_preset_names();
  for (const char* n : {"ddr4_3200", "ddr5_4800_x4", "ddr5_4800_x8", "ddr5_6400_x4", "ddr5_6400_x8",
                        "lpddr5x_8533", "hbm3_6400"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  }
  for (const auto& n : names) {
    SCOPED_TRACE(n);
    Spec s;
    EXPECT_NO_THROW(s = load_spec_preset(n));
    EXPECT_EQ(s.name, n);
    EXPECT_GT(s.energy.act_pre_pj, 0);
    EXPECT_GT(s.energy.read_pj, 0);
    EXPECT_GT(s.energy.refresh_ab_pj, 0);
  }
}

TEST(DramSpec, PeakBandwidthPerChannelIsTheHandComputedOne) {
  // data rate (MT/s) x channel width (bytes) / 1000 = GB/s
  EXPECT_DOUBLE_EQ(load_spec_preset("ddr4_3200").org.peak_gbps(), 25.6);     // 3200 x 8 B
  EXPECT_DOUBLE_EQ(load_spec_preset("ddr5_4800_x4").org.peak_gbps(), 19.2);  // 4800 x 4 B
  EXPECT_DOUBLE_EQ(load_spec_preset("ddr5_4800_x8").org.peak_gbps(), 19.2);
  EXPECT_DOUBLE_EQ(load_spec_preset("ddr5_6400_x4").org.peak_gbps(), 25.6);  // 6400 x 4 B
  EXPECT_DOUBLE_EQ(load_spec_preset("ddr5_6400_x8").org.peak_gbps(), 25.6);
  EXPECT_NEAR(load_spec_preset("lpddr5x_8533").org.peak_gbps(), 17.066, 1e-9);  // 8533 x 2 B
  EXPECT_DOUBLE_EQ(load_spec_preset("hbm3_6400").org.peak_gbps(), 25.6);        // 6400 x 4 B
  // 819.2 GB/s per HBM3 stack = 16 channels x 2 pseudo-channels x 25.6.
  EXPECT_DOUBLE_EQ(32 * load_spec_preset("hbm3_6400").org.peak_gbps(), 819.2);
}

TEST(DramSpec, BurstAndCapacityFollowTheOrganisation) {
  const Spec ddr4 = load_spec_preset("ddr4_3200");
  EXPECT_EQ(ddr4.org.burst_bytes(), 64u);  // 64 bits x BL8
  EXPECT_EQ(ddr4.org.devices_per_rank(), 8u);
  EXPECT_EQ(ddr4.org.capacity_bytes(), 8ULL << 30);  // 8 devices x 8 Gb
  EXPECT_EQ(ddr4.timing.burst, 4u);                  // BL8 / 2 per tCK

  const Spec x4 = load_spec_preset("ddr5_4800_x4");
  EXPECT_EQ(x4.org.burst_bytes(), 64u);  // 32 bits x BL16
  EXPECT_EQ(x4.org.devices_per_rank(), 8u);
  EXPECT_EQ(x4.org.capacity_bytes(), 16ULL << 30);  // 8 devices x 16 Gb
  EXPECT_EQ(x4.timing.burst, 8u);
  EXPECT_EQ(load_spec_preset("ddr5_4800_x8").org.capacity_bytes(), 8ULL << 30);  // 4 x 16 Gb

  const Spec lp = load_spec_preset("lpddr5x_8533");
  EXPECT_EQ(lp.org.burst_bytes(), 32u);  // 16 bits x BL16
  EXPECT_EQ(lp.timing.burst, 2u);        // BL16 / 8 per CK (WCK:CK 4:1)
  EXPECT_EQ(lp.org.capacity_bytes(), 2ULL << 30);

  const Spec hbm = load_spec_preset("hbm3_6400");
  EXPECT_EQ(hbm.org.burst_bytes(), 32u);                  // 32 bits x BL8
  EXPECT_EQ(hbm.timing.burst, 2u);                        // BL8 / 4 per CK
  EXPECT_EQ(hbm.org.capacity_bytes(), 512ULL << 20);      // 4 Gb per pseudo-channel
  EXPECT_EQ(32 * hbm.org.capacity_bytes(), 16ULL << 30);  // 16 GB stack
  EXPECT_EQ(hbm.org.pseudo_channels, 2u);
}

// --- conversion ------------------------------------------------------------------------------

TEST(DramSpec, JedecRoundingKeepsItsGuardBands) {
  // DDR4 (2.5 % guard band): 10.01 ns / 0.625 ns = 16.016 -> 16; 10.02 ns = 16.032 -> 17.
  EXPECT_EQ(ns_to_clocks(Standard::kDDR4, 10.0, 625), 16u);
  EXPECT_EQ(ns_to_clocks(Standard::kDDR4, 10.01, 625), 16u);
  EXPECT_EQ(ns_to_clocks(Standard::kDDR4, 10.02, 625), 17u);
  // DDR5 (0.3 %): 10.03 / 0.625 = 16.048, x 0.997 = 15.9999 -> 16; 10.04: 16.0158 -> 17.
  EXPECT_EQ(ns_to_clocks(Standard::kDDR5, 10.03, 625), 16u);
  EXPECT_EQ(ns_to_clocks(Standard::kDDR5, 10.04, 625), 17u);
  EXPECT_EQ(ns_to_clocks(Standard::kDDR5, 0.0, 625), 0u);
  // An interval rounds down: 3906 ns / 0.938 ns = 4164.2.
  EXPECT_EQ(interval_to_clocks(3906, 938), 4164u);
}

TEST(DramSpec, Ddr4TimingsMatchHandConversion) {
  const Timing t = load_spec_preset("ddr4_3200").timing;
  EXPECT_EQ(t.tck_ps, 625);
  EXPECT_EQ(t.CL, 22u);
  EXPECT_EQ(t.CWL, 16u);
  EXPECT_EQ(t.RCD_RD, 22u);  // 13.75 / 0.625 = 22
  EXPECT_EQ(t.RCD_WR, 22u);  // = RCD_RD when not given
  EXPECT_EQ(t.RP, 22u);
  EXPECT_EQ(t.RAS, 52u);  // 32 / 0.625 = 51.2
  EXPECT_EQ(t.RC, 74u);   // 45.75 / 0.625 = 73.2
  EXPECT_EQ(t.RTP, 12u);  // max(4, 7.5 / 0.625 = 12)
  EXPECT_EQ(t.WR, 24u);   // 15 / 0.625
  EXPECT_EQ(t.CCD_S, 4u);
  EXPECT_EQ(t.CCD_L, 8u);     // max(5, 5 / 0.625 = 8)
  EXPECT_EQ(t.CCD_L_WR, 8u);  // = CCD_L when not given
  EXPECT_EQ(t.RRD_S, 4u);     // max(4, 2.5 / 0.625 = 4)
  EXPECT_EQ(t.RRD_L, 8u);     // max(4, 4.9 / 0.625 = 7.84)
  EXPECT_EQ(t.FAW, 34u);      // max(20, 21 / 0.625 = 33.6)
  EXPECT_EQ(t.WTR_S, 4u);     // max(2, 2.5 / 0.625 = 4)
  EXPECT_EQ(t.WTR_L, 12u);    // max(4, 7.5 / 0.625 = 12)
  EXPECT_EQ(t.RTW, 12u);      // RL + BL/2 - WL + 2 = 22 + 4 - 16 + 2
  EXPECT_EQ(t.REFI, 12480u);  // 7800 / 0.625
  EXPECT_EQ(t.RFC, 560u);     // 350 / 0.625
  EXPECT_EQ(t.REFIpb, 0u);
  EXPECT_EQ(t.refresh_postpone_max, 8u);
}

TEST(DramSpec, Ddr5TimingsMatchHandConversion) {
  const Timing t = load_spec_preset("ddr5_4800_x4").timing;
  EXPECT_EQ(t.tck_ps, 416);
  EXPECT_EQ(t.CL, 40u);
  EXPECT_EQ(t.CWL, 38u);
  // 16.666 / 0.416 = 40.06; with the 0.3 % guard band 39.94 -> 40 (a plain ceiling gives 41).
  EXPECT_EQ(t.RCD_RD, 40u);
  EXPECT_EQ(t.RP, 40u);
  EXPECT_EQ(t.RAS, 77u);  // 32 / 0.416 = 76.9
  EXPECT_EQ(t.RC, 117u);  // 48.666 / 0.416 = 116.99, x 0.997 = 116.6
  EXPECT_EQ(t.RTP, 18u);  // max(12, 7.5 / 0.416 = 18.03 x 0.997 = 17.97)
  EXPECT_EQ(t.WR, 72u);   // 30 / 0.416 = 72.1 x 0.997 = 71.9
  EXPECT_EQ(t.CCD_S, 8u);
  EXPECT_EQ(t.CCD_L, 12u);     // max(8, 5 / 0.416 = 12.02 x 0.997 = 11.98)
  EXPECT_EQ(t.CCD_L_WR, 48u);  // x4: max(32, 20 / 0.416 = 48.08 x 0.997 = 47.93)
  EXPECT_EQ(t.RRD_S, 8u);
  EXPECT_EQ(t.RRD_L, 12u);
  EXPECT_EQ(t.FAW, 40u);    // x4
  EXPECT_EQ(t.WTR_S, 6u);   // max(4, 2.5 / 0.416 = 6.01 x 0.997 = 5.99)
  EXPECT_EQ(t.WTR_L, 24u);  // max(16, 10 / 0.416 = 24.04 x 0.997 = 23.97)
  EXPECT_EQ(t.RTW, 14u);    // CL - CWL + BL/2 + 2 + 0 + 2 = 2 + 8 + 4
  EXPECT_EQ(t.PPD, 2u);
  EXPECT_EQ(t.REFI, 9375u);  // 3900 / 0.416
  EXPECT_EQ(t.RFC, 708u);    // 295 / 0.416 = 709.1 x 0.997 = 707.007
  // Same-bank refresh (REFsb): 487.5 / 0.416 = 1171.9, an interval, rounded down; tRFCsb
  // 130 / 0.416 = 312.5 x 0.997 = 311.6 -> 312; tREFSBRD 18.75 / 0.416 = 45.07 x 0.997 = 44.9 -> 45.
  EXPECT_TRUE(t.same_bank_refresh);
  EXPECT_EQ(t.REFIpb, 1171u);
  EXPECT_EQ(t.RFCpb, 312u);
  EXPECT_EQ(t.RREFD, 45u);
  EXPECT_EQ(t.PBR2PBR, 45u);

  const Timing x8 = load_spec_preset("ddr5_4800_x8").timing;
  EXPECT_EQ(x8.CCD_L_WR, 24u);  // x8: max(16, 10 / 0.416 -> 24)
  EXPECT_EQ(x8.FAW, 32u);

  const Timing f = load_spec_preset("ddr5_6400_x8").timing;
  EXPECT_EQ(f.tck_ps, 312);
  EXPECT_EQ(f.CL, 52u);
  EXPECT_EQ(f.RCD_RD, 52u);    // 16.25 / 0.312 = 52.08 x 0.997 = 51.93
  EXPECT_EQ(f.RAS, 103u);      // 32 / 0.312 = 102.56 x 0.997 = 102.26
  EXPECT_EQ(f.CCD_L, 16u);     // max(8, 5 / 0.312 = 16.03 x 0.997 = 15.98)
  EXPECT_EQ(f.CCD_L_WR, 32u);  // max(16, 10 / 0.312 = 32.05 x 0.997 = 31.96)
  EXPECT_EQ(f.REFI, 12500u);   // 3900 / 0.312
  EXPECT_EQ(f.RTW, 14u);       // 52 - 50 + 8 + 4
}

TEST(DramSpec, Lpddr5xTimingsMatchHandConversion) {
  const Timing t = load_spec_preset("lpddr5x_8533").timing;
  EXPECT_EQ(t.tck_ps, 938);
  EXPECT_EQ(t.CL, 23u);      // 21.25 / 0.938 = 22.65
  EXPECT_EQ(t.CWL, 12u);     // 11.25 / 0.938 = 11.99
  EXPECT_EQ(t.RCD_RD, 20u);  // 18 / 0.938 = 19.19
  EXPECT_EQ(t.RAS, 45u);     // 42 / 0.938 = 44.78
  EXPECT_EQ(t.RC, 65u);      // not given: RAS + RP = 45 + 20
  EXPECT_EQ(t.RTP, 8u);      // max(2, 7.5 / 0.938 = 7.996)
  EXPECT_EQ(t.WR, 37u);      // 34 / 0.938 = 36.25
  EXPECT_EQ(t.CCD_S, 2u);
  EXPECT_EQ(t.CCD_L, 4u);
  EXPECT_EQ(t.RRD_S, 6u);     // max(2, 5 / 0.938 = 5.33)
  EXPECT_EQ(t.FAW, 22u);      // 20 / 0.938 = 21.3
  EXPECT_EQ(t.WTR_S, 7u);     // max(4, 6.25 / 0.938 = 6.66)
  EXPECT_EQ(t.WTR_L, 13u);    // max(4, 12 / 0.938 = 12.79)
  EXPECT_EQ(t.RTW, 14u);      // RL + BL/n + 1 - WL = 23 + 2 + 1 - 12
  EXPECT_EQ(t.REFI, 4164u);   // 3906 / 0.938 = 4164.2, rounded down
  EXPECT_EQ(t.RFC, 299u);     // 280 / 0.938 = 298.5
  EXPECT_EQ(t.REFIpb, 260u);  // 244.125 / 0.938 = 260.26, rounded down
  EXPECT_EQ(t.RFCpb, 150u);   // 140 / 0.938 = 149.25
  EXPECT_EQ(t.RREFD, 9u);     // 8 / 0.938 = 8.53
  EXPECT_EQ(t.PBR2PBR, 96u);  // 90 / 0.938 = 95.95
}

TEST(DramSpec, Hbm3TimingsMatchHandConversion) {
  const Timing t = load_spec_preset("hbm3_6400").timing;
  EXPECT_EQ(t.tck_ps, 625);  // 1.6 GHz CK: 6.4 Gb/s at 4 transfers per CK
  EXPECT_EQ(t.RCD_RD, 31u);
  EXPECT_EQ(t.RCD_WR, 15u);
  EXPECT_EQ(t.RC, 71u);       // RAS + RP = 45 + 26
  EXPECT_EQ(t.CCD_L_WR, 4u);  // = CCD_L
  EXPECT_EQ(t.RTW, 14u);      // RL + tBL + 2 - WL = 20 + 2 + 2 - 10
  EXPECT_EQ(t.REFI, 6240u);   // 3900 / 0.625
  EXPECT_EQ(t.RFC, 560u);     // 350 / 0.625
  EXPECT_EQ(t.REFIpb, 195u);  // 121.875 / 0.625
  EXPECT_EQ(t.RFCpb, 320u);   // 200 / 0.625
  EXPECT_EQ(t.RREFD, 8u);
  EXPECT_EQ(t.PBR2PBR, 8u);  // = RREFD when not given
}

TEST(DramSpec, AClockAndNsPairIsTheLargerOfTheTwo) {
  YAML::Node root = preset_yaml("ddr4_3200");
  root["timing"]["tRTP_ck"] = 20;  // 20 clocks > 7.5 ns / 0.625 ns = 12
  root["timing"]["tWR_ck"] = 3;    // 3 clocks < 15 ns / 0.625 ns = 24
  root["timing"]["tWR_ns"] = 15;
  const Timing t = load_node(root).timing;
  EXPECT_EQ(t.RTP, 20u);
  EXPECT_EQ(t.WR, 24u);
}

TEST(DramSpec, GivenValuesReplaceDerivedOnes) {
  YAML::Node root = preset_yaml("ddr4_3200");
  root["timing"]["tRTW_ck"] = 9;
  root["timing"]["tCCD_L_WR_ck"] = 10;
  root["timing"]["tRCDWR_ns"] = 10;  // 16 clocks
  root["timing"]["tBL_ck"] = 5;
  root["timing"]["tCCD_S_ck"] = 5;  // a burst may not be longer than tCCD_S
  const Timing t = load_node(root).timing;
  EXPECT_EQ(t.RTW, 9u);
  EXPECT_EQ(t.CCD_L_WR, 10u);
  EXPECT_EQ(t.RCD_WR, 16u);
  EXPECT_EQ(t.RCD_RD, 22u);
  EXPECT_EQ(t.burst, 5u);

  root["timing"].remove("tRTW_ck");  // derived again, now with the given tBL: 22 + 5 - 16 + 2
  EXPECT_EQ(load_node(root).timing.RTW, 13u);
}

// --- energy ----------------------------------------------------------------------------------

TEST(DramSpec, Ddr4EnergyFromCurrentsByHand) {
  const Spec s = load_spec_preset("ddr4_3200");
  // Per device, VDD 1.2 V; tRC = 74 x 0.625 = 46.25 ns, tRAS = 52 x 0.625 = 32.5 ns.
  // ACT+PRE: 1.2 x (57 x 46.25 - 52 x 32.5 - 37 x 13.75) = 1.2 x 437.5 = 525 pJ; x 8 devices.
  EXPECT_NEAR(s.energy.act_pre_pj, 8 * 525.0, 1e-6);
  // RD: 1.2 x (168 - 52) x (4 x 0.625) = 348 pJ; WR: 1.2 x (150 - 52) x 2.5 = 294 pJ.
  EXPECT_NEAR(s.energy.read_pj, 8 * 348.0, 1e-6);
  EXPECT_NEAR(s.energy.write_pj, 8 * 294.0, 1e-6);
  // REFab: 1.2 x (250 - 52) x 350 ns = 83160 pJ.
  EXPECT_NEAR(s.energy.refresh_ab_pj, 8 * 83160.0, 1e-6);
  EXPECT_EQ(s.energy.refresh_pb_pj, 0);
  EXPECT_NEAR(s.energy.background_active_mw, 8 * 1.2 * 52, 1e-9);
  EXPECT_NEAR(s.energy.background_precharged_mw, 8 * 1.2 * 37, 1e-9);
}

TEST(DramSpec, SecondSupplyDomainAndDerivedPerBankRefresh) {
  const Spec s = load_spec_preset("lpddr5x_8533");
  EXPECT_EQ(s.org.devices_per_rank(), 1u);
  // RD burst of 2 x 0.938 = 1.876 ns: VDD2H 1.05 x (275 - 30) + VDD1 1.8 x (2.25 - 2.25).
  EXPECT_NEAR(s.energy.read_pj, 1.05 * 245 * 1.876, 1e-9);
  // Background: 1.05 x 30 + 1.8 x 2.25 mW.
  EXPECT_NEAR(s.energy.background_active_mw, 31.5 + 4.05, 1e-9);
  // REFab over 299 x 0.938 ns: 1.05 x (90 - 30) + 1.8 x (10 - 2.25);
  const double ref_ab = (1.05 * 60 + 1.8 * 7.75) * 299 * 0.938;
  EXPECT_NEAR(s.energy.refresh_ab_pj, ref_ab, 1e-6);
  // REFpb without IDD5PB: the same energy per refreshed row, REFab x tREFIpb / tREFI.
  EXPECT_NEAR(s.energy.refresh_pb_pj, ref_ab * 260 / 4164, 1e-6);

  const Spec h = load_spec_preset("hbm3_6400");  // one device: the pseudo-channel
  EXPECT_NEAR(h.energy.read_pj, 1.1 * (390 - 55) * 2 * 0.625, 1e-9);  // 460.625 pJ per 32 B
}

// --- errors ----------------------------------------------------------------------------------

TEST(DramSpec, UnknownKeyBelowASectionIsAnError) {
  YAML::Node root = preset_yaml("ddr4_3200");
  root["timing"]["tRCD_sn"] = 13.75;
  const std::string e = test::config_error_of([&] { load_node(root); });
  EXPECT_THAT(e, HasSubstr("timing.tRCD_sn"));
  EXPECT_THAT(e, HasSubstr("unknown key"));
  EXPECT_THAT(e, HasSubstr(kSource));
}

TEST(DramSpec, LoadSpecLeavesTheCallersOtherKeysAlone) {
  YAML::Node root = preset_yaml("ddr4_3200");
  root["controller"]["read_queue"] = 32;
  ConfigNode node(root, "devices.memory", std::make_shared<ConfigSources>(kSource));
  EXPECT_NO_THROW(load_spec(node, "x"));
  node.ignore("assumptions");  // the preset's own other key, read by the memory reader
  EXPECT_THAT(test::config_error_of([&] { node.finish(); }),
              HasSubstr("devices.memory.controller"));
}

TEST(DramSpec, MissingRequiredTimingNamesBothKeys) {
  YAML::Node root = preset_yaml("ddr4_3200");
  root["timing"].remove("tRAS_ns");
  const std::string e = test::config_error_of([&] { load_node(root); });
  EXPECT_THAT(e, HasSubstr("timing.tRAS_ns: missing"));
  EXPECT_THAT(e, HasSubstr("tRAS_ck"));
}

TEST(DramSpec, ErrorsNameTheKeyPath) {
  struct Case {
    const char* what;
    void (*edit)(YAML::Node&);
    const char* key;
  };
  const Case cases[] = {
      {"data rate vs tCK", [](YAML::Node& r) { r["timing"]["tCK_ps"] = 700; }, "timing.tCK_ps"},
      {"columns not a multiple of BL", [](YAML::Node& r) { r["organization"]["columns"] = 4; },
       "organization.columns"},
      {"non-power-of-two bank groups", [](YAML::Node& r) { r["organization"]["bank_groups"] = 3; },
       "organization.bank_groups"},
      {"unknown standard", [](YAML::Node& r) { r["standard"] = "DDR3"; }, "standard"},
      {"pseudo-channels on DDR4", [](YAML::Node& r) { r["organization"]["pseudo_channels"] = 2; },
       "organization.pseudo_channels"},
      {"density mismatch", [](YAML::Node& r) { r["organization"]["rows"] = 32768; },
       "organization.device_density_gbit"},
      {"negative value", [](YAML::Node& r) { r["timing"]["tRP_ns"] = -1; }, "timing.tRP_ns"},
      {"per-bank refresh half given", [](YAML::Node& r) { r["timing"]["tREFIpb_ns"] = 975; },
       "timing.tRFCpb_ns"},
      {"two ranks without tRTRS",
       [](YAML::Node& r) {
         r["organization"]["ranks"] = 2;
         r["timing"].remove("tRTRS_ck");
       },
       "timing.tRTRS_ck"},
      {"interval given twice", [](YAML::Node& r) { r["timing"]["tREFI_ck"] = 12480; },
       "timing.tREFI_ns"},
      {"tRC below tRAS", [](YAML::Node& r) { r["timing"]["tRC_ns"] = 30; }, "timing.tRC_ns"},
      // DDR4-3200's tRCD is 13.75 ns: a tRAS of 10 ns would close the row before a read.
      {"tRAS below tRCD", [](YAML::Node& r) { r["timing"]["tRAS_ns"] = 10; }, "timing.tRAS_ns"},
      {"tRAS below tRCDWR", [](YAML::Node& r) { r["timing"]["tRCDWR_ns"] = 40; }, "timing.tRAS_ns"},
      {"ACT energy negative", [](YAML::Node& r) { r["energy"]["idd0_ma"] = 40; }, "energy.idd0_ma"},
      {"missing current", [](YAML::Node& r) { r["energy"].remove("idd4r_ma"); }, "energy.idd4r_ma"},
      {"missing section", [](YAML::Node& r) { r.remove("energy"); }, "energy"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    YAML::Node root = preset_yaml("ddr4_3200");
    c.edit(root);
    const std::string e = test::config_error_of([&] { load_node(root); });
    EXPECT_THAT(e, HasSubstr(std::string(c.key) + ":"));
  }
}

TEST(DramSpec, ErrorNamesFileAndLine) {
  std::string text = *embedded_file("platforms/presets/memory/ddr4_3200.yaml");
  const std::string from = "  tRAS_ns: 32 ";
  const auto at = text.find(from);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, from.size(), "  tRAS_ns: abc ");
  const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
  ConfigNode node(load_yaml_text(text, kSource), "", std::make_shared<ConfigSources>(kSource));
  const std::string e = test::config_error_of([&] { load_spec(node, "x"); });
  EXPECT_THAT(e, HasSubstr(std::string(kSource) + ":" + std::to_string(line) + ": timing.tRAS_ns"));
}

TEST(DramSpec, UnknownPresetListsTheKnownOnes) {
  const std::string e = test::config_error_of([] { load_spec_preset("ddr3_1600"); });
  EXPECT_THAT(e, HasSubstr("ddr3_1600"));
  EXPECT_THAT(e, HasSubstr("ddr4_3200"));
  EXPECT_THAT(e, HasSubstr("hbm3_6400"));
}

}  // namespace
}  // namespace famsim::dram
