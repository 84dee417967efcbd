// Link: one point-to-point scale-up fabric link (GPU <-> switch, switch <-> device, GPU <-> device)
// at the link layer: flits, two virtual channels per direction with credit-based flow control,
// CRC errors with go-back-N replay. Between blocks the unit stays the TLM request; inside the link
// every transfer is timed as the messages, slots and flits it takes (framing: link_framing.h).
//
// Ports
//   up            target socket at side A: requests A->B come in, their responses go back
//   down          initiator socket at side B: requests A->B go out, their responses come in
//   reverse_up()  (bidirectional only) target socket at side B: requests B->A come in
//   reverse_down()(bidirectional only) initiator socket at side A: requests B->A go out
// The wire A->B carries A's requests on its request VC and, when bidirectional, the responses to
// B's requests on its response VC; the wire B->A the converse. Both VCs of a wire share its
// bandwidth. Without the bidirectional flag the reverse sockets do not exist.
//
// Parameters (LinkParams; YAML keys under links.*, README "Links")
//   Physical
//     lanes, lane_gbps, encoding_efficiency  raw data rate per direction, GB/s =
//                                            lanes x lane_gbps x encoding_efficiency / 8
//                                            (encoding_efficiency: line coding / PHY FEC)
//     latency_ns          PHY + FEC + propagation, one way: from a flit's last bit leaving the
//                         sender to it being checked at the receiver
//     clock_mhz           link-layer clock: flit-packing and VC arbitration decisions and the use
//                         of returned credits land on its edges
//   Framing               flit_bytes, flit_header_bytes, flit_crc_bytes, flit_fec_bytes,
//                         slot_bytes, packing (dense | per_message), request_header_bytes,
//                         response_header_bytes, max_payload_bytes (link_framing.h)
//   Flow control
//     credit_unit         flit | message: what one credit of a receive buffer holds
//     request_vc_credits, response_vc_credits   receive-buffer size per VC, in credit units
//     credit_return_ns    from the receiver freeing a buffer entry (the next block accepting the
//                         message) to the credit reaching the sender
//     tx_queue_entries    transfers per VC accepted from upstream and waiting for the wire; when
//                         full, END_REQ / END_RESP is held back (the upstream backpressure point)
//   Reliability
//     flit_error_rate     probability that a flit fails its CRC at the receiver (per transmission)
//     replay_latency_ns   from the end of an errored flit at the sender to the start of its
//                         retransmission (receiver CRC check, NAK return, replay rewind); also the
//                         time from a flit's end to its ACK freeing its replay-buffer entry
//     replay_buffer_flits unacknowledged flits the sender may hold; a full buffer stalls the wire
//   Set by the platform builder (not a YAML key)
//     deliver_at_head     cut-through receiver: hand a transfer on when its first flit has
//                         arrived instead of its last
//
// Timing of one transfer (computed once per transfer, no per-flit events):
//   1. It enters the VC's transmit queue when upstream hands it over (or when a queue entry frees
//      for a held one). The sender decides on the link clock edge strictly after that, so no
//      decision depends on the order of events at one instant.
//   2. At a decision edge E the wire's arbiter picks round-robin between its two VCs among those
//      whose head transfer arrived before E and whose credits cover it (transfers of one VC go in
//      order; all messages of one transfer go back to back). It commits transfers while the
//      wire's next free slot lies in a flit starting before the next edge (a flit is packed on the
//      last edge before it starts), so under saturation flits are full; a flit that has started
//      is never added to, so at low load a lone message goes out in a padded flit.
//   3. Dense packing fills the open flit's free slots, then appends whole flits back to back at
//      the wire rate (flit time = flit_bytes / rate; a new flit on an idle wire starts at E).
//      per_message packing starts every message on a new flit.
//   4. Each flit's fate is drawn from a seeded geometric stream of good-flit runs; an errored flit
//      delays itself and everything after it by flit time + replay_latency_ns (go-back-N: the
//      flits sent meanwhile are discarded and resent), per error. A replay buffer smaller than
//      1 + replay_latency / flit time limits flit k to start no earlier than flit k-B's ACK.
//   5. The transfer reaches the far end latency_ns after its last flit (deliver_at_head: its
//      first flit) and is handed to the next block in VC order; its credits return
//      credit_return_ns after the next block accepts it (and no earlier than its last flit
//      arrived) and are usable from the next clock edge.
// So with C credits of F bytes a VC sustains min(rate, C x F / R) with the credit round trip
// R = serialisation + latency_ns + credit_return_ns + the wait for the sender's clock edge.
//
// Approximations: the messages of one transfer are never interleaved with the other VC's; errors
// are drawn per flit but their cost is charged analytically at the errored flit; with
// deliver_at_head, errors in a transfer's later flits delay its credits, not its delivery; the
// credits a transfer takes are returned together.
//
// Statistics (ComponentReport): bytes (payload, both wires), utilization (busier wire, including
// replay time), backpressure_ns, wire_efficiency (payload / wire bytes, both wires),
// bandwidth_gbps; per wire (request_direction = A->B, response_direction = B->A): utilization,
// needed_utilization (dense packing: the busy time less the flit time spent on padding, which
// more traffic would have filled; per_message packing: = utilization), padding_bytes,
// flits, wire_bytes, payload_bytes, wire_efficiency, replays, replayed_flits, backpressure_ns,
// messages, and per VC: transfers, credit_stall_ns, rx_buffer_mean / rx_buffer_max (receive
// buffer occupancy in credit units, time-weighted mean over the report window, and maximum).
#pragma once

