#include "models/memory/ideal_memory.h"

#include "models/memory/atomic.h"

#include <algorithm>
#include <cmath>

namespace famsim {

IdealMemory::IdealMemory(sc_core::sc_module_name name, SimContext& ctx, const MemoryTiming& timing,
                         const ControllerParams& params)
    : sc_core::sc_module(name),
      Component(ctx.registry, this->name(), BlockKind::kMemory),
      up("up", *this, 0),
      timing_(timing),
      params_(params),
      clock_(timing.clock_mhz),
      service_(params.read_queue + params.write_queue),
      posted_(params.posted_writes ? params.write_queue : 0),
      posted_done_(params.posted_writes ? params.write_queue : 0),
      wake_("wake", ctx.scheduler(), this, &Wakeup::call_behaviour<IdealMemory>) {
  SC_HAS_PROCESS(IdealMemory);
  SC_METHOD(behaviour);
  sensitive << wake_.event();
  dont_initialize();
}

bool IdealMemory::has_room(const Payload& p) const {
  // A posted write's response may wait upstream after its entry freed: its slot must be free too.
  return ext_of(p).write
             ? writes_held_ < params_.write_queue && !(params_.posted_writes && posted_.full())
             : reads_held_ < params_.read_queue;
}

void IdealMemory::retire_posted(std::uint64_t now) {
  while (!posted_done_.empty() && posted_done_.front() <= now) {
    posted_done_.pop_front();
    --writes_held_;
  }
}

void IdealMemory::accept(Payload& p, std::uint64_t now) {
  // Requests are served strictly in arrival order with a fixed latency, so a request's service
  // slot is known when it arrives (the DRAM model, dram_controller.h, decides on every clock
  // edge instead).
  RequestExt& e = ext_of(p);
  (e.write ? writes_held_ : reads_held_)++;
  const bool posted = e.write && params_.posted_writes && e.atomic == AtomicOp::kNone;
  const std::uint64_t start = std::max(clock_.edge_ps(now), bus_free_ps_);
  // A posted write's service is its acceptance (as on the DRAM controller).
  e.service_start_ps = posted ? now : start;
  const unsigned len = e.length;
  if (params_.backing_store) {
    // In arrival order, like the service itself: a read sees every earlier write.
    if (e.atomic != AtomicOp::kNone) {
      execute_atomic(store_, e.channel_address, e, p.get_data_ptr());
    } else if (e.write) {
      store_.write(e.channel_address, p.get_data_ptr(), len);
    } else {
      store_.read(e.channel_address, p.get_data_ptr(), len);
    }
  }
  if (len != burst_for_len_) {  // request sizes repeat: one division per new size
    burst_for_len_ = len;
    burst_cycles_ = std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(std::ceil(len / timing_.bytes_per_clock() - 1e-9)));
  }
  const std::uint64_t burst = burst_cycles_;
  const std::uint64_t period = clock_.period_ps();
  // An atomic reads its word and writes it back: the bus is busy for both bursts, and the old
  // value is ready after the read, as for a read.
  const std::uint64_t bus = e.atomic != AtomicOp::kNone ? 2 * burst : burst;
  bus_free_ps_ = start + bus * period;
  busy_ps_ += bus * period;
  const std::uint64_t ready = start + (timing_.access_latency_cycles + burst) * period;
  if (posted) {
    posted_.push_back({&p, now});
    posted_done_.push_back(ready);
  } else {
    service_.push_back({&p, ready});
  }
  if (e.atomic != AtomicOp::kNone) ++atomic_count_;
  if (e.write) {
    ++write_count_;
    write_bytes_ += len;
  } else {
    ++read_count_;
    read_bytes_ += len;
  }
  p.set_response_status(tlm::TLM_OK_RESPONSE);
  if (!upstream_busy_) wake_.at(posted ? now : service_.front().ready_ps, now);
}

Sync IdealMemory::fw(unsigned, Payload& p, Phase& phase, sc_core::sc_time&) {
  const std::uint64_t now = now_ps();
  if (phase == tlm::BEGIN_REQ) {
    ext_of(p).enter(block_id(), 0, now);
    if (params_.posted_writes) retire_posted(now);
    if (!has_room(p)) {
      // Room comes with a response, or when a posted write's entry frees.
      if (!posted_done_.empty()) wake_.at(posted_done_.front(), now);
      return hold_.hold(p, now);
    }
    accept(p, now);
    return accept_now(p, phase, tlm::END_REQ);
  }
  if (phase == tlm::END_RESP) {
    upstream_busy_ = false;
    wake_.asap();
    return tlm::TLM_ACCEPTED;
  }
  protocol_error(name(), phase, "its port");
}

