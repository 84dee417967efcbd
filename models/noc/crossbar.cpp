#include "models/noc/crossbar.h"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>

namespace famsim {

Crossbar::Crossbar(sc_core::sc_module_name name, SimContext& ctx, const CrossbarParams& params,
                   unsigned up_ports, unsigned down_ports, std::unique_ptr<Routing> routing)
    : sc_core::sc_module(name),
      Component(ctx.registry, this->name()),
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

void Crossbar::init_plane(Plane& pl, bool is_request, unsigned inputs, unsigned outputs) {
  pl.is_request = is_request;
  pl.in.resize(inputs);
  for (Input& in : pl.in) in.fifo.set_capacity(params_.input_buffer);
  pl.out.resize(outputs);
  for (Output& o : pl.out) {
    o.pipe.set_capacity(params_.output_buffer);
    o.requesters = RequestSet(inputs);
  }
  pl.waiting_outputs = RequestSet(outputs);
  const std::size_t staged_max = static_cast<std::size_t>(outputs) * params_.output_buffer;
  for (auto& c : pl.leave_classes) c.fifo.set_capacity(staged_max);
  pl.leave_heap.reserve(staged_max);
  pl.unblocked.reserve(outputs);
  pl.pending_heads.reserve(inputs);
  pl.popped.reserve(inputs);
}

Sync Crossbar::fw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time&) {
  const std::uint64_t now = now_ps();
  if (phase == tlm::BEGIN_REQ) {
    ext_of(p).enter(block_id(), static_cast<std::uint16_t>(port), now);
    Input& in = req_.in[port];
    if (in.fifo.full()) return in.hold.hold(p, now);
    arrive(req_, port, p, now);
    return accept_now(p, phase, tlm::END_REQ);
  }
  if (phase == tlm::END_RESP) {
    resp_.out[port].far_end_busy = false;
    resp_.unblocked.push_back(port);
    wake_.asap();
    return tlm::TLM_ACCEPTED;
  }
  protocol_error(name(), phase, "an upstream port");
}

Sync Crossbar::bw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time&) {
  const std::uint64_t now = now_ps();
  if (phase == tlm::BEGIN_RESP) {
    ext_of(p).resp_enter(now);
    Input& in = resp_.in[port];
    if (in.fifo.full()) return in.hold.hold(p, now);
    arrive(resp_, port, p, now);
    return accept_now(p, phase, tlm::END_RESP);
  }
  if (phase == tlm::END_REQ) {
    req_.out[port].far_end_busy = false;
    req_.unblocked.push_back(port);
    wake_.asap();
    return tlm::TLM_ACCEPTED;
  }
  protocol_error(name(), phase, "a downstream port");
}

void Crossbar::arrive(Plane& pl, unsigned in, Payload& p, std::uint64_t now_ps) {
  Input& input = pl.in[in];
  const bool was_empty = input.fifo.empty();
  input.fifo.push_back(classify(pl, p));
  if (was_empty) schedule_head(pl, in, now_ps);
}

void Crossbar::schedule_head(Plane& pl, unsigned in, std::uint64_t now_ps) {
  // A new head competes at the first edge after it reached the head of its FIFO (for a head
  // exposed by a grant at edge e, that is e + 1 cycle: one grant per input per edge).
  const std::uint64_t eligible = clock_.edge_after_ps(now_ps);
  pl.pending_heads.push_back({in, eligible});
  wake_.at(eligible, now_ps);
}

Crossbar::Queued Crossbar::classify(const Plane& pl, Payload& p) const {
  const RequestExt& e = ext_of(p);
  const unsigned d = pl.is_request ? routing_->route(e) : e.hops[e.resp_cursor].in_port();
  if (d >= pl.out.size()) {
    throw std::logic_error(std::string(name()) + ": request " + std::to_string(e.id) +
                           " routed to port " + std::to_string(d) + " of " +
                           std::to_string(pl.out.size()));
  }
  return {&p, d, pl.is_request ? request_data_bytes(e) : response_data_bytes(e)};
}

void Crossbar::drain_output(Plane& pl, unsigned o, std::uint64_t now_ps) {
  Output& out = pl.out[o];
  const bool was_full = out.pipe.full();
  while (!out.far_end_busy && !out.pipe.empty() && out.pipe.front().leave_ps <= now_ps) {
    Payload& p = *out.pipe.front().payload;
    out.pipe.pop_front();
    if (!out.pipe.empty()) prefetch_for_hop(*out.pipe.front().payload);
    const bool taken = pl.is_request ? down_[o]->send_req(p) : up_[o]->send_resp(p);
    out.far_end_busy = !taken;
    p.release();
  }
  // A pipe that had no room now has: a waiting requester may win at the next edge.
  if (was_full && !out.pipe.full() && pl.waiting_outputs.test(o)) {
    pl.next_arbitration_ps = std::min(pl.next_arbitration_ps, clock_.edge_ps(now_ps));
  }
}

void Crossbar::send_ready(Plane& pl, std::uint64_t now_ps) {
  for (unsigned o : pl.unblocked) drain_output(pl, o, now_ps);
  pl.unblocked.clear();
  for (auto& c : pl.leave_classes) {
    while (!c.fifo.empty() && c.fifo.front().leave_ps <= now_ps) {
      const unsigned o = c.fifo.front().output;
      c.fifo.pop_front();
      drain_output(pl, o, now_ps);
    }
  }
  while (!pl.leave_heap.empty() && pl.leave_heap.front().leave_ps <= now_ps) {
    const unsigned o = pl.leave_heap.front().output;
    std::pop_heap(pl.leave_heap.begin(), pl.leave_heap.end(), std::greater<LeaveEvent>());
    pl.leave_heap.pop_back();
    drain_output(pl, o, now_ps);
  }
}

