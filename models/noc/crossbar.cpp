#include "models/noc/crossbar.h"

#include "models/core/bottleneck.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>

namespace famsim {

const char* to_string(InputQueues q) { return q == InputQueues::kVoq ? "voq" : "fifo"; }
const char* to_string(CrossbarArbiter a) {
  switch (a) {
    case CrossbarArbiter::kIslip:
      return "islip";
    case CrossbarArbiter::kOldestFirst:
      return "oldest_first";
    case CrossbarArbiter::kRoundRobin:
      break;
  }
  return "round_robin";
}
const char* to_string(Forwarding f) {
  return f == Forwarding::kCutThrough ? "cut_through" : "store_and_forward";
}
std::optional<InputQueues> parse_input_queues(const std::string& name) {
  if (name == "fifo") return InputQueues::kFifo;
  if (name == "voq") return InputQueues::kVoq;
  return std::nullopt;
}
std::optional<CrossbarArbiter> parse_crossbar_arbiter(const std::string& name) {
  if (name == "round_robin") return CrossbarArbiter::kRoundRobin;
  if (name == "islip") return CrossbarArbiter::kIslip;
  if (name == "oldest_first") return CrossbarArbiter::kOldestFirst;
  return std::nullopt;
}
std::optional<Forwarding> parse_forwarding(const std::string& name) {
  if (name == "store_and_forward") return Forwarding::kStoreAndForward;
  if (name == "cut_through") return Forwarding::kCutThrough;
  return std::nullopt;
}

unsigned islip_iterations_for(const CrossbarParams& p, unsigned inputs, unsigned outputs) {
  if (p.islip_iterations != 0) return p.islip_iterations;
  const unsigned n = std::max(inputs, outputs);
  unsigned it = 0;
  while ((1U << it) < n) ++it;  // ceil(log2 n)
  return std::max(1U, it);
}

Crossbar::Crossbar(sc_core::sc_module_name name, SimContext& ctx, BlockKind kind,
                   const CrossbarParams& params, unsigned up_ports, unsigned down_ports,
                   std::unique_ptr<Routing> routing)
    : sc_core::sc_module(name),
      Component(ctx.registry, this->name(), kind),
      params_(params),
      clock_(params.clock_mhz),
      routing_(std::move(routing)),
      wake_("wake", ctx.scheduler(), this, &Wakeup::call_behaviour<Crossbar>) {
  for (unsigned i = 0; i < up_ports; ++i) {
    up_.push_back(
        std::make_unique<TargetPort<Crossbar>>(("up" + std::to_string(i)).c_str(), *this, i));
  }
  for (unsigned j = 0; j < down_ports; ++j) {
    down_.push_back(
        std::make_unique<InitiatorPort<Crossbar>>(("down" + std::to_string(j)).c_str(), *this, j));
  }
  init_plane(req_, true, up_ports, down_ports);
  init_plane(resp_, false, down_ports, up_ports);
  SC_HAS_PROCESS(Crossbar);
  SC_METHOD(behaviour);
  sensitive << wake_.event();
  dont_initialize();
}

void Crossbar::set_input_path_depth(bool responses, unsigned port, double depth) {
  Plane& pl = responses ? resp_ : req_;
  pl.input_depth.at(port) = depth;
}

void Crossbar::set_output_path_depth(bool responses, unsigned port, double depth) {
  Plane& pl = responses ? resp_ : req_;
  pl.output_depth.at(port) = depth;
}

void Crossbar::init_plane(Plane& pl, bool is_request, unsigned inputs, unsigned outputs) {
  pl.is_request = is_request;
  pl.in.resize(inputs);
  pl.input_depth.assign(inputs, -1.0);
  if (voq()) pl.voq_in.resize(inputs);
  for (unsigned i = 0; i < inputs; ++i) {
    Input& in = pl.in[i];
    in.queue.set_capacity(params_.input_buffer);
    if (voq()) {
      pl.voq_in[i].queues.configure(outputs, params_.input_buffer);
      pl.voq_in[i].eligible_ps.assign(outputs, 0);
    } else {
      in.fifo.set_capacity(params_.input_buffer);
    }
  }
  pl.out.resize(outputs);
  pl.outputs = outputs;
  pl.output_depth.assign(outputs, -1.0);
  pl.out_level.assign(outputs, OccupancyGauge(params_.output_buffer));
  for (Output& o : pl.out) {
    o.pipe.set_capacity(params_.output_buffer);
    o.requesters = RequestSet(inputs);
  }
  pl.waiting_outputs = RequestSet(outputs);
  pl.requested = RequestSet(outputs);
  pl.full_outputs = RequestSet(outputs);
  if (!voq()) {
    pl.out_words = pl.requested.words();
    pl.queued_for.assign(static_cast<std::size_t>(inputs) * outputs, 0);
    pl.wanted.assign(inputs * pl.out_words, 0);
    pl.free_wanted.assign(pl.out_words, 0);
    pl.queued_total.assign(outputs, 0);
    pl.wanted_any = RequestSet(outputs);
    pl.waiting_inputs = RequestSet(inputs);
    // At most every input's whole buffer arrives at one instant.
    pl.arrived.reserve(static_cast<std::size_t>(inputs) * params_.input_buffer);
  }
  const std::size_t staged_max = static_cast<std::size_t>(outputs) * params_.output_buffer;
  for (auto& c : pl.leave_classes) c.fifo.set_capacity(staged_max);
  pl.leave_heap.reserve(staged_max);
  pl.unblocked.reserve(outputs);
  // A FIFO input has one head; an input's VOQs at most min(outputs, buffer) heads.
  const std::size_t heads_per_input =
      voq() ? std::min<std::size_t>(outputs, params_.input_buffer) : 1;
  pl.pending_heads.reserve(inputs * heads_per_input);
  pl.popped.reserve(std::min(inputs, outputs));
  pl.grants.reserve(std::min(inputs, outputs));
  pl.hol_blocked.reserve(inputs);
  if (voq() || params_.arbiter != CrossbarArbiter::kRoundRobin) {
    pl.available = RequestSet(outputs);
    pl.round_robin = RoundRobinMatcher(inputs, outputs);
    pl.islip = IslipMatcher(inputs, outputs, islip_iterations_for(params_, inputs, outputs));
    pl.oldest_first = OldestFirstMatcher(inputs, outputs);
    if (params_.arbiter == CrossbarArbiter::kOldestFirst) {
      pl.candidates.reserve(inputs * heads_per_input);
    }
  }
}

Sync Crossbar::fw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time&) {
  const std::uint64_t now = now_ps();
  if (phase == tlm::BEGIN_REQ) {
    ext_of(p).enter(block_id(), static_cast<std::uint16_t>(port), now);
    if (input_full(req_, port)) return req_.in[port].hold.hold(p, now);
    arrive(req_, port, p, now);
    return accept_now(p, phase, tlm::END_REQ);
  }
  if (phase == tlm::END_RESP) {
    output_unblocked(resp_, port, now);
    return tlm::TLM_ACCEPTED;
  }
  protocol_error(name(), phase, "an upstream port");
}

