// Fabric plan: which switch chip and which of its ports every fabric endpoint lands on. Pure C++,
// no SystemC: the platform builder wires modules from it, the tests check it by hand.
//
// Planes. A scale-up domain may have several parallel switch planes (HGX H100 spreads each GPU's
// 18 NVLink4 links over 4 NVSwitch chips, 5+5+4+4; GB200 NVL72 gives each GPU one link to each of
// 18 switch chips). GPU link l and device fabric port p sit on plane l mod planes and p mod
// planes. A GPU picks its link from the request's address (a hash over all its links, models/gpu),
// so traffic is spread across planes by that address hash, each plane carrying a share in
// proportion to the GPU links it has. Every GPU and every device needs a port on every plane.
//
// Endpoints of one plane k:
//   GPU inputs     one per GPU link on the plane, GPU-major: input g x n_k + j is link k + j x
//   planes
//                  of GPU g (n_k = the GPU links on plane k)
//   out-endpoints  where requests leave the plane: the device ports on it (device-major: device d's
//                  ports p = k, k + planes, ...), then, with peer paths, the peer outputs (the
//                  switch-to-GPU halves of the GPU links), numbered like the GPU inputs.
// The routing policies (models/noc/routing.h) name out-endpoints; a single switch's down port is
// its out-endpoint index.
//
// Topologies of one plane:
//   single      one switch chip: up ports = GPU inputs, down ports = out-endpoints.
//   leaf_spine  two levels for pods beyond one chip's radix. Physical endpoint ports (GPU links
//               first, GPU-major, then device ports, device-major) fill leaves in order,
//               `leaf_down_ports` each. Each leaf has U = radix - leaf_down_ports uplinks; uplink x
//               goes to spine x mod spines, so a leaf has u = U / spines links to every spine.
//               Leaf i's crossbar:
//                 up ports    its GPU inputs (in plane order), then U inputs from the spines
//                             (input a_i + x carries uplink x's spine-to-leaf direction)
//                 down ports  its out-endpoints (in out-endpoint order), then the U uplinks
//               Spine s's crossbar: up port i x u + t and down port i x u + t are the two
//               directions of leaf i's t-th link to it (uplink t x spines + s of leaf i).
#pragma once

#include <cstdint>
#include <vector>

namespace famsim {

struct FabricShape {
  unsigned gpus = 1;
  unsigned links_per_gpu = 1;
  std::vector<unsigned> device_ports;  // fabric ports of each device
  bool peers = false;                  // peer outputs towards the GPUs
  unsigned planes = 1;
  bool leaf_spine = false;
  unsigned radix = 64;           // ports per switch chip
  unsigned leaf_down_ports = 0;  // leaf_spine: endpoint ports per leaf
  unsigned spines = 0;           // leaf_spine: spine chips per plane
};

class FabricPlan {
 public:
  static constexpr unsigned kNone = ~0U;

  // A leaf and one of its crossbar ports.
  struct Attach {
    unsigned leaf = 0;
    unsigned port = 0;
  };

  // Throws std::invalid_argument with a sentence saying what is impossible (a plane without a
  // port of some GPU or device, more ports than the radix, uplinks that do not divide evenly
  // over the spines, more leaf links than a spine's radix).
  explicit FabricPlan(const FabricShape& shape);

  const FabricShape& shape() const { return shape_; }
  unsigned planes() const { return shape_.planes; }
  unsigned plane_of_link(unsigned l) const { return l % shape_.planes; }
  unsigned plane_of_device_port(unsigned p) const { return p % shape_.planes; }

  // Plane k's endpoint counts.
  unsigned gpu_links_in_plane(unsigned k) const { return per_plane_count(shape_.links_per_gpu, k); }
  unsigned gpu_inputs(unsigned k) const { return shape_.gpus * gpu_links_in_plane(k); }
  unsigned device_ports_in_plane(unsigned d, unsigned k) const {
    return per_plane_count(shape_.device_ports[d], k);
  }
  unsigned first_device_endpoint(unsigned d, unsigned k) const { return planes_[k].first_dev[d]; }
  unsigned device_endpoints(unsigned k) const { return planes_[k].device_endpoints; }
  unsigned out_endpoints(unsigned k) const {
    return device_endpoints(k) + (shape_.peers ? gpu_inputs(k) : 0);
  }

  // The plane-local index of GPU g's link l (as a GPU input), of its peer output, and of device
  // d's port p (as an out-endpoint). The plane is plane_of_link(l) / plane_of_device_port(p).
  unsigned gpu_input(unsigned g, unsigned l) const {
    return g * gpu_links_in_plane(plane_of_link(l)) + l / shape_.planes;
  }
  unsigned peer_output(unsigned g, unsigned l) const {
    return device_endpoints(plane_of_link(l)) + gpu_input(g, l);
  }
  unsigned device_output(unsigned d, unsigned p) const {
    return first_device_endpoint(d, plane_of_device_port(p)) + p / shape_.planes;
  }

  // Leaf/spine (single topology: one leaf holding every endpoint, no uplinks).
  unsigned leaves(unsigned k) const { return static_cast<unsigned>(planes_[k].leaf_inputs.size()); }
  unsigned spines() const { return shape_.leaf_spine ? shape_.spines : 0; }
  unsigned uplinks() const { return uplinks_; }                    // U, per leaf
  unsigned links_per_leaf_and_spine() const { return per_pair_; }  // u
  unsigned leaf_inputs(unsigned k, unsigned i) const { return planes_[k].leaf_inputs[i]; }
  unsigned leaf_outputs(unsigned k, unsigned i) const { return planes_[k].leaf_outputs[i]; }
  Attach input_attach(unsigned k, unsigned gpu_input) const {
    return planes_[k].in_attach[gpu_input];
  }
  Attach output_attach(unsigned k, unsigned out_endpoint) const {
    return planes_[k].out_attach[out_endpoint];
  }
  // Out-endpoint -> its leaf, for the routing policies.
  std::vector<unsigned> leaf_of_outputs(unsigned k) const;
  // Out-endpoint -> its down port on `leaf`, kNone where it sits on another leaf.
  std::vector<unsigned> local_outputs(unsigned k, unsigned leaf) const;
  unsigned spine_ports() const { return max_leaves_ * per_pair_; }

 private:
  struct Plane {
    std::vector<unsigned> first_dev;
    unsigned device_endpoints = 0;
    std::vector<unsigned> leaf_inputs;   // a_i
    std::vector<unsigned> leaf_outputs;  // b_i
    std::vector<Attach> in_attach;       // per GPU input
    std::vector<Attach> out_attach;      // per out-endpoint
  };
  unsigned per_plane_count(unsigned n, unsigned k) const {
    return n > k ? (n - k + shape_.planes - 1) / shape_.planes : 0;
  }

  FabricShape shape_;
  std::vector<Plane> planes_;
  unsigned uplinks_ = 0;
  unsigned per_pair_ = 0;
  unsigned max_leaves_ = 0;
};

}  // namespace famsim
