// The scale-up switching of a platform: every plane's switch chips (one crossbar each) and, in a
// leaf/spine plane, the links between leaves and spines, laid out by a FabricPlan. The builder
// binds the GPU and device links to the endpoint ports it hands out.
//
// Names (stable keys in stats.json), with prefix "plane<k>_" when there are several planes:
//   switch                       the chip of a single-switch plane
//   leaf<i>, spine<s>            the chips of a leaf/spine plane
//   leaf<i>_spine<s>_link<t>     leaf i's t-th link to spine s
#pragma once

#include "models/core/sim_context.h"
#include "models/fabric/link.h"
#include "models/noc/crossbar.h"
#include "platforms/fabric_plan.h"
#include "platforms/platform_config.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace famsim {

class SwitchFabric {
 public:
  // `endpoint_routing(k)` makes plane k's out-endpoint routing (the routing a single switch of
  // that plane uses); leaves and spines wrap one each.
  SwitchFabric(SimContext& ctx, const PlatformConfig& cfg, const FabricPlan& plan,
               const std::function<std::unique_ptr<Routing>(unsigned plane)>& endpoint_routing);

  // Where GPU g's link l delivers its requests, where peer requests for GPU g leave on link l, and
  // where device d's port p is reached.
  TargetPort<Crossbar>& gpu_input(unsigned g, unsigned l);
  InitiatorPort<Crossbar>& peer_output(unsigned g, unsigned l);
  InitiatorPort<Crossbar>& device_output(unsigned d, unsigned p);

  // The chips a request crosses on the longest path through one plane (1 or 3).
  unsigned longest_chip_path() const;
  // The longest path's blocks inside the fabric: chips plus the links between them.
  unsigned longest_block_path() const { return 2 * longest_chip_path() - 1; }
  const FabricPlan& plan() const { return plan_; }
  std::vector<const Crossbar*> chips() const;

 private:
  struct Plane {
    std::vector<std::unique_ptr<Crossbar>> leaves;  // single topology: the one switch
    std::vector<std::unique_ptr<Crossbar>> spines;
  };
  const FabricPlan& plan_;
  std::vector<Plane> planes_;
  std::vector<std::unique_ptr<Link>> links_;
};

}  // namespace famsim
