#include "models/fabric/link.h"

#include "models/core/bottleneck.h"
#include "models/core/hash.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace famsim {

namespace {

std::uint64_t fs_to_ps_ceil(std::uint64_t fs) { return (fs + 999) / 1000; }

}  // namespace

Link::Link(sc_core::sc_module_name name, SimContext& ctx, const LinkParams& params,
           bool bidirectional)
    : sc_core::sc_module(name),
      Component(ctx.registry, this->name(), BlockKind::kLink),
      up("up", *this, 0),
      down("down", *this, 0),
      params_(params),
      framing_(params.flit),
      clock_(params.clock_mhz),
      bandwidth_gbps_(params.bandwidth_gbps()),
      // Rounded up: the wire never moves data faster than configured.
      flit_fs_(static_cast<std::uint64_t>(
          std::ceil(params.flit.flit_bytes * 1e6 / params.bandwidth_gbps() - 1e-6))),
      latency_fs_(static_cast<std::uint64_t>(std::llround(params.latency_ns * 1e6))),
      replay_fs_(static_cast<std::uint64_t>(std::llround(params.replay_latency_ns * 1e6))),
      credit_return_ps_(static_cast<std::uint64_t>(std::llround(params.credit_return_ns * 1e3))),
      log_good_(params.flit_error_rate > 0 ? std::log1p(-params.flit_error_rate) : 0.0),
      window_binds_(static_cast<std::uint64_t>(params.replay_buffer_flits - 1) * flit_fs_ <
                    replay_fs_),
      wake_("wake", ctx.scheduler(), this, &Wakeup::call_behaviour<Link>) {
  if (params.replay_buffer_flits == 0) throw std::invalid_argument("replay_buffer_flits is 0");
  if (flit_fs_ == 0) flit_fs_ = 1;
  if (bidirectional) {
    reverse_up_ = std::make_unique<TargetPort<Link>>("reverse_up", *this, 1);
    reverse_down_ = std::make_unique<InitiatorPort<Link>>("reverse_down", *this, 1);
  }
  for (unsigned i = 0; i < 4; ++i) {
    Channel& c = ch_[i];
    c.index = static_cast<std::uint8_t>(i);
    c.is_request = i % 2 == 0;
    c.active = i == 0 || i == 3 || bidirectional;
    if (!c.active) continue;
    c.credits_total = c.is_request ? params.request_vc_credits : params.response_vc_credits;
    if (c.credits_total < framing_.largest_message_credits(params.credit_unit)) {
      throw std::invalid_argument(std::string(c.is_request ? "request" : "response") +
                                  "_vc_credits cannot hold one largest message");
    }
    c.credits_free = c.credits_total;
    c.room_unit =
        params.largest_transfer_bytes == 0
            ? framing_.largest_message_credits(params.credit_unit)
            : framing_.credits(framing_.data_transfer(c.is_request, params.largest_transfer_bytes),
                               params.credit_unit);
    // The configuration reader refuses credits that cannot hold one such transfer.
    if (c.room_unit > c.credits_total) c.room_unit = c.credits_total;
    c.room_transfers = c.credits_total / c.room_unit;
    c.room_held_for_free.resize(std::size_t{c.credits_total} + 1);
    for (std::uint32_t free = 0; free <= c.credits_total; ++free) {
      c.room_held_for_free[free] = (c.room_transfers - free / c.room_unit) * c.room_unit;
    }
    c.credits_held.set_capacity(c.room_held(0));
    c.tx.set_capacity(params.tx_queue_entries);
    c.rx.set_capacity(c.credits_total);
    c.returning.set_capacity(c.credits_total);
  }
  // A stable hash of the link's name: each link draws its own error stream.
  const std::uint64_t seed = ctx.seed ^ fnv1a(this->name());
  for (unsigned w = 0; w < 2; ++w) {
    Wire& wire = wire_[w];
    wire.vc[0] = &ch_[2 * w];
    wire.vc[1] = &ch_[2 * w + 1];
    wire.rng = seed + w * 0x632be59bd9b4e019ULL;
    if (params.flit_error_rate > 0) wire.good_left = draw_good_flits(wire);
    if (window_binds_) wire.ack_fs.assign(params.replay_buffer_flits, 0);
  }
  SC_HAS_PROCESS(Link);
  SC_METHOD(behaviour);
  sensitive << wake_.event();
  dont_initialize();
}

TargetPort<Link>& Link::reverse_up() {
  if (!reverse_up_) throw std::logic_error(std::string(name()) + " is not bidirectional");
  return *reverse_up_;
}

