// AddressRangeRouting: ports chosen by address range and interleave, worked out by hand.
#include "models/noc/routing.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>

namespace famsim {
namespace {

using Range = AddressRangeRouting::Range;

Range range(std::uint64_t base, std::uint64_t size, unsigned first_port, unsigned ports,
            std::uint64_t interleave, const char* target) {
  Range r;
  r.base = base;
  r.size = size;
  r.first_port = first_port;
  r.ports = ports;
  r.interleave_bytes = interleave;
  r.target = target;
  return r;
}

TEST(AddressRangeRouting, InterleavesAcrossThePortGroup) {
  AddressRangeRouting r;
  // Device A at 0x1000..0x1fff on ports 2..5, 128 B interleave; device B at 0x4000..0x40ff on
  // port 0 only. Added out of order on purpose.
  r.add(range(0x4000, 0x100, 0, 1, 128, "B"));
  r.add(range(0x1000, 0x1000, 2, 4, 128, "A"));
  // A: port = 2 + ((pa - 0x1000) / 128) mod 4.
  EXPECT_EQ(r.port_for(0x1000), 2u);
  EXPECT_EQ(r.port_for(0x107f), 2u);
  EXPECT_EQ(r.port_for(0x1080), 3u);
  EXPECT_EQ(r.port_for(0x1100), 4u);
  EXPECT_EQ(r.port_for(0x1180), 5u);
  EXPECT_EQ(r.port_for(0x1200), 2u);  // block 4 wraps to the first port
  EXPECT_EQ(r.port_for(0x1fff), 5u);  // block 31: 31 mod 4 = 3
  EXPECT_EQ(r.port_for(0x1a40), 2u);  // 0xa40 / 128 = 20: 20 mod 4 = 0
  EXPECT_EQ(r.port_for(0x4000), 0u);
  EXPECT_EQ(r.port_for(0x40ff), 0u);
  ASSERT_EQ(r.ranges().size(), 2u);
  EXPECT_EQ(r.ranges()[0].target, "A");  // kept sorted by base
}

TEST(AddressRangeRouting, InterleaveOfThreePortsAndLargeGranule) {
  AddressRangeRouting r;
  // 3 ports, 4 KiB interleave, range based at 1 TiB.
  const std::uint64_t base = 1ULL << 40;
  r.add(range(base, 1ULL << 30, 7, 3, 4096, "C"));
  EXPECT_EQ(r.port_for(base), 7u);
  EXPECT_EQ(r.port_for(base + 4095), 7u);
  EXPECT_EQ(r.port_for(base + 4096), 8u);
  EXPECT_EQ(r.port_for(base + 2 * 4096), 9u);
  EXPECT_EQ(r.port_for(base + 3 * 4096), 7u);
  EXPECT_EQ(r.port_for(base + 100 * 4096 + 5), 7u + 100 % 3);  // block 100: port 8
}

TEST(AddressRangeRouting, RouteUsesThePhysicalAddress) {
  AddressRangeRouting r;
  r.add(range(0, 0x1000, 1, 2, 256, "D"));
  RequestExt e;
  e.physical_address = 0x300;  // block 3: 3 mod 2 = 1 -> port 2
  EXPECT_EQ(r.route(e), 2u);
  e.physical_address = 0x200;  // block 2 -> port 1
  EXPECT_EQ(r.route(e), 1u);
}

TEST(AddressRangeRouting, OverlappingRangesRejected) {
  AddressRangeRouting r;
  r.add(range(0x1000, 0x1000, 0, 1, 128, "A"));
  EXPECT_THROW(r.add(range(0x1800, 0x1000, 1, 1, 128, "B")), std::invalid_argument);  // tail
  EXPECT_THROW(r.add(range(0x0800, 0x1000, 1, 1, 128, "B")), std::invalid_argument);  // head
  EXPECT_THROW(r.add(range(0x1400, 0x100, 1, 1, 128, "B")), std::invalid_argument);   // inside
  EXPECT_THROW(r.add(range(0x0, 0x10000, 1, 1, 128, "B")), std::invalid_argument);    // around
  EXPECT_THROW(r.add(range(0x1000, 0x1000, 1, 1, 128, "B")), std::invalid_argument);  // same
  // Touching ranges do not overlap.
  EXPECT_NO_THROW(r.add(range(0x2000, 0x1000, 1, 1, 128, "C")));
  EXPECT_NO_THROW(r.add(range(0x0, 0x1000, 2, 1, 128, "D")));
  EXPECT_EQ(r.ranges().size(), 3u);
}

TEST(AddressRangeRouting, EmptyRangeOrNoPortsRejected) {
  AddressRangeRouting r;
  EXPECT_THROW(r.add(range(0x1000, 0, 0, 1, 128, "A")), std::invalid_argument);
  EXPECT_THROW(r.add(range(0x1000, 0x100, 0, 0, 128, "A")), std::invalid_argument);
  EXPECT_THROW(r.add(range(0x1000, 0x100, 0, 1, 0, "A")), std::invalid_argument);
  EXPECT_TRUE(r.ranges().empty());
}

TEST(AddressRangeRouting, AddressOutsideEveryRangeThrows) {
  AddressRangeRouting r;
  r.add(range(0x1000, 0x1000, 0, 1, 128, "A"));
  r.add(range(0x4000, 0x1000, 1, 1, 128, "B"));
  EXPECT_THROW(r.port_for(0x0fff), std::out_of_range);  // just below A
  EXPECT_THROW(r.port_for(0x2000), std::out_of_range);  // just past A
  EXPECT_THROW(r.port_for(0x3fff), std::out_of_range);  // the gap
  EXPECT_THROW(r.port_for(0x5000), std::out_of_range);  // just past B
  EXPECT_THROW(r.port_for(~std::uint64_t{0}), std::out_of_range);
  const AddressRangeRouting none;
  EXPECT_THROW(none.port_for(0), std::out_of_range);
}

}  // namespace
}  // namespace famsim