void Crossbar::stage(Plane& pl, std::uint64_t beats, const LeaveEvent& ev) {
  for (auto& c : pl.leave_classes) {
    if (c.beats == beats || (c.beats == 0)) {
      c.beats = beats;
      c.fifo.push_back(ev);
      return;
    }
  }
  pl.leave_heap.push_back(ev);
  std::push_heap(pl.leave_heap.begin(), pl.leave_heap.end(), std::greater<LeaveEvent>());
}

std::uint64_t Crossbar::next_leave(const Plane& pl) {
  std::uint64_t next = Wakeup::kNever;
  for (const auto& c : pl.leave_classes) {
    if (!c.fifo.empty()) next = std::min(next, c.fifo.front().leave_ps);
  }
  if (!pl.leave_heap.empty()) next = std::min(next, pl.leave_heap.front().leave_ps);
  return next;
}

void Crossbar::arbitrate(Plane& pl, std::uint64_t edge_ps) {
  // Heads that became eligible by this edge start requesting their output.
  for (std::size_t k = 0; k < pl.pending_heads.size();) {
    const PendingHead h = pl.pending_heads[k];
    if (h.eligible_ps > edge_ps) {
      ++k;
      continue;
    }
    const unsigned dest = pl.in[h.input].fifo.front().dest;
    pl.out[dest].requesters.set(h.input);
    pl.waiting_outputs.set(dest);
    pl.in[h.input].head_eligible_ps = h.eligible_ps;
    pl.pending_heads[k] = pl.pending_heads.back();
    pl.pending_heads.pop_back();
  }

  const std::uint64_t period = clock_.period_ps();
  pl.popped.clear();
  std::uint64_t next_arbitration = Wakeup::kNever;
  for (unsigned o = pl.waiting_outputs.next_at_or_after(0); o < pl.out.size();
       o = pl.waiting_outputs.next_at_or_after(o + 1)) {
    Output& out = pl.out[o];
    if (out.pipe.full()) continue;  // draining the pipe re-arms arbitration
    if (out.free_at_ps > edge_ps) {
      next_arbitration = std::min(next_arbitration, out.free_at_ps);
      continue;
    }
    const unsigned w = out.arbiter.pick(out.requesters);
    out.requesters.clear(w);
    if (!out.requesters.any()) pl.waiting_outputs.clear(o);
    Input& in = pl.in[w];
    const Queued q = in.fifo.front();
    Payload& p = *q.payload;
    in.fifo.pop_front();
    if (edge_ps > in.head_eligible_ps) {
      ++pl.delayed_grants;
      pl.delay_ps += edge_ps - in.head_eligible_ps;
    }
    pl.popped.push_back(w);

    const unsigned data = q.data;
    if (data != pl.beats_for_bytes) {
      pl.beats_for_bytes = data;
      pl.beats = std::max<std::uint64_t>(1, (data + params_.width_bytes - 1) / params_.width_bytes);
    }
    const std::uint64_t beats = pl.beats;
    const std::uint64_t leave = edge_ps + (params_.pipeline_cycles + beats) * period;
    out.free_at_ps = edge_ps + beats * period;
    out.busy_ps += beats * period;
    out.bytes += data;
    ++out.messages;
    out.pipe.push_back({&p, leave});
    stage(pl, beats, {leave, o});
    if (out.requesters.any() && !out.pipe.full()) {
      next_arbitration = std::min(next_arbitration, out.free_at_ps);
    }
  }
  pl.next_arbitration_ps = next_arbitration;

  // Inputs that sent a message have room: take a held message, and let the next head compete.
  for (unsigned w : pl.popped) {
    Input& in = pl.in[w];
    if (!in.hold.empty()) {
      Payload& held = in.hold.take(edge_ps, in.backpressure_ps);
      in.fifo.push_back(classify(pl, held));
      if (pl.is_request) {
        up_[w]->send_end_req(held);
      } else {
        down_[w]->send_end_resp(held);
      }
    }
    if (!in.fifo.empty()) schedule_head(pl, w, edge_ps);
  }
}

std::uint64_t Crossbar::next_wakeup(const Plane& pl, std::uint64_t now_ps) const {
  std::uint64_t next = Wakeup::kNever;
  if (!pl.unblocked.empty()) next = now_ps;
  next = std::min(next, next_leave(pl));
  for (const PendingHead& h : pl.pending_heads) next = std::min(next, h.eligible_ps);
  if (pl.next_arbitration_ps != Wakeup::kNever) {
    next = std::min(next, std::max(pl.next_arbitration_ps, clock_.edge_ps(now_ps)));
  }
  return next;
}

void Crossbar::behaviour() {
  wake_.fired();
  const std::uint64_t now_ps = famsim::now_ps();
  send_ready(req_, now_ps);
  send_ready(resp_, now_ps);
  if (clock_.on_edge(now_ps)) {
    arbitrate(req_, now_ps);
    arbitrate(resp_, now_ps);
  }
  wake_.at(std::min(next_wakeup(req_, now_ps), next_wakeup(resp_, now_ps)), now_ps);
}

void Crossbar::report(ComponentReport& r, const ReportWindow& window) const {
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
  r.extra["port_bandwidth_gbps"] = params_.width_bytes * clock_.mhz() * 1e-3;
}

std::size_t Crossbar::occupancy() const {
  std::size_t n = 0;
  for (const Plane* pl : {&req_, &resp_}) {
    for (const Input& in : pl->in) n += in.fifo.size() + (in.hold.empty() ? 0 : 1);
    for (const Output& o : pl->out) n += o.pipe.size();
  }
  return n;
}

}  // namespace famsim