Sync Crossbar::bw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time&) {
  const std::uint64_t now = now_ps();
  if (phase == tlm::BEGIN_RESP) {
    ext_of(p).resp_enter(now);
    if (input_full(resp_, port)) return resp_.in[port].hold.hold(p, now);
    arrive(resp_, port, p, now);
    return accept_now(p, phase, tlm::END_RESP);
  }
  if (phase == tlm::END_REQ) {
    output_unblocked(req_, port, now);
    return tlm::TLM_ACCEPTED;
  }
  protocol_error(name(), phase, "a downstream port");
}

void Crossbar::output_unblocked(Plane& pl, unsigned o, std::uint64_t now_ps) {
  pl.out[o].far_end_busy = false;
  pl.unblocked.push_back(o);
  pl.send_due_ps = std::min(pl.send_due_ps, now_ps);
  wake_.asap();
}

void Crossbar::arrive(Plane& pl, unsigned in, Payload& p, std::uint64_t now_ps) {
  enqueue(pl, in, classify(pl, p, now_ps), now_ps);
}

void Crossbar::enqueue(Plane& pl, unsigned in, const Queued& q, std::uint64_t now_ps) {
  Input& input = pl.in[in];
  input.queue.set(input.queue.level() + 1, now_ps);
  if (voq()) {
    VirtualOutputQueues<Queued>& queues = pl.voq_in[in].queues;
    const bool was_empty = queues.empty(q.dest);
    queues.push_back(q.dest, q);
    if (was_empty) schedule_head(pl, in, q.dest, now_ps);
  } else {
    const bool was_empty = input.fifo.empty();
    input.fifo.push_back(q);
    count_queued(pl, in, q.dest);
    // Only an arrival at one of the block's edges can be counted by that edge's head-of-line
    // scan (find_hol_blocked(), which runs at edges): others need no note. The edge after it is
    // worked out for the new head anyway (most arrivals find their FIFO empty); noting every
    // arrival cost 0.4 % of famsim bench's instructions, where few fall on an edge.
    const std::uint64_t next_edge = clock_.edge_after_ps(now_ps);
    if (next_edge - clock_.period_ps() == now_ps) {
      if (pl.arrived_at_ps != now_ps) {
        pl.arrived.clear();
        pl.arrived_at_ps = now_ps;
      }
      pl.arrived.push_back({in, q.dest});
    }
    if (was_empty) schedule_head_at(pl, in, q.dest, next_edge, now_ps);
  }
}

// schedule_head(), stage(), count_queued() and uncount_queued() run once or twice per message
// and are a few lines each: declared inline so that GCC inlines them (it kept them as calls, and
// the calls cost about as much as their bodies).
inline void Crossbar::schedule_head(Plane& pl, unsigned in, unsigned out, std::uint64_t now_ps) {
  // A new head competes at the first edge after it reached the head of its queue (for a head
  // exposed by a grant at edge e, that is e + 1 cycle: one grant per input per edge).
  schedule_head_at(pl, in, out, clock_.edge_after_ps(now_ps), now_ps);
}

