#include "models/device/port_logic.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace famsim {

PortLogic::PortLogic(sc_core::sc_module_name name, SimContext& ctx, const PortLogicParams& params,
                     unsigned ports, std::uint64_t base, std::uint64_t size, const AddressMap& map)
    : sc_core::sc_module(name),
      Component(ctx.registry, this->name()),
      params_(params),
      clock_(params.clock_mhz),
      base_(base),
      size_(size),
      map_(map),
      ports_(ports),
      wake_("wake", ctx.scheduler(), this, &Wakeup::call_behaviour<PortLogic>) {
  for (unsigned i = 0; i < ports; ++i) {
    fabric_.push_back(
        std::make_unique<TargetPort<PortLogic>>(("fabric" + std::to_string(i)).c_str(), *this, i));
    internal_.push_back(std::make_unique<InitiatorPort<PortLogic>>(
        ("internal" + std::to_string(i)).c_str(), *this, i));
    ports_[i].ingress.set_capacity(params.tags_per_port);
    ports_[i].egress.set_capacity(params.tags_per_port);
  }
  SC_HAS_PROCESS(PortLogic);
  SC_METHOD(behaviour);
  sensitive << wake_.event();
  dont_initialize();
}

std::uint64_t PortLogic::pipeline_slot(std::uint64_t& free_ps, std::uint64_t now_ps) const {
  const std::uint64_t start = std::max(clock_.edge_ps(now_ps), free_ps);
  free_ps = start + clock_.period_ps();
  return start;
}

void PortLogic::change_tags(Port& port, int delta, std::uint64_t now_ps) {
  port.tag_time_integral += port.tags_in_use * (now_ps - port.last_change_ps);
  port.last_change_ps = now_ps;
  port.tags_in_use = static_cast<unsigned>(static_cast<int>(port.tags_in_use) + delta);
}

void PortLogic::take_tag(Port& port, Payload& p, std::uint64_t now_ps) {
  change_tags(port, +1, now_ps);
  RequestExt& e = ext_of(p);
  const std::uint64_t pa = e.physical_address;
  if (pa < base_ || pa - base_ + e.length > size_) {
    throw std::logic_error(std::string(name()) + ": request " + std::to_string(e.id) +
                           " for address " + std::to_string(pa) + " is outside the device");
  }
  const AddressMap::Decoded d = map_.decode(pa - base_);
  e.channel = d.channel;
  e.channel_address = d.channel_address;
  ++port.requests;
  port.bytes += e.length;
  const std::uint64_t start = pipeline_slot(port.ingress_free_ps, now_ps);
  const std::uint64_t ready = start + params_.ingress_cycles * clock_.period_ps();
  port.ingress.push_back({&p, ready});
  wake_.at(ready, now_ps);
}

Sync PortLogic::fw(unsigned idx, Payload& p, Phase& phase, sc_core::sc_time&) {
  const std::uint64_t now = now_ps();
  Port& port = ports_[idx];
  if (phase == tlm::BEGIN_REQ) {
    ext_of(p).enter(block_id(), static_cast<std::uint16_t>(idx), now);
    if (port.tags_in_use >= params_.tags_per_port) return port.hold.hold(p, now);
    take_tag(port, p, now);
    return accept_now(p, phase, tlm::END_REQ);
  }
  if (phase == tlm::END_RESP) {
    // The fabric took the response that was waiting: its tag is free.
    port.fabric_busy = false;
    change_tags(port, -1, now);
    wake_.asap();
    return tlm::TLM_ACCEPTED;
  }
  protocol_error(name(), phase, "a fabric port");
}

Sync PortLogic::bw(unsigned idx, Payload& p, Phase& phase, sc_core::sc_time&) {
  const std::uint64_t now = now_ps();
  Port& port = ports_[idx];
  if (phase == tlm::BEGIN_RESP) {
    // Every response has a tag, and every tag an egress entry: a response always has room.
    ext_of(p).resp_enter(now);
    const std::uint64_t start = pipeline_slot(port.egress_free_ps, now);
    const std::uint64_t ready = start + params_.egress_cycles * clock_.period_ps();
    port.egress.push_back({&p, ready});
    wake_.at(ready, now);
    return accept_now(p, phase, tlm::END_RESP);
  }
  if (phase == tlm::END_REQ) {
    port.crossbar_busy = false;
    wake_.asap();
    return tlm::TLM_ACCEPTED;
  }
  protocol_error(name(), phase, "an internal port");
}

void PortLogic::behaviour() {
  wake_.fired();
  const std::uint64_t now_ps = famsim::now_ps();
  std::uint64_t next = Wakeup::kNever;
  for (unsigned i = 0; i < ports_.size(); ++i) {
    Port& port = ports_[i];
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
      port.fabric_busy = !fabric_[i]->send_resp(p);
      if (!port.fabric_busy) change_tags(port, -1, now_ps);
      p.release();
    }
    if (!port.hold.empty() && port.tags_in_use < params_.tags_per_port) {
      Payload& held = port.hold.take(now_ps, port.backpressure_ps);
      take_tag(port, held, now_ps);
      fabric_[i]->send_end_req(held);
    }
    if (!port.crossbar_busy && !port.ingress.empty()) {
      next = std::min(next, port.ingress.front().ready_ps);
    }
    if (!port.fabric_busy && !port.egress.empty()) {
      next = std::min(next, port.egress.front().ready_ps);
    }
  }
  wake_.at(next, now_ps);
}

void PortLogic::report(ComponentReport& r, const ReportWindow& window) const {
  const std::uint64_t end = window.end_ps;
  double max_u = 0;
  std::uint64_t bytes = 0;
  std::uint64_t backpressure = 0;
  nlohmann::json per_port = nlohmann::json::array();
  for (const Port& port : ports_) {
    const std::uint64_t integral =
        port.tag_time_integral + port.tags_in_use * (end - std::min(end, port.last_change_ps));
    const double mean_tags = window_mean(integral, window);
    const double u = mean_tags / params_.tags_per_port;
    max_u = std::max(max_u, u);
    bytes += port.bytes;
    backpressure += port.backpressure_ps;
    per_port.push_back({{"requests", port.requests},
                        {"mean_tags_in_use", mean_tags},
                        {"backpressure_ns", static_cast<double>(port.backpressure_ps) * 1e-3}});
  }
  r.bytes = static_cast<double>(bytes);
  r.utilization = std::min(1.0, max_u);
  r.backpressure_ns = static_cast<double>(backpressure) * 1e-3;
  r.extra["tags_per_port"] = params_.tags_per_port;
  r.extra["ports"] = per_port;
}

std::size_t PortLogic::occupancy() const {
  std::size_t n = 0;
  for (const Port& port : ports_) {
    // A tag covers a request from acceptance until its response leaves (ingress, crossbar,
    // memory, egress), so tags in use plus a held request is everything this port answers for.
    n += port.tags_in_use + (port.hold.empty() ? 0 : 1);
  }
  return n;
}

}  // namespace famsim
