// Device port logic: the expansion device's fabric ports. Each port turns fabric messages into
// internal requests, tracks them in a tag table, splits a request that crosses interleave granules
// into one request per channel and reassembles its answer, and schedules responses back onto the
// fabric in order or out of order.
//
// Ports (one pair per fabric port p)
//   fabric(p)    target socket: requests in from the fabric link, responses back onto it
//   internal(p)  initiator socket: decoded requests on to the device NoC, responses in
//
// Parameters (PortLogicParams; YAML devices[].port_logic)
//   clock_mhz        device clock; decisions on its edges
//   ingress_cycles   de-framing, protocol conversion and address decode latency per request
//   egress_cycles    response scheduling and framing latency per response
//   width_bytes      datapath bytes per cycle of each pipeline: a message with D data bytes holds
//                    its pipeline for max(1, ceil(D / width_bytes)) cycles (the throughput) and
//                    leaves after its last beat
//   tags_per_port    the tag table: requests a port tracks at once. A request takes a tag when it
//                    is accepted and frees it when its response leaves. No free tag: END_REQ is
//                    withheld, so the link stops returning credits and the fabric backs up.
//   response_order   out_of_order (default): a response leaves as soon as it is complete.
//                    in_order: responses to one source (issuing GPU) leave a port in the order that
//                    source's requests arrived at it; a finished response waits for older ones.
//   atomic_cycles    the atomic unit's latency (fetch-add, compare-and-swap): an atomic's answer
//                    waits this long before its response is scheduled. The memory channel does
//                    the read-modify-write itself (models/memory/atomic.h: a read and a write-back
//                    of the word's burst), so atomics on one word are serialised there.
//   address map      the device's physical range (base, size) and the channel interleave
//                    (models/memory/address_map.h)
//
// Splitting: a request whose bytes span several interleave granules becomes one part per granule
// (each part a pooled payload to its channel, write data copied in); read data is copied back into
// the request as parts answer, and the response is scheduled when the last part is in. That last
// part's hop records beyond the port are appended to the request's (RequestExt::continue_with),
// so a split request's latency breaks down by hop like any other's. All parts
// of a request are ready together and go to the NoC one after another. An atomic must sit in one
// naturally aligned 4 or 8 B word.
//
// Timing: each pipeline (ingress, egress) of a port starts a message at the first free edge s >=
// its arrival and holds it for its beats; it leaves at s + (cycles + beats - 1) x period.
//
// Statistics (components.<name>): bytes, utilization (the busiest of the ports' tag tables, by
// mean occupancy, and pipelines, by busy time; both are resources of the bottleneck analysis),
// backpressure_ns (requests held for want of a tag), split_requests, parts, atomics,
// reorder_wait_ns (in_order: time finished responses waited for older ones), and per port:
// requests, mean_tags_in_use, max_tags_in_use, backpressure_ns.
#pragma once

#include "models/core/clock.h"
#include "models/core/occupancy.h"
#include "models/core/ports.h"
#include "models/core/ring.h"
#include "models/core/sim_context.h"
#include "models/core/wakeup.h"
#include "models/memory/address_map.h"

#include <systemc>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace famsim {

struct PortLogicParams {
  double clock_mhz = 1000;
  unsigned ingress_cycles = 8;
  unsigned egress_cycles = 8;
  unsigned tags_per_port = 256;
  unsigned width_bytes = 256;
  bool in_order = false;  // response_order
  unsigned atomic_cycles = 4;
};

class PortLogic : public sc_core::sc_module, public Component {
 public:
  PortLogic(sc_core::sc_module_name name, SimContext& ctx, const PortLogicParams& params,
            unsigned ports, std::uint64_t base, std::uint64_t size, const AddressMap& map);

  // Fabric port p, where a link or a TlmBridge binds (std::out_of_range naming the device's port
  // count for a port it does not have: an sc_main of one's own binding by hand).
  TargetPort<PortLogic>& fabric(unsigned p) {
    if (p >= fabric_.size()) {
      throw std::out_of_range(std::string(name()) + ": fabric port " + std::to_string(p) +
                              " does not exist; the device has " + std::to_string(fabric_.size()) +
                              " (fabric_ports)");
    }
    return *fabric_[p];
  }
  InitiatorPort<PortLogic>& internal(unsigned p) { return *internal_[p]; }
  unsigned ports() const { return static_cast<unsigned>(fabric_.size()); }

