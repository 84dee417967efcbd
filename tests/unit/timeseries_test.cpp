// TimeSeries: per-window bandwidth and latency, values worked out by hand.
#include "models/core/timeseries.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace famsim {
namespace {

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A series of 1 ns windows over devices fam0 and fam1: in window k, windows[k].first reads of
// 128 B to fam0, then windows[k].second to fam1.
TimeSeries two_device_series(const std::vector<std::pair<unsigned, unsigned>>& windows) {
  TimeSeries t(1000);
  t.set_devices({"fam0", "fam1"}, {0, 1});
  for (std::uint64_t w = 0; w < windows.size(); ++w) {
    const auto [to_fam0, to_fam1] = windows[w];
    for (unsigned i = 0; i < to_fam0 + to_fam1; ++i)
      t.add(w * 1000 + i, 128, 100, false, TargetClass::kDevice, i < to_fam0 ? 0 : 1);
  }
  return t;
}

// Bins: 8 per octave. 200 ps lies in [128, 256), the 5th eighth [192, 208): middle 200. 300 ps
// lies in [256, 512), 2nd eighth [288, 320): middle 304, capped at the window's max (300).
TEST(TimeSeries, BinsAreEighthsOfAnOctave) {
  EXPECT_DOUBLE_EQ(TimeSeries::bin_value_ps(TimeSeries::bin(200)), 200.0);
  EXPECT_DOUBLE_EQ(TimeSeries::bin_value_ps(TimeSeries::bin(300)), 304.0);
  EXPECT_DOUBLE_EQ(TimeSeries::bin_value_ps(TimeSeries::bin(5)), 5.0);
  // Relative error of a bin's middle is at most 1/16 of the octave's start: 1000 ps lies in
  // [960, 1024), middle 992.
  EXPECT_DOUBLE_EQ(TimeSeries::bin_value_ps(TimeSeries::bin(1000)), 992.0);
}

// 1 ns windows. Window 0: three 128 B reads with latencies 100, 200, 300 ps = 384 B in 1 ns =
// 384 GB/s, mean 0.2 ns, p50 the 2nd of 3 = 200 ps, p99 the 3rd = 300 ps; two went to the device
// (256 GB/s), one to local HBM (128 GB/s). Window 1: empty. Window 2: one 256 B write to a peer
// GPU, 1 ns: 256 GB/s.
TEST(TimeSeries, RowsByHand) {
  TimeSeries t(1000);
  t.add(100, 128, 100, false, TargetClass::kDevice);
  t.add(500, 128, 200, false, TargetClass::kLocalHbm);
  t.add(999, 128, 300, false, TargetClass::kDevice);
  t.add(2500, 256, 1000, true, TargetClass::kPeerGpu);
  const auto l = lines(t.csv());
  ASSERT_EQ(l.size(), 4u);  // header + windows 0..2
  EXPECT_EQ(l[0],
            "window_start_ns,window_end_ns,read_gbps,write_gbps,requests,latency_mean_ns,"
            "latency_p50_ns,latency_p90_ns,latency_p99_ns,latency_max_ns,device_gbps,"
            "local_hbm_gbps,peer_gpu_gbps,standalone_memory_gbps");
  EXPECT_EQ(l[1],
            "0.000,1.000,384.0000,0.0000,3,0.200,0.200,0.300,0.300,0.300,256.0000,128.0000,0.0000,"
            "0.0000");
  EXPECT_EQ(
      l[2],
      "1.000,2.000,0.0000,0.0000,0,0.000,0.000,0.000,0.000,0.000,0.0000,0.0000,0.0000,0.0000");
  EXPECT_EQ(l[3],
            "2.000,3.000,0.0000,256.0000,1,1.000,0.992,0.992,0.992,1.000,0.0000,0.0000,256.0000,"
            "0.0000");
  const auto s = t.summary();
  EXPECT_EQ(s["windows"].get<std::size_t>(), 3u);
  EXPECT_DOUBLE_EQ(s["peak_window_bandwidth_gbps"].get<double>(), 384.0);
  EXPECT_DOUBLE_EQ(s["peak_window_by_target_gbps"]["device"].get<double>(), 256.0);
  EXPECT_DOUBLE_EQ(s["peak_window_by_target_gbps"]["local_hbm"].get<double>(), 128.0);
  EXPECT_DOUBLE_EQ(s["peak_window_by_target_gbps"]["peer_gpu"].get<double>(), 256.0);
  EXPECT_DOUBLE_EQ(s["peak_window_by_target_gbps"]["standalone_memory"].get<double>(), 0.0);
}

// A run whose work goes on after its last response (a workload's last compute) ends at 4.5 ns:
// 1 ns windows 0..4, the last two empty. A series without responses stays empty: no window
// before the first response is written, nor any after it.
TEST(TimeSeries, WindowsRunToTheEndOfTheRun) {
  TimeSeries t(1000);
  t.add(100, 128, 100, false, TargetClass::kDevice);
  t.add(2999, 128, 100, false, TargetClass::kDevice);
  t.extend_to(4500);
  const auto l = lines(t.csv());
  ASSERT_EQ(l.size(), 6u);  // header + windows 0..4
  EXPECT_EQ(l[4].substr(0, 30), "3.000,4.000,0.0000,0.0000,0,0.");
  EXPECT_EQ(l[5].substr(0, 30), "4.000,5.000,0.0000,0.0000,0,0.");
  EXPECT_EQ(t.summary()["windows"].get<std::size_t>(), 5u);
  // An end inside the last window with traffic, or on its closing edge, adds nothing.
  TimeSeries u(1000);
  u.add(100, 128, 100, false, TargetClass::kDevice);
  u.extend_to(1000);
  EXPECT_EQ(lines(u.csv()).size(), 2u);
  TimeSeries none(1000);
  none.extend_to(4500);
  EXPECT_EQ(lines(none.csv()).size(), 1u);
  EXPECT_EQ(none.summary()["windows"].get<std::size_t>(), 0u);
}

// An end past kMaxRows windows coarsens the series as a response there would: 2 ns windows.
TEST(TimeSeries, AnEndPastTheLastRowCoarsens) {
  TimeSeries t(1000);
  t.add(0, 64, 10, false, TargetClass::kDevice);
  t.extend_to(TimeSeries::kMaxRows * 1000ULL + 1);
  EXPECT_EQ(t.window_ps(), 2000u);
  EXPECT_EQ(lines(t.csv()).size(), 1 + TimeSeries::kMaxRows / 2 + 1);
}

// Past kMaxRows windows the window doubles and pairs merge: a request at window 4096 of 1 ns
// makes 2 ns windows; the first row then holds windows 0 and 1 of the old size.
TEST(TimeSeries, LongRunsGetCoarserWindowsNotMoreMemory) {
  TimeSeries t(1000);
  t.add(0, 64, 10, false, TargetClass::kDevice);
  t.add(1500, 64, 10, false, TargetClass::kLocalHbm);
  t.add(TimeSeries::kMaxRows * 1000ULL, 64, 10, false, TargetClass::kDevice);
  EXPECT_EQ(t.window_ps(), 2000u);
  const auto l = lines(t.csv());
  EXPECT_EQ(l.size(), 1 + TimeSeries::kMaxRows / 2 + 1);
  EXPECT_EQ(l[1].substr(0, 26), "0.000,2.000,64.0000,0.0000");  // 128 B over 2 ns
  // 64 B each to the device and local HBM over 2 ns.
  EXPECT_EQ(l[1].substr(l[1].size() - 30), ",32.0000,32.0000,0.0000,0.0000");
}

// Three memories in address order: a GPU's HBM (memory 0, no column), fam0 (memory 1) and fam1
// (memory 2). 1 ns windows. Window 0: 384 B to fam0, 128 B to fam1, 128 B to the HBM. Window 1:
// 256 B to fam1. Columns: each device's bytes per ns; they add up to device_gbps.
TEST(TimeSeries, ColumnsPerDeviceByHand) {
  TimeSeries t(1000);
  t.set_devices({"fam0", "fam1"}, {TimeSeries::kNoDevice, 0, 1});
  t.add(10, 256, 100, false, TargetClass::kDevice, 1);
  t.add(20, 128, 100, true, TargetClass::kDevice, 1);
  t.add(30, 128, 100, false, TargetClass::kDevice, 2);
  t.add(40, 128, 100, false, TargetClass::kLocalHbm, 0);
  t.add(1500, 256, 100, false, TargetClass::kDevice, 2);
  const auto l = lines(t.csv());
  ASSERT_EQ(l.size(), 3u);
  const std::string head =
      "latency_max_ns,device_gbps,local_hbm_gbps,peer_gpu_gbps,"
      "standalone_memory_gbps,device_fam0_gbps,device_fam1_gbps";
  EXPECT_TRUE(ends_with(l[0], head)) << l[0];
  EXPECT_TRUE(ends_with(l[1], ",512.0000,128.0000,0.0000,0.0000,384.0000,128.0000")) << l[1];
  EXPECT_TRUE(ends_with(l[2], ",256.0000,0.0000,0.0000,0.0000,0.0000,256.0000")) << l[2];
  const auto s = t.summary();
  EXPECT_DOUBLE_EQ(s["peak_window_by_device_gbps"]["fam0"].get<double>(), 384.0);
  EXPECT_DOUBLE_EQ(s["peak_window_by_device_gbps"]["fam1"].get<double>(), 256.0);
  EXPECT_TRUE(s["device_balance_by_window"].is_null());  // no window with 32 requests per device
}

// One device: its column is the device_gbps one (all device traffic is its), without counting per
// device: 128 B to it and 64 B to local HBM in a 1 ns window.
TEST(TimeSeries, OneDeviceColumnIsTheDevicesTotal) {
  TimeSeries t(1000);
  t.set_devices({"fam0"}, {TimeSeries::kNoDevice, 0});
  EXPECT_FALSE(t.counts_by_device());
  t.add(10, 128, 100, false, TargetClass::kDevice);
  t.add(20, 64, 100, false, TargetClass::kLocalHbm);
  const auto l = lines(t.csv());
  EXPECT_TRUE(ends_with(l[0], ",standalone_memory_gbps,device_fam0_gbps")) << l[0];
  EXPECT_TRUE(ends_with(l[1], ",128.0000,64.0000,0.0000,0.0000,128.0000")) << l[1];
  EXPECT_DOUBLE_EQ(t.summary()["peak_window_by_device_gbps"]["fam0"].get<double>(), 128.0);
  EXPECT_TRUE(t.summary()["device_balance_by_window"].is_null());
}

// Without set_devices (one memory, a trace player's) there are no device columns and no balance.
TEST(TimeSeries, NoDevicesNoColumns) {
  TimeSeries t(1000);
  t.add(10, 64, 100, false, TargetClass::kStandaloneMemory, 0);
  EXPECT_EQ(lines(t.csv())[0].find("device_fam"), std::string::npos);
  EXPECT_TRUE(t.summary()["peak_window_by_device_gbps"].empty());
  EXPECT_TRUE(t.summary()["device_balance_by_window"].is_null());
}

// Two devices, 128 B requests, 1 ns windows; a window counts with at least 32 x 2 = 64 device
// requests.
//   window 0: 64 to fam0, none to fam1  -> busiest 8192 B over a mean of 4096: 2.0
//   window 1: 32 to each                -> 1.0
//   window 2: 48 to fam0, 16 to fam1    -> 6144 / 4096 = 1.5
//   window 3: 63 to fam0 (too few)      -> not counted
// Weighted by bytes (8192 each): (2.0 + 1.0 + 1.5) / 3 = 1.5; the largest 2.0.
TEST(TimeSeries, DeviceBalanceByWindowByHand) {
  const TimeSeries t = two_device_series({{64, 0}, {32, 32}, {48, 16}, {63, 0}});
  const TimeSeries::DeviceBalance b = t.device_balance();
  EXPECT_EQ(b.windows, 3u);
  EXPECT_DOUBLE_EQ(b.mean_max_over_mean, 1.5);
  EXPECT_DOUBLE_EQ(b.max_max_over_mean, 2.0);
  // Over the run (window 3 too): fam0 207 requests, fam1 48: 207 x 2 / 255 of the mean. The
  // windows' 1.5 is below 1.25 times that: the devices did not take turns, fam0 was busiest.
  EXPECT_DOUBLE_EQ(b.run_max_over_mean, 414.0 / 255.0);
  EXPECT_FALSE(b.took_turns);
  const auto j = t.summary()["device_balance_by_window"];
  EXPECT_EQ(j["windows"].get<std::size_t>(), 3u);
  EXPECT_EQ(j["min_requests_per_device"].get<std::uint64_t>(), 32u);
  EXPECT_FALSE(j["took_turns"].get<bool>());
}

// 64 requests to fam0 in window 0, 64 to fam1 in window 1: each window 2.0, the run 1.0 (even):
// the devices took turns.
TEST(TimeSeries, DevicesTakingTurnsAreNamed) {
  TimeSeries t(1000);
  t.set_devices({"fam0", "fam1"}, {0, 1});
  for (unsigned i = 0; i < 128; ++i)
    t.add((i / 64) * 1000 + i % 64, 128, 100, false, TargetClass::kDevice, i / 64);
  const TimeSeries::DeviceBalance b = t.device_balance();
  EXPECT_EQ(b.windows, 2u);
  EXPECT_DOUBLE_EQ(b.mean_max_over_mean, 2.0);
  EXPECT_DOUBLE_EQ(b.run_max_over_mean, 1.0);
  EXPECT_TRUE(b.took_turns);
}

// Coarsening merges each device's bytes with the rest: 64 B to fam0 at 0 ns and 64 B to fam1 at
// 1.5 ns share the first 2 ns window, 32 GB/s each.
TEST(TimeSeries, CoarserWindowsKeepTheDeviceColumns) {
  TimeSeries t(1000);
  t.set_devices({"fam0", "fam1"}, {0, 1});
  t.add(0, 64, 10, false, TargetClass::kDevice, 0);
  t.add(1500, 64, 10, false, TargetClass::kDevice, 1);
  t.add(TimeSeries::kMaxRows * 1000ULL, 64, 10, false, TargetClass::kDevice, 1);
  EXPECT_EQ(t.window_ps(), 2000u);
  const auto l = lines(t.csv());
  EXPECT_TRUE(ends_with(l[1], ",64.0000,0.0000,0.0000,0.0000,32.0000,32.0000")) << l[1];
  EXPECT_TRUE(ends_with(l.back(), ",32.0000,0.0000,0.0000,0.0000,0.0000,32.0000")) << l.back();
}

// Coarsening merges every pair of rows, device bytes and request counts alike. Six 1 ns windows of
// 40 requests of 128 B (fewer than the 2 x 32 a window needs to count in the balance):
//   rows 0, 1: 20 to each device          -> merged 40 / 40: 1.0
//   row 2: 40 to fam0; row 3: 20 to each  -> merged 60 / 20: 60 x 2 / 80 = 1.5
//   rows 4, 5: 40 to fam1                 -> merged 0 / 80: 2.0
// After the window doubles, each merged window has 80 requests and counts: mean 1.5 (equal
// weights), max 2.0. Merged row 1 carries 60 x 128 B / 2 ns to fam0 and 20 x 128 B / 2 ns to fam1.
TEST(TimeSeries, CoarseningMergesEveryRowsDevices) {
  TimeSeries t = two_device_series({{20, 20}, {20, 20}, {40, 0}, {20, 20}, {0, 40}, {0, 40}});
  EXPECT_EQ(t.device_balance().windows, 0u);
  t.add(TimeSeries::kMaxRows * 1000ULL, 128, 100, false, TargetClass::kDevice, 0);
  ASSERT_EQ(t.window_ps(), 2000u);
  const auto l = lines(t.csv());
  EXPECT_TRUE(ends_with(l[1], ",2560.0000,2560.0000")) << l[1];
  EXPECT_TRUE(ends_with(l[2], ",3840.0000,1280.0000")) << l[2];
  EXPECT_TRUE(ends_with(l[3], ",0.0000,5120.0000")) << l[3];
  const TimeSeries::DeviceBalance b = t.device_balance();
  EXPECT_EQ(b.windows, 3u);
  EXPECT_DOUBLE_EQ(b.mean_max_over_mean, 1.5);
  EXPECT_DOUBLE_EQ(b.max_max_over_mean, 2.0);
}

// 1 + 2 sqrt(2 ln d / 32), at least 1.5: 2 devices 1 + 2 x 0.208 = 1.42 -> 1.5; 4 devices
// 1 + 2 x 0.294 = 1.589; 64 devices 1 + 2 x 0.510 = 2.020.
TEST(TimeSeries, TurnsThresholdGrowsWithTheDevices) {
  EXPECT_DOUBLE_EQ(TimeSeries::turns_threshold(2), 1.5);
  EXPECT_NEAR(TimeSeries::turns_threshold(4), 1.589, 1e-3);
  EXPECT_NEAR(TimeSeries::turns_threshold(64), 2.020, 1e-3);
}

// Four devices, even over the run (each the busiest in one window of four), 128 requests a
// window. 50 on the busiest and 26 on each other: 50 x 4 / 128 = 1.5625, above 1.5 but below the
// 1.589 that chance alone can give four devices: not taking turns. 62 and 22: 1.9375, taking turns.
TEST(TimeSeries, TurnsAmongFourDevicesMustBeatChance) {
  struct Case {
    unsigned busiest, rest;
    double ratio;
    bool turns;
  };
  for (const Case& c : {Case{50, 26, 1.5625, false}, Case{62, 22, 1.9375, true}}) {
    TimeSeries t(1000);
    t.set_devices({"a", "b", "c", "d"}, {0, 1, 2, 3});
    for (unsigned w = 0; w < 4; ++w) {
      for (unsigned dev = 0; dev < 4; ++dev) {
        const unsigned n = dev == w ? c.busiest : c.rest;
        for (unsigned i = 0; i < n; ++i)
          t.add(w * 1000 + i, 128, 100, false, TargetClass::kDevice, dev);
      }
    }
    const TimeSeries::DeviceBalance b = t.device_balance();
    EXPECT_EQ(b.windows, 4u);
    EXPECT_DOUBLE_EQ(b.run_max_over_mean, 1.0);
    EXPECT_DOUBLE_EQ(b.mean_max_over_mean, c.ratio);
    EXPECT_EQ(b.took_turns, c.turns) << c.busiest;
  }
}

// One device of 4 channels (memory 1; memory 0 a GPU's HBM, not counted), 1 ns windows, 128 B
// requests: `windows[k][c]` requests to channel c in window k.
TimeSeries four_channel_series(const std::vector<std::array<unsigned, 4>>& windows) {
  TimeSeries t(1000);
  t.set_devices({"fam0"}, {TimeSeries::kNoDevice, 0});
  t.set_channel_devices({{"fam0", 1, 4}});
  for (std::size_t k = 0; k < windows.size(); ++k) {
    for (std::uint32_t c = 0; c < 4; ++c) {
      for (unsigned i = 0; i < windows[k][c]; ++i) {
        t.add(k * 1000 + i, 128, 100, false, TargetClass::kDevice, 1, c);
      }
    }
    t.add(k * 1000 + 999, 128, 100, false, TargetClass::kLocalHbm, 0, 0);  // not a channel's
  }
  return t;
}

// Each of four 1 ns windows sends its 128 requests to one channel, a different one each time
// (a coarse interleave walked in sequence). A window counts with 32 x 4 = 128 of the device's
// requests, so the windows need no merging (1 ns). Each window: busiest 128 x 128 B over the
// mean 32 x 128 B = 4.0. Over the run each channel carried 128: 1.0. 4.0 is above
// turns_threshold(4) = 1.589 and 1.25 x 1.0: the channels took turns.
TEST(TimeSeries, ChannelsTakingTurnsByHand) {
  const TimeSeries t =
      four_channel_series({{128, 0, 0, 0}, {0, 128, 0, 0}, {0, 0, 128, 0}, {0, 0, 0, 128}});
  EXPECT_TRUE(t.counts_by_channel());
  const auto c = t.channel_balance();
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].device, "fam0");
  EXPECT_EQ(c[0].channels, 4u);
  EXPECT_DOUBLE_EQ(c[0].window_ns, 1.0);
  EXPECT_EQ(c[0].balance.windows, 4u);
  EXPECT_DOUBLE_EQ(c[0].balance.mean_max_over_mean, 4.0);
  EXPECT_DOUBLE_EQ(c[0].balance.max_max_over_mean, 4.0);
  EXPECT_DOUBLE_EQ(c[0].balance.run_max_over_mean, 1.0);
  EXPECT_TRUE(c[0].balance.took_turns);
  const auto j = t.summary()["channel_balance_by_window"]["fam0"];
  EXPECT_EQ(j["channels"].get<unsigned>(), 4u);
  EXPECT_EQ(j["min_requests_per_channel"].get<std::uint64_t>(), 32u);
  EXPECT_TRUE(j["took_turns"].get<bool>());
}