InitiatorPort<Link>& Link::reverse_down() {
  if (!reverse_down_) throw std::logic_error(std::string(name()) + " is not bidirectional");
  return *reverse_down_;
}

// --- Protocol glue ------------------------------------------------------------------------------

Sync Link::fw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time&) {
  const std::uint64_t now = now_ps();
  if (phase == tlm::BEGIN_REQ) {
    ext_of(p).enter(block_id(), static_cast<std::uint16_t>(port), now);
    return accept(ch_[port == 0 ? 0 : 2], p, phase, now);
  }
  if (phase == tlm::END_RESP) {
    far_end_done(ch_[port == 0 ? 3 : 1], now);
    return tlm::TLM_ACCEPTED;
  }
  protocol_error(name(), phase, "an upstream side");
}

Sync Link::bw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time&) {
  const std::uint64_t now = now_ps();
  if (phase == tlm::BEGIN_RESP) {
    ext_of(p).resp_enter(now);
    return accept(ch_[port == 0 ? 3 : 1], p, phase, now);
  }
  if (phase == tlm::END_REQ) {
    far_end_done(ch_[port == 0 ? 0 : 2], now);
    return tlm::TLM_ACCEPTED;
  }
  protocol_error(name(), phase, "a downstream side");
}

Sync Link::accept(Channel& c, Payload& p, Phase& phase, std::uint64_t now) {
  const Shape& shape = shape_of(c, ext_of(p));
  if (shape.credits > c.credits_total) too_few_credits(c, p);
  if (c.tx.full()) return c.hold.hold(p, now);
  c.tx.push_back({&p, now, shape});
  Wire& w = wire_of(c);
  const std::uint64_t e = clock_.edge_after_ps(now);
  if (e < w.next_decision_ps) {
    w.next_decision_ps = e;
    wake_.at(e, now);
  }
  return accept_now(p, phase, c.is_request ? tlm::END_REQ : tlm::END_RESP);
}

void Link::too_few_credits(const Channel& c, const Payload& p) const {
  const std::string msg = std::string("a ") + std::to_string(ext_of(p).length) +
                          " B transfer needs more credits than " +
                          (c.is_request ? "request" : "response") +
                          "_vc_credits holds: raise the credits or max_payload_bytes";
  SC_REPORT_FATAL(name(), msg.c_str());
}

void Link::far_end_done(Channel& c, std::uint64_t now) {
  c.far_end_busy = false;
  note_rx(c);
  release_credits(c, c.awaiting_end, now);
  wake_.asap();
}

bool Link::send_on(Channel& c, Payload& p) {
  switch (c.index) {
    case 0:
      return down.send_req(p);
    case 1:
      return reverse_up_->send_resp(p);
    case 2:
      return reverse_down_->send_req(p);
    default:
      return up.send_resp(p);
  }
}

void Link::send_end_upstream(Channel& c, Payload& p) {
  switch (c.index) {
    case 0:
      up.send_end_req(p);
      break;
    case 1:
      reverse_down_->send_end_resp(p);
      break;
    case 2:
      reverse_up_->send_end_req(p);
      break;
    default:
      down.send_end_resp(p);
      break;
  }
}

// --- Behaviour ----------------------------------------------------------------------------------

// shape_of() and release_credits() run once per transfer and are short: declared inline so that
// GCC inlines them into their callers instead of calling them.
inline const Link::Shape& Link::shape_of(Channel& c, const RequestExt& e) {
  // Lengths stay below 2^29 (the payload pool's data size is 32-bit and far smaller in use).
  const std::uint32_t key =
      (e.write ? 1u << 31 : 0u) | (static_cast<std::uint32_t>(e.atomic) << 29) | e.length;
  if (c.cache[0].key == key) return c.cache[0];
  if (c.cache[1].key == key) {
    std::swap(c.cache[0], c.cache[1]);
    return c.cache[0];
  }
  return new_shape(c, e, key);
}

const Link::Shape& Link::new_shape(Channel& c, const RequestExt& e, std::uint32_t key) {
  c.cache[1] = c.cache[0];
  const TransferShape t = !c.is_request ? framing_.response(e.write, e.length)
                          : e.atomic != AtomicOp::kNone
                              ? framing_.atomic_request(request_data_bytes(e))
                              : framing_.request(e.write, e.length);
  Shape& s = c.cache[0];
  s.key = key;
  s.wire_slots = framing_.wire_slots(t);
  s.credits = framing_.credits(t, params_.credit_unit);
  s.messages = t.messages;
  s.payload_bytes = t.payload_bytes;
  return s;
}

