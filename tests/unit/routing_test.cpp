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

// The switch with peer paths: device A on ports 0..1 (0x10000..0x10fff, 128 B blocks, modulo),
// then 3 GPUs x 2 peer ports from port 2, GPU memories at 0, 0x4000 and 0x8000.
DestinationRouting two_ports_per_gpu() {
  AddressRangeRouting devices;
  devices.add(range(0x10000, 0x1000, 0, 2, 128, "A"));
  return DestinationRouting(devices, 2, 2, 128, {0x0, 0x4000, 0x8000});
}

RequestExt request(std::uint16_t dest_gpu, std::uint64_t pa) {
  RequestExt e;
  e.dest_gpu = dest_gpu;
  e.physical_address = pa;
  return e;
}

TEST(DestinationRouting, RequestsWithoutADestinationGpuGoByAddressRange) {
  const DestinationRouting r = two_ports_per_gpu();
  EXPECT_EQ(r.gpus(), 3u);
  // Device A: port = (pa - 0x10000) / 128 mod 2.
  EXPECT_EQ(r.route(request(RequestExt::kNoGpu, 0x10000)), 0u);
  EXPECT_EQ(r.route(request(RequestExt::kNoGpu, 0x10080)), 1u);
  EXPECT_EQ(r.route(request(RequestExt::kNoGpu, 0x10100)), 0u);
  // No destination GPU and no device range: no route.
  EXPECT_THROW(r.route(request(RequestExt::kNoGpu, 0x4000)), std::out_of_range);
}

TEST(DestinationRouting, PeerRequestsGoToTheDestinationGpusPortsSpreadByXor) {
  const DestinationRouting r = two_ports_per_gpu();
  // Two ports per GPU: xor spreading (a power of two). Block b = (pa - base) / 128; port in the
  // group = (b mod 2) xor (the other binary digits of b) = parity of b. GPU g's group starts at
  // 2 + 2g.
  EXPECT_EQ(r.route(request(1, 0x4000)), 4u);  // b 0: parity 0
  EXPECT_EQ(r.route(request(1, 0x4080)), 5u);  // b 1: parity 1
  EXPECT_EQ(r.route(request(1, 0x4100)), 5u);  // b 2 = 10b: parity 1 (modulo would say 4)
  EXPECT_EQ(r.route(request(1, 0x4180)), 4u);  // b 3 = 11b: parity 0
  EXPECT_EQ(r.route(request(1, 0x41ff)), 4u);  // last byte of b 3
  EXPECT_EQ(r.route(request(0, 0x0)), 2u);
  EXPECT_EQ(r.route(request(2, 0x8000 + 7 * 128)), 7u);  // b 7 = 111b: parity 1 -> 2 + 4 + 1
  // The destination decides, not the address: a peer request is never sent to a device port.
  // Block 0x10080 / 128 = 0x201 = 10 0000 0001b: parity 0 -> GPU 0's first port.
  EXPECT_EQ(r.route(request(0, 0x10080)), 2u);
  EXPECT_EQ(r.port_for_gpu(2, 0x8080), 7u);
}

TEST(DestinationRouting, ThreePortsPerGpuSpreadByModuloOverTheOffsetInTheGpusMemory) {
  AddressRangeRouting devices;
  devices.add(range(1ULL << 42, 1ULL << 30, 0, 5, 128, "A"));
  // 2 GPUs x 3 peer ports from port 5; GPU 1's memory at 1 TiB.
  const DestinationRouting r(devices, 5, 3, 128, {0, 1ULL << 40});
  // Block 4 of GPU 1's memory: 4 mod 3 = 1 -> 5 + 3 + 1 = 9. (Spreading the absolute address
  // would give block 2^33 + 4, and 2^33 mod 3 = 2, so (2 + 1) mod 3 = 0 -> port 8.)
  EXPECT_EQ(r.route(request(1, (1ULL << 40) + 4 * 128)), 9u);
  EXPECT_EQ(r.route(request(1, (1ULL << 40) + 5 * 128 + 17)), 10u);  // block 5: 5 mod 3 = 2
  EXPECT_EQ(r.route(request(0, 3 * 128)), 5u);                       // block 3: 0
}

TEST(DestinationRouting, UnknownGpuAndBadParametersRejected) {
  const DestinationRouting r = two_ports_per_gpu();
  EXPECT_THROW(r.route(request(3, 0x0)), std::out_of_range);
  EXPECT_THROW(r.port_for_gpu(7, 0x0), std::out_of_range);
  EXPECT_THROW(DestinationRouting(AddressRangeRouting(), 0, 0, 128, {0}), std::invalid_argument);
  EXPECT_THROW(DestinationRouting(AddressRangeRouting(), 0, 2, 100, {0}), std::invalid_argument);
}

TEST(LocalMemoryRouting, DecodesTheChannelFromTheOffsetInTheMemory) {
  const std::uint64_t base = 1ULL << 40;
  // 4 channels, 256 B granules, modulo: channel = (pa - base) / 256 mod 4.
  const LocalMemoryRouting mod(base, 1ULL << 20, AddressMap(4, 256, AddressMap::Select::kModulo));
  EXPECT_EQ(mod.channel_for(base), 0u);
  EXPECT_EQ(mod.channel_for(base + 0x100), 1u);
  EXPECT_EQ(mod.channel_for(base + 0x3ff), 3u);
  EXPECT_EQ(mod.channel_for(base + 0x400), 0u);
  EXPECT_EQ(mod.channel_for(base + 0x1234), 2u);  // granule 18: 18 mod 4 = 2
  EXPECT_EQ(mod.route(request(RequestExt::kNoGpu, base + 0x200)), 2u);
  EXPECT_EQ(mod.route(request(5, base + 0x200)), 2u);  // peers' requests decode the same way
  // xor: granule g -> (g mod 4) xor (g div 4 folded). g 4: 0 xor 1 = 1; g 5: 1 xor 1 = 0.
  const LocalMemoryRouting x(base, 1ULL << 20, AddressMap(4, 256, AddressMap::Select::kXor));
  EXPECT_EQ(x.channel_for(base + 4 * 256), 1u);
  EXPECT_EQ(x.channel_for(base + 5 * 256), 0u);
  EXPECT_EQ(x.channel_for(base + 3 * 256), 3u);
  // Outside the memory: no channel.
  EXPECT_THROW(mod.channel_for(base - 1), std::out_of_range);
  EXPECT_THROW(mod.channel_for(base + (1ULL << 20)), std::out_of_range);
}

}  // namespace
}  // namespace famsim
