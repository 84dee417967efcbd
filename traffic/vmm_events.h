// Timed changes to the VMM address space during a run (workload vmm_events, see
// traffic/workload_config.h VmmEventConfig): unmap, set_access and remap of a stream's buffer, each
// starting at its time and taking effect its cost later, as a driver call does. A GPU translating
// an address between a remap's unmap and map faults (on_fault decides what that does).
//
// The player is a block with no ports: it wakes only at the times of its actions.
#pragma once

#include "models/core/sim_context.h"
#include "models/core/wakeup.h"

#include <systemc>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace famsim {

class VmmEventPlayer : public sc_core::sc_module, public Component {
 public:
  struct Action {
    std::uint64_t at_ps = 0;
    std::string what;             // for the report and errors (names the workload key)
    std::string source;           // "file:line" of the event, for errors
    std::function<void()> apply;  // changes the address space
  };

  VmmEventPlayer(sc_core::sc_module_name name, SimContext& ctx, std::vector<Action> actions);

  void report(ComponentReport& r, const ReportWindow& window) const override;
  std::size_t occupancy() const override { return 0; }

 private:
  friend class Wakeup;
  void behaviour();

  SimContext& ctx_;
  std::vector<Action> actions_;  // by time, stable
  std::size_t done_ = 0;
  Wakeup wake_;
};

}  // namespace famsim