// The same bytes spread evenly, 32 requests to each channel in each window: 1.0 everywhere, no
// turns. And one window of 56, 24, 24, 24: 56 x 4 / 128 = 1.75, with the even ones weighted
// alike (each window 128 x 128 B): (1.75 + 3 x 1.0) / 4 = 1.1875; the run: channel 0 carried
// 152 of 512, 152 x 4 / 512 = 1.1875 too, so still not turns (below 1.589).
TEST(TimeSeries, EvenChannelsDidNotTakeTurns) {
  const TimeSeries even =
      four_channel_series({{32, 32, 32, 32}, {32, 32, 32, 32}, {32, 32, 32, 32}, {32, 32, 32, 32}});
  const auto c = even.channel_balance();
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].balance.windows, 4u);
  EXPECT_DOUBLE_EQ(c[0].balance.mean_max_over_mean, 1.0);
  EXPECT_DOUBLE_EQ(c[0].balance.run_max_over_mean, 1.0);
  EXPECT_FALSE(c[0].balance.took_turns);
  const TimeSeries lumpy =
      four_channel_series({{56, 24, 24, 24}, {32, 32, 32, 32}, {32, 32, 32, 32}, {32, 32, 32, 32}});
  const auto l = lumpy.channel_balance();
  EXPECT_DOUBLE_EQ(l[0].balance.mean_max_over_mean, 1.1875);
  EXPECT_DOUBLE_EQ(l[0].balance.max_max_over_mean, 1.75);
  EXPECT_DOUBLE_EQ(l[0].balance.run_max_over_mean, 1.1875);
  EXPECT_FALSE(l[0].balance.took_turns);
}