#include "models/core/clock.h"
#include "models/core/occupancy.h"
#include "models/core/ports.h"
#include "models/core/ring.h"
#include "models/core/sim_context.h"
#include "models/core/wakeup.h"
#include "models/fabric/link_framing.h"

#include <systemc>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace famsim {

struct LinkParams {
  // Physical. Defaults: NVLink4 (platforms/presets/link/nvlink4.yaml).
  unsigned lanes = 2;
  double lane_gbps = 106.25;
  double encoding_efficiency = 100.0 / 106.25;
  double latency_ns = 20.0;
  double clock_mhz = 1000.0;
  // Framing.
  FlitFormat flit;
  // Flow control.
  CreditUnit credit_unit = CreditUnit::kFlit;
  unsigned request_vc_credits = 64;
  unsigned response_vc_credits = 64;
  double credit_return_ns = 20.0;
  unsigned tx_queue_entries = 16;
  // Reliability.
  double flit_error_rate = 0.0;
  double replay_latency_ns = 40.0;
  unsigned replay_buffer_flits = 256;
  // Cut-through receiver (set by the platform builder).
  bool deliver_at_head = false;
  // The largest transfer the link carries, B of data (the GPUs' request_bytes, set by the
  // configuration reader; 0: one largest message). Each VC's credits count as a slot pool in
  // whole such transfers (Channel::room_unit).
  unsigned largest_transfer_bytes = 0;

  double bandwidth_gbps() const { return lanes * lane_gbps * encoding_efficiency / 8.0; }
  // Time one flit takes on the wire, ps (fractional).
  double flit_ps() const { return flit.flit_bytes * 1000.0 / bandwidth_gbps(); }
};

class Link : public sc_core::sc_module, public Component {
 public:
  TargetPort<Link> up;
  InitiatorPort<Link> down;

  Link(sc_core::sc_module_name name, SimContext& ctx, const LinkParams& params,
       bool bidirectional = false);

  bool bidirectional() const { return reverse_up_ != nullptr; }
  // The kind of block `down` feeds (a switch, a device port): it places the link's credit
  // pools on a request's round trip for the bottleneck analysis. Unset: a link's own place.
  void set_far_end(BlockKind k) { far_end_ = k; }
  // Or their depths (bottleneck.h path_depth) outright: `a_side` for the pools of transactions
  // side A starts (requests A->B and their responses), `b_side` for side B's; set by the builder
  // where the far end's kind alone misplaces them (a leaf/spine plane's links; a GPU link that
  // also carries peer requests into its GPU's hub). Negative: by set_far_end().
  void set_path_depths(double a_side, double b_side) {
    a_side_depth_ = a_side;
    b_side_depth_ = b_side;
  }
  // The blocks at its two ends (component names, e.g. gpu1 and plane1_switch), set by the
  // builder: stats.json names each wire's direction by them (`request_direction` is the A->B
  // wire), so that a wire named for requests but carrying a peer GPU's responses reads plainly.
  void set_ends(std::string a_side, std::string b_side) {
    a_side_ = std::move(a_side);
    b_side_ = std::move(b_side);
  }
  // The sockets of requests B->A; only with the bidirectional flag (std::logic_error otherwise).
  TargetPort<Link>& reverse_up();
  InitiatorPort<Link>& reverse_down();
  // Cut-through receivers: call before the simulation starts.
  void set_deliver_at_head(bool on) { params_.deliver_at_head = on; }

