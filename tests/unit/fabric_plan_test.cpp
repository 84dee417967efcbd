// FabricPlan: where every endpoint of a multi-plane or leaf/spine fabric lands, and the routing of
// leaves and spines, worked out by hand from the layout rules in platforms/fabric_plan.h.
#include "models/memory/address_map.h"
#include "models/noc/routing.h"
#include "platforms/fabric_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace famsim {
namespace {

using ::testing::HasSubstr;

// Message of the invalid_argument a shape throws ("" when it is valid).
std::string plan_error_of(const FabricShape& s) {
  try {
    FabricPlan p(s);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(FabricPlan, HgxLikeLinksSpreadOverFourPlanesFiveFiveFourFour) {
  // 8 GPUs x 18 links over 4 planes (HGX H100: 5+5+4+4 links per GPU on the 4 NVSwitch chips),
  // one device with 8 ports: 2 per plane.
  FabricShape s;
  s.gpus = 8;
  s.links_per_gpu = 18;
  s.device_ports = {8};
  s.planes = 4;
  s.radix = 64;
  FabricPlan p(s);
  EXPECT_EQ(p.gpu_links_in_plane(0), 5u);  // links 0 4 8 12 16
  EXPECT_EQ(p.gpu_links_in_plane(1), 5u);  // links 1 5 9 13 17
  EXPECT_EQ(p.gpu_links_in_plane(2), 4u);
  EXPECT_EQ(p.gpu_links_in_plane(3), 4u);
  EXPECT_EQ(p.device_endpoints(0), 2u);
  EXPECT_EQ(p.out_endpoints(3), 2u);  // no peers
  // GPU 3's link 13: plane 1, 4th link of the GPU there (13 / 4 = 3): input 3 x 5 + 3 = 18.
  EXPECT_EQ(p.plane_of_link(13), 1u);
  EXPECT_EQ(p.gpu_input(3, 13), 18u);
  // Device port 6: plane 2, second port of the device there.
  EXPECT_EQ(p.device_output(0, 6), 1u);
  // Single topology: one chip per plane, ports = plane-local indices.
  EXPECT_EQ(p.leaves(0), 1u);
  EXPECT_EQ(p.input_attach(1, 18).port, 18u);
  EXPECT_EQ(p.output_attach(2, 1).port, 1u);
}

TEST(FabricPlan, PeerOutputsFollowTheDevicePorts) {
  FabricShape s;
  s.gpus = 3;
  s.links_per_gpu = 4;
  s.device_ports = {2, 4};  // devices 0 and 1
  s.planes = 2;
  s.peers = true;
  FabricPlan p(s);
  // Plane 1: device 0 port 1, device 1 ports 1 and 3 -> 3 device endpoints; GPU links 1 and 3.
  EXPECT_EQ(p.first_device_endpoint(1, 1), 1u);
  EXPECT_EQ(p.device_endpoints(1), 3u);
  EXPECT_EQ(p.device_output(1, 3), 2u);
  EXPECT_EQ(p.out_endpoints(1), 3u + 3u * 2u);
  // GPU 2's link 3: plane 1, second link there: input 2 x 2 + 1 = 5, peer output 3 + 5 = 8.
  EXPECT_EQ(p.gpu_input(2, 3), 5u);
  EXPECT_EQ(p.peer_output(2, 3), 8u);
}

TEST(FabricPlan, LeafSpineFillsLeavesInOrderAndSplitsUplinksOverSpines) {
  // 4 GPUs x 2 links, one device of 4 ports, one plane; radix 8: 4 endpoint ports + 4 uplinks per
  // leaf, 2 spines -> 2 links from each leaf to each spine.
  FabricShape s;
  s.gpus = 4;
  s.links_per_gpu = 2;
  s.device_ports = {4};
  s.peers = true;
  s.leaf_spine = true;
  s.radix = 8;
  s.leaf_down_ports = 4;
  s.spines = 2;
  FabricPlan p(s);
  // Physical endpoints: 8 GPU links then 4 device ports = 12 -> 3 leaves of 4.
  ASSERT_EQ(p.leaves(0), 3u);
  EXPECT_EQ(p.uplinks(), 4u);
  EXPECT_EQ(p.links_per_leaf_and_spine(), 2u);
  EXPECT_EQ(p.spine_ports(), 6u);  // 3 leaves x 2 links
  // Leaf 0: GPUs 0 and 1 (inputs 0..3, peer outputs 4..7); leaf 1: GPUs 2, 3; leaf 2: the device.
  EXPECT_EQ(p.leaf_inputs(0, 0), 4u);
  EXPECT_EQ(p.leaf_inputs(0, 2), 0u);
  EXPECT_EQ(p.leaf_outputs(0, 1), 4u);
  EXPECT_EQ(p.leaf_outputs(0, 2), 4u);
  EXPECT_EQ(p.input_attach(0, 5).leaf, 1u);  // GPU 2 link 1
  EXPECT_EQ(p.input_attach(0, 5).port, 1u);
  // Out-endpoints: device ports 0..3 (on leaf 2, ports 0..3), then peer outputs 4..11.
  EXPECT_EQ(p.output_attach(0, 3).leaf, 2u);
  EXPECT_EQ(p.output_attach(0, 3).port, 3u);
  EXPECT_EQ(p.output_attach(0, 4 + 6).leaf, 1u);  // GPU 3 link 0
  EXPECT_EQ(p.output_attach(0, 4 + 6).port, 2u);
  const std::vector<unsigned> local = p.local_outputs(0, 1);
  EXPECT_EQ(local[0], FabricPlan::kNone);
  EXPECT_EQ(local[4 + 4], 0u);  // GPU 2 link 0 is leaf 1's first output
}

TEST(FabricPlan, ImpossibleShapesSayWhy) {
  FabricShape s;
  s.gpus = 2;
  s.links_per_gpu = 2;
  s.device_ports = {4};
  s.planes = 4;
  EXPECT_THAT(plan_error_of(s), HasSubstr("every GPU needs a link on every plane"));
  s.links_per_gpu = 4;
  s.device_ports = {2};
  EXPECT_THAT(plan_error_of(s), HasSubstr("every device needs a port on every plane"));
  s.planes = 1;
  s.radix = 9;  // 2 x 4 + 2 = 10 ports
  EXPECT_THAT(plan_error_of(s), HasSubstr("needs 10 ports"));
  s.radix = 10;
  EXPECT_EQ(plan_error_of(s), "");
  s.leaf_spine = true;
  s.leaf_down_ports = 4;
  s.spines = 4;  // 6 uplinks over 4 spines
  EXPECT_THAT(plan_error_of(s), HasSubstr("do not divide evenly over 4 spines"));
  s.radix = 6;  // 2 uplinks per leaf, 1 per spine... over 4 spines: not even either
  s.spines = 2;
  // 10 endpoints / 4 per leaf = 3 leaves x 1 link = 3 spine ports <= 6: valid.
  EXPECT_EQ(plan_error_of(s), "");
  s.radix = 5;
  s.leaf_down_ports = 1;  // 10 leaves x 2 links = 20 spine ports > 5
  EXPECT_THAT(plan_error_of(s), HasSubstr("each spine needs 10 leaves x 2 links = 20 ports"));
}

// Routes every request to the out-endpoint written in its `channel` field, so the address only
// decides the spreading.
class ByChannelField : public Routing {
 public:
  unsigned route(const RequestExt& r) const override { return r.channel; }
};

RequestExt request_to(unsigned endpoint, std::uint64_t address) {
  RequestExt e;
  e.channel = endpoint;
  e.physical_address = address;
  return e;
}

TEST(LeafSpineRouting, LocalEndpointsStayOnTheLeafOthersGoUpSpreadByAddress) {
  // Leaf with out-endpoints 0..3 local on down ports 2,0,kRemote,1 and 4 uplinks from port 3.
  const unsigned R = LeafRouting::kRemote;
  LeafRouting leaf(std::make_unique<ByChannelField>(), {2, 0, R, 1}, 3, 4, 128);
  EXPECT_EQ(leaf.route(request_to(0, 0)), 2u);
  EXPECT_EQ(leaf.route(request_to(3, 0x12345)), 1u);
  // Endpoint 2 is remote: uplink 3 + the hash spread of the 128 B block over 4 uplinks.
  const HashSpread up(4, 128, kSaltUplink);
  unsigned per_uplink[4] = {0, 0, 0, 0};
  for (std::uint64_t a = 0; a < 4096 * 128; a += 128) {
    const unsigned port = leaf.route(request_to(2, a));
    EXPECT_EQ(port, 3u + up.pick(a));
    ++per_uplink[port - 3];
  }
  // 4096 blocks over 4 uplinks: 1024 each, binomial sd 27.7; 10% is > 3.5 sd.
  for (unsigned n : per_uplink) EXPECT_NEAR(n, 1024.0, 102.4);
  EXPECT_THROW(LeafRouting(std::make_unique<ByChannelField>(), {R}, 0, 0, 128),
               std::invalid_argument);
}

TEST(LeafSpineRouting, SpineSendsToTheLeafOfTheEndpoint) {
  // Out-endpoints 0..4 on leaves 1,1,0,2,0; 2 links per leaf.
  SpineRouting spine(std::make_unique<ByChannelField>(), {1, 1, 0, 2, 0}, 2, 256);
  const HashSpread down(2, 256, kSaltSpineLink);
  for (std::uint64_t a : {0ULL, 256ULL, 3 * 256ULL, 0x123456789ULL}) {
    EXPECT_EQ(spine.route(request_to(3, a)), 2u * 2u + down.pick(a));
    EXPECT_EQ(spine.route(request_to(4, a)), 0u * 2u + down.pick(a));
    EXPECT_EQ(spine.route(request_to(0, a)), 1u * 2u + down.pick(a));
  }
}

TEST(HashSpread, EvenForStridesThatDefeatXorFolding) {
  // The case HashSpread exists for: the block index's xor-fold over 4 fixes its parity, so a
  // second xor-folded choice over 2 would always pick the same port. Hashed, every class of the
  // first choice spreads evenly over the second.
  const HashSpread two(2, 256, kSaltDevicePort);
  const AddressMap four(4, 256, AddressMap::Select::kXor);
  const AddressMap xor_two(2, 256, AddressMap::Select::kXor);
  unsigned hashed[4][2] = {}, folded[4][2] = {};
  for (std::uint64_t block = 0; block < 65536; ++block) {
    const std::uint64_t a = block * 256;
    const unsigned first = four.decode(a).channel;
    ++hashed[first][two.pick(a)];
    ++folded[first][xor_two.decode(a).channel];
  }
  for (unsigned f = 0; f < 4; ++f) {
    // xor-folding: parity(block) = low bit ^ high bit of the 4-way choice: one port only.
    EXPECT_EQ(folded[f][((f & 1) ^ (f >> 1)) ^ 1u], 0u);
    // hashed: 16384 blocks per class, 8192 per port, binomial sd 64; 3% is > 3.8 sd.
    EXPECT_NEAR(hashed[f][0], 8192.0, 0.03 * 8192);
    EXPECT_NEAR(hashed[f][1], 8192.0, 0.03 * 8192);
  }
  EXPECT_THROW(HashSpread(0, 256, 1), std::invalid_argument);
  EXPECT_THROW(HashSpread(2, 100, 1), std::invalid_argument);
}

}  // namespace
}  // namespace famsim
