#include "models/device/port_logic.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace famsim {

PortLogic::PortLogic(sc_core::sc_module_name name, SimContext& ctx, const PortLogicParams& params,
                     unsigned ports, std::uint64_t base, std::uint64_t size, const AddressMap& map)
    : sc_core::sc_module(name),
      Component(ctx.registry, this->name(), BlockKind::kDevicePort),
      ctx_(ctx),
      params_(params),
      clock_(params.clock_mhz),
      base_(base),
      size_(size),
      map_(map),
      ports_(ports),
      port_due_(ports, Wakeup::kNever),
      wake_("wake", ctx.scheduler(), this, &Wakeup::call_behaviour<PortLogic>) {
  if (params.width_bytes == 0) throw std::invalid_argument("port logic width_bytes must be > 0");
  // The most parts one request can become: its bytes over the granule, plus one for a request that
  // does not start on a granule boundary.
  const std::uint64_t max_parts = ctx.pool.max_data_bytes() / map.granule_bytes() + 2;
  for (unsigned i = 0; i < ports; ++i) {
    fabric_.push_back(
        std::make_unique<TargetPort<PortLogic>>(("fabric" + std::to_string(i)).c_str(), *this, i));
    internal_.push_back(std::make_unique<InitiatorPort<PortLogic>>(
        ("internal" + std::to_string(i)).c_str(), *this, i));
    Port& port = ports_[i];
    port.tags.resize(params.tags_per_port);
    port.tags_in_use.set_capacity(params.tags_per_port);
    port.free_tags.set_capacity(params.tags_per_port);
    for (std::uint32_t t = 0; t < params.tags_per_port; ++t) port.free_tags.push_back(t);
    port.ingress.set_capacity(params.tags_per_port * max_parts);
    port.egress.set_capacity(params.tags_per_port);
    port.atomic_unit.set_capacity(params.tags_per_port);
  }
  SC_HAS_PROCESS(PortLogic);
  SC_METHOD(behaviour);
  sensitive << wake_.event();
  dont_initialize();
}

std::uint64_t PortLogic::pipeline(std::uint64_t& free_ps, std::uint64_t& busy_ps,
                                  std::uint64_t now_ps, unsigned data_bytes,
                                  unsigned cycles) const {
  const std::uint64_t beats =
      std::max<std::uint64_t>(1, (data_bytes + params_.width_bytes - 1) / params_.width_bytes);
  const std::uint64_t start = std::max(clock_.edge_ps(now_ps), free_ps);
  free_ps = start + beats * clock_.period_ps();
  busy_ps += beats * clock_.period_ps();
  return start + (cycles + beats - 1) * clock_.period_ps();
}

void PortLogic::change_tags(Port& port, int delta, std::uint64_t now_ps) {
  const auto level = static_cast<std::int64_t>(port.tags_in_use.level()) + delta;
  port.tags_in_use.set(static_cast<std::uint64_t>(level), now_ps);
}

void PortLogic::check_request(const RequestExt& e) const {
  const std::uint64_t pa = e.physical_address;
  if (pa < base_ || pa - base_ + e.length > size_) {
    throw std::logic_error(std::string(name()) + ": request " + std::to_string(e.id) +
                           " for address " + std::to_string(pa) + " is outside the device");
  }
  if (e.atomic != AtomicOp::kNone &&
      ((e.length != 4 && e.length != 8) || (pa - base_) % e.length != 0)) {
    throw std::logic_error(std::string(name()) + ": atomic request " + std::to_string(e.id) +
                           " of " + std::to_string(e.length) + " B at address " +
                           std::to_string(pa) + " is not a naturally aligned 4 or 8 B word");
  }
}