  Sync fw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time& t);
  Sync bw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time& t);

  void report(ComponentReport& r, const ReportWindow& window) const override;
  void probes(std::vector<ResourceProbe>& out) const override;
  std::size_t occupancy() const override;

  const LinkFraming& framing() const { return framing_; }

 private:
  static constexpr std::uint64_t kNever = Wakeup::kNever;

  // What a transfer takes on the wire; cached per channel (sizes repeat).
  struct Shape {
    std::uint32_t key = ~0u;  // write flag << 31 | length
    std::uint32_t wire_slots = 0;
    std::uint32_t credits = 0;
    std::uint32_t messages = 0;
    std::uint32_t payload_bytes = 0;
  };
  struct TxEntry {
    Payload* payload = nullptr;
    std::uint64_t arrive_ps = 0;
    Shape shape;  // worked out on arrival, while the payload's extension is in cache
  };
  struct RxEntry {
    Payload* payload = nullptr;
    std::uint64_t deliver_ps = 0;      // handed on from here (last flit, or first: cut-through)
    std::uint64_t last_arrive_ps = 0;  // last flit checked at the receiver
    std::uint32_t credits = 0;
  };
  struct CreditReturn {
    std::uint64_t at_ps = 0;
    std::uint32_t credits = 0;
  };
  // One VC of one wire: the sender's transmit queue and credit counter, the transfers on the wire
  // or in the receive buffer, and the hand-shake with the next block.
  // 512 bytes from a cache-line boundary, in lines by the step that uses them: the sender's queue
  // and credits (accept, decide, commit), the transfer's shape, commit's counters, the receive
  // buffer (drain), then the rarely used fields and the credits-held gauge. With thousands of
  // transfers in flight a channel's lines leave the cache between two steps, and each line a
  // step touches is a likely miss (famsim bench, cachegrind).
  struct alignas(64) Channel {
    bool active = false;
    bool is_request = true;
    // Its place in ch_, kept: &c - ch_ divides by a Channel's size, several times per transfer.
    std::uint8_t index = 0;
    bool far_end_busy = false;  // handed on, waiting for the next block's END phase
    std::uint32_t credits_total = 0;
    std::uint32_t credits_free = 0;
    Ring<TxEntry> tx;
    Ring<CreditReturn> returning;  // freed at the receiver, travelling back
    Shape cache[2];
    // room_held() for each count of free credits, 0..credits_total, worked out at elaboration:
    // it changes at every commit and returned credit, and working it out divides by room_unit.
    std::vector<std::uint32_t> room_held_for_free;
    std::uint64_t stall_since_ps = kNever;
    HoldSlot hold;
    // Statistics.
    std::uint64_t transfers = 0;
    std::uint64_t messages = 0;
    std::uint64_t payload_bytes = 0;
    // Credits x the least time each transfer holds them (from its commit to its last flit's
    // arrival + credit_return_ns: its credit round trip had the next block taken it at once), ps:
    // the VC's credits as a server, busy when they could not carry more whatever the receiver did.
    std::uint64_t round_trip_credit_ps = 0;
    // The transmit queue's time integral, ps: each transfer adds its time in the queue when it
    // leaves (its commit), so the mean occupancy needs no gauge on the hot path.
    std::uint64_t tx_wait_ps = 0;
    std::uint64_t backpressure_ps = 0;
    Ring<RxEntry> rx;               // committed, not yet handed on
    std::size_t rx_arrived = 0;     // entries at the front of rx that have arrived
    std::uint64_t rx_occupied = 0;  // credits in the receive buffer now
    std::uint64_t rx_max = 0;
    std::uint64_t rx_integral = 0;  // credits x ps
    std::uint64_t stall_ps = 0;
    RxEntry awaiting_end;  // the transfer the next block has not accepted yet
    // Credits taken by transfers and not yet back at the sender (on the wire, in the receive
    // buffer, or returning): the VC's window, full when credits limit it. Counted as the mesh
    // counts its buffers (mesh.h set_room): in whole largest transfers of room_unit credits (a
    // write of largest_transfer_bytes on the request VC, a read response on the response VC), so
    // that C credits read full once fewer than room_unit are free, however many that leaves.
    std::uint32_t room_unit = 1;
    std::uint32_t room_transfers = 0;  // credits_total / room_unit
    alignas(64) OccupancyGauge credits_held;
    // The credits transfers can use: whole largest transfers' worth.
    std::uint32_t usable_credits() const { return room_transfers * room_unit; }
    // The room in use with `free` credits free: credits_held's level.
    std::uint32_t room_held(std::uint32_t free) const { return room_held_for_free[free]; }
  };
  // One direction of the link. Wire time is kept in femtoseconds so that fractional flit times
  // do not accumulate rounding (64 bits of fs cover 5 hours).
  // From a cache-line boundary: what a decision and a commit read first (one line), then the
  // replay state and the statistics.
  struct alignas(64) Wire {
    Channel* vc[2] = {nullptr, nullptr};  // request VC, response VC
    unsigned rr = 0;                      // VC the arbiter tries first
    std::uint32_t open_slots = 0;
    std::uint64_t free_fs = 0;        // the next new flit may start here
    std::uint64_t open_start_fs = 0;  // the last flit (the one that may still take slots)
    std::uint64_t open_end_fs = 0;
    std::uint64_t next_decision_ps = kNever;
    // Errors: the number of good flits before the next errored one, drawn from a geometric
    // distribution with the wire's own seeded generator.
    std::uint64_t good_left = ~std::uint64_t{0};
    std::uint64_t rng = 0;
    // ACK times of the last replay_buffer_flits flits, when the window can bind.
    std::vector<std::uint64_t> ack_fs;
    std::uint64_t flit_index = 0;
    // Statistics.
    std::uint64_t busy_fs = 0;
    std::uint64_t flits = 0;  // flit transmissions, retransmissions included
    std::uint64_t replays = 0;
    std::uint64_t replayed_flits = 0;
    std::uint64_t slots_used = 0;  // slots the transfers took (the rest of the flits: padding)
  };

  // Flit time of the slots no transfer took, when packing is dense (the wire's time that more
  // traffic would have filled; report()), else 0, in ps.
  double padding_ps(const Wire& w) const;
  // Channel c's credits held as of t_ps: the gauge with the credits back at the sender before t
  // taken off from the time they arrive (the sender counts them back only at its next decision,
  // which an idle VC does not make).
  static OccupancyGauge credits_held_at(const Channel& c, std::uint64_t t_ps);
  // Where channel k's credits are entered on the round trip, -1 when the far end's kind says it.
  double credit_depth(unsigned k) const;
  // Where channel k's transmit queue is entered: just before its wire and its credits (-1 with
  // the credits at -1).
  double tx_queue_depth(unsigned k) const;
  // Where wire i, the server, sits: at its own side's transactions' credits (wire 0 carries side
  // A's requests, wire 1 their responses), on the way out for wire 0 and back for wire 1.
  void set_wire_place(ResourceUse& use, unsigned wire) const {
    use.response_path = wire == 1;
    use.path_depth = credit_depth(wire == 0 ? 0 : 3);
  }
  // Wire `wire`'s ends (0: side A to B, 1: back), as set_ends named them (empty if it did not):
  // the report's request_direction / response_direction and the wire's resources carry them.
  const std::string& wire_from(unsigned wire) const { return wire == 0 ? a_side_ : b_side_; }
  const std::string& wire_to(unsigned wire) const { return wire == 0 ? b_side_ : a_side_; }
  void set_wire_ends(ResourceUse& use, unsigned wire) const;
  // Wire `wire`'s replay buffer as a resource (a pool of replay_buffer_flits entries), reported
  // only when it is too small for the ACK round trip.
  static const char* replay_name(unsigned wire) {
    return wire == 0 ? "request wire replay buffer" : "response wire replay buffer";
  }

  friend class Wakeup;  // runs behaviour()
  void behaviour();
  Sync accept(Channel& c, Payload& p, Phase& phase, std::uint64_t now);
  void far_end_done(Channel& c, std::uint64_t now);
  // Hands on every transfer that has arrived; returns when the next one is due.
  std::uint64_t drain(Channel& c, std::uint64_t now);
  inline void release_credits(Channel& c, const RxEntry& e, std::uint64_t now);  // link.cpp
  void decide(Wire& w, std::uint64_t now);
  void commit(Wire& w, Channel& c, std::uint64_t e_ps);
  // Places `count` new flits from `start_fs`; returns the end of the first; updates the wire.
  std::uint64_t append_flits(Wire& w, std::uint64_t start_fs, std::uint32_t count);
  std::uint64_t draw_good_flits(Wire& w);
  inline const Shape& shape_of(Channel& c, const RequestExt& e);  // link.cpp
  // shape_of() for a size not in the channel's cache, and accept()'s report of a
  // transfer larger than the credits: out of line, so that accept()'s common path (a size the
  // cache holds) makes no call and saves fewer registers.
  [[gnu::noinline]] const Shape& new_shape(Channel& c, const RequestExt& e, std::uint32_t key);
  [[gnu::cold, gnu::noinline]] void too_few_credits(const Channel& c, const Payload& p) const;
  bool send_on(Channel& c, Payload& p);
  void send_end_upstream(Channel& c, Payload& p);
  Wire& wire_of(const Channel& c) { return wire_[c.index / 2]; }
  // Brings channel c's entries in the behaviour's summary (hot_) up to date after its receive
  // buffer or its far end's state changed.
  void note_rx(const Channel& c) {
    const std::size_t k = c.index;
    if (c.far_end_busy) {
      hot_.drain_due_ps[k] = c.rx_arrived < c.rx.size() ? c.rx[c.rx_arrived].deliver_ps : kNever;
      hot_.hand_on_ps[k] = kNever;
    } else {
      hot_.drain_due_ps[k] = hot_.hand_on_ps[k] = c.rx.empty() ? kNever : c.rx.front().deliver_ps;
    }
  }

  LinkParams params_;
  LinkFraming framing_;
  Clock clock_;
  double bandwidth_gbps_;
  std::uint64_t flit_fs_;
  std::uint64_t latency_fs_;
  std::uint64_t replay_fs_;
  std::uint64_t credit_return_ps_;
  double log_good_;  // ln(1 - flit_error_rate)
  bool window_binds_;
  BlockKind far_end_ = BlockKind::kOther;
  double a_side_depth_ = -1;
  double b_side_depth_ = -1;
  std::string a_side_;
  std::string b_side_;
  std::unique_ptr<TargetPort<Link>> reverse_up_;
  std::unique_ptr<InitiatorPort<Link>> reverse_down_;
  // ch_[wire x 2 + vc]: 0 A->B requests, 1 A->B responses (to B's requests), 2 B->A requests,
  // 3 B->A responses (to A's requests).
  Channel ch_[4];
  Wire wire_[2];
  // What the behaviour reads at every wake-up, per channel, in one cache line instead of the
  // channels' own (large) state: when drain() next has something to do (kNever: nothing), and
  // when the first transfer in the receive buffer can be handed on (kNever when the buffer is
  // empty or the far end has not taken the last one). drain() hands on the first transfer once it
  // has arrived; while the far end holds one it only counts the transfers arriving in the buffer
  // (rx_max), so then it is due when the first not yet counted arrives, not at every wake-up
  // (famsim bench: a third of the link's drain() calls did nothing else).
  struct alignas(64) Hot {
    std::uint64_t drain_due_ps[4] = {kNever, kNever, kNever, kNever};
    std::uint64_t hand_on_ps[4] = {kNever, kNever, kNever, kNever};
  };
  Hot hot_;
  // The earliest delivery time of the transfers commit() placed during this wake-up (kNever:
  // none); behaviour() adds it to its next wake-up.
  std::uint64_t committed_due_ps_ = kNever;
  Wakeup wake_;
};

}  // namespace famsim
