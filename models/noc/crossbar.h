// Crossbar: N upstream ports x M downstream ports with input buffers, a matching of inputs to
// outputs at every clock edge, a pipelined datapath and finite output buffers, in both directions
// (requests downstream, responses upstream, each on its own buffers so a response never waits
// behind a request). The scale-up switch, the device's on-chip crossbar and each GPU's memory hub
// are all this block with different routing (physical address ranges or destination GPU, the
// decoded memory channel).
//
// Ports
//   up[i]    target sockets (initiators' side)
//   down[j]  initiator sockets (targets' side)
//
// Parameters (CrossbarParams; YAML keys of the switch, devices.N.noc and gpus.hub)
//   clock_mhz         every decision lands on an edge of this clock
//   pipeline_cycles   cycles from winning arbitration to the message leaving the block (plus its
//                     beats with store-and-forward, plus 1 with cut-through)
//   width_bytes       datapath width (the switch's key is port_bytes): a message with D data bytes
//                     holds its output for max(1, ceil(D / width_bytes)) cycles (beats);
//                     bandwidth per port = width x clock
//   input_buffer      messages per input port per direction; with virtual output queues, the
//                     total over that input's queues (one shared buffer), so fifo and voq are
//                     compared at equal buffering
//   output_buffer     messages per output port per direction (in the pipeline or waiting
//                     downstream)
//   input_queues      fifo (default): one FIFO per input; only its head competes, so a head
//                     waiting for a busy output blocks everything behind it (head-of-line
//                     blocking). voq: one queue per output at each input (virtual output queues,
//                     models/noc/voq.h); every queue's head competes.
//   arbiter           who wins, as a matching (each input sends and each output takes at most one
//                     message per edge; models/noc/matching.h):
//                     round_robin (default) each output round-robin over its requesters (with
//                                 VOQs: outputs in turn from a first one that advances by one
//                                 every clock edge, each skipping inputs already matched at this
//                                 edge);
//                     islip       iSLIP request-grant-accept (McKeown 1999), pointers moved only
//                                 by first-iteration accepts;
//                     oldest_first the message that has waited longest (since it reached the
//                                 block's port) wins, ties to the lower input index (with VOQs:
//                                 greedy over all input-output pairs, oldest first).
//                     With FIFO inputs each input requests one output, so all three are per-output
//                     choices; round_robin and islip then grant identically.
//   islip_iterations  iSLIP iterations per edge; default ceil(log2(max(N, M))), at least 1
//                     (iSLIP converges in fewer than log2 N iterations on average, McKeown 1999)
//   forwarding        store_and_forward (default): a message granted at edge e leaves at
//                     e + (pipeline_cycles + beats) cycles, after its last beat. cut_through: it
//                     leaves at e + (pipeline_cycles + 1) cycles, with its head beat; the output
//                     is busy for its beats either way. (Messages arrive whole: handing a message
//                     over at its first flit is the link's business.)
//
// Timing: a message that reaches the head of its FIFO (or of its virtual output queue) at t
// competes at the first edge e > t (inputs are sampled on the edge after they arrive, so a
// decision never depends on the order of events at the same instant). The winner of output o at
// edge e leaves as above; o can be won again at e + beats x period, and the input can send again
// at the next edge. An output whose buffer is full takes a grant again once a message leaves it:
// from the same edge when the message leaves at one of the block's edges (it is handed on before
// the block arbitrates), from the first edge after t when the far end takes a message back
// (END_REQ / END_RESP) at t, since that is an input like the others. The block arbitrates once
// per edge, however often it wakes at that edge: each input sends at most one message per edge.
// The block only wakes when something is due: a message to hand on, a head becoming eligible, a
// busy output freeing with a requester waiting for it.
//
// Statistics (components.<name>)
//   bytes, utilization (busiest output), backpressure_ns (inputs held back),
//   mean_output_utilization, requests, responses (messages through each direction),
//   delayed_grants (messages granted at a later edge than the one they first competed at: lost
//   arbitration, output still busy or its buffer full) and grant_delay_cycles (their wait),
//   port_bandwidth_gbps (width x clock),
//   arbitration_conflicts  (output, edge) pairs at which an output that could take a message had
//                          more than one requester, both directions;
//   lost_requests          for each edge and each output that could take a message, its
//                          requesters minus the one it granted (with VOQs an input may also lose
//                          because it was matched to another output); both directions;
//   hol_blocking_ns        head-of-line blocking, both directions, summed over inputs (below);
//   request_ports, response_ports: per-port arrays for each direction (requests come in on the
//     up ports and leave on the down ports; responses the other way), index = port:
//     input_bytes, input_messages, input_gbps     data bytes (and messages) sent from each input,
//                                                 GB/s over the report window
//     output_bytes, output_messages, output_gbps  the same per output
//     input_queue_mean, input_queue_max           messages in each input's buffer (FIFO or all its
//                                                 VOQs; not the one-entry hold slot):
//                                                 time-weighted mean over the window, maximum
//     hol_blocking_ns                             per input, defined below.
//
// Head-of-line blocking (FIFO inputs; 0 with VOQs by construction). It is evaluated at the
// edges where the crossbar's waiting set changes in a direction: an edge with a grant or with a
// new head starting to compete. At such an edge e, input i is HOL-blocked when its FIFO head
// competed and was not granted (its output busy, its output buffer full, or another input won
// it) while some message behind the head in the same FIFO is for an output that could have
// taken a message at e (not busy, room in its output buffer) and that nobody requested at e. A
// message that reached the FIFO at e itself is sampled at the next edge, so it does not count at
// e (whether it arrived before or after e's arbitration is the simulator's event order).
// Each such e adds the time to the next such edge: nothing that ends the blocking (a grant)
// happens in between. Blocking that begins in between (an output freeing while no head wants it)
// is counted from the next such edge; under saturation there is a grant at every edge and the
// count is exact.
#pragma once