inline void Crossbar::schedule_head_at(Plane& pl, unsigned in, unsigned out, std::uint64_t eligible,
                                       std::uint64_t now_ps) {
  pl.pending_heads.push_back({in, out, eligible});
  pl.head_due_ps = std::min(pl.head_due_ps, eligible);
  wake_.at(eligible, now_ps);
}

Crossbar::Queued Crossbar::classify(const Plane& pl, Payload& p, std::uint64_t since_ps) const {
  const RequestExt& e = ext_of(p);
  const unsigned d = pl.is_request ? routing_->route(e) : e.hops[e.resp_cursor].in_port();
  if (d >= pl.outputs) {
    throw std::logic_error(std::string(name()) + ": request " + std::to_string(e.id) +
                           " routed to port " + std::to_string(d) + " of " +
                           std::to_string(pl.out.size()));
  }
  return {&p, d, pl.is_request ? request_data_bytes(e) : response_data_bytes(e), since_ps};
}

void Crossbar::drain_output(Plane& pl, unsigned o, std::uint64_t now_ps, bool far_end_took) {
  Output& out = pl.out[o];
  const bool was_full = out.pipe.full();
  const std::size_t was = out.pipe.size();
  while (!out.far_end_busy && !out.pipe.empty() && out.pipe.front().leave_ps <= now_ps) {
    Payload& p = *out.pipe.front().payload;
    out.pipe.pop_front();
    if (!out.pipe.empty()) prefetch_for_hop(*out.pipe.front().payload);
    const bool taken = pl.is_request ? down_[o]->send_req(p) : up_[o]->send_resp(p);
    out.far_end_busy = !taken;
    p.release();
  }
  if (out.pipe.size() != was) pl.out_level[o].set(out.pipe.size(), now_ps);
  // A pipe that had no room now has: a waiting requester may win at the next edge. Room made by
  // the far end taking a message back (END_REQ / END_RESP at now_ps) is an input like any other:
  // it is sampled at the first edge strictly after it arrived, so arbitration at an edge that
  // coincides with it does not depend on whether the far end's event ran first. Room made by this
  // block's own message leaving (at one of its edges, before it arbitrates) counts at once.
  if (was_full && !out.pipe.full()) {
    pl.full_outputs.clear(o);
    const std::uint64_t from = far_end_took ? clock_.edge_after_ps(now_ps) : clock_.edge_ps(now_ps);
    out.free_at_ps = std::max(out.free_at_ps, from);
    if (pl.waiting_outputs.test(o)) {
      pl.next_arbitration_ps = std::min(pl.next_arbitration_ps, from);
    }
  }
}

void Crossbar::send_ready(Plane& pl, std::uint64_t now_ps) {
  if (pl.send_due_ps > now_ps) return;
  for (unsigned o : pl.unblocked) drain_output(pl, o, now_ps, true);
  pl.unblocked.clear();
  for (unsigned k = 0; k < pl.leave_classes_used; ++k) {
    Plane::LeaveClass& c = pl.leave_classes[k];
    while (!c.fifo.empty() && c.fifo.front().leave_ps <= now_ps) {
      const unsigned o = c.fifo.front().output;
      c.fifo.pop_front();
      drain_output(pl, o, now_ps, false);
    }
  }
  while (!pl.leave_heap.empty() && pl.leave_heap.front().leave_ps <= now_ps) {
    const unsigned o = pl.leave_heap.front().output;
    std::pop_heap(pl.leave_heap.begin(), pl.leave_heap.end(), std::greater<LeaveEvent>());
    pl.leave_heap.pop_back();
    drain_output(pl, o, now_ps, false);
  }
  pl.send_due_ps = pl.unblocked.empty() ? next_leave(pl) : now_ps;
}

inline void Crossbar::stage(Plane& pl, std::uint64_t cycles, const LeaveEvent& ev) {
  pl.send_due_ps = std::min(pl.send_due_ps, ev.leave_ps);
  for (unsigned k = 0; k < pl.leave_classes_used; ++k) {
    Plane::LeaveClass& c = pl.leave_classes[k];
    if (c.cycles == cycles) {
      c.fifo.push_back(ev);
      return;
    }
  }
  if (pl.leave_classes_used < pl.leave_classes.size()) {
    Plane::LeaveClass& c = pl.leave_classes[pl.leave_classes_used++];
    c.cycles = cycles;
    c.fifo.push_back(ev);
    return;
  }
  pl.leave_heap.push_back(ev);
  std::push_heap(pl.leave_heap.begin(), pl.leave_heap.end(), std::greater<LeaveEvent>());
}

std::uint64_t Crossbar::next_leave(const Plane& pl) {
  std::uint64_t next = Wakeup::kNever;
  for (unsigned k = 0; k < pl.leave_classes_used; ++k) {
    const Plane::LeaveClass& c = pl.leave_classes[k];
    if (!c.fifo.empty()) next = std::min(next, c.fifo.front().leave_ps);
  }
  if (!pl.leave_heap.empty()) next = std::min(next, pl.leave_heap.front().leave_ps);
  return next;
}

