// Completions by memory (models/core/by_memory.h, fed by Initiator::count_completion): a
// completion is placed by its physical address in the memory holding it, whatever order the
// memories came in; an address in a gap or past every memory is counted as unplaced, and still by
// its class; the devices' balance is worked out here by hand.
#include "models/core/by_memory.h"
#include "models/core/initiator.h"
#include "tests/support/test_initiator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>

namespace famsim {
namespace {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

// gpu0_hbm [0, 1 GiB), fam0 [4 GiB, 6 GiB), fam1 [8 GiB, 9 GiB): given out of order.
MemoryLayout three_memories() {
  MemoryLayout m;
  m.set_targets({{"fam1", MemoryLayout::Kind::kDevice, 8 * kGiB, kGiB},
                 {"gpu0_hbm", MemoryLayout::Kind::kGpuHbm, 0, kGiB},
                 {"fam0", MemoryLayout::Kind::kDevice, 4 * kGiB, 2 * kGiB}});
  return m;
}

using Source = test::TestInitiator;

constexpr TargetClass kDev = TargetClass::kDevice;
constexpr TargetClass kLocal = TargetClass::kLocalHbm;

TEST(MemoryLayout, PlacesEachAddressInItsMemory) {
  const MemoryLayout m = three_memories();
  ASSERT_EQ(m.targets()[0].name, "gpu0_hbm");
  ASSERT_EQ(m.targets()[1].name, "fam0");
  ASSERT_EQ(m.targets()[2].name, "fam1");
  EXPECT_EQ(m.find(0), 0u);                      // gpu0_hbm's first byte
  EXPECT_EQ(m.find(kGiB - 1), 0u);               // its last
  EXPECT_EQ(m.find(kGiB), MemoryLayout::kNone);  // the gap after it
  EXPECT_EQ(m.find(4 * kGiB), 1u);
  EXPECT_EQ(m.find(6 * kGiB - 1), 1u);
  EXPECT_EQ(m.find(6 * kGiB), MemoryLayout::kNone);
  EXPECT_EQ(m.find(9 * kGiB - 128), 2u);
  EXPECT_EQ(m.find(9 * kGiB), MemoryLayout::kNone);  // past every memory
  EXPECT_EQ(MemoryLayout().find(0), MemoryLayout::kNone);
}

// Small memories far apart (1 MiB granules up to 2 TiB: too many for a table) are found by a
// search, with the same answers.
TEST(MemoryLayout, FarApartSmallMemoriesAreSearched) {
  MemoryLayout m;
  const std::uint64_t MiB = 1 << 20;
  m.set_targets({{"near", MemoryLayout::Kind::kDevice, MiB, MiB},
                 {"far", MemoryLayout::Kind::kDevice, 2048 * kGiB, MiB}});
  EXPECT_EQ(m.find(0), MemoryLayout::kNone);
  EXPECT_EQ(m.find(MiB), 0u);
  EXPECT_EQ(m.find(2 * MiB - 1), 0u);
  EXPECT_EQ(m.find(2 * MiB), MemoryLayout::kNone);
  EXPECT_EQ(m.find(2048 * kGiB - 1), MemoryLayout::kNone);
  EXPECT_EQ(m.find(2048 * kGiB), 1u);
  EXPECT_EQ(m.find(2048 * kGiB + MiB), MemoryLayout::kNone);
}

TEST(MemoryLayout, InitiatorCountsByMemoryAndByClass) {
  MemoryLayout m = three_memories();
  Source s(&m);
  s.complete(kLocal, 0, false, 64, 1000);
  s.complete(kLocal, kGiB - 1, true, 32, 2000);
  s.complete(kDev, 4 * kGiB, false, 128, 3000);
  s.complete(kDev, 6 * kGiB - 1, false, 128, 5000);
  s.complete(kDev, 9 * kGiB - 128, true, 128, 7000);
  s.complete(kDev, 6 * kGiB, false, 16, 11000);  // outside every memory: unplaced, still a device's
  EXPECT_EQ(m.traffic(0).read_bytes, 64u);
  EXPECT_EQ(m.traffic(0).write_bytes, 32u);
  EXPECT_EQ(m.traffic(1).read_bytes, 256u);
  EXPECT_DOUBLE_EQ(m.traffic(1).read_latency.mean_ns(), 4.0);  // (3 + 5) / 2 ns
  EXPECT_DOUBLE_EQ(m.traffic(1).read_latency.percentile_ns(1.0), 5.0);
  EXPECT_EQ(m.traffic(2).write_bytes, 128u);
  EXPECT_EQ(m.unplaced(), 1u);
  const TargetTraffic& dev = s.traffic(kDev);
  EXPECT_EQ(dev.read_bytes, 256u + 16u);
  EXPECT_EQ(dev.write_bytes, 128u);
  EXPECT_DOUBLE_EQ(dev.read_latency.mean_ns(), (3.0 + 5.0 + 11.0) / 3.0);
  EXPECT_EQ(s.traffic(kLocal).read_latency.count(), 1u);
}

// A sample added with its bin worked out beforehand lands where add_ps alone puts it: the same
// percentiles, over values from 1 ps to 1 s (under and over the histogram's range too).
TEST(MemoryLayout, BinWorkedOutOnceMatchesAddingTheValue) {
  LatencyHistogram a;
  LatencyHistogram b;
  for (std::uint64_t v = 1; v < 1000000000000ULL; v = v * 3 + 7) {
    a.add_ps(v);
    b.add_ps(v, LatencyHistogram::bin_of_ps(v));
  }
  EXPECT_EQ(a.bins_json(), b.bins_json());
  for (double q : {0.1, 0.5, 0.9, 0.99}) EXPECT_EQ(a.percentile_ns(q), b.percentile_ns(q));
}

TEST(MemoryLayout, DeviceBalanceIsOverDevicesOnly) {
  MemoryLayout m = three_memories();
  Source s(&m);
  EXPECT_TRUE(m.device_balance().is_null());  // nothing moved yet
  s.complete(kLocal, 0, false, 4096, 1);      // GPU memory: not a device
  EXPECT_TRUE(m.device_balance().is_null());
  s.complete(kDev, 4 * kGiB, false, 300, 1);
  s.complete(kDev, 8 * kGiB, true, 100, 1);
  // Devices' mean 200 B: fam0 1.5 x, fam1 0.5 x.
  const nlohmann::json b = m.device_balance();
  EXPECT_EQ(b["devices"].get<unsigned>(), 2u);
  EXPECT_EQ(b["devices_used"].get<unsigned>(), 2u);
  EXPECT_EQ(b["busiest"], "fam0");
  EXPECT_EQ(b["least_busy"], "fam1");
  EXPECT_DOUBLE_EQ(b["max_over_mean"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(b["min_over_mean"].get<double>(), 0.5);
  // The shares are of all bytes, GPU memory included: 4096 / 4496 and so on.
  const nlohmann::json j = m.by_memory_json(ReportWindow{0, 1000000});
  EXPECT_DOUBLE_EQ(j["gpu0_hbm"]["share_of_bytes"].get<double>(), 4096.0 / 4496.0);
  EXPECT_DOUBLE_EQ(j["fam1"]["share_of_bytes"].get<double>(), 100.0 / 4496.0);
  EXPECT_EQ(j["gpu0_hbm"]["kind"], "gpu_hbm");
}

TEST(MemoryLayout, OverlappingMemoriesAreRefused) {
  MemoryLayout m;
  EXPECT_THROW(m.set_targets({{"a", MemoryLayout::Kind::kDevice, 0, 2 * kGiB},
                              {"b", MemoryLayout::Kind::kDevice, kGiB, kGiB}}),
               std::logic_error);
}

}  // namespace
}  // namespace famsim
