#include "platforms/fabric_plan.h"

#include <fmt/format.h>

#include <stdexcept>

namespace famsim {

FabricPlan::FabricPlan(const FabricShape& shape) : shape_(shape) {
  const unsigned P = shape_.planes;
  if (P == 0) throw std::invalid_argument("a fabric needs at least one switch plane");
  if (shape_.links_per_gpu < P) {
    throw std::invalid_argument(
        fmt::format("impossible topology: each GPU has {} links but there are {} switch planes "
                    "(every GPU needs a link on every plane)",
                    shape_.links_per_gpu, P));
  }
  for (std::size_t d = 0; d < shape_.device_ports.size(); ++d) {
    if (shape_.device_ports[d] < P) {
      throw std::invalid_argument(fmt::format(
          "impossible topology: device {} has {} fabric ports but there are {} switch planes "
          "(every device needs a port on every plane)",
          d, shape_.device_ports[d], P));
    }
  }

  unsigned physical_max = 0;
  planes_.resize(P);
  for (unsigned k = 0; k < P; ++k) {
    Plane& pl = planes_[k];
    for (std::size_t d = 0; d < shape_.device_ports.size(); ++d) {
      pl.first_dev.push_back(pl.device_endpoints);
      pl.device_endpoints += device_ports_in_plane(static_cast<unsigned>(d), k);
    }
    physical_max = std::max(physical_max, gpu_inputs(k) + pl.device_endpoints);
  }

  unsigned per_leaf = physical_max;  // single: one leaf takes every endpoint
  if (shape_.leaf_spine) {
    if (shape_.leaf_down_ports == 0 || shape_.leaf_down_ports >= shape_.radix) {
      throw std::invalid_argument(fmt::format(
          "a leaf needs between 1 and radix - 1 = {} endpoint ports, got {} (the rest of its "
          "radix are uplinks to the spines)",
          shape_.radix - 1, shape_.leaf_down_ports));
    }
    if (shape_.spines == 0) throw std::invalid_argument("a leaf/spine plane needs spines >= 1");
    per_leaf = shape_.leaf_down_ports;
    uplinks_ = shape_.radix - shape_.leaf_down_ports;
    if (uplinks_ % shape_.spines != 0) {
      throw std::invalid_argument(fmt::format(
          "impossible topology: a leaf's {} uplinks (radix {} - {} endpoint ports) do not divide "
          "evenly over {} spines",
          uplinks_, shape_.radix, shape_.leaf_down_ports, shape_.spines));
    }
    per_pair_ = uplinks_ / shape_.spines;
  } else if (physical_max > shape_.radix) {
    throw std::invalid_argument(
        fmt::format("impossible topology: a switch plane needs {} ports ({} GPUs x {} links + "
                    "device ports), radix is {}",
                    physical_max, shape_.gpus, gpu_links_in_plane(0), shape_.radix));
  }

  for (unsigned k = 0; k < P; ++k) {
    Plane& pl = planes_[k];
    const unsigned inputs = gpu_inputs(k);
    const unsigned physical = inputs + pl.device_endpoints;
    const unsigned leaves = std::max(1u, (physical + per_leaf - 1) / per_leaf);
    max_leaves_ = std::max(max_leaves_, leaves);
    pl.leaf_inputs.assign(leaves, 0);
    pl.leaf_outputs.assign(leaves, 0);
    // Physical endpoint x: GPU input x for x < inputs, device endpoint x - inputs after.
    for (unsigned x = 0; x < inputs; ++x) {
      const unsigned leaf = x / per_leaf;
      pl.in_attach.push_back({leaf, pl.leaf_inputs[leaf]++});
    }
    const unsigned outs = out_endpoints(k);
    for (unsigned o = 0; o < outs; ++o) {
      const unsigned x = o < pl.device_endpoints ? inputs + o : o - pl.device_endpoints;
      const unsigned leaf = x / per_leaf;
      pl.out_attach.push_back({leaf, pl.leaf_outputs[leaf]++});
    }
  }
  if (shape_.leaf_spine && spine_ports() > shape_.radix) {
    throw std::invalid_argument(fmt::format(
        "impossible topology: each spine needs {} leaves x {} links = {} ports, radix is {} "
        "(use more spines, fewer uplinks per leaf or more endpoint ports per leaf)",
        max_leaves_, per_pair_, spine_ports(), shape_.radix));
  }
}

std::vector<unsigned> FabricPlan::leaf_of_outputs(unsigned k) const {
  std::vector<unsigned> out;
  for (const Attach& a : planes_[k].out_attach) out.push_back(a.leaf);
  return out;
}

std::vector<unsigned> FabricPlan::local_outputs(unsigned k, unsigned leaf) const {
  std::vector<unsigned> out;
  for (const Attach& a : planes_[k].out_attach) out.push_back(a.leaf == leaf ? a.port : kNone);
  return out;
}

}  // namespace famsim