void Crossbar::arbitrate(Plane& pl, std::uint64_t edge_ps) {
  // Heads that became eligible by this edge start requesting their output.
  const std::size_t pending = pl.pending_heads.size();
  std::uint64_t later = Wakeup::kNever;  // the earliest head still pending after this edge
  for (std::size_t k = 0; pl.head_due_ps <= edge_ps && k < pl.pending_heads.size();) {
    const PendingHead h = pl.pending_heads[k];
    if (h.eligible_ps > edge_ps) {
      later = std::min(later, h.eligible_ps);
      ++k;
      continue;
    }
    pl.out[h.output].requesters.set(h.input);
    pl.waiting_outputs.set(h.output);
    if (voq()) {
      pl.voq_in[h.input].eligible_ps[h.output] = h.eligible_ps;
    } else {
      pl.in[h.input].head_eligible_ps = h.eligible_ps;
      pl.waiting_inputs.set(h.input);
    }
    pl.pending_heads[k] = pl.pending_heads.back();
    pl.pending_heads.pop_back();
  }
  const bool new_heads = pl.pending_heads.size() != pending;
  if (new_heads) pl.head_due_ps = later;
  // No new head and no waiting output that can take a message at this edge (each is busy until
  // next_arbitration_ps or has a full buffer, whose draining lowers next_arbitration_ps): no
  // grant, so nothing below would change (the round-robin matcher's first output follows the
  // edge number, not the calls).
  if (!new_heads && pl.next_arbitration_ps > edge_ps) return;

  pl.popped.clear();
  if (!voq()) pl.requested.copy_from(pl.waiting_outputs);
  if (!voq() && params_.arbiter == CrossbarArbiter::kRoundRobin) {
    arbitrate_fifo_round_robin(pl, edge_ps);
  } else {
    arbitrate_matching(pl, edge_ps);
  }
  // Head-of-line blocking changes only where grants or new heads change who waits for what:
  // elsewhere the inputs found blocked stay blocked (only a grant ends it) and their time runs on.
  if (!voq() && (new_heads || !pl.popped.empty())) {
    for (unsigned i : pl.hol_blocked) pl.in[i].hol_ps += edge_ps - pl.hol_since_ps;
    pl.hol_blocked.clear();
    if (pl.waiting_outputs.any()) find_hol_blocked(pl, edge_ps);
  }

  // Inputs that sent a message have room: take a held message, and let the next head compete.
  for (const Grant& g : pl.popped) {
    Input& in = pl.in[g.input];
    if (!in.hold.empty()) {
      const std::uint64_t since = in.hold.since_ps;
      Payload& held = in.hold.take(edge_ps, in.backpressure_ps);
      const Queued q = classify(pl, held, since);
      in.queue.set(in.queue.level() + 1, edge_ps);
      if (voq()) {
        VirtualOutputQueues<Queued>& queues = pl.voq_in[g.input].queues;
        const bool was_empty = queues.empty(q.dest);
        queues.push_back(q.dest, q);
        if (was_empty && q.dest != g.output) schedule_head(pl, g.input, q.dest, edge_ps);
      } else {
        in.fifo.push_back(q);
        count_queued(pl, g.input, q.dest);
      }
      if (pl.is_request) {
        up_[g.input]->send_end_req(held);
      } else {
        down_[g.input]->send_end_resp(held);
      }
    }
    if (voq()) {
      if (!pl.voq_in[g.input].queues.empty(g.output)) {
        schedule_head(pl, g.input, g.output, edge_ps);
      }
    } else if (!in.fifo.empty()) {
      schedule_head(pl, g.input, in.fifo.front().dest, edge_ps);
    }
  }
}

// The default configuration, on every request's path several times (switch, device NoC, hub):
// each output picks round-robin among the inputs whose FIFO head wants it. An input requests one
// output, so the per-output choices are a matching without further work.
void Crossbar::arbitrate_fifo_round_robin(Plane& pl, std::uint64_t edge_ps) {
  std::uint64_t next_arbitration = Wakeup::kNever;
  const auto serve = [&](unsigned o) {
    Output& out = pl.out[o];
    if (out.pipe.full()) return;  // draining the pipe re-arms arbitration
    if (out.free_at_ps > edge_ps) {
      next_arbitration = std::min(next_arbitration, out.free_at_ps);
      return;
    }
    // A lone requester (one word with at most one bit set) needs no count: the popcount is a
    // library call on baseline x86-64.
    const std::uint64_t first_word = out.requesters.word(0);
    if (out.requesters.words() > 1 || (first_word & (first_word - 1)) != 0) {
      const unsigned requesters = out.requesters.count();
      if (requesters > 1) {
        ++pl.conflicts;
        pl.lost_requests += requesters - 1;
      }
    }
    transfer(pl, out.arbiter.pick(out.requesters), o, edge_ps);
    if (out.requesters.any() && !out.pipe.full()) {
      next_arbitration = std::min(next_arbitration, out.free_at_ps);
    }
  };
  if (pl.out_words == 1) {
    // Up to 64 outputs (every shipped platform): the waiting outputs are one word, walked bit by
    // bit from a copy rather than searched again from each output. transfer() changes only the
    // bit of the output it serves, which the walk has passed, so the copy visits the same outputs.
    for (std::uint64_t bits = pl.waiting_outputs.word(0); bits != 0; bits &= bits - 1) {
      serve(static_cast<unsigned>(__builtin_ctzll(bits)));
    }
  } else {
    for (unsigned o = pl.waiting_outputs.next_at_or_after(0); o < pl.outputs;
         o = pl.waiting_outputs.next_at_or_after(o + 1)) {
      serve(o);
    }
  }
  pl.next_arbitration_ps = next_arbitration;
}

