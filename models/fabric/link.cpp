#include "models/fabric/link.h"

#include <algorithm>
#include <cmath>

namespace famsim {

Link::Link(sc_core::sc_module_name name, SimContext& ctx, const LinkParams& params)
    : sc_core::sc_module(name),
      Component(ctx.registry, this->name()),
      up("up", *this, 0),
      down("down", *this, 0),
      params_(params),
      bandwidth_gbps_(params.bandwidth_gbps()),
      latency_ps_(static_cast<std::uint64_t>(std::llround(params.latency_ns * 1000.0))),
      wake_("wake", ctx.scheduler(), this, &Wakeup::call_behaviour<Link>) {
  req_.queue.set_capacity(params.buffer_entries);
  resp_.queue.set_capacity(params.buffer_entries);
  SC_HAS_PROCESS(Link);
  SC_METHOD(behaviour);
  sensitive << wake_.event();
  dont_initialize();
}

Sync Link::fw(unsigned, Payload& p, Phase& phase, sc_core::sc_time&) {
  const std::uint64_t now = now_ps();
  if (phase == tlm::BEGIN_REQ) {
    ext_of(p).enter(block_id(), 0, now);
    if (req_.queue.full()) return req_.hold.hold(p, now);
    enqueue(req_, p, now, true);
    return accept_now(p, phase, tlm::END_REQ);
  }
  if (phase == tlm::END_RESP) {
    resp_.far_end_busy = false;
    wake_.asap();
    return tlm::TLM_ACCEPTED;
  }
  protocol_error(name(), phase, "the upstream side");
}

Sync Link::bw(unsigned, Payload& p, Phase& phase, sc_core::sc_time&) {
  const std::uint64_t now = now_ps();
  if (phase == tlm::BEGIN_RESP) {
    ext_of(p).resp_enter(now);
    if (resp_.queue.full()) return resp_.hold.hold(p, now);
    enqueue(resp_, p, now, false);
    return accept_now(p, phase, tlm::END_RESP);
  }
  if (phase == tlm::END_REQ) {
    req_.far_end_busy = false;
    wake_.asap();
    return tlm::TLM_ACCEPTED;
  }
  protocol_error(name(), phase, "the downstream side");
}

void Link::enqueue(Direction& d, Payload& p, std::uint64_t now_ps, bool is_request) {
  const RequestExt& e = ext_of(p);
  const unsigned data = is_request ? request_data_bytes(e) : response_data_bytes(e);
  const std::uint64_t wire = params_.header_bytes + data;
  const std::uint64_t start = std::max(now_ps, d.wire_free_ps);
  // Message sizes repeat (a header, a header plus a request's data): remember two.
  std::uint64_t ser;
  if (wire == d.ser_cache_bytes[0]) {
    ser = d.ser_cache_ps[0];
  } else if (wire == d.ser_cache_bytes[1]) {
    ser = d.ser_cache_ps[1];
  } else {
    ser = transfer_ps(wire, bandwidth_gbps_);
    d.ser_cache_bytes[1] = d.ser_cache_bytes[0];
    d.ser_cache_ps[1] = d.ser_cache_ps[0];
    d.ser_cache_bytes[0] = wire;
    d.ser_cache_ps[0] = ser;
  }
  d.wire_free_ps = start + ser;
  d.busy_ps += ser;
  d.payload_bytes += data;
  d.wire_bytes += wire;
  ++d.messages;
  const std::uint64_t arrive = start + ser + latency_ps_;
  d.queue.push_back({&p, arrive});
  wake_.at(arrive, now_ps);
}

std::uint64_t Link::drain(Direction& d, bool is_request, std::uint64_t now_ps) {
  while (!d.far_end_busy && !d.queue.empty() && d.queue.front().arrive_ps <= now_ps) {
    Payload& p = *d.queue.front().payload;
    d.queue.pop_front();
    if (!d.queue.empty()) prefetch_for_hop(*d.queue.front().payload);
    const bool taken = is_request ? down.send_req(p) : up.send_resp(p);
    d.far_end_busy = !taken;
    p.release();
    // A buffer entry is free: take the message that was held back, if any.
    if (!d.hold.empty()) {
      Payload& held = d.hold.take(now_ps, d.backpressure_ps);
      enqueue(d, held, now_ps, is_request);  // the queue entry keeps hold()'s reference
      if (is_request) {
        up.send_end_req(held);
      } else {
        down.send_end_resp(held);
      }
    }
  }
  return (!d.far_end_busy && !d.queue.empty()) ? d.queue.front().arrive_ps : Wakeup::kNever;
}

void Link::behaviour() {
  wake_.fired();
  const std::uint64_t now_ps = famsim::now_ps();
  const std::uint64_t next = std::min(drain(req_, true, now_ps), drain(resp_, false, now_ps));
  wake_.at(next, now_ps);
}

void Link::report(ComponentReport& r, const ReportWindow& window) const {
  const double u_req = busy_fraction(req_.busy_ps, window);
  const double u_resp = busy_fraction(resp_.busy_ps, window);
  r.bytes = static_cast<double>(req_.payload_bytes + resp_.payload_bytes);
  r.utilization = std::max(u_req, u_resp);
  r.backpressure_ns = static_cast<double>(req_.backpressure_ps + resp_.backpressure_ps) * 1e-3;
  auto wire_eff = [](const Direction& d) {
    return d.wire_bytes == 0
               ? 0.0
               : static_cast<double>(d.payload_bytes) / static_cast<double>(d.wire_bytes);
  };
  r.extra["bandwidth_gbps"] = bandwidth_gbps_;
  r.extra["request_direction"] = {
      {"utilization", u_req},
      {"messages", req_.messages},
      {"payload_bytes", req_.payload_bytes},
      {"wire_bytes", req_.wire_bytes},
      {"wire_efficiency", wire_eff(req_)},
      {"backpressure_ns", static_cast<double>(req_.backpressure_ps) * 1e-3}};
  r.extra["response_direction"] = {
      {"utilization", u_resp},
      {"messages", resp_.messages},
      {"payload_bytes", resp_.payload_bytes},
      {"wire_bytes", resp_.wire_bytes},
      {"wire_efficiency", wire_eff(resp_)},
      {"backpressure_ns", static_cast<double>(resp_.backpressure_ps) * 1e-3}};
}

std::size_t Link::occupancy() const {
  return req_.queue.size() + resp_.queue.size() + (req_.hold.empty() ? 0 : 1) +
         (resp_.hold.empty() ? 0 : 1);
}

}  // namespace famsim