std::uint64_t Link::draw_good_flits(Wire& w) {
  // Inverse transform of the geometric distribution: good flits before the next errored one.
  const double u = static_cast<double>((splitmix64_next(w.rng) >> 11) + 1) * 0x1p-53;  // (0, 1]
  const double g = std::floor(std::log(u) / log_good_);
  return g >= 1.8e19 ? ~std::uint64_t{0} : static_cast<std::uint64_t>(g);
}

inline void Link::release_credits(Channel& c, const RxEntry& e, std::uint64_t now) {
  const std::uint64_t at = std::max(now, e.last_arrive_ps) + credit_return_ps_;
  c.returning.push_back({at, e.credits});
  c.rx_integral += e.credits * (now - std::min(now, e.deliver_ps));
  c.rx_occupied -= e.credits;
  if (!c.tx.empty()) {
    Wire& w = wire_of(c);
    const std::uint64_t d = clock_.edge_after_ps(at);
    if (d < w.next_decision_ps) {
      w.next_decision_ps = d;
      wake_.at(d, now);
    }
  }
}

std::uint64_t Link::drain(Channel& c, std::uint64_t now) {
  // Transfers that have arrived by now sit in the receive buffer until the next block takes them.
  while (c.rx_arrived < c.rx.size() && c.rx[c.rx_arrived].deliver_ps <= now) {
    c.rx_occupied += c.rx[c.rx_arrived].credits;
    c.rx_max = std::max(c.rx_max, c.rx_occupied);
    ++c.rx_arrived;
  }
  while (!c.far_end_busy && !c.rx.empty() && c.rx.front().deliver_ps <= now) {
    const RxEntry e = c.rx.front();
    c.rx.pop_front();
    --c.rx_arrived;
    if (!c.rx.empty()) prefetch_for_hop(*c.rx.front().payload);
    const bool taken = send_on(c, *e.payload);
    e.payload->release();
    if (taken) {
      release_credits(c, e, now);
    } else {
      c.far_end_busy = true;
      c.awaiting_end = e;
    }
  }
  note_rx(c);
  return hot_.hand_on_ps[c.index];
}

// Flit by flit; commit() places flits with no error among them, and no replay window that can
// bind, itself.
std::uint64_t Link::append_flits(Wire& w, std::uint64_t start_fs, std::uint32_t count) {
  const std::uint64_t tf = flit_fs_;
  const std::uint64_t window = params_.replay_buffer_flits;
  const std::uint64_t lost_per_error = 1 + (replay_fs_ + tf - 1) / tf;
  std::uint64_t t = start_fs;
  std::uint64_t first_end = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    std::uint64_t s = t;
    // The replay buffer holds flit k until its ACK: flit k + window waits for that slot.
    if (window_binds_) s = std::max(s, w.ack_fs[w.flit_index % window]);
    std::uint64_t e = s + tf;
    while (w.good_left == 0) {
      // This transmission fails its CRC: go back N. The retransmission starts replay_latency
      // after the errored copy ended; the flits sent meanwhile are discarded and resent after it.
      ++w.replays;
      w.replayed_flits += lost_per_error;
      ++w.flits;
      e += tf + replay_fs_;
      w.good_left = draw_good_flits(w);
    }
    --w.good_left;
    if (window_binds_) w.ack_fs[w.flit_index % window] = e + replay_fs_;
    ++w.flit_index;
    ++w.flits;
    w.busy_fs += e - s;
    if (i == 0) first_end = e;
    w.open_start_fs = s;
    t = e;
  }
  w.open_end_fs = w.free_fs = t;
  return first_end;
}