// Every other configuration: the outputs that can take a message now, and their requesters, go
// to the configured matcher (models/noc/matching.h).
void Crossbar::arbitrate_matching(Plane& pl, std::uint64_t edge_ps) {
  std::uint64_t next_arbitration = Wakeup::kNever;
  pl.available.reset();
  std::uint64_t requests = 0;
  for (unsigned o = pl.waiting_outputs.next_at_or_after(0); o < pl.outputs;
       o = pl.waiting_outputs.next_at_or_after(o + 1)) {
    const Output& out = pl.out[o];
    if (out.pipe.full()) continue;  // draining the pipe re-arms arbitration
    if (out.free_at_ps > edge_ps) {
      next_arbitration = std::min(next_arbitration, out.free_at_ps);
      continue;
    }
    pl.available.set(o);
    const unsigned n = out.requesters.count();
    requests += n;
    if (n > 1) ++pl.conflicts;
  }
  std::vector<Grant>& grants = pl.grants;
  grants.clear();
  const auto requesters = [&pl](unsigned o) -> const RequestSet& { return pl.out[o].requesters; };
  switch (params_.arbiter) {
    case CrossbarArbiter::kRoundRobin:
      pl.round_robin.match(pl.available, requesters, grants, clock_.edge_number(edge_ps));
      break;
    case CrossbarArbiter::kIslip:
      pl.islip.match(pl.available, requesters, grants);
      break;
    case CrossbarArbiter::kOldestFirst:
      pl.candidates.clear();
      for (unsigned o = pl.available.next_at_or_after(0); o < pl.outputs;
           o = pl.available.next_at_or_after(o + 1)) {
        const RequestSet& r = pl.out[o].requesters;
        for (unsigned i = r.next_at_or_after(0); i < r.size(); i = r.next_at_or_after(i + 1)) {
          const std::uint64_t since =
              voq() ? pl.voq_in[i].queues.front(o).since_ps : pl.in[i].fifo.front().since_ps;
          pl.candidates.push_back({since, i, o});
        }
      }
      pl.oldest_first.match(pl.candidates, grants);
      break;
  }
  pl.lost_requests += requests - grants.size();
  for (const Grant& g : grants) transfer(pl, g.input, g.output, edge_ps);
  // An output left unmatched with requesters (they went elsewhere) tries again at the next
  // edge; a granted one when it is free again.
  const std::uint64_t next_edge = edge_ps + clock_.period_ps();
  for (unsigned o = pl.available.next_at_or_after(0); o < pl.outputs;
       o = pl.available.next_at_or_after(o + 1)) {
    const Output& out = pl.out[o];
    if (!out.requesters.any() || out.pipe.full()) continue;
    next_arbitration = std::min(next_arbitration, std::max(out.free_at_ps, next_edge));
  }
  pl.next_arbitration_ps = next_arbitration;
}

void Crossbar::transfer(Plane& pl, unsigned i, unsigned o, std::uint64_t edge_ps) {
  Input& in = pl.in[i];
  Output& out = pl.out[o];
  out.requesters.clear(i);
  if (!out.requesters.any()) pl.waiting_outputs.clear(o);
  Queued q;
  std::uint64_t eligible;
  if (voq()) {
    VoqInput& v = pl.voq_in[i];
    q = v.queues.front(o);
    v.queues.pop_front(o);
    eligible = v.eligible_ps[o];
  } else {
    q = in.fifo.front();
    in.fifo.pop_front();
    pl.waiting_inputs.clear(i);
    uncount_queued(pl, i, o);
    eligible = in.head_eligible_ps;
  }
  in.queue.set(in.queue.level() - 1, edge_ps);
  if (edge_ps > eligible) {
    ++pl.delayed_grants;
    pl.delay_ps += edge_ps - eligible;
  }
  pl.popped.push_back({i, o});

  const unsigned data = q.data;
  if (data != pl.beats_for_bytes) {
    pl.beats_for_bytes = data;
    pl.beats = std::max<std::uint64_t>(1, (data + params_.width_bytes - 1) / params_.width_bytes);
  }
  const std::uint64_t beats = pl.beats;
  const std::uint64_t period = clock_.period_ps();
  const std::uint64_t cycles =
      params_.pipeline_cycles + (params_.forwarding == Forwarding::kCutThrough ? 1 : beats);
  const std::uint64_t leave = edge_ps + cycles * period;
  out.free_at_ps = edge_ps + beats * period;
  out.busy_ps += beats * period;
  out.bytes += data;
  ++out.messages;
  in.bytes += data;
  ++in.messages;
  out.pipe.push_back({q.payload, leave});
  pl.out_level[o].set(out.pipe.size(), edge_ps);
  if (out.pipe.full()) pl.full_outputs.set(o);
  stage(pl, cycles, {leave, o});
}