void IdealMemory::behaviour() {
  wake_.fired();
  const std::uint64_t now_ps = famsim::now_ps();
  if (params_.posted_writes) retire_posted(now_ps);

  // Hand responses upstream, oldest ready first; a finished request before a posted write ready
  // at the same instant (see the header).
  auto take_held = [&] {
    if (!hold_.empty() && has_room(*hold_.held)) {
      Payload& held = hold_.take(now_ps, backpressure_ps_);
      accept(held, now_ps);
      up.send_end_req(held);
    }
  };
  while (!upstream_busy_) {
    const bool have_done = !service_.empty() && service_.front().ready_ps <= now_ps;
    const bool have_posted = !posted_.empty() && posted_.front().ready_ps <= now_ps &&
                             (!have_done || posted_.front().ready_ps < service_.front().ready_ps);
    if (!have_done && !have_posted) break;
    Ring<InService>& from = have_posted ? posted_ : service_;
    Payload& p = *from.front().payload;
    const std::uint64_t ready_ps = from.front().ready_ps;
    from.pop_front();
    HopRecord& h = ext_of(p).resp_enter(ready_ps);
    const bool write = ext_of(p).write;
    (write ? write_latency_ : read_latency_).add_ps(now_ps - h.req_in_ps());
    // A posted write's entry stays held until retire_posted() frees it.
    if (!have_posted) (write ? writes_held_ : reads_held_)--;
    upstream_busy_ = !up.send_resp(p);
    p.release();
    // A queue entry is free: take the held request if it fits now.
    take_held();
  }
  take_held();  // a posted write's entry may have freed with no response sent
  std::uint64_t at = Wakeup::kNever;
  if (!upstream_busy_ && !service_.empty()) at = service_.front().ready_ps;
  if (!upstream_busy_ && !posted_.empty()) at = std::min(at, posted_.front().ready_ps);
  if (!hold_.empty() && !posted_done_.empty()) at = std::min(at, posted_done_.front());
  if (at != Wakeup::kNever) wake_.at(at, now_ps);
}

void IdealMemory::probes(std::vector<ResourceProbe>& out) const {
  ResourceProbe u;
  u.use.name = "data path";
  u.use.capacity = timing_.peak_gbps();
  u.counter = &busy_ps_;
  out.push_back(std::move(u));
}

void IdealMemory::report(ComponentReport& r, const ReportWindow& window) const {
  r.bytes = static_cast<double>(read_bytes_ + write_bytes_);
  r.utilization = busy_fraction(busy_ps_, window);
  r.backpressure_ns = static_cast<double>(backpressure_ps_) * 1e-3;
  const double secs = window.seconds();
  r.extra["standard"] = timing_.standard;
  r.extra["peak_bandwidth_gbps"] = timing_.peak_gbps();
  r.extra["bandwidth_gbps"] = secs > 0 ? (read_bytes_ + write_bytes_) / secs * 1e-9 : 0.0;
  r.extra["reads"] = read_count_;
  r.extra["writes"] = write_count_;
  r.extra["atomics"] = atomic_count_;  // also counted in reads
  r.extra["read_bytes"] = read_bytes_;
  r.extra["write_bytes"] = write_bytes_;
  r.extra["read_latency_ns"] = read_latency_.to_json();
  r.extra["write_latency_ns"] = write_latency_.to_json();
  r.extra["stored_pages"] = store_.pages();
  r.extra["stored_page_bytes"] = BackingStore::kPageBytes;
  if (read_count_ + write_count_ > 0) {
    ResourceUse u;
    u.name = "data path";
    u.utilization = r.utilization;
    u.capacity = timing_.peak_gbps();
    u.used = r.extra["bandwidth_gbps"].get<double>();
    u.backpressure_ns = r.backpressure_ns;
    r.resources.push_back(std::move(u));
  }
}

std::size_t IdealMemory::occupancy() const {
  return service_.size() + posted_.size() + (hold_.empty() ? 0 : 1);
}

}  // namespace famsim