void Link::commit(Wire& w, Channel& c, std::uint64_t e_ps) {
  const TxEntry t = c.tx.front();
  c.tx.pop_front();
  const Shape& s = t.shape;
  c.credits_free -= s.credits;
  c.credits_held.set(c.room_held(c.credits_free), e_ps);
  if (c.stall_since_ps != kNever) {
    c.stall_ps += e_ps - std::min(e_ps, c.stall_since_ps);
    c.stall_since_ps = kNever;
  }
  const std::uint64_t e_fs = e_ps * 1000;
  const bool dense = params_.flit.packing == Packing::kDense;
  std::uint32_t rem = s.wire_slots;
  w.slots_used += s.wire_slots;
  std::uint64_t first_end = 0;
  std::uint64_t last_end = 0;
  if (dense && w.open_slots > 0 && w.open_start_fs >= e_fs) {
    // The flit being packed has not started: fill its free slots first.
    const std::uint32_t used = std::min(w.open_slots, rem);
    w.open_slots -= used;
    rem -= used;
    first_end = last_end = w.open_end_fs;
  }
  if (rem > 0) {
    const std::uint32_t per_flit = framing_.slots_per_flit();
    // One slot per flit (NVLink's 16 B flits) needs no division.
    const std::uint32_t n = per_flit == 1 ? rem : (rem + per_flit - 1) / per_flit;
    const std::uint64_t start_fs = std::max(w.free_fs, e_fs);
    std::uint64_t fe;
    if (!window_binds_ && w.good_left >= n) {
      // No error among these flits and the replay window cannot bind: one stretch at wire rate.
      // Placed here rather than in append_flits(): once per transfer, a few stores, and no call
      // (with its register saves) for them.
      const std::uint64_t tf = flit_fs_;
      w.good_left -= n;
      w.open_start_fs = start_fs + (n - 1) * tf;
      w.open_end_fs = w.free_fs = start_fs + n * tf;
      w.busy_fs += n * tf;
      w.flits += n;
      fe = start_fs + tf;
    } else {
      fe = append_flits(w, start_fs, n);
    }
    if (first_end == 0) first_end = fe;
    last_end = w.open_end_fs;
    w.open_slots = n * per_flit - rem;
  }
  ++c.transfers;
  c.messages += s.messages;
  c.payload_bytes += s.payload_bytes;
  RxEntry r;
  r.payload = t.payload;
  r.deliver_ps = fs_to_ps_ceil((params_.deliver_at_head ? first_end : last_end) + latency_fs_);
  r.last_arrive_ps = fs_to_ps_ceil(last_end + latency_fs_);
  r.credits = s.credits;
  c.round_trip_credit_ps += s.credits * (r.last_arrive_ps + credit_return_ps_ - e_ps);
  c.tx_wait_ps += e_ps - t.arrive_ps;
  c.rx.push_back(r);
  // The first in the buffer, or (the far end holding one) the first not yet counted as arrived.
  if (c.rx_arrived == c.rx.size() - 1) note_rx(c);
  // behaviour(), commit()'s only caller, asks for the wake-up once it knows all its times.
  committed_due_ps_ = std::min(committed_due_ps_, r.deliver_ps);
  // A transmit-queue entry is free: take the transfer that was held back, if any.
  if (!c.hold.empty()) {
    Payload& held = c.hold.take(e_ps, c.backpressure_ps);
    // The queue entry keeps hold()'s reference.
    c.tx.push_back({&held, e_ps, shape_of(c, ext_of(held))});
    send_end_upstream(c, held);
  }
}

void Link::decide(Wire& w, std::uint64_t now) {
  w.next_decision_ps = kNever;
  const std::uint64_t e_fs = now * 1000;
  const std::uint64_t period = clock_.period_ps();
  const bool dense = params_.flit.packing == Packing::kDense;
  // Credits that reached the sender before this edge are usable on it.
  for (Channel* c : w.vc) {
    while (c->active && !c->returning.empty() && c->returning.front().at_ps < now) {
      c->credits_free += c->returning.front().credits;
      c->credits_held.set(c->room_held(c->credits_free), c->returning.front().at_ps);
      c->returning.pop_front();
    }
  }
  // A flit that has started goes out as it is (padded).
  if (w.open_slots > 0 && w.open_start_fs < e_fs) w.open_slots = 0;
  // Where the next free slot's flit starts.
  auto next_slot_fs = [&] {
    return (dense && w.open_slots > 0) ? w.open_start_fs : std::max(w.free_fs, e_fs);
  };
  while (next_slot_fs() < e_fs + period * 1000) {
    Channel* pick = nullptr;
    for (unsigned k = 0; k < 2 && !pick; ++k) {
      const unsigned v = (w.rr + k) & 1;
      Channel* c = w.vc[v];
      if (!c->active || c->tx.empty() || c->tx.front().arrive_ps >= now) continue;
      if (c->tx.front().shape.credits > c->credits_free) {
        if (c->stall_since_ps == kNever) c->stall_since_ps = now;
        continue;
      }
      pick = c;
      w.rr = v ^ 1;
    }
    if (!pick) break;
    commit(w, *pick, now);
  }
  // When to decide next: the wire's next flit to pack, a VC's next arrival or returned credit.
  const std::uint64_t s0 = next_slot_fs();
  const std::uint64_t wire_ready =
      s0 >= e_fs + period * 1000 ? clock_.edge_after_ps(s0 / 1000) - period : now;
  std::uint64_t next = kNever;
  for (Channel* c : w.vc) {
    if (!c->active || c->tx.empty()) continue;
    std::uint64_t ready;
    if (c->tx.front().arrive_ps >= now) {
      ready = clock_.edge_after_ps(c->tx.front().arrive_ps);
    } else if (c->tx.front().shape.credits > c->credits_free) {
      // Ready but out of credits: a credit stall from when the wire could have taken it.
      if (c->stall_since_ps == kNever) c->stall_since_ps = wire_ready;
      if (c->returning.empty()) continue;  // release_credits() sets the time
      ready = clock_.edge_after_ps(c->returning.front().at_ps);
    } else {
      ready = now;
    }
    ready = std::max(ready, wire_ready);
    if (ready <= now) ready = now + period;
    next = std::min(next, ready);
  }
  w.next_decision_ps = std::min(w.next_decision_ps, next);
}