#include "models/core/clock.h"
#include "models/core/occupancy.h"
#include "models/core/ports.h"
#include "models/core/ring.h"
#include "models/core/sim_context.h"
#include "models/core/wakeup.h"
#include "models/noc/arbiter.h"
#include "models/noc/matching.h"
#include "models/noc/routing.h"
#include "models/noc/voq.h"

#include <systemc>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace famsim {

enum class InputQueues { kFifo, kVoq };
enum class CrossbarArbiter { kRoundRobin, kIslip, kOldestFirst };
enum class Forwarding { kStoreAndForward, kCutThrough };

struct CrossbarParams {
  double clock_mhz = 1500;
  unsigned pipeline_cycles = 4;
  unsigned width_bytes = 64;
  unsigned input_buffer = 16;
  unsigned output_buffer = 8;
  InputQueues input_queues = InputQueues::kFifo;
  CrossbarArbiter arbiter = CrossbarArbiter::kRoundRobin;
  unsigned islip_iterations = 0;  // 0: ceil(log2(max(inputs, outputs))), at least 1
  Forwarding forwarding = Forwarding::kStoreAndForward;
};

// Configuration names (YAML values) of the policies, and back; nullopt for an unknown name.
const char* to_string(InputQueues q);
const char* to_string(CrossbarArbiter a);
const char* to_string(Forwarding f);
std::optional<InputQueues> parse_input_queues(const std::string& name);
std::optional<CrossbarArbiter> parse_crossbar_arbiter(const std::string& name);
std::optional<Forwarding> parse_forwarding(const std::string& name);
// The iSLIP iterations a crossbar with these ports runs: the configured count, or by default
// ceil(log2(max(inputs, outputs))), at least 1.
unsigned islip_iterations_for(const CrossbarParams& p, unsigned inputs, unsigned outputs);

class Crossbar : public sc_core::sc_module, public Component {
 public:
  // A FIFO input whose head was blocked (head-of-line) for at least this share of the report
  // window gets advice naming the blocking rather than a slot count (report()). A tenth: below
  // it the blocking costs little next to the queueing more slots would relieve.
  static constexpr double kHolAdviceFraction = 0.1;
  // `kind`: the block's role on the platform (BlockKind::kSwitch, kNoc or kHub).
  Crossbar(sc_core::sc_module_name name, SimContext& ctx, BlockKind kind,
           const CrossbarParams& params, unsigned up_ports, unsigned down_ports,
           std::unique_ptr<Routing> routing);

