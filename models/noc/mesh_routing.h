// 2D mesh geometry and dimension-order routing, without SystemC: node coordinates, XY routes,
// hop counts, the default placement of a device's fabric ports and memory controllers on the
// nodes, placement checks, and the uniform-traffic throughput bound. The mesh block
// (models/noc/mesh.h) uses these; each is unit-tested alone (tests/unit/mesh_routing_test.cpp).
//
// Coordinates: x is the column, 0 .. cols-1 (west to east); y is the row, 0 .. rows-1 (north to
// south). Node index = y x cols + x (row-major). `dims: [cols, rows]` in the configuration.
//
// Routing: dimension-order XY (Dally & Towles, "Principles and Practices of Interconnection
// Networks", 2004, section 14.2): a packet first moves along x until its column matches the
// destination's, then along y. XY on a mesh has no cyclic channel dependency, so it cannot
// deadlock with any number of virtual channels (ibid., section 14.1), and it is minimal: a route
// takes |dx| + |dy| hops.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace famsim {

// A node's position; strong so that a node index and a coordinate cannot be mixed.
struct MeshCoord {
  unsigned x = 0;
  unsigned y = 0;
  bool operator==(const MeshCoord& o) const { return x == o.x && y == o.y; }
  bool operator!=(const MeshCoord& o) const { return !(*this == o); }
};

// A node's row-major index; strong for the same reason.
struct MeshNode {
  unsigned index = 0;
  bool operator==(const MeshNode& o) const { return index == o.index; }
  bool operator!=(const MeshNode& o) const { return index != o.index; }
};

// Output directions of a router. kLocal: the packet has arrived (ejection to an endpoint).
enum class MeshDir : std::uint8_t { kEast = 0, kWest = 1, kSouth = 2, kNorth = 3, kLocal = 4 };
inline constexpr unsigned kMeshDirs = 4;  // the mesh directions (kLocal excluded)

const char* to_string(MeshDir d);
// The direction a link arrives from at the neighbour (east-going traffic enters from the west).
MeshDir opposite(MeshDir d);

class MeshTopology {
 public:
  MeshTopology() = default;
  // Throws std::invalid_argument for a zero dimension.
  MeshTopology(unsigned cols, unsigned rows);

  unsigned cols() const { return cols_; }
  unsigned rows() const { return rows_; }
  unsigned nodes() const { return cols_ * rows_; }

  bool contains(MeshCoord c) const { return c.x < cols_ && c.y < rows_; }
  MeshNode node(MeshCoord c) const { return {c.y * cols_ + c.x}; }
  MeshCoord coord(MeshNode n) const { return {n.index % cols_, n.index / cols_}; }
  // The neighbour in direction d, or nullopt at the mesh's edge (and for kLocal).
  std::optional<MeshNode> neighbour(MeshNode n, MeshDir d) const;

  // XY routing: the output a packet at `at` for `dest` takes (kLocal when at == dest).
  MeshDir xy_route(MeshNode at, MeshNode dest) const;
  // The nodes a packet visits from `from` to `to` under XY, both included (hops + 1 routers).
  std::vector<MeshNode> xy_path(MeshNode from, MeshNode to) const;
  // Manhattan distance: the links an XY route crosses.
  unsigned hops(MeshNode a, MeshNode b) const;

  // Directed links between neighbours: 2 x (cols-1) x rows + 2 x cols x (rows-1).
  unsigned directed_links() const;

 private:
  unsigned cols_ = 1;
  unsigned rows_ = 1;
};

// Default placement (used when port_nodes / controller_nodes are not given):
//   fabric ports along the west edge (x = 0), spread evenly over the rows: port p of n at
//     y = floor((2p + 1) x rows / (2n)) (centred; with more ports than rows, several per node);
//   memory controllers spread over all nodes in row-major order: controller c of n at node index
//     floor((2c + 1) x nodes / (2n)) (one per node when n = nodes).
// Ports on one edge model a device whose SerDes sit along one die edge; controllers spread over
// the die as their PHYs would be around it.
std::vector<MeshCoord> default_port_nodes(const MeshTopology& t, unsigned ports);
std::vector<MeshCoord> default_controller_nodes(const MeshTopology& t, unsigned controllers);

// What is wrong with an explicit placement of `expected` endpoints: the wrong number of entries
// or a node outside the mesh (names the entry). nullopt when it is fine. Several endpoints may
// share a node.
std::optional<std::string> check_placement(const MeshTopology& t,
                                           const std::vector<MeshCoord>& nodes, unsigned expected);

// Channel load of the busiest directed link under uniform random traffic with XY routing, per
// unit of injection rate per node (every node sends to every node, itself included, with equal
// probability). For a row of k nodes the link between columns c-1 and c carries the traffic of
// the c nodes west of it to the k - c columns east: c (k - c) / k; the maximum, at c = k/2, is
// k/4 for even k ((k^2 - 1) / (4k) for odd k). Columns likewise with the rows. Dally & Towles,
// section 3.3.1 (bisection bound: uniform traffic on a k x k mesh saturates at 4b/k for even k).
double max_channel_load_uniform(const MeshTopology& t);
// Saturation injection rate per node, flits per cycle, of uniform random XY traffic: the channel
// bandwidth over the busiest channel's load, capped at the injection bandwidth (both in flits
// per cycle). For an even k x k mesh: min(injection, 4 b / k).
double uniform_saturation_flits_per_node(const MeshTopology& t, double channel_flits_per_cycle,
                                         double injection_flits_per_cycle);

// The busiest directed link when each of `sources` sends the same number of messages to each of
// `dests` under XY routing (a device's fabric ports to its memory controllers: the interleave
// spreads each port's requests evenly over the channels; and the responses back): the share of all
// those messages that cross it, and its ends. Share 0 (and from = to) when no message crosses a
// link (every source at its destinations' node). A link carries one flit per cycle, so the whole
// traffic is at most 1 / share messages of F flits every F cycles.
struct LinkShare {
  double share = 0;
  MeshNode from;
  MeshNode to;
};
LinkShare busiest_link_share(const MeshTopology& t, const std::vector<MeshCoord>& sources,
                             const std::vector<MeshCoord>& dests);

// Flits of a message with `data_bytes` of data on links `link_bytes` wide: one header flit plus
// ceil(data_bytes / link_bytes) data flits.
inline unsigned message_flits(unsigned data_bytes, unsigned link_bytes) {
  return 1 + (data_bytes + link_bytes - 1) / link_bytes;
}

}  // namespace famsim
