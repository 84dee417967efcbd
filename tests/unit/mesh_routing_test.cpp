// Mesh geometry, XY routing, placement and the uniform-traffic bound (models/noc/mesh_routing.h),
// without a simulation. Every expected value is worked out by hand in the comment beside it.
#include "models/noc/mesh_routing.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace famsim {
namespace {

std::vector<unsigned> indices(const std::vector<MeshNode>& v) {
  std::vector<unsigned> out;
  for (MeshNode n : v) out.push_back(n.index);
  return out;
}

TEST(MeshTopology, CoordinatesAreRowMajor) {
  const MeshTopology t(4, 4);
  EXPECT_EQ(t.nodes(), 16u);
  EXPECT_EQ(t.node({2, 1}).index, 6u);          // 1 x 4 + 2
  EXPECT_EQ(t.coord({11}), (MeshCoord{3, 2}));  // 11 = 2 x 4 + 3
  const MeshTopology wide(3, 2);
  EXPECT_EQ(wide.node({2, 1}).index, 5u);  // 1 x 3 + 2
  EXPECT_FALSE(wide.contains({3, 0}));
  EXPECT_FALSE(wide.contains({0, 2}));
  EXPECT_TRUE(wide.contains({2, 1}));
}

TEST(MeshTopology, ZeroDimensionIsRefused) {
  EXPECT_THROW(MeshTopology(0, 4), std::invalid_argument);
  EXPECT_THROW(MeshTopology(4, 0), std::invalid_argument);
}

TEST(MeshTopology, NeighboursStopAtTheEdges) {
  const MeshTopology t(4, 4);
  EXPECT_FALSE(t.neighbour({0}, MeshDir::kWest));
  EXPECT_FALSE(t.neighbour({0}, MeshDir::kNorth));
  EXPECT_EQ(t.neighbour({0}, MeshDir::kEast)->index, 1u);
  EXPECT_EQ(t.neighbour({0}, MeshDir::kSouth)->index, 4u);
  EXPECT_FALSE(t.neighbour({15}, MeshDir::kEast));
  EXPECT_FALSE(t.neighbour({15}, MeshDir::kSouth));
  EXPECT_EQ(t.neighbour({5}, MeshDir::kNorth)->index, 1u);
  EXPECT_EQ(t.neighbour({5}, MeshDir::kWest)->index, 4u);
  EXPECT_EQ(opposite(MeshDir::kEast), MeshDir::kWest);
  EXPECT_EQ(opposite(MeshDir::kNorth), MeshDir::kSouth);
}

TEST(MeshTopology, DirectedLinks) {
  EXPECT_EQ(MeshTopology(4, 4).directed_links(), 48u);   // 2*3*4 + 2*4*3
  EXPECT_EQ(MeshTopology(8, 8).directed_links(), 224u);  // 2*7*8 + 2*8*7
  EXPECT_EQ(MeshTopology(3, 2).directed_links(), 14u);   // 2*2*2 + 2*3*1
  EXPECT_EQ(MeshTopology(1, 1).directed_links(), 0u);
}

TEST(XyRouting, XFirstThenY) {
  const MeshTopology t(4, 4);
  // (0,0) -> (3,3): east along row 0 to column 3, then south: 0 1 2 3 7 11 15.
  EXPECT_EQ(t.xy_route({0}, {15}), MeshDir::kEast);
  EXPECT_EQ(indices(t.xy_path({0}, {15})), (std::vector<unsigned>{0, 1, 2, 3, 7, 11, 15}));
  // (3,3) -> (0,0): west along row 3, then north: 15 14 13 12 8 4 0.
  EXPECT_EQ(indices(t.xy_path({15}, {0})), (std::vector<unsigned>{15, 14, 13, 12, 8, 4, 0}));
  // Same column: y only. (1,2) -> (1,0): north, 9 5 1.
  EXPECT_EQ(t.xy_route({9}, {1}), MeshDir::kNorth);
  EXPECT_EQ(indices(t.xy_path({9}, {1})), (std::vector<unsigned>{9, 5, 1}));
  EXPECT_EQ(t.xy_route({6}, {6}), MeshDir::kLocal);
  EXPECT_EQ(indices(t.xy_path({6}, {6})), (std::vector<unsigned>{6}));
}

TEST(XyRouting, HopsAreManhattanDistance) {
  const MeshTopology t(4, 4);
  EXPECT_EQ(t.hops({0}, {15}), 6u);  // |3| + |3|
  EXPECT_EQ(t.hops({15}, {0}), 6u);
  EXPECT_EQ(t.hops({9}, {1}), 2u);  // (1,2) -> (1,0)
  EXPECT_EQ(t.hops({4}, {3}), 4u);  // (0,1) -> (3,0): 3 + 1
  EXPECT_EQ(t.hops({6}, {6}), 0u);
  // An XY path visits hops + 1 routers, for every pair.
  for (unsigned a = 0; a < 16; ++a) {
    for (unsigned b = 0; b < 16; ++b) {
      EXPECT_EQ(t.xy_path({a}, {b}).size(), t.hops({a}, {b}) + 1) << a << "->" << b;
    }
  }
}

TEST(MeshPlacement, DefaultPortsAlongTheWestEdge) {
  const MeshTopology t(4, 4);
  // Port p of 8 at y = floor((2p + 1) * 4 / 16): 0 0 1 1 2 2 3 3, all at x = 0.
  const auto p = default_port_nodes(t, 8);
  const std::vector<unsigned> ys = {0, 0, 1, 1, 2, 2, 3, 3};
  ASSERT_EQ(p.size(), 8u);
  for (unsigned i = 0; i < 8; ++i) EXPECT_EQ(p[i], (MeshCoord{0, ys[i]})) << i;
  // One port: floor(1 * 4 / 2) = row 2 (the middle of the edge).
  EXPECT_EQ(default_port_nodes(t, 1)[0], (MeshCoord{0, 2}));
}

TEST(MeshPlacement, DefaultControllersSpreadOverTheNodes) {
  const MeshTopology t(4, 4);
  // 16 controllers on 16 nodes: node floor((2c + 1) * 16 / 32) = c, one each.
  const auto c = default_controller_nodes(t, 16);
  for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(t.node(c[i]).index, i);
  // 2 controllers: nodes floor(16 / 4) = 4 = (0,1) and floor(48 / 4) = 12 = (0,3).
  const auto two = default_controller_nodes(t, 2);
  EXPECT_EQ(two[0], (MeshCoord{0, 1}));
  EXPECT_EQ(two[1], (MeshCoord{0, 3}));
}

TEST(MeshPlacement, ChecksCountAndRange) {
  const MeshTopology t(4, 4);
  EXPECT_FALSE(check_placement(t, {{0, 0}, {3, 3}}, 2));
  EXPECT_FALSE(check_placement(t, {{1, 1}, {1, 1}}, 2));  // endpoints may share a node
  const auto count = check_placement(t, {{0, 0}}, 2);
  ASSERT_TRUE(count);
  EXPECT_NE(count->find("expected 2 entries"), std::string::npos) << *count;
  const auto range = check_placement(t, {{0, 0}, {4, 0}}, 2);
  ASSERT_TRUE(range);
  EXPECT_NE(range->find("entry 1"), std::string::npos) << *range;
  EXPECT_NE(range->find("outside"), std::string::npos) << *range;
}

// Dally & Towles, section 3.3.1: uniform traffic on a k x k mesh loads the busiest channel with
// k/4 per unit injection (even k), so it saturates at 4b/k flits per node per cycle.
TEST(MeshBound, UniformXyChannelLoad) {
  EXPECT_DOUBLE_EQ(max_channel_load_uniform(MeshTopology(4, 4)), 1.0);  // 2 * 2 / 4
  EXPECT_DOUBLE_EQ(max_channel_load_uniform(MeshTopology(8, 8)), 2.0);  // 4 * 4 / 8
  EXPECT_DOUBLE_EQ(max_channel_load_uniform(MeshTopology(5, 5)), 1.2);  // 2 * 3 / 5 = (25-1)/20
  EXPECT_DOUBLE_EQ(max_channel_load_uniform(MeshTopology(4, 8)), 2.0);  // the 8-long columns
  EXPECT_DOUBLE_EQ(max_channel_load_uniform(MeshTopology(1, 1)), 0.0);
}

TEST(MeshBound, SaturationIsFourBOverKCappedAtInjection) {
  EXPECT_DOUBLE_EQ(uniform_saturation_flits_per_node(MeshTopology(4, 4), 1, 1), 1.0);  // 4/4
  EXPECT_DOUBLE_EQ(uniform_saturation_flits_per_node(MeshTopology(8, 8), 1, 1), 0.5);  // 4/8
  EXPECT_DOUBLE_EQ(uniform_saturation_flits_per_node(MeshTopology(16, 16), 1, 1), 0.25);
  EXPECT_DOUBLE_EQ(uniform_saturation_flits_per_node(MeshTopology(8, 8), 2, 1), 1.0);  // capped
  EXPECT_DOUBLE_EQ(uniform_saturation_flits_per_node(MeshTopology(1, 1), 1, 1), 1.0);
}

TEST(MeshBound, BusiestLinkOfPortsToControllersUnderXy) {
  // fam_mesh's placement: 8 ports two to a node down the west column, a controller on each of the
  // 16 nodes of a 4 x 4 mesh; 8 x 16 = 128 port-controller pairs. Requests go along the port's
  // row first: [0,0]->[1,0] carries row 0's 2 ports to columns 1-3's 12 controllers, 24 / 128.
  // Responses go west along the controller's row, then along column 0: [0,1]->[0,2] carries rows
  // 0-1's 8 controllers to rows 2-3's 4 ports, 32 / 128 (the first of the busiest, by node).
  const MeshTopology t(4, 4);
  std::vector<MeshCoord> ports, controllers;
  for (unsigned y = 0; y < 4; ++y) ports.insert(ports.end(), 2, MeshCoord{0, y});
  for (unsigned n = 0; n < 16; ++n) controllers.push_back(t.coord({n}));
  const LinkShare req = busiest_link_share(t, ports, controllers);
  EXPECT_DOUBLE_EQ(req.share, 24.0 / 128);
  EXPECT_EQ(t.coord(req.from), (MeshCoord{0, 0}));
  EXPECT_EQ(t.coord(req.to), (MeshCoord{1, 0}));
  const LinkShare resp = busiest_link_share(t, controllers, ports);
  EXPECT_DOUBLE_EQ(resp.share, 32.0 / 128);
  EXPECT_EQ(t.coord(resp.from), (MeshCoord{0, 1}));
  EXPECT_EQ(t.coord(resp.to), (MeshCoord{0, 2}));
  // Every endpoint on one node: no link used.
  EXPECT_DOUBLE_EQ(busiest_link_share(t, {{1, 1}}, {{1, 1}}).share, 0.0);
}

TEST(MeshPackets, HeaderPlusDataFlits) {
  EXPECT_EQ(message_flits(0, 64), 1u);    // a read request: header only
  EXPECT_EQ(message_flits(64, 64), 2u);   // 1 + 1
  EXPECT_EQ(message_flits(128, 64), 3u);  // 1 + 2
  EXPECT_EQ(message_flits(65, 64), 3u);   // 1 + ceil(65/64) = 1 + 2
  EXPECT_EQ(message_flits(128, 32), 5u);  // 1 + 4
}

}  // namespace
}  // namespace famsim