inline void Crossbar::count_queued(Plane& pl, unsigned in, unsigned o) {
  if (pl.queued_for[std::size_t{in} * pl.outputs + o]++ == 0) {
    pl.wanted[in * pl.out_words + (o >> 6)] |= std::uint64_t{1} << (o & 63);
  }
  if (pl.queued_total[o]++ == 0) pl.wanted_any.set(o);
}

inline void Crossbar::uncount_queued(Plane& pl, unsigned in, unsigned o) {
  if (--pl.queued_for[std::size_t{in} * pl.outputs + o] == 0) {
    pl.wanted[in * pl.out_words + (o >> 6)] &= ~(std::uint64_t{1} << (o & 63));
  }
  if (--pl.queued_total[o] == 0) pl.wanted_any.clear(o);
}

void Crossbar::find_hol_blocked(Plane& pl, std::uint64_t edge_ps) {
  // Messages that reached an input at this very instant are sampled at the next edge, like any
  // arrival: whether they came before or after this edge's arbitration (the order of the
  // instant's events) must not decide whether they count.
  const bool now_arrived = pl.arrived_at_ps == edge_ps;
  if (now_arrived) {
    for (const Grant& a : pl.arrived) uncount_queued(pl, a.input, a.output);
  }
  find_hol_blocked_among_queued(pl, edge_ps);
  if (now_arrived) {
    for (const Grant& a : pl.arrived) count_queued(pl, a.input, a.output);
  }
}

void Crossbar::find_hol_blocked_among_queued(Plane& pl, std::uint64_t edge_ps) {
  // The inputs still registered lost this edge (or wait for a busy output). An output that had a
  // requester at this edge either granted one or could not take a message, and one with a full
  // buffer cannot take one: only the others can be "free and granted nobody". Masking those out
  // word by word rules most inputs out without touching the outputs; the head's own output is
  // among the requested ones, so what is left is wanted by a message behind the head.
  pl.requested.merge(pl.full_outputs);
  pl.hol_since_ps = edge_ps;
  const std::size_t words = pl.out_words;
  // Only an output some queued message wants, free at this edge and requested by no head, can
  // block anyone: with none (the usual case under saturation, when every wanted output is busy
  // or requested), no input is blocked and the inputs need not be looked at. They are worked out
  // once per edge, so that each input is then one AND per word of its row.
  std::uint64_t* free_wanted = pl.free_wanted.data();
  bool candidate = false;
  for (std::size_t w = 0; w < words; ++w) {
    std::uint64_t free_bits = 0;
    for (std::uint64_t bits = pl.wanted_any.word(w) & ~pl.requested.word(w); bits;
         bits &= bits - 1) {
      const unsigned b = static_cast<unsigned>(__builtin_ctzll(bits));
      if (pl.out[w * 64 + b].free_at_ps <= edge_ps) free_bits |= std::uint64_t{1} << b;
    }
    free_wanted[w] = free_bits;
    candidate |= free_bits != 0;
  }
  if (!candidate) return;
  // Read through a local: GCC takes the store of hol_blocked's end as a possible store into the
  // plane's vectors and reloaded their data for every input.
  const std::uint64_t* wanted = pl.wanted.data();
  std::vector<unsigned>& blocked = pl.hol_blocked;
  if (words == 1) {
    // Up to 64 outputs (every shipped platform): an input's row is one word, one AND, no loop.
    const std::uint64_t free0 = free_wanted[0];
    for (std::size_t iw = 0; iw < pl.waiting_inputs.words(); ++iw) {
      for (std::uint64_t inputs = pl.waiting_inputs.word(iw); inputs; inputs &= inputs - 1) {
        const unsigned i = static_cast<unsigned>(iw * 64 + __builtin_ctzll(inputs));
        if (wanted[i] & free0) blocked.push_back(i);
      }
    }
    return;
  }
  for (std::size_t iw = 0; iw < pl.waiting_inputs.words(); ++iw) {
    for (std::uint64_t inputs = pl.waiting_inputs.word(iw); inputs; inputs &= inputs - 1) {
      const unsigned i = static_cast<unsigned>(iw * 64 + __builtin_ctzll(inputs));
      const std::uint64_t* row = &wanted[i * words];
      for (std::size_t w = 0; w < words; ++w) {
        if (row[w] & free_wanted[w]) {
          blocked.push_back(i);
          break;
        }
      }
    }
  }
}

std::uint64_t Crossbar::next_wakeup(const Plane& pl, std::uint64_t now_ps) const {
  std::uint64_t next = std::min(pl.send_due_ps, pl.head_due_ps);
  if (pl.next_arbitration_ps != Wakeup::kNever) {
    // The first edge not arbitrated yet: once per edge, however often the block wakes at it.
    const std::uint64_t edge = clock_.edge_ps(now_ps);
    const std::uint64_t first = edge == arbitrated_edge_ps_ ? edge + clock_.period_ps() : edge;
    next = std::min(next, std::max(pl.next_arbitration_ps, first));
  }
  return next;
}