void PortLogic::take_tag(unsigned idx, Payload& p, std::uint64_t now_ps) {
  Port& port = ports_[idx];
  RequestExt& e = ext_of(p);
  check_request(e);
  change_tags(port, +1, now_ps);
  const std::uint32_t tag = port.free_tags.front();
  port.free_tags.pop_front();
  Tag& t = port.tags[tag];
  t = Tag{};
  t.request = &p;
  e.device_tag = tag;
  ++port.requests;
  port.bytes += e.length;
  if (e.atomic != AtomicOp::kNone) ++atomics_;
  if (params_.in_order) {
    if (e.gpu >= port.by_source.size()) {
      // A source seen for the first time on this port: once per source, not per request.
      const std::size_t old = port.by_source.size();
      port.by_source.resize(e.gpu + 1u);
      for (std::size_t s = old; s < port.by_source.size(); ++s) {
        port.by_source[s].set_capacity(params_.tags_per_port);
      }
    }
    port.by_source[e.gpu].push_back(tag);
  }
  const std::uint64_t ready = pipeline(port.ingress_free_ps, port.ingress_busy_ps, now_ps,
                                       request_data_bytes(e), params_.ingress_cycles);
  const std::uint64_t offset = e.physical_address - base_;
  const std::uint64_t end = offset + e.length;
  const std::uint64_t granule = map_.granule_bytes();
  if (e.length == 0 || offset / granule == (end - 1) / granule) {
    const AddressMap::Decoded d = map_.decode(offset);
    e.channel = d.channel;
    e.channel_address = d.channel_address;
    t.parts_left = 1;
    port.ingress.push_back({&p, ready});
  } else {
    // One part per granule; the request stays here (with the reference taken on acceptance)
    // until its response leaves.
    t.split = true;
    ++split_requests_;
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    for (std::uint64_t o = offset; o < end;) {
      const std::uint32_t n =
          static_cast<std::uint32_t>(std::min(end, (o / granule + 1) * granule) - o);
      Payload& part = ctx_.pool.allocate();
      part.acquire();
      part.set_command(p.get_command());
      part.set_address(base_ + o);
      part.set_data_length(n);
      part.set_streaming_width(n);
      RequestExt& pe = ext_of(part);
      pe.id = e.id;
      pe.gpu = e.gpu;
      pe.stream = e.stream;
      pe.write = e.write;
      pe.outstanding = false;
      pe.length = n;
      pe.dest_gpu = RequestExt::kNoGpu;
      pe.physical_address = base_ + o;
      pe.virtual_address = e.virtual_address + (o - offset);
      pe.issue_ps = e.issue_ps;
      pe.device_tag = tag;
      const AddressMap::Decoded d = map_.decode(o);
      pe.channel = d.channel;
      pe.channel_address = d.channel_address;
      if (e.write) std::memcpy(part.get_data_ptr(), p.get_data_ptr() + (o - offset), n);
      // The part's path starts here: its response walks back to this record.
      pe.enter(block_id(), static_cast<std::uint16_t>(idx), now_ps);
      port.ingress.push_back({&part, ready});
      ++t.parts_left;
      ++parts_;
      o += n;
    }
  }
  due(idx, ready, now_ps);
}

Sync PortLogic::fw(unsigned idx, Payload& p, Phase& phase, sc_core::sc_time&) {
  const std::uint64_t now = now_ps();
  Port& port = ports_[idx];
  if (phase == tlm::BEGIN_REQ) {
    ext_of(p).enter(block_id(), static_cast<std::uint16_t>(idx), now);
    if (port.free_tags.empty()) return port.hold.hold(p, now);
    const Sync s = accept_now(p, phase, tlm::END_REQ);
    take_tag(idx, p, now);
    return s;
  }
  if (phase == tlm::END_RESP) {
    // The fabric took the response that was waiting: its tag is free.
    port.fabric_busy = false;
    change_tags(port, -1, now);
    port.free_tags.push_back(ext_of(p).device_tag);
    due(idx, now, now);
    return tlm::TLM_ACCEPTED;
  }
  protocol_error(name(), phase, "a fabric port");
}

Sync PortLogic::bw(unsigned idx, Payload& p, Phase& phase, sc_core::sc_time&) {
  const std::uint64_t now = now_ps();
  Port& port = ports_[idx];
  if (phase == tlm::BEGIN_RESP) {
    // Every answer has a tag, and every tag an egress entry: an answer always has room.
    RequestExt& e = ext_of(p);
    e.resp_enter(now);
    const std::uint32_t tag = e.device_tag;
    Tag& t = port.tags[tag];
    if (t.split) {
      // A part: its data goes into the request, and the part itself back to the pool.
      Payload& req = *t.request;
      const std::uint64_t at = e.physical_address - ext_of(req).physical_address;
      if (!e.write) std::memcpy(req.get_data_ptr() + at, p.get_data_ptr(), e.length);
      if (p.get_response_status() != tlm::TLM_OK_RESPONSE) {
        req.set_response_status(p.get_response_status());
      }
      if (--t.parts_left == 0) {
        // The last part to answer is the one the request waited for: its path beyond this
        // block becomes the request's, for the per-hop latency breakdown.
        ext_of(req).continue_with(e);
        finish_tag(port, tag, now);
      }
      phase = tlm::END_RESP;
      return tlm::TLM_COMPLETED;
    }
    const Sync s = accept_now(p, phase, tlm::END_RESP);
    t.parts_left = 0;
    if (e.atomic != AtomicOp::kNone && params_.atomic_cycles > 0) {
      // The atomic unit's latency, before the response is scheduled (so it delays no other).
      const std::uint64_t ready = now + params_.atomic_cycles * clock_.period_ps();
      port.atomic_unit.push_back({&p, ready});
      due(idx, ready, now);
    } else {
      finish_tag(port, tag, now);
    }
    return s;
  }
  if (phase == tlm::END_REQ) {
    port.crossbar_busy = false;
    due(idx, now, now);
    return tlm::TLM_ACCEPTED;
  }
  protocol_error(name(), phase, "an internal port");
}