  Sync fw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time& t);
  Sync bw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time& t);

  void report(ComponentReport& r, const ReportWindow& window) const override;
  void probes(std::vector<ResourceProbe>& out) const override;
  std::size_t occupancy() const override;

 private:
  struct Staged {
    Payload* payload = nullptr;
    std::uint64_t ready_ps = 0;
  };
  // A tag-table entry: one fabric request from acceptance until its response leaves.
  struct Tag {
    Payload* request = nullptr;
    unsigned parts_left = 0;  // parts (or the request itself) not yet answered
    bool split = false;       // the request went down as parts
    bool done = false;        // every part answered (in_order: waiting for older responses)
    std::uint64_t done_ps = 0;
  };
  struct Port {
    std::vector<Tag> tags;
    Ring<std::uint32_t> free_tags;
    // in_order: per source (issuing GPU), its tags in arrival order.
    std::vector<Ring<std::uint32_t>> by_source;
    Ring<Staged> ingress;
    Ring<Staged> egress;
    Ring<Staged> atomic_unit;  // answered atomics for atomic_cycles (a constant: FIFO order)
    HoldSlot hold;
    bool crossbar_busy = false;
    bool fabric_busy = false;
    OccupancyGauge tags_in_use;  // of tags_per_port
    std::uint64_t ingress_free_ps = 0;
    std::uint64_t egress_free_ps = 0;
    // Each pipeline's busy time: its messages' beats (a server's work, for the bottleneck
    // analysis).
    std::uint64_t ingress_busy_ps = 0;
    std::uint64_t egress_busy_ps = 0;
    // Statistics.
    std::uint64_t requests = 0;
    std::uint64_t bytes = 0;
    std::uint64_t backpressure_ps = 0;
  };

  void take_tag(unsigned idx, Payload& p, std::uint64_t now_ps);
  void check_request(const RequestExt& e) const;
  void change_tags(Port& port, int delta, std::uint64_t now_ps);
  // Starts a message of `data_bytes` in a pipeline that is free from `free_ps` and has been busy
  // `busy_ps` (both moved on); returns when it leaves, `cycles` after its start plus its beats
  // after the first.
  std::uint64_t pipeline(std::uint64_t& free_ps, std::uint64_t& busy_ps, std::uint64_t now_ps,
                         unsigned data_bytes, unsigned cycles) const;
  // The pipelines as resources of the bottleneck analysis: one's name, capacity and unit (as the
  // report and the per-phase probes give it), and what limits them.
  ResourceUse pipeline_use(bool ingress, unsigned port) const;
  std::string pipeline_advice() const;
  void part_answered(Port& port, Payload& part, std::uint64_t now_ps);
  void finish_tag(Port& port, std::uint32_t tag, std::uint64_t now_ps);
  void to_egress(Port& port, Tag& t, std::uint64_t now_ps);
  // Port `idx` has something to do at `at_ps`: wake then.
  void due(unsigned idx, std::uint64_t at_ps, std::uint64_t now_ps) {
    port_due_[idx] = std::min(port_due_[idx], at_ps);
    wake_.at(at_ps, now_ps);
  }
  friend class Wakeup;  // runs behaviour()
  void behaviour();

  SimContext& ctx_;
  PortLogicParams params_;
  Clock clock_;
  std::uint64_t base_;
  std::uint64_t size_;
  AddressMap map_;
  std::vector<std::unique_ptr<TargetPort<PortLogic>>> fabric_;
  std::vector<std::unique_ptr<InitiatorPort<PortLogic>>> internal_;
  std::vector<Port> ports_;
  // Per port, the earliest time it may have something to do (never later than its real next
  // event): the behaviour looks only at ports that are due, not at every port at every wake-up.
  std::vector<std::uint64_t> port_due_;
  Wakeup wake_;
  // Statistics over all ports.
  std::uint64_t split_requests_ = 0;
  std::uint64_t parts_ = 0;
  std::uint64_t atomics_ = 0;
  std::uint64_t reorder_wait_ps_ = 0;
};

}  // namespace famsim