void Crossbar::behaviour() {
  wake_.fired();
  const std::uint64_t now_ps = famsim::now_ps();
  send_ready(req_, now_ps);
  send_ready(resp_, now_ps);
  // One matching per edge. The block can wake again at an edge it has arbitrated (a far end
  // taking a message back at that instant, after this block ran): it hands messages on then, but
  // a second matching would let an input send twice at one edge (with VOQs), and would make the
  // edge's grants depend on the order of the instant's events.
  if (clock_.on_edge(now_ps) && now_ps != arbitrated_edge_ps_) {
    arbitrated_edge_ps_ = now_ps;
    // arbitrate()'s first test, made here to save the call at most edges: with no pending head
    // eligible by this edge and no waiting output that can take a message at it, it does nothing.
    const auto has_work = [now_ps](const Plane& pl) {
      return pl.head_due_ps <= now_ps || pl.next_arbitration_ps <= now_ps;
    };
    if (has_work(req_)) arbitrate(req_, now_ps);
    if (has_work(resp_)) arbitrate(resp_, now_ps);
  }
  wake_.at(std::min(next_wakeup(req_, now_ps), next_wakeup(resp_, now_ps)), now_ps);
}

void Crossbar::report_ports(const Plane& pl, nlohmann::json& j, const ReportWindow& window) const {
  const double seconds = window.seconds();
  const auto gbps = [seconds](std::uint64_t bytes) {
    return seconds > 0 ? static_cast<double>(bytes) / seconds * 1e-9 : 0.0;
  };
  nlohmann::json in_bytes = nlohmann::json::array(), in_messages = nlohmann::json::array(),
                 in_gbps = nlohmann::json::array(), queue_mean = nlohmann::json::array(),
                 queue_max = nlohmann::json::array(), hol_ns = nlohmann::json::array();
  for (unsigned i = 0; i < pl.in.size(); ++i) {
    const Input& in = pl.in[i];
    in_bytes.push_back(in.bytes);
    in_messages.push_back(in.messages);
    in_gbps.push_back(gbps(in.bytes));
    queue_mean.push_back(in.queue.mean(window));
    queue_max.push_back(in.queue.max());
    hol_ns.push_back(static_cast<double>(hol_ps(pl, i, window)) * 1e-3);
  }
  nlohmann::json out_bytes = nlohmann::json::array(), out_messages = nlohmann::json::array(),
                 out_gbps = nlohmann::json::array();
  for (const Output& o : pl.out) {
    out_bytes.push_back(o.bytes);
    out_messages.push_back(o.messages);
    out_gbps.push_back(gbps(o.bytes));
  }
  j["input_bytes"] = std::move(in_bytes);
  j["input_messages"] = std::move(in_messages);
  j["input_gbps"] = std::move(in_gbps);
  j["output_bytes"] = std::move(out_bytes);
  j["output_messages"] = std::move(out_messages);
  j["output_gbps"] = std::move(out_gbps);
  j["input_queue_mean"] = std::move(queue_mean);
  j["input_queue_max"] = std::move(queue_max);
  j["hol_blocking_ns"] = std::move(hol_ns);
}

std::uint64_t Crossbar::hol_ps(const Plane& pl, unsigned i, const ReportWindow& window) const {
  std::uint64_t hol = pl.in[i].hol_ps;
  for (unsigned b : pl.hol_blocked) {  // still blocked when the run ended (truncated runs)
    if (b == i && window.end_ps > pl.hol_since_ps) hol += window.end_ps - pl.hol_since_ps;
  }
  return hol;
}