void PortLogic::finish_tag(Port& port, std::uint32_t tag, std::uint64_t now_ps) {
  Tag& t = port.tags[tag];
  // A split request's response starts here: it enters this block's record.
  if (t.split) ext_of(*t.request).resp_enter(now_ps);
  t.done = true;
  t.done_ps = now_ps;
  if (!params_.in_order) {
    to_egress(port, t, now_ps);
    return;
  }
  Ring<std::uint32_t>& order = port.by_source[ext_of(*t.request).gpu];
  while (!order.empty() && port.tags[order.front()].done) {
    Tag& oldest = port.tags[order.front()];
    reorder_wait_ps_ += now_ps - oldest.done_ps;
    to_egress(port, oldest, now_ps);
    order.pop_front();
  }
}

void PortLogic::to_egress(Port& port, Tag& t, std::uint64_t now_ps) {
  const std::uint64_t ready =
      pipeline(port.egress_free_ps, port.egress_busy_ps, now_ps,
               response_data_bytes(ext_of(*t.request)), params_.egress_cycles);
  port.egress.push_back({t.request, ready});
  due(static_cast<unsigned>(&port - ports_.data()), ready, now_ps);
}

void PortLogic::behaviour() {
  wake_.fired();
  const std::uint64_t now_ps = famsim::now_ps();
  std::uint64_t next = Wakeup::kNever;
  // The count kept: ports_.size() divides by a Port's size, and with the calls in the loop GCC
  // worked it out again at every port (most of which, at a wake-up, have nothing due).
  const unsigned ports = static_cast<unsigned>(ports_.size());
  for (unsigned i = 0; i < ports; ++i) {
    if (port_due_[i] > now_ps) {
      next = std::min(next, port_due_[i]);
      continue;
    }
    Port& port = ports_[i];
    while (!port.atomic_unit.empty() && port.atomic_unit.front().ready_ps <= now_ps) {
      const std::uint32_t tag = ext_of(*port.atomic_unit.front().payload).device_tag;
      port.atomic_unit.pop_front();
      finish_tag(port, tag, now_ps);
    }
    while (!port.crossbar_busy && !port.ingress.empty() &&
           port.ingress.front().ready_ps <= now_ps) {
      Payload& p = *port.ingress.front().payload;
      port.ingress.pop_front();
      if (!port.ingress.empty()) prefetch_for_hop(*port.ingress.front().payload);
      port.crossbar_busy = !internal_[i]->send_req(p);
      p.release();
    }
    while (!port.fabric_busy && !port.egress.empty() && port.egress.front().ready_ps <= now_ps) {
      Payload& p = *port.egress.front().payload;
      port.egress.pop_front();
      if (!port.egress.empty()) prefetch_for_hop(*port.egress.front().payload);
      const std::uint32_t tag = ext_of(p).device_tag;
      port.fabric_busy = !fabric_[i]->send_resp(p);
      if (!port.fabric_busy) {
        change_tags(port, -1, now_ps);
        port.free_tags.push_back(tag);
      }
      p.release();
    }
    if (!port.hold.empty() && !port.free_tags.empty()) {
      Payload& held = port.hold.take(now_ps, port.backpressure_ps);
      take_tag(i, held, now_ps);
      fabric_[i]->send_end_req(held);
    }
    std::uint64_t port_next = Wakeup::kNever;
    if (!port.crossbar_busy && !port.ingress.empty()) {
      port_next = std::min(port_next, port.ingress.front().ready_ps);
    }
    if (!port.fabric_busy && !port.egress.empty()) {
      port_next = std::min(port_next, port.egress.front().ready_ps);
    }
    if (!port.atomic_unit.empty()) {
      port_next = std::min(port_next, port.atomic_unit.front().ready_ps);
    }
    port_due_[i] = port_next;
    next = std::min(next, port_next);
  }
  wake_.at(next, now_ps);
}

