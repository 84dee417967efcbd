// Crossbar: N upstream ports x M downstream ports with FIFO input buffers, per-output arbitration,
// a pipelined datapath and finite output buffers, in both directions (requests downstream,
// responses upstream, each on its own buffers so a response never waits behind a request).
// The scale-up switch and the device's on-chip crossbar are both this block with different
// routing (physical address ranges, or the decoded memory channel).
//
// Ports
//   up[i]    target sockets (initiators' side)
//   down[j]  initiator sockets (targets' side)
//
// Parameters (CrossbarParams)
//   clock_mhz        every decision lands on an edge of this clock
//   pipeline_cycles  cycles from winning arbitration to the message leaving the block
//   width_bytes      datapath width: a message with D data bytes holds its output for
//                    max(1, ceil(D / width_bytes)) cycles (beats); bandwidth per port = width x
//                    clock
//   input_buffer     messages per input port per direction
//   output_buffer    messages per output port per direction (in the pipeline or waiting downstream)
//
// Timing: a message that reaches an input FIFO head at t competes at the first edge e > t
// (inputs are sampled on the edge after they arrive, so a decision never depends on the order
// of events at the same instant). The winner of output o at edge e leaves at
// e + (pipeline_cycles + beats) x period; o can be won again at e + beats x period. Output
// arbitration is round-robin over the inputs whose head message wants that output (so a FIFO
// input blocks behind its head: head-of-line blocking is modelled).
//
// Statistics: bytes, utilization (busiest output), backpressure_ns (inputs held back), mean
// output utilisation, delayed grants (messages that reached an input head but were granted their
// output only at a later edge: lost arbitration, output still busy or its buffer full) and the
// cycles they waited. Counted from grant times, so the result does not depend on the order in
// which same-time events run.
#pragma once

#include "models/core/clock.h"
#include "models/core/ports.h"
#include "models/core/ring.h"
#include "models/core/sim_context.h"
#include "models/core/wakeup.h"
#include "models/noc/arbiter.h"
#include "models/noc/routing.h"

#include <systemc>

#include <array>
#include <memory>
#include <vector>

namespace famsim {

struct CrossbarParams {
  double clock_mhz = 1500;
  unsigned pipeline_cycles = 4;
  unsigned width_bytes = 64;
  unsigned input_buffer = 16;
  unsigned output_buffer = 8;
};

class Crossbar : public sc_core::sc_module, public Component {
 public:
  Crossbar(sc_core::sc_module_name name, SimContext& ctx, const CrossbarParams& params,
           unsigned up_ports, unsigned down_ports, std::unique_ptr<Routing> routing);

  TargetPort<Crossbar>& up(unsigned i) { return *up_[i]; }
  InitiatorPort<Crossbar>& down(unsigned j) { return *down_[j]; }
  unsigned up_ports() const { return static_cast<unsigned>(up_.size()); }
  unsigned down_ports() const { return static_cast<unsigned>(down_.size()); }
  const CrossbarParams& params() const { return params_; }
  const Clock& clock() const { return clock_; }

  Sync fw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time& t);
  Sync bw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time& t);

  void report(ComponentReport& r, const ReportWindow& window) const override;
  std::size_t occupancy() const override;

 private:
  static constexpr unsigned kNone = ~0U;
  // A queued message with what arbitration needs worked out on arrival, while its extension is
  // in cache (at the arbitration edge it usually is not).
  struct Queued {
    Payload* payload = nullptr;
    unsigned dest = 0;
    unsigned data = 0;
  };
  struct Input {
    Ring<Queued> fifo;
    HoldSlot hold;
    std::uint64_t backpressure_ps = 0;
    std::uint64_t head_eligible_ps = 0;
  };
  struct Staged {
    Payload* payload = nullptr;
    std::uint64_t leave_ps = 0;
  };
  struct Output {
    Ring<Staged> pipe;
    bool far_end_busy = false;
    std::uint64_t free_at_ps = 0;
    std::uint64_t busy_ps = 0;
    std::uint64_t bytes = 0;
    std::uint64_t messages = 0;
    RequestSet requesters;
    RoundRobinArbiter arbiter;
  };
  struct PendingHead {
    unsigned input;
    std::uint64_t eligible_ps;
  };
  struct LeaveEvent {  // a staged message of `output` is due at `leave_ps`
    std::uint64_t leave_ps;
    unsigned output;
    bool operator>(const LeaveEvent& o) const {
      return leave_ps != o.leave_ps ? leave_ps > o.leave_ps : output > o.output;
    }
  };
  // One direction of traffic: requests (up -> down) or responses (down -> up).
  struct Plane {
    bool is_request = true;
    std::vector<Input> in;
    std::vector<Output> out;
    RequestSet waiting_outputs;  // outputs with at least one registered requester
    // When staged messages are due. A message leaves pipeline + beats cycles after its grant, so
    // messages with the same beat count leave in grant order: one FIFO per beat count keeps them
    // sorted for free (a few counts occur: header-only messages, full data messages). Other
    // counts go to a heap.
    struct LeaveClass {
      std::uint64_t beats = 0;  // 0: unused
      Ring<LeaveEvent> fifo;
    };
    std::array<LeaveClass, 4> leave_classes;
    std::vector<LeaveEvent> leave_heap;  // min-heap for beat counts without a class
    std::vector<unsigned> unblocked;     // outputs whose far end just took a message back
    std::vector<PendingHead> pending_heads;
    std::vector<unsigned> popped;  // scratch, reserved at elaboration
    std::uint64_t next_arbitration_ps =
        Wakeup::kNever;  // earliest edge a waiting output can be won
    std::uint64_t delayed_grants = 0;
    std::uint64_t delay_ps = 0;
    // Beats of the last message size seen (sizes repeat: saves a division per message).
    unsigned beats_for_bytes = ~0U;
    std::uint64_t beats = 1;
  };

  void init_plane(Plane& pl, bool is_request, unsigned inputs, unsigned outputs);
  void arrive(Plane& pl, unsigned in, Payload& p, std::uint64_t now_ps);
  void schedule_head(Plane& pl, unsigned in, std::uint64_t now_ps);
  Queued classify(const Plane& pl, Payload& p) const;
  void drain_output(Plane& pl, unsigned o, std::uint64_t now_ps);
  void stage(Plane& pl, std::uint64_t beats, const LeaveEvent& ev);
  static std::uint64_t next_leave(const Plane& pl);
  void send_ready(Plane& pl, std::uint64_t now_ps);
  void arbitrate(Plane& pl, std::uint64_t edge_ps);
  std::uint64_t next_wakeup(const Plane& pl, std::uint64_t now_ps) const;
  friend class Wakeup;  // runs behaviour()
  void behaviour();

  CrossbarParams params_;
  Clock clock_;
  std::unique_ptr<Routing> routing_;
  std::vector<std::unique_ptr<TargetPort<Crossbar>>> up_;
  std::vector<std::unique_ptr<InitiatorPort<Crossbar>>> down_;
  Plane req_;
  Plane resp_;
  Wakeup wake_;
};

}  // namespace famsim
