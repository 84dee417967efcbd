// Device port logic: the expansion device's fabric ports. First cut; the device issue adds
// protocol conversion, request splitting/merging, atomics and response ordering.
//
// Ports (one pair per fabric port p)
//   fabric(p)    target socket: requests in from the fabric link, responses back onto it
//   internal(p)  initiator socket: decoded requests on to the device crossbar, responses in
//
// Parameters (PortLogicParams)
//   clock_mhz        device clock; decisions on its edges
//   ingress_cycles   de-framing + decode latency per request
//   egress_cycles    response scheduling latency per response
//   tags_per_port    outstanding requests a port tracks; a request takes a tag when accepted and
//                    frees it when its response leaves. No free tag: END_REQ is withheld, which
//                    backpressures the link (and, through it, the fabric).
//   address map      the device's physical range (base, size) and the channel interleave
//
// Timing: each pipeline (ingress, egress) of a port starts at most one message per cycle; a
// request accepted at t starts ingress at the first free edge s >= t and is handed to the
// crossbar at s + ingress_cycles; responses likewise through egress.
//
// Statistics: bytes, utilization (mean tag occupancy of the busiest port), backpressure_ns,
// requests per port, mean tags in use.
#pragma once

#include "models/core/clock.h"
#include "models/core/ports.h"
#include "models/core/ring.h"
#include "models/core/sim_context.h"
#include "models/core/wakeup.h"
#include "models/memory/address_map.h"

#include <systemc>

#include <memory>
#include <vector>

namespace famsim {

struct PortLogicParams {
  double clock_mhz = 1000;
  unsigned ingress_cycles = 8;
  unsigned egress_cycles = 8;
  unsigned tags_per_port = 256;
};

class PortLogic : public sc_core::sc_module, public Component {
 public:
  PortLogic(sc_core::sc_module_name name, SimContext& ctx, const PortLogicParams& params,
            unsigned ports, std::uint64_t base, std::uint64_t size, const AddressMap& map);

  TargetPort<PortLogic>& fabric(unsigned p) { return *fabric_[p]; }
  InitiatorPort<PortLogic>& internal(unsigned p) { return *internal_[p]; }
  unsigned ports() const { return static_cast<unsigned>(fabric_.size()); }

  Sync fw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time& t);
  Sync bw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time& t);

  void report(ComponentReport& r, const ReportWindow& window) const override;
  std::size_t occupancy() const override;

 private:
  struct Staged {
    Payload* payload = nullptr;
    std::uint64_t ready_ps = 0;
  };
  struct Port {
    Ring<Staged> ingress;
    Ring<Staged> egress;
    HoldSlot hold;
    bool crossbar_busy = false;
    bool fabric_busy = false;
    unsigned tags_in_use = 0;
    std::uint64_t ingress_free_ps = 0;
    std::uint64_t egress_free_ps = 0;
    // Statistics.
    std::uint64_t requests = 0;
    std::uint64_t bytes = 0;
    std::uint64_t backpressure_ps = 0;
    std::uint64_t tag_time_integral = 0;  // sum of tags_in_use x ps
    std::uint64_t last_change_ps = 0;
  };

  void take_tag(Port& port, Payload& p, std::uint64_t now_ps);
  void change_tags(Port& port, int delta, std::uint64_t now_ps);
  std::uint64_t pipeline_slot(std::uint64_t& free_ps, std::uint64_t now_ps) const;
  friend class Wakeup;  // runs behaviour()
  void behaviour();

  PortLogicParams params_;
  Clock clock_;
  std::uint64_t base_;
  std::uint64_t size_;
  AddressMap map_;
  std::vector<std::unique_ptr<TargetPort<PortLogic>>> fabric_;
  std::vector<std::unique_ptr<InitiatorPort<PortLogic>>> internal_;
  std::vector<Port> ports_;
  Wakeup wake_;
};

}  // namespace famsim