void Crossbar::report(ComponentReport& r, const ReportWindow& window) const {
  const double port_gbps = this->port_gbps();
  double max_u = 0;
  double sum_u = 0;
  std::uint64_t bytes = 0;
  std::uint64_t backpressure = 0;
  std::uint64_t requests = 0;
  std::uint64_t responses = 0;
  for (const Plane* pl : {&req_, &resp_}) {
    for (const Output& o : pl->out) {
      const double u = busy_fraction(o.busy_ps, window);
      max_u = std::max(max_u, u);
      sum_u += u;
      bytes += o.bytes;
      (pl->is_request ? requests : responses) += o.messages;
    }
    for (const Input& in : pl->in) backpressure += in.backpressure_ps;
  }
  const std::size_t outputs = req_.out.size() + resp_.out.size();
  r.bytes = static_cast<double>(bytes);
  r.utilization = max_u;
  r.backpressure_ns = static_cast<double>(backpressure) * 1e-3;
  r.extra["mean_output_utilization"] = outputs ? sum_u / static_cast<double>(outputs) : 0.0;
  r.extra["requests"] = requests;
  r.extra["responses"] = responses;
  r.extra["delayed_grants"] = req_.delayed_grants + resp_.delayed_grants;
  r.extra["grant_delay_cycles"] =
      static_cast<double>(req_.delay_ps + resp_.delay_ps) / static_cast<double>(clock_.period_ps());
  r.extra["port_bandwidth_gbps"] = port_gbps;
  r.extra["arbitration_conflicts"] = req_.conflicts + resp_.conflicts;
  r.extra["lost_requests"] = req_.lost_requests + resp_.lost_requests;
  nlohmann::json req_ports = nlohmann::json::object(), resp_ports = nlohmann::json::object();
  report_ports(req_, req_ports, window);
  report_ports(resp_, resp_ports, window);
  double hol_ns = 0;
  for (const nlohmann::json* j : {&req_ports, &resp_ports}) {
    for (const auto& v : (*j)["hol_blocking_ns"]) hol_ns += v.get<double>();
  }
  r.extra["hol_blocking_ns"] = hol_ns;
  r.extra["request_ports"] = std::move(req_ports);
  r.extra["response_ports"] = std::move(resp_ports);
  // Resources: every output port, input buffer and output buffer, per direction.
  for (const Plane* pl : {&req_, &resp_}) {
    const char* dir = pl->is_request ? "request" : "response";
    for (unsigned o = 0; o < pl->out.size(); ++o) {
      const Output& out = pl->out[o];
      if (out.messages == 0) continue;  // an unused port limits nothing
      ResourceUse u;
      u.name = fmt::format("{} output {}", dir, o);
      u.utilization = busy_fraction(out.busy_ps, window);
      u.capacity = port_gbps;
      u.used = u.utilization * port_gbps;  // beats, headers included, as the port sees them
      r.resources.push_back(std::move(u));
    }
    // A buffer as a slot pool: its gauge, where it sits on the round trip, the time it held back.
    auto pool = [&](std::string name, const OccupancyGauge& g, double depth,
                    std::uint64_t backpressure_ps) {
      ResourceUse u = slot_pool(std::move(name), g, window);
      u.backpressure_ns = static_cast<double>(backpressure_ps) * 1e-3;
      u.response_path = !pl->is_request;
      u.path_depth = depth;
      r.resources.push_back(std::move(u));
    };
    for (unsigned i = 0; i < pl->in.size(); ++i) {
      const Input& in = pl->in[i];
      if (in.messages == 0) continue;
      pool(fmt::format("{} input {} buffer", dir, i), in.queue, pl->input_depth[i],
           in.backpressure_ps);
      // A FIFO input whose head spent a good part of the run blocked behind a busy output while
      // messages behind it were for free ones: a deeper FIFO holds more messages behind the same
      // head, so the slots Little's law asks for would not help; per-output queues would.
      const double hol = window.duration_ps() > 0 ? static_cast<double>(hol_ps(*pl, i, window)) /
                                                        static_cast<double>(window.duration_ps())
                                                  : 0.0;
      if (!voq() && hol >= kHolAdviceFraction) {
        ResourceUse& u = r.resources.back();
        u.more_slots_help = false;
        u.advice = fmt::format(
            "Its head was blocked behind a busy output for {:.1f} % of the run while a message "
            "behind it was for a free one (head-of-line blocking, hol_blocking_ns): more slots "
            "would queue more behind the same head; per-output queues (input_queues: voq, with "
            "arbiter: islip) remove the blocking.",
            hol * 100.0);
      }
    }
    for (unsigned o = 0; o < pl->out.size(); ++o) {
      if (pl->out[o].messages == 0) continue;
      pool(fmt::format("{} output {} buffer", dir, o), pl->out_level[o], output_depth(*pl, o), 0);
    }
  }
}

double Crossbar::output_depth(const Plane& pl, unsigned o) const {
  if (pl.output_depth[o] >= 0) return pl.output_depth[o];
  double deepest_input = pl.is_request ? 0.0 : 10.0;
  for (double d : pl.input_depth) {
    if (d < 0) d = path_depth(Component::kind());
    deepest_input = pl.is_request ? std::max(deepest_input, d) : std::min(deepest_input, d);
  }
  return output_buffer_depth(deepest_input, !pl.is_request);
}

void Crossbar::probes(std::vector<ResourceProbe>& out) const {
  for (const Plane* pl : {&req_, &resp_}) {
    const char* dir = pl->is_request ? "request" : "response";
    for (unsigned o = 0; o < pl->out.size(); ++o) {
      ResourceProbe u;
      u.use.name = fmt::format("{} output {}", dir, o);
      u.use.capacity = port_gbps();
      u.counter = &pl->out[o].busy_ps;
      out.push_back(std::move(u));
    }
    for (unsigned i = 0; i < pl->in.size(); ++i) {
      out.push_back(pool_probe(fmt::format("{} input {} buffer", dir, i), pl->in[i].queue));
      out.back().use.response_path = !pl->is_request;
      out.back().use.path_depth = pl->input_depth[i];
    }
    for (unsigned o = 0; o < pl->out.size(); ++o) {
      out.push_back(pool_probe(fmt::format("{} output {} buffer", dir, o), pl->out_level[o]));
      out.back().use.response_path = !pl->is_request;
      out.back().use.path_depth = output_depth(*pl, o);
    }
  }
}

std::size_t Crossbar::occupancy() const {
  std::size_t n = 0;
  for (const Plane* pl : {&req_, &resp_}) {
    for (const Input& in : pl->in) n += in.queue.level() + (in.hold.empty() ? 0 : 1);
    for (const Output& o : pl->out) n += o.pipe.size();
  }
  return n;
}

}  // namespace famsim