// Too few requests per window for a channel balance: 64 a window, half of the 128 four channels
// need. The busy windows average 64, so they are merged in twos (2 ns): windows 2k and 2k + 1
// both go to channel k, so each merged window has 128 requests, all on one channel: 4.0, the
// run 1.0, turns. Unmerged, no window would count.
TEST(TimeSeries, ChannelWindowsMergeUntilTheyHoldEnoughRequests) {
  const TimeSeries t = four_channel_series({{64, 0, 0, 0},
                                            {64, 0, 0, 0},
                                            {0, 64, 0, 0},
                                            {0, 64, 0, 0},
                                            {0, 0, 64, 0},
                                            {0, 0, 64, 0},
                                            {0, 0, 0, 64},
                                            {0, 0, 0, 64}});
  const auto c = t.channel_balance();
  ASSERT_EQ(c.size(), 1u);
  EXPECT_DOUBLE_EQ(c[0].window_ns, 2.0);
  EXPECT_EQ(c[0].balance.windows, 4u);
  EXPECT_DOUBLE_EQ(c[0].balance.mean_max_over_mean, 4.0);
  EXPECT_DOUBLE_EQ(c[0].balance.run_max_over_mean, 1.0);
  EXPECT_TRUE(c[0].balance.took_turns);
}