  TargetPort<Crossbar>& up(unsigned i) { return *up_[i]; }
  InitiatorPort<Crossbar>& down(unsigned j) { return *down_[j]; }
  unsigned up_ports() const { return static_cast<unsigned>(up_.size()); }
  unsigned down_ports() const { return static_cast<unsigned>(down_.size()); }
  const CrossbarParams& params() const { return params_; }
  // Where an input's buffer sits on a request's round trip for the bottleneck ranking
  // (bottleneck.h path_depth), when the block's kind does not say it: the request buffer of up
  // port `port`, or (`responses`) the response buffer of down port `port`. Set by the builder for
  // the chips of a leaf/spine plane and for the peer ports of a GPU's memory hub.
  void set_input_path_depth(bool responses, unsigned port, double depth);
  // The same for an output buffer: the request buffer of down port `port`, or (`responses`) the
  // response buffer of up port `port`. Unset, it follows the deepest input that can feed it
  // (bottleneck.h output_buffer_depth): set by the builder where inputs of different depths feed
  // different outputs (the chips of a leaf/spine plane).
  void set_output_path_depth(bool responses, unsigned port, double depth);
  const Clock& clock() const { return clock_; }

  Sync fw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time& t);
  Sync bw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time& t);

  void report(ComponentReport& r, const ReportWindow& window) const override;
  void probes(std::vector<ResourceProbe>& out) const override;
  std::size_t occupancy() const override;

 private:
  static constexpr unsigned kNone = ~0U;
  // A queued message with what arbitration needs worked out on arrival, while its extension is
  // in cache (at the arbitration edge it usually is not).
  struct Queued {
    Payload* payload = nullptr;
    unsigned dest = 0;
    unsigned data = 0;
    std::uint64_t since_ps = 0;  // reached the block's port (oldest_first's age)
  };
  // Input and Output start on a cache line and keep what a message's arrival, its grant and the
  // arbitration use first, statistics after: with thousands of messages in flight their state
  // has left the cache between two steps of a message, and each line a step touches is a likely
  // miss (famsim bench, cachegrind).
  // 256 bytes: the first line for a message's arrival and grant, then the occupancy gauge and
  // the rarely written statistics. A power of two, so that finding input i is a shift (at 448
  // bytes the indexing cost 0.5 % more instructions).
  struct alignas(64) Input {
    Ring<Queued> fifo;  // input_queues: fifo
    HoldSlot hold;
    std::uint64_t head_eligible_ps = 0;  // fifo: when the head started competing
    // Statistics.
    std::uint64_t bytes = 0;
    std::uint64_t messages = 0;
    OccupancyGauge queue;  // messages held (all its queues), of input_buffer
    std::uint64_t hol_ps = 0;
    std::uint64_t backpressure_ps = 0;
  };
  // input_queues: voq, per input (Plane::voq_in).
  struct VoqInput {
    VirtualOutputQueues<Queued> queues;
    std::vector<std::uint64_t> eligible_ps;  // when each queue's head started competing
  };
  struct Staged {
    Payload* payload = nullptr;
    std::uint64_t leave_ps = 0;
  };
  struct alignas(64) Output {
    Ring<Staged> pipe;
    std::uint64_t free_at_ps = 0;
    RequestSet requesters;
    RoundRobinArbiter arbiter;  // fifo + round_robin
    bool far_end_busy = false;
    std::uint64_t busy_ps = 0;
    std::uint64_t bytes = 0;
    std::uint64_t messages = 0;
  };
  struct PendingHead {  // a queue head that competes from `eligible_ps` on
    unsigned input;
    unsigned output;
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
  // Fields in the order the default configuration (FIFO inputs, round-robin) uses them, the
  // matchers' and the bottleneck report's state last: a plane is a few kB, and a message's steps
  // touch its hot part several times.
  struct alignas(64) Plane {
    // Read at every wake-up, so first: the earliest of the staged messages' leave times (now,
    // with a far end that took a message back waiting in `unblocked`), and of the pending heads'
    // eligible times; kNever when there are none.
    std::uint64_t send_due_ps = Wakeup::kNever;
    std::uint64_t head_due_ps = Wakeup::kNever;
    std::uint64_t next_arbitration_ps =
        Wakeup::kNever;  // earliest edge a waiting output can be won
    bool is_request = true;
    unsigned outputs = 0;  // out.size(), kept: working that out divides by an Output's size
    std::vector<Input> in;
    std::vector<Output> out;
    std::vector<VoqInput> voq_in;  // input_queues: voq, per input
    RequestSet waiting_outputs;  // outputs with at least one registered requester
    RequestSet waiting_inputs;
    RequestSet requested;
    RequestSet full_outputs;
    std::vector<PendingHead> pending_heads;
    std::vector<Grant> popped;  // messages sent at this edge (scratch, reserved at elaboration)
    // fifo, for head-of-line blocking (flat per-plane arrays, so the per-edge scan reads
    // contiguous memory): messages in each input's FIFO per output (inputs x outputs), the
    // outputs with any as rows of out_words bits (inputs x out_words), the inputs whose head is
    // registered with its output, the outputs requested as the edge's arbitration began, and
    // the outputs whose buffer is full.
    std::vector<std::uint32_t> queued_for;
    std::vector<std::uint64_t> wanted;
    std::size_t out_words = 0;
    // Messages in all FIFOs per output, and the outputs with any: an edge at which none of these
    // is free and unrequested has no head-of-line blocking, without looking at the inputs.
    std::vector<std::uint32_t> queued_total;
    RequestSet wanted_any;
    // The (input, output) of every message that reached a FIFO at arrived_at_ps, the latest
    // edge of the block's clock with arrivals (arrivals between edges are not noted).
    std::uint64_t arrived_at_ps = Wakeup::kNever;
    std::vector<Grant> arrived;
    // Head-of-line blocking: inputs found blocked at the last arbitration edge, and that edge.
    std::vector<unsigned> hol_blocked;
    std::uint64_t hol_since_ps = 0;
    // Scratch of the head-of-line scan, out_words bits: the outputs that some queued message
    // wants, free at the edge and requested by no head.
    std::vector<std::uint64_t> free_wanted;
    // Beats of the last message size seen (sizes repeat: saves a division per message).
    unsigned beats_for_bytes = ~0U;
    std::uint64_t beats = 1;
    // Messages in each output's pipe, of output_buffer: apart from Output, which arbitration
    // reads at every edge, so that stays compact.
    std::vector<OccupancyGauge> out_level;
    // When staged messages are due. A message leaves a fixed number of cycles after its grant
    // for a given beat count (store-and-forward) or always (cut-through), so messages with the
    // same count leave in grant order: one FIFO per count keeps them sorted for free (a few
    // counts occur: header-only messages, full data messages). Other counts go to a heap.
    struct LeaveClass {
      std::uint64_t cycles = 0;  // 0: unused
      Ring<LeaveEvent> fifo;
    };
    std::array<LeaveClass, 4> leave_classes;
    // Classes in use: a prefix of leave_classes (a class is taken on its count's first message
    // and kept), so that the loops over them stop there. famsim bench uses one per plane, and
    // looking at the three empty others at every wake-up and stage cost 0.5 % of its
    // instructions.
    unsigned leave_classes_used = 0;
    std::vector<LeaveEvent> leave_heap;  // min-heap for counts without a class
    std::vector<unsigned> unblocked;     // outputs whose far end just took a message back
    std::uint64_t delayed_grants = 0;
    std::uint64_t delay_ps = 0;
    std::uint64_t conflicts = 0;
    std::uint64_t lost_requests = 0;
    // Matching (every configuration but fifo + round_robin), scratch reserved at elaboration.
    std::vector<Grant> grants;  // the matcher's answer (scratch, reserved at elaboration)
    RequestSet available;
    RoundRobinMatcher round_robin;
    IslipMatcher islip;
    OldestFirstMatcher oldest_first;
    std::vector<OldestFirstMatcher::Candidate> candidates;
    // Per input, its buffer's depth for the bottleneck ranking; -1: the block kind's.
    std::vector<double> input_depth;
    std::vector<double> output_depth;  // the same per output
  };

  bool voq() const { return params_.input_queues == InputQueues::kVoq; }
  void init_plane(Plane& pl, bool is_request, unsigned inputs, unsigned outputs);
  bool input_full(const Plane& pl, unsigned i) const {
    return voq() ? pl.voq_in[i].queues.full() : pl.in[i].fifo.full();
  }
  // The far end of output `o` took a message back (END_REQ / END_RESP) at now_ps: hand on what
  // waits for it at this instant.
  void output_unblocked(Plane& pl, unsigned o, std::uint64_t now_ps);
  void arrive(Plane& pl, unsigned in, Payload& p, std::uint64_t now_ps);
  void enqueue(Plane& pl, unsigned in, const Queued& q, std::uint64_t now_ps);
  // Inline (crossbar.cpp), as are stage(), count_queued() and uncount_queued(): once or twice per
  // message.
  [[gnu::always_inline]] inline void schedule_head(Plane& pl, unsigned in, unsigned out, std::uint64_t now_ps);
  // The same with the edge after now_ps, where the head competes from, already worked out.
  [[gnu::always_inline]] inline void schedule_head_at(Plane& pl, unsigned in, unsigned out,
                                                      std::uint64_t eligible, std::uint64_t now_ps);
  Queued classify(const Plane& pl, Payload& p, std::uint64_t since_ps) const;
  // Hands on output `o`'s messages that are due; `far_end_took`: called because the far end took
  // a message back at now_ps (END_REQ / END_RESP), not for a message of this block due now.
  void drain_output(Plane& pl, unsigned o, std::uint64_t now_ps, bool far_end_took);
  inline void stage(Plane& pl, std::uint64_t cycles, const LeaveEvent& ev);
  static std::uint64_t next_leave(const Plane& pl);
  void send_ready(Plane& pl, std::uint64_t now_ps);
  void arbitrate(Plane& pl, std::uint64_t edge_ps);
  void arbitrate_fifo_round_robin(Plane& pl, std::uint64_t edge_ps);
  void arbitrate_matching(Plane& pl, std::uint64_t edge_ps);
  // Sends input `i`'s next message for output `o` across the crossbar at `edge_ps`.
  void transfer(Plane& pl, unsigned i, unsigned o, std::uint64_t edge_ps);
  // Counts a message for output `o` into (or out of) input `in`'s FIFO, for the head-of-line
  // blocking bookkeeping.
  inline void count_queued(Plane& pl, unsigned in, unsigned o);
  inline void uncount_queued(Plane& pl, unsigned in, unsigned o);
  void find_hol_blocked(Plane& pl, std::uint64_t edge_ps);
  // find_hol_blocked() over the messages counted in the plane's FIFO bookkeeping.
  void find_hol_blocked_among_queued(Plane& pl, std::uint64_t edge_ps);
  std::uint64_t next_wakeup(const Plane& pl, std::uint64_t now_ps) const;
  double port_gbps() const { return params_.width_bytes * clock_.mhz() * 1e-3; }  // width x clock
  // Where output o's buffer is entered on the round trip: its own depth, else just after the
  // deepest of the plane's inputs (on the way to the memory for requests, back for responses).
  double output_depth(const Plane& pl, unsigned o) const;
  void report_ports(const Plane& pl, nlohmann::json& j, const ReportWindow& window) const;
  // Time input `i`'s head was blocked behind a busy output while a message behind it could have
  // gone (FIFO inputs), including a blocking still on when `window` ends.
  std::uint64_t hol_ps(const Plane& pl, unsigned i, const ReportWindow& window) const;
  friend class Wakeup;  // runs behaviour()
  void behaviour();

  CrossbarParams params_;
  Clock clock_;
  std::uint64_t arbitrated_edge_ps_ = Wakeup::kNever;  // the last edge both planes arbitrated at
  std::unique_ptr<Routing> routing_;
  std::vector<std::unique_ptr<TargetPort<Crossbar>>> up_;
  std::vector<std::unique_ptr<InitiatorPort<Crossbar>>> down_;
  Plane req_;
  Plane resp_;
  Wakeup wake_;
};

}  // namespace famsim
