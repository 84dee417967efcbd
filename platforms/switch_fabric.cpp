#include "platforms/switch_fabric.h"

#include "models/core/bottleneck.h"

#include <fmt/format.h>

namespace famsim {

SwitchFabric::SwitchFabric(
    SimContext& ctx, const PlatformConfig& cfg, const FabricPlan& plan,
    const std::function<std::unique_ptr<Routing>(unsigned plane)>& endpoint_routing)
    : plan_(plan) {
  const CrossbarParams& xbar = cfg.sw.xbar;
  const std::uint64_t interleave = cfg.gpu.request_bytes;
  planes_.resize(plan.planes());
  for (unsigned k = 0; k < plan.planes(); ++k) {
    const std::string prefix = plan.planes() > 1 ? fmt::format("plane{}_", k) : std::string();
    Plane& pl = planes_[k];
    if (!plan.shape().leaf_spine) {
      pl.leaves.push_back(std::make_unique<Crossbar>((prefix + "switch").c_str(), ctx,
                                                     BlockKind::kSwitch, xbar, plan.gpu_inputs(k),
                                                     plan.out_endpoints(k), endpoint_routing(k)));
      continue;
    }
    const unsigned U = plan.uplinks();
    const unsigned S = plan.spines();
    const unsigned u = plan.links_per_leaf_and_spine();
    const unsigned leaves = plan.leaves(k);
    for (unsigned i = 0; i < leaves; ++i) {
      const unsigned a = plan.leaf_inputs(k, i);
      const unsigned b = plan.leaf_outputs(k, i);
      auto routing = std::make_unique<LeafRouting>(endpoint_routing(k), plan.local_outputs(k, i), b,
                                                   U, interleave);
      pl.leaves.push_back(std::make_unique<Crossbar>((prefix + fmt::format("leaf{}", i)).c_str(),
                                                     ctx, BlockKind::kSwitch, xbar, a + U, b + U,
                                                     std::move(routing)));
      // For the bottleneck ranking: requests from the leaf's endpoints (and the responses coming
      // back down to them from the uplinks) meet it as the source leaf; requests coming down from
      // the spines (and responses from its endpoints) as the destination leaf. An up port's
      // request input and response output serve the same traffic, and so do a down port's
      // response input and request output: each output buffer sits just after its port's input.
      Crossbar& leaf = *pl.leaves.back();
      for (unsigned p = 0; p < a + U; ++p) {
        const double d = switch_stage_depth(p < a ? 0 : 2);
        leaf.set_input_path_depth(false, p, d);
        leaf.set_output_path_depth(true, p, output_buffer_depth(d, true));
      }
      for (unsigned p = 0; p < b + U; ++p) {
        const double d = switch_stage_depth(p < b ? 2 : 0);
        leaf.set_input_path_depth(true, p, d);
        leaf.set_output_path_depth(false, p, output_buffer_depth(d, false));
      }
    }
    for (unsigned s = 0; s < S; ++s) {
      auto routing = std::make_unique<SpineRouting>(endpoint_routing(k), plan.leaf_of_outputs(k), u,
                                                    interleave);
      pl.spines.push_back(std::make_unique<Crossbar>((prefix + fmt::format("spine{}", s)).c_str(),
                                                     ctx, BlockKind::kSwitch, xbar, leaves * u,
                                                     leaves * u, std::move(routing)));
      for (unsigned p = 0; p < leaves * u; ++p) {
        pl.spines.back()->set_input_path_depth(false, p, switch_stage_depth(1));
        pl.spines.back()->set_input_path_depth(true, p, switch_stage_depth(1));
      }
    }
    // Uplink x of leaf i: its t = x / S-th link to spine s = x mod S, one bidirectional Link
    // carrying requests both ways (up to the spine and down from it) on separate channels.
    for (unsigned i = 0; i < leaves; ++i) {
      Crossbar& leaf = *pl.leaves[i];
      const unsigned a = plan.leaf_inputs(k, i);
      const unsigned b = plan.leaf_outputs(k, i);
      for (unsigned x = 0; x < U; ++x) {
        const unsigned s = x % S;
        const unsigned t = x / S;
        Crossbar& spine = *pl.spines[s];
        const std::string name = prefix + fmt::format("leaf{}_spine{}_link{}", i, s, t);
        links_.push_back(
            std::make_unique<Link>(name.c_str(), ctx, cfg.leaf_spine_link.params, true));
        Link& link = *links_.back();
        link.set_deliver_at_head(xbar.forwarding == Forwarding::kCutThrough);
        leaf.down(b + x).bind(link.up);
        link.down.bind(spine.up(i * u + t));
        link.set_ends(leaf.name(), spine.name());
        // Side A (the leaf) sends requests up into the spine; side B (the spine) sends them down
        // into the destination leaf.
        link.set_path_depths(link_into_switch_stage_depth(1), link_into_switch_stage_depth(2));
        spine.down(i * u + t).bind(link.reverse_up());
        link.reverse_down().bind(leaf.up(a + x));
      }
    }
  }
}

TargetPort<Crossbar>& SwitchFabric::gpu_input(unsigned g, unsigned l) {
  const unsigned k = plan_.plane_of_link(l);
  const FabricPlan::Attach at = plan_.input_attach(k, plan_.gpu_input(g, l));
  return planes_[k].leaves[at.leaf]->up(at.port);
}

InitiatorPort<Crossbar>& SwitchFabric::peer_output(unsigned g, unsigned l) {
  const unsigned k = plan_.plane_of_link(l);
  const FabricPlan::Attach at = plan_.output_attach(k, plan_.peer_output(g, l));
  return planes_[k].leaves[at.leaf]->down(at.port);
}

InitiatorPort<Crossbar>& SwitchFabric::device_output(unsigned d, unsigned p) {
  const unsigned k = plan_.plane_of_device_port(p);
  const FabricPlan::Attach at = plan_.output_attach(k, plan_.device_output(d, p));
  return planes_[k].leaves[at.leaf]->down(at.port);
}

unsigned SwitchFabric::longest_chip_path() const { return plan_.shape().leaf_spine ? 3 : 1; }

std::vector<const Crossbar*> SwitchFabric::chips() const {
  std::vector<const Crossbar*> out;
  for (const Plane& pl : planes_) {
    for (const auto& c : pl.leaves) out.push_back(c.get());
    for (const auto& c : pl.spines) out.push_back(c.get());
  }
  return out;
}

}  // namespace famsim