void Link::behaviour() {
  wake_.fired();
  const std::uint64_t now = famsim::now_ps();
  std::uint64_t next = kNever;
  for (unsigned k = 0; k < 4; ++k) {
    // Transfers arrive in the order they were committed: with the first not due, none is.
    if (hot_.drain_due_ps[k] > now) {
      next = std::min(next, hot_.hand_on_ps[k]);
    } else {
      next = std::min(next, drain(ch_[k], now));
    }
  }
  for (Wire& w : wire_) {
    if (w.next_decision_ps <= now) decide(w, now);
    next = std::min(next, w.next_decision_ps);
  }
  // The delivery times of the transfers committed now, with the rest: one request to the
  // scheduler per wake-up instead of one more per first commit.
  next = std::min(next, committed_due_ps_);
  committed_due_ps_ = kNever;
  wake_.at(next, now);
}

// --- Statistics ---------------------------------------------------------------------------------

namespace {

// VC v's credits as a resource of wire i (a VC's credits ride the other direction's wire back).
std::string credit_name(unsigned wire, unsigned v) {
  const char* vc = v == 0 ? "request" : "response";
  if (v == wire) return fmt::format("{} VC credits", vc);
  return fmt::format("{} VC credits ({} direction)", vc, wire == 0 ? "request" : "response");
}

// The same VC's credits as a server (Channel::round_trip_credit_ps): "response VC credit round
// trip", "request VC credit round trip (response direction)".
std::string round_trip_name(unsigned wire, unsigned v) {
  std::string n = credit_name(wire, v);
  n.replace(n.find("credits"), 7, "credit round trip");
  return n;
}

// Its unit: credits in use over their least round trips, of the credits transfers can use.
constexpr const char* kRoundTripUnit = "credits held for round trips";

// The same VC's transmit queue: "request VC transmit queue", "response VC transmit queue
// (request direction)".
std::string tx_queue_name(unsigned wire, unsigned v) {
  std::string n = credit_name(wire, v);
  n.replace(n.find("credits"), 7, "transmit queue");
  return n;
}

const char* wire_name(unsigned wire) { return wire == 0 ? "request wire" : "response wire"; }

}  // namespace

double Link::padding_ps(const Wire& w) const {
  if (params_.flit.packing != Packing::kDense) return 0.0;
  const std::uint64_t per_flit = framing_.slots_per_flit();
  const std::uint64_t good_slots = (w.flits - w.replays) * per_flit;
  const std::uint64_t padding_slots = good_slots > w.slots_used ? good_slots - w.slots_used : 0;
  return static_cast<double>(padding_slots) * static_cast<double>(flit_fs_) * 1e-3 / per_flit;
}

OccupancyGauge Link::credits_held_at(const Channel& c, std::uint64_t t_ps) {
  OccupancyGauge held = c.credits_held;
  std::uint32_t free = c.credits_free;
  for (std::size_t k = 0; k < c.returning.size() && c.returning[k].at_ps < t_ps; ++k) {
    free += c.returning[k].credits;
    held.set(c.room_held(free), c.returning[k].at_ps);
  }
  return held;
}

double Link::credit_depth(unsigned k) const {
  // Entered just before the block the link feeds, on the way out or (responses) back.
  // ch_[0] and ch_[3] carry side A's transactions (requests A->B, their responses B->A).
  const double set = (k == 0 || k == 3) ? a_side_depth_ : b_side_depth_;
  if (set >= 0) return set;
  return far_end_ != BlockKind::kOther ? path_depth(far_end_) - 0.5 : -1.0;
}

double Link::tx_queue_depth(unsigned k) const {
  // Entered before the wire, so earlier on the round trip than the credits: by less than any
  // gap between a switch stage's output buffer and the link it feeds (bottleneck.h).
  constexpr double kBefore = 0.01;
  const double d = credit_depth(k);
  if (d < 0) return d;
  return (k == 1 || k == 3) ? d + kBefore : d - kBefore;
}