// A device of one channel has no balance, and a request past a device's channels is not counted.
TEST(TimeSeries, OneChannelHasNoChannelBalance) {
  TimeSeries t(1000);
  t.set_devices({"fam0"}, {0});
  t.set_channel_devices({{"fam0", 0, 1}});
  EXPECT_FALSE(t.counts_by_channel());
  t.add(10, 128, 100, false, TargetClass::kDevice, 0, 0);
  EXPECT_TRUE(t.channel_balance().empty());
  EXPECT_TRUE(t.summary()["channel_balance_by_window"].empty());
}

TEST(TimeSeries, DeviceColumnPastTheDevicesIsRefused) {
  TimeSeries t(1000);
  EXPECT_THROW(t.set_devices({"fam0"}, {0, 1}), std::logic_error);
}

TEST(TimeSeries, OffRecordsNothing) {
  TimeSeries t(0);
  t.add(5, 64, 10, false, TargetClass::kDevice);
  EXPECT_FALSE(t.enabled());
}

// Direction phases, 1 ns windows of 32 requests each (the minimum that counts):
//   windows 0-5: 32 reads of 128 B                  -> reads only
//   windows 6-7: 32 writes of 128 B                 -> writes only
//   window 8:    29 reads, 3 writes (29/32 = 90.6 % of the bytes reads) -> reads only
//   window 9:    28 reads, 4 writes (87.5 %)        -> neither
//   window 10:   31 reads (below the minimum)       -> not counted
// 10 windows counted: reads only 7/10, writes only 2/10.
TEST(TimeSeries, DirectionPhasesByHand) {
  TimeSeries t(1000);
  auto fill = [&](std::uint64_t window, unsigned reads, unsigned writes) {
    for (unsigned i = 0; i < reads + writes; ++i)
      t.add(window * 1000 + i, 128, 100, i >= reads, TargetClass::kDevice);
  };
  for (unsigned w = 0; w < 6; ++w) fill(w, 32, 0);
  fill(6, 0, 32);
  fill(7, 0, 32);
  fill(8, 29, 3);
  fill(9, 28, 4);
  fill(10, 31, 0);
  const TimeSeries::DirectionPhases p = t.direction_phases();
  EXPECT_EQ(p.windows, 10u);
  EXPECT_DOUBLE_EQ(p.reads_only, 0.7);
  EXPECT_DOUBLE_EQ(p.writes_only, 0.2);
}

// Reads and writes mixed 80:20 in every window: no window is one direction only.
TEST(TimeSeries, MixedTrafficHasNoDirectionPhases) {
  TimeSeries t(1000);
  for (std::uint64_t w = 0; w < 20; ++w) {
    for (unsigned i = 0; i < 40; ++i)
      t.add(w * 1000 + i, 128, 100, i % 5 == 0, TargetClass::kDevice);
  }
  const TimeSeries::DirectionPhases p = t.direction_phases();
  EXPECT_EQ(p.windows, 20u);
  EXPECT_DOUBLE_EQ(p.reads_only, 0.0);
  EXPECT_DOUBLE_EQ(p.writes_only, 0.0);
}

}  // namespace
}  // namespace famsim
