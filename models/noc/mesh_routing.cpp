#include "models/noc/mesh_routing.h"

#include <algorithm>
#include <stdexcept>

namespace famsim {

const char* to_string(MeshDir d) {
  switch (d) {
    case MeshDir::kEast:
      return "east";
    case MeshDir::kWest:
      return "west";
    case MeshDir::kSouth:
      return "south";
    case MeshDir::kNorth:
      return "north";
    case MeshDir::kLocal:
      break;
  }
  return "local";
}

MeshDir opposite(MeshDir d) {
  switch (d) {
    case MeshDir::kEast:
      return MeshDir::kWest;
    case MeshDir::kWest:
      return MeshDir::kEast;
    case MeshDir::kSouth:
      return MeshDir::kNorth;
    case MeshDir::kNorth:
      return MeshDir::kSouth;
    case MeshDir::kLocal:
      break;
  }
  return MeshDir::kLocal;
}

MeshTopology::MeshTopology(unsigned cols, unsigned rows) : cols_(cols), rows_(rows) {
  if (cols == 0 || rows == 0) throw std::invalid_argument("a mesh needs at least 1 x 1 nodes");
}

std::optional<MeshNode> MeshTopology::neighbour(MeshNode n, MeshDir d) const {
  const MeshCoord c = coord(n);
  switch (d) {
    case MeshDir::kEast:
      if (c.x + 1 < cols_) return node({c.x + 1, c.y});
      break;
    case MeshDir::kWest:
      if (c.x > 0) return node({c.x - 1, c.y});
      break;
    case MeshDir::kSouth:
      if (c.y + 1 < rows_) return node({c.x, c.y + 1});
      break;
    case MeshDir::kNorth:
      if (c.y > 0) return node({c.x, c.y - 1});
      break;
    case MeshDir::kLocal:
      break;
  }
  return std::nullopt;
}

MeshDir MeshTopology::xy_route(MeshNode at, MeshNode dest) const {
  const MeshCoord a = coord(at);
  const MeshCoord d = coord(dest);
  if (a.x < d.x) return MeshDir::kEast;
  if (a.x > d.x) return MeshDir::kWest;
  if (a.y < d.y) return MeshDir::kSouth;
  if (a.y > d.y) return MeshDir::kNorth;
  return MeshDir::kLocal;
}

std::vector<MeshNode> MeshTopology::xy_path(MeshNode from, MeshNode to) const {
  std::vector<MeshNode> path{from};
  for (MeshNode at = from; at != to;) {
    at = *neighbour(at, xy_route(at, to));
    path.push_back(at);
  }
  return path;
}

unsigned MeshTopology::hops(MeshNode a, MeshNode b) const {
  const MeshCoord p = coord(a);
  const MeshCoord q = coord(b);
  return (p.x > q.x ? p.x - q.x : q.x - p.x) + (p.y > q.y ? p.y - q.y : q.y - p.y);
}

unsigned MeshTopology::directed_links() const {
  return 2 * (cols_ - 1) * rows_ + 2 * cols_ * (rows_ - 1);
}

std::vector<MeshCoord> default_port_nodes(const MeshTopology& t, unsigned ports) {
  std::vector<MeshCoord> out;
  for (unsigned p = 0; p < ports; ++p) {
    const std::uint64_t y = (2ULL * p + 1) * t.rows() / (2ULL * ports);
    out.push_back({0, static_cast<unsigned>(y)});
  }
  return out;
}

std::vector<MeshCoord> default_controller_nodes(const MeshTopology& t, unsigned controllers) {
  std::vector<MeshCoord> out;
  for (unsigned c = 0; c < controllers; ++c) {
    const std::uint64_t n = (2ULL * c + 1) * t.nodes() / (2ULL * controllers);
    out.push_back(t.coord({static_cast<unsigned>(n)}));
  }
  return out;
}

std::optional<std::string> check_placement(const MeshTopology& t,
                                           const std::vector<MeshCoord>& nodes, unsigned expected) {
  if (nodes.size() != expected) {
    return "expected " + std::to_string(expected) + " entries (one [x, y] per endpoint), got " +
           std::to_string(nodes.size());
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!t.contains(nodes[i])) {
      return "entry " + std::to_string(i) + " [" + std::to_string(nodes[i].x) + ", " +
             std::to_string(nodes[i].y) + "] is outside the " + std::to_string(t.cols()) + " x " +
             std::to_string(t.rows()) + " mesh (x in 0.." + std::to_string(t.cols() - 1) +
             ", y in 0.." + std::to_string(t.rows() - 1) + ")";
    }
  }
  return std::nullopt;
}

namespace {
// Busiest cut of a line of k nodes: max over c of c (k - c) / k.
double line_load(unsigned k) {
  double best = 0;
  for (unsigned c = 1; c < k; ++c) {
    best = std::max(best, static_cast<double>(c) * (k - c) / k);
  }
  return best;
}
}  // namespace

double max_channel_load_uniform(const MeshTopology& t) {
  return std::max(line_load(t.cols()), line_load(t.rows()));
}

double uniform_saturation_flits_per_node(const MeshTopology& t, double channel_flits_per_cycle,
                                         double injection_flits_per_cycle) {
  const double load = max_channel_load_uniform(t);
  if (load == 0) return injection_flits_per_cycle;  // a single node: no mesh links
  return std::min(injection_flits_per_cycle, channel_flits_per_cycle / load);
}

LinkShare busiest_link_share(const MeshTopology& t, const std::vector<MeshCoord>& sources,
                             const std::vector<MeshCoord>& dests) {
  // Messages per directed link, indexed node x kMeshDirs + the direction it leaves in.
  std::vector<std::uint64_t> crossing(static_cast<std::size_t>(t.nodes()) * kMeshDirs, 0);
  for (const MeshCoord& s : sources) {
    for (const MeshCoord& d : dests) {
      const MeshNode dest = t.node(d);
      for (MeshNode at = t.node(s); at != dest;) {
        const MeshDir dir = t.xy_route(at, dest);
        ++crossing[static_cast<std::size_t>(at.index) * kMeshDirs + static_cast<unsigned>(dir)];
        at = *t.neighbour(at, dir);
      }
    }
  }
  // The first of the busiest, by node and direction.
  const std::size_t i = static_cast<std::size_t>(
      std::max_element(crossing.begin(), crossing.end()) - crossing.begin());
  LinkShare best;
  if (crossing[i] == 0) return best;
  best.share = static_cast<double>(crossing[i]) /
               (static_cast<double>(sources.size()) * static_cast<double>(dests.size()));
  best.from = {static_cast<unsigned>(i / kMeshDirs)};
  best.to = *t.neighbour(best.from, static_cast<MeshDir>(i % kMeshDirs));
  return best;
}

}  // namespace famsim