void Link::set_wire_ends(ResourceUse& use, unsigned wire) const {
  if (a_side_.empty()) return;
  use.from = wire_from(wire);
  use.to = wire_to(wire);
}

void Link::probes(std::vector<ResourceProbe>& out) const {
  for (unsigned i = 0; i < 2; ++i) {
    const Wire* w = &wire_[i];
    ResourceProbe wire;
    wire.use.name = wire_name(i);
    set_wire_ends(wire.use, i);
    set_wire_place(wire.use, i);
    wire.use.capacity = bandwidth_gbps_;
    wire.work = [this, w](std::uint64_t) {
      const double fs = static_cast<double>(w->busy_fs) - padding_ps(*w) * 1e3;
      return fs > 0 ? static_cast<std::uint64_t>(fs) : std::uint64_t{0};
    };
    wire.scale = 1e-3;  // fs
    out.push_back(std::move(wire));
    if (window_binds_) {
      // The replay buffer's entries x time held (report()), in fs.
      ResourceProbe replay;
      replay.use.name = replay_name(i);
      replay.use.type = ResourceUse::Type::kSlots;
      replay.use.capacity = params_.replay_buffer_flits;
      replay.servers = replay.use.capacity;
      replay.work = [this, w](std::uint64_t) { return w->busy_fs + w->flit_index * replay_fs_; };
      replay.scale = 1e-3;
      replay.use.response_path = i == 1;
      replay.use.path_depth = credit_depth(i == 0 ? 0 : 3);
      set_wire_ends(replay.use, i);
      out.push_back(std::move(replay));
    }
    for (unsigned v = 0; v < 2; ++v) {
      const Channel& c = *w->vc[v];
      if (!c.active) continue;
      ResourceProbe credits = pool_probe(credit_name(i, v), c.credits_held);
      credits.gauge = nullptr;
      credits.work = [&c](std::uint64_t t) { return credits_held_at(c, t).integral_to(t); };
      credits.use.response_path = v == 1;
      credits.use.path_depth = credit_depth(2 * i + v);
      set_wire_ends(credits.use, i);
      out.push_back(std::move(credits));
      ResourceProbe tx;
      tx.use.name = tx_queue_name(i, v);
      tx.use.type = ResourceUse::Type::kSlots;
      tx.use.capacity = params_.tx_queue_entries;
      tx.use.response_path = v == 1;
      tx.use.path_depth = tx_queue_depth(2 * i + v);
      tx.use.feeds = wire_name(i);
      set_wire_ends(tx.use, i);
      tx.servers = tx.use.capacity;
      tx.counter = &c.tx_wait_ps;
      out.push_back(std::move(tx));
      ResourceProbe trip;
      trip.use.name = round_trip_name(i, v);
      trip.use.unit = kRoundTripUnit;
      trip.use.capacity = c.usable_credits();
      set_wire_ends(trip.use, i);
      trip.counter = &c.round_trip_credit_ps;
      trip.scale = 1.0 / trip.use.capacity;  // credits x ps -> ps of the whole pool
      out.push_back(std::move(trip));
    }
  }
}