// A port's pipeline as a server: it starts one message per clock and holds it for its beats
// (max(1, ceil(data / width_bytes)) cycles), so at one message per cycle it is busy all the time
// whatever the bytes: its capacity is one beat per clock, in M beats/s (not GB/s: a 128 B message
// on a 256 B datapath takes a whole beat).
ResourceUse PortLogic::pipeline_use(bool ingress, unsigned port) const {
  ResourceUse u;
  u.name = fmt::format("{} pipeline (port {})", ingress ? "ingress" : "egress", port);
  u.capacity = clock_.mhz();  // one beat per clock
  u.unit = "M beats/s";
  return u;
}

std::string PortLogic::pipeline_advice() const {
  return fmt::format(
      "A port's ingress and egress pipelines each take one beat per port-logic clock ({:g} MHz), "
      "and a message takes ceil(data bytes / width_bytes {}) beats, at least one (so a read "
      "request, with no data, a whole one): a faster clock_mhz or more fabric_ports raise the "
      "limit, a wider width_bytes only for messages wider than the datapath; more tags do not.",
      clock_.mhz(), params_.width_bytes);
}

void PortLogic::probes(std::vector<ResourceProbe>& out) const {
  for (std::size_t i = 0; i < ports_.size(); ++i) {
    out.push_back(pool_probe("tags (port " + std::to_string(i) + ")", ports_[i].tags_in_use));
    for (const bool ingress : {true, false}) {
      ResourceProbe u;
      u.use = pipeline_use(ingress, static_cast<unsigned>(i));
      u.counter = ingress ? &ports_[i].ingress_busy_ps : &ports_[i].egress_busy_ps;
      out.push_back(std::move(u));
    }
  }
}

void PortLogic::report(ComponentReport& r, const ReportWindow& window) const {
  double max_u = 0;
  std::uint64_t bytes = 0;
  std::uint64_t backpressure = 0;
  nlohmann::json per_port = nlohmann::json::array();
  for (unsigned i = 0; i < ports_.size(); ++i) {
    const Port& port = ports_[i];
    const double mean_tags = port.tags_in_use.mean(window);
    const double u = port.tags_in_use.mean_fraction(window);
    max_u = std::max(max_u, u);
    bytes += port.bytes;
    backpressure += port.backpressure_ps;
    nlohmann::json occupancy = port.tags_in_use.to_json(window);
    per_port.push_back({{"requests", port.requests},
                        {"mean_tags_in_use", mean_tags},
                        {"max_tags_in_use", port.tags_in_use.max()},
                        {"tags_occupancy", occupancy},
                        {"backpressure_ns", static_cast<double>(port.backpressure_ps) * 1e-3}});
    if (port.requests == 0) continue;
    ResourceUse tags;
    tags.name = "tags (port " + std::to_string(i) + ")";
    tags.type = ResourceUse::Type::kSlots;
    tags.utilization = u;
    tags.capacity = params_.tags_per_port;
    tags.used = mean_tags;
    tags.backpressure_ns = static_cast<double>(port.backpressure_ps) * 1e-3;
    tags.occupancy = std::move(occupancy);
    r.resources.push_back(std::move(tags));
    for (const bool ingress : {true, false}) {
      ResourceUse u = pipeline_use(ingress, i);
      u.utilization = busy_fraction(ingress ? port.ingress_busy_ps : port.egress_busy_ps, window);
      u.used = u.utilization * u.capacity;
      u.advice = pipeline_advice();
      max_u = std::max(max_u, u.utilization);
      r.resources.push_back(std::move(u));
    }
  }
  r.bytes = static_cast<double>(bytes);
  r.utilization = std::min(1.0, max_u);
  r.backpressure_ns = static_cast<double>(backpressure) * 1e-3;
  r.extra["tags_per_port"] = params_.tags_per_port;
  r.extra["response_order"] = params_.in_order ? "in_order" : "out_of_order";
  r.extra["split_requests"] = split_requests_;
  r.extra["parts"] = parts_;
  r.extra["atomics"] = atomics_;
  r.extra["reorder_wait_ns"] = static_cast<double>(reorder_wait_ps_) * 1e-3;
  r.extra["ports"] = per_port;
}

std::size_t PortLogic::occupancy() const {
  std::size_t n = 0;
  for (const Port& port : ports_) {
    // A tag covers a request from acceptance until its response leaves (ingress, parts, NoC,
    // memory, reordering, egress), so tags in use plus a held request is everything this port
    // answers for.
    n += port.tags_in_use.level() + (port.hold.empty() ? 0 : 1);
  }
  return n;
}

}  // namespace famsim