void Link::report(ComponentReport& r, const ReportWindow& window) const {
  const double flit_bytes = params_.flit.flit_bytes;
  double payload_total = 0, wire_total = 0, u_max = 0, bp_total = 0;
  auto vc_json = [&](const Channel& c) {
    return nlohmann::json{{"transfers", c.transfers},
                          {"messages", c.messages},
                          {"payload_bytes", c.payload_bytes},
                          {"credits", c.credits_total},
                          {"credit_stall_ns", static_cast<double>(c.stall_ps) * 1e-3},
                          {"rx_buffer_mean", window_mean(c.rx_integral, window)},
                          {"rx_buffer_max", c.rx_max},
                          {"backpressure_ns", static_cast<double>(c.backpressure_ps) * 1e-3}};
  };
  const char* names[2] = {"request_direction", "response_direction"};
  for (unsigned i = 0; i < 2; ++i) {
    const Wire& w = wire_[i];
    const double u = busy_fraction(w.busy_fs / 1000, window);
    const std::uint64_t payload = w.vc[0]->payload_bytes + w.vc[1]->payload_bytes;
    const std::uint64_t messages = w.vc[0]->messages + w.vc[1]->messages;
    const double wire = static_cast<double>(w.flits) * flit_bytes;
    const double bp = static_cast<double>(w.vc[0]->backpressure_ps + w.vc[1]->backpressure_ps);
    payload_total += static_cast<double>(payload);
    wire_total += wire;
    u_max = std::max(u_max, u);
    bp_total += bp;
    // Padding: slots of the good flits that no transfer took. With dense packing a flit goes out
    // padded only because nothing else was waiting when it was packed; more traffic would have
    // filled it, so the wire's room for traffic is its busy time less that padding's flit time.
    // That (needed) utilisation is the wire's as a resource: a wire sending half-empty flits all
    // the time is not saturated. Per-message packing pads every message whatever the load.
    const std::uint64_t per_flit = framing_.slots_per_flit();
    const std::uint64_t good_slots = (w.flits - w.replays) * per_flit;
    const std::uint64_t padding_slots = good_slots > w.slots_used ? good_slots - w.slots_used : 0;
    const double window_ps = static_cast<double>(window.duration_ps());
    const double needed = window_ps > 0 ? std::max(0.0, u - padding_ps(w) / window_ps) : u;
    nlohmann::json j = {{"utilization", u},
                        {"needed_utilization", needed},
                        {"padding_bytes", padding_slots * params_.flit.slot_bytes},
                        {"messages", messages},
                        {"flits", w.flits},
                        {"payload_bytes", payload},
                        {"wire_bytes", wire},
                        {"wire_efficiency", wire > 0 ? static_cast<double>(payload) / wire : 0.0},
                        {"replays", w.replays},
                        {"replayed_flits", w.replayed_flits},
                        {"backpressure_ns", bp * 1e-3}};
    if (!a_side_.empty()) {
      j["from"] = wire_from(i);
      j["to"] = wire_to(i);
    }
    if (w.vc[0]->active) j["request_vc"] = vc_json(*w.vc[0]);
    if (w.vc[1]->active) j["response_vc"] = vc_json(*w.vc[1]);
    r.extra[names[i]] = std::move(j);
    // The wire carries framing as well as payload: its capacity and use are in wire bytes.
    if (w.flits > 0 || i == 0) {
      ResourceUse wire_use;
      wire_use.name = wire_name(i);
      wire_use.utilization = needed;
      wire_use.capacity = bandwidth_gbps_;
      wire_use.used = needed * bandwidth_gbps_;
      wire_use.backpressure_ns = bp * 1e-3;
      set_wire_ends(wire_use, i);
      set_wire_place(wire_use, i);
      r.resources.push_back(std::move(wire_use));
    }
    // The replay buffer, when too small for the ACK round trip (window_binds_): each flit holds
    // an entry from its start to its ACK, replay_latency_ns after its end, so B entries carry at
    // most B flits per flit time + replay latency. Its mean occupancy over B: the busy time
    // (replays included) plus the replay latency of every good flit, over the window.
    if (window_binds_ && w.flit_index > 0 && window.duration_ps() > 0) {
      const double held_ps =
          (static_cast<double>(w.busy_fs) + static_cast<double>(w.flit_index * replay_fs_)) * 1e-3;
      ResourceUse replay;
      replay.name = replay_name(i);
      replay.type = ResourceUse::Type::kSlots;
      replay.capacity = params_.replay_buffer_flits;
      replay.used = held_ps / static_cast<double>(window.duration_ps());
      replay.utilization = std::min(1.0, replay.used / replay.capacity);
      replay.response_path = i == 1;
      replay.path_depth = credit_depth(i == 0 ? 0 : 3);
      set_wire_ends(replay, i);
      r.resources.push_back(std::move(replay));
    }
    // Each VC's credits: a window of C credits over a credit round trip R carries at most
    // C x F / R, so a VC whose credits are all out while its wire has time to spare is held back
    // by them (or by the receiver not taking its messages).
    for (unsigned v = 0; v < 2; ++v) {
      const Channel& c = *w.vc[v];
      if (!c.active || c.transfers == 0) continue;
      const std::string name = credit_name(i, v);
      // Credits on their way back when the window ends are counted back at the sender from the
      // time they arrive (a VC with nothing more to send does not look at them again).
      ResourceUse credits = slot_pool(name, credits_held_at(c, window.end_ps), window);
      credits.backpressure_ns = static_cast<double>(c.stall_ps) * 1e-3;
      credits.response_path = v == 1;
      credits.path_depth = credit_depth(2 * i + v);
      set_wire_ends(credits, i);
      r.resources.push_back(std::move(credits));
      // The transmit queue: the wire's own queue (feeds), whose fill tells a wire starved of
      // work from one with work waiting (bottleneck.cpp). Its mean occupancy over its entries.
      ResourceUse tx;
      tx.name = tx_queue_name(i, v);
      tx.type = ResourceUse::Type::kSlots;
      tx.capacity = params_.tx_queue_entries;
      tx.used = window_mean(c.tx_wait_ps, window);
      tx.utilization = std::min(1.0, tx.used / tx.capacity);
      tx.backpressure_ns = static_cast<double>(c.backpressure_ps) * 1e-3;
      tx.response_path = v == 1;
      tx.path_depth = tx_queue_depth(2 * i + v);
      tx.feeds = wire_name(i);
      set_wire_ends(tx, i);
      r.resources.push_back(std::move(tx));
      // The credits as a server: each transfer holds its credits at least from its commit to its
      // last flit's arrival + credit_return_ns, so C usable credits carry at most C over that
      // round trip (link.h). Listed when they are busier than the wire: then they, not the wire,
      // cap the VC at this run's mix of transfers (a wire whose credits cover the round trip is
      // always the busier). The credits pool above is full for that and for a receiver that is
      // slow to take the VC's transfers; this is only the former.
      const double usable = c.usable_credits();
      const double held = static_cast<double>(c.round_trip_credit_ps) / usable;
      const double trip_u = window_ps > 0 ? held / window_ps : 0.0;
      if (trip_u > needed && needed > 0) {
        ResourceUse trip;
        trip.name = round_trip_name(i, v);
        trip.unit = kRoundTripUnit;
        trip.view_of = name;
        trip.capacity = usable;
        trip.utilization = std::min(1.0, trip_u);
        trip.used = trip.utilization * usable;
        set_wire_ends(trip, i);
        // What the VC carried, in payload GB/s, or in transfers per us when its transfers carry
        // no data (read requests).
        const double secs = window.seconds();
        const bool data = c.payload_bytes > 0;
        const double rate = secs <= 0 ? 0.0
                            : data    ? static_cast<double>(c.payload_bytes) / secs * 1e-9
                                      : static_cast<double>(c.transfers) / secs * 1e-6;
        const char* what = data ? "GB/s of this VC's payload" : "transfers per us (read requests)";
        // At the run's mix both scale with the traffic: the wire saturates at 1 / needed of it,
        // the credits at 1 / trip_u, so the credits that let the wire set the pace are usable x
        // trip_u / needed, in whole transfers.
        const double transfers_needed = std::ceil(c.room_transfers * trip_u / needed);
        const char* unit = params_.credit_unit == CreditUnit::kFlit ? "flit" : "message";
        trip.advice = fmt::format(
            "Each transfer holds its credits for at least its time on the wire + latency_ns {:g} "
            "+ credit_return_ns {:g}, so the {} {} credit{} that transfers can use ({} transfer{} "
            "of {} {}{}) carry at most {:.2f} {} at the run's mix of transfers, where the wire "
            "would carry {:.2f}: about {:.0f} credits ({}_vc_credits), or a shorter latency_ns or "
            "credit_return_ns, let the wire set the pace.",
            params_.latency_ns, params_.credit_return_ns, usable, v == 0 ? "request" : "response",
            usable == 1 ? "" : "s", c.room_transfers, c.room_transfers == 1 ? "" : "s", c.room_unit,
            unit, c.room_unit == 1 ? "" : "s", rate / trip_u, what, rate / needed,
            transfers_needed * c.room_unit, v == 0 ? "request" : "response");
        r.resources.push_back(std::move(trip));
      }
    }
  }
  r.bytes = payload_total;
  r.utilization = u_max;
  r.backpressure_ns = bp_total * 1e-3;
  // bandwidth_gbps is the configured capacity of one direction (a stable key of the first
  // release; a memory's bandwidth_gbps is measured): peak_bandwidth_gbps says so by name, as a
  // memory's does, and payload_bandwidth_gbps is what the link carried, both directions.
  r.extra["bandwidth_gbps"] = bandwidth_gbps_;
  r.extra["peak_bandwidth_gbps"] = bandwidth_gbps_;
  r.extra["payload_bandwidth_gbps"] =
      window.seconds() > 0 ? payload_total / window.seconds() * 1e-9 : 0.0;
  r.extra["wire_efficiency"] = wire_total > 0 ? payload_total / wire_total : 0.0;
  r.extra["bidirectional"] = bidirectional();
}

std::size_t Link::occupancy() const {
  std::size_t n = 0;
  for (const Channel& c : ch_) {
    if (!c.active) continue;
    n += c.tx.size() + c.rx.size() + (c.hold.empty() ? 0 : 1);
  }
  return n;
}

}  // namespace famsim
