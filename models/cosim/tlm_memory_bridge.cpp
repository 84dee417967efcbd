#include "models/cosim/tlm_memory_bridge.h"

#include "models/cosim/ignorable_phase.h"
#include "models/memory/atomic.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace famsim {

TlmMemoryBridge::TlmMemoryBridge(sc_core::sc_module_name name, SimContext& ctx,
                                 const TlmMemoryBridgeParams& params, std::uint32_t data_bytes)
    : sc_core::sc_module(name),
      Component(ctx.registry, this->name(), BlockKind::kMemory),
      up("up", *this, 0),
      out("out"),
      params_(params),
      time_(ctx.scheduler()),
      bw_(*this),
      free_foreign_(params.max_outstanding),
      answers_(params.max_outstanding),
      wake_("wake", ctx.scheduler(), this, &Wakeup::call_behaviour<TlmMemoryBridge>),
      outstanding_(params.max_outstanding) {
  if (params.max_outstanding == 0) throw std::invalid_argument("max_outstanding is 0");
  // An atomic's word, naturally aligned at the channel address, must stay so at the foreign one.
  if (params.address_offset % 8 != 0) {
    throw std::invalid_argument("address_offset " + std::to_string(params.address_offset) +
                                " is not a multiple of 8 B: an atomic's word would be misaligned "
                                "at the foreign memory");
  }
  // Every payload the foreign target will see, made once: none is made per request.
  for (unsigned i = 0; i < params.max_outstanding; ++i) {
    foreign_.push_back(std::make_unique<ForeignPayload>(static_cast<tlm::tlm_mm_interface*>(this)));
    foreign_.back()->data.resize(data_bytes);
    free_foreign_.push_back(foreign_.back().get());
  }
  out.bind(bw_);
  SC_HAS_PROCESS(TlmMemoryBridge);
  SC_METHOD(behaviour);
  sensitive << wake_.event();
  dont_initialize();
}

TlmMemoryBridge::~TlmMemoryBridge() = default;

// --- famsim's side ------------------------------------------------------------------------------

Sync TlmMemoryBridge::fw(unsigned, Payload& p, Phase& phase, sc_core::sc_time&) {
  const std::uint64_t now = now_ps();
  if (phase == tlm::BEGIN_REQ) {
    if (pending_) {
      SC_REPORT_FATAL(name(), "BEGIN_REQ before END_REQ of the previous request");
    }
    ext_of(p).enter(block_id(), 0, now);
    // END_REQ waits for the foreign target to take it (behaviour(), at this same instant when
    // nothing is in the way).
    p.acquire();  // held until its answer is taken by the block in front
    pending_ = &p;
    pending_since_ps_ = now;
    wake_.at(now, now);
    return tlm::TLM_ACCEPTED;
  }
  if (phase == tlm::END_RESP) {
    upstream_busy_ = false;
    wake_.at(now, now);
    return tlm::TLM_ACCEPTED;
  }
  protocol_error(name(), phase, "its famsim port");
}

void TlmMemoryBridge::end_request(std::uint64_t now) {
  if (!pending_ || end_req_ps_ > now) return;
  Payload& p = *pending_;
  pending_ = nullptr;
  sending_ = nullptr;
  end_req_ps_ = Wakeup::kNever;
  backpressure_ps_ += now - pending_since_ps_;
  up.send_end_req(p);
}

void TlmMemoryBridge::behaviour() {
  wake_.fired();
  const std::uint64_t now = now_ps();
  // END_REQ before the same request's BEGIN_RESP, when the target's answer implied its END_REQ.
  end_request(now);
  // Answers whose time has come go back in order, each once the block in front took the last.
  while (!upstream_busy_ && !answers_.empty() && answers_.front().ready_ps <= now) {
    const Answer a = answers_.front();
    answers_.pop_front();
    RequestExt& e = ext_of(*a.ours);
    const HopRecord& h = e.resp_enter(a.ready_ps);
    // An atomic's (its read, and a write-back after it) is neither a read's latency nor a write's.
    (e.atomic != AtomicOp::kNone ? atomic_latency_
     : e.write                   ? write_latency_
                                 : read_latency_)
        .add_ps(now - h.req_in_ps());
    upstream_busy_ = !up.send_resp(*a.ours);
    a.ours->release();
    --in_bridge_;
    outstanding_.set(in_bridge_, now);
  }
  // An atomic's write-back goes out once its read's answer has taken effect (nothing else can be
  // on its way then: the atomic holds the way, see below), when a payload is free (else free()
  // calls again).
  if (write_back_ps_ <= now && !free_foreign_.empty()) send_write_back(now);
  // The request in front goes out when a slot and a payload are free, none is on its way and no
  // atomic holds the way.
  const bool may_send = pending_ && !sending_ && end_req_ps_ == Wakeup::kNever;
  if (may_send && hold_until_ps_ <= now && in_bridge_ < foreign_.size() && !free_foreign_.empty()) {
    send(now);
  }
  end_request(now);
  std::uint64_t next = pending_ ? end_req_ps_ : Wakeup::kNever;
  // (An atomic still reading or writing back says when it lets go: answered(), request_taken().)
  if (may_send && hold_until_ps_ > now && hold_until_ps_ != Wakeup::kNever) {
    next = std::min(next, hold_until_ps_);
  }
  if (write_back_ps_ > now && write_back_ps_ != Wakeup::kNever) {
    next = std::min(next, write_back_ps_);
  }
  if (!upstream_busy_ && !answers_.empty()) next = std::min(next, answers_.front().ready_ps);
  if (next != Wakeup::kNever) wake_.at(std::max(next, now), now);
}

void TlmMemoryBridge::send(std::uint64_t now) {
  Payload& ours = *pending_;
  const RequestExt& e = ext_of(ours);
  const bool atomic = e.atomic != AtomicOp::kNone;
  // As the device's memories do (execute_atomic): a malformed atomic is famsim's own error.
  if (atomic) check_atomic_word(e.channel_address, e);
  // An atomic's first access is a plain read of its word (its payload's command is a read too).
  const bool write = e.write && !atomic;
  ForeignPayload& f = take_foreign(ours, write, now);
  if (write) std::memcpy(f.data.data(), ours.get_data_ptr(), e.length);
  if (atomic) {
    // Nothing else goes out until its write-back has been taken, or its read answered without one.
    hold_until_ps_ = Wakeup::kNever;
    hold_since_ps_ = now;
    atomic_ = &ours;
    ++atomics_;
  }
  sending_ = &f;
  ++in_bridge_;
  outstanding_.set(in_bridge_, now);
  transmit(f, now);
}

void TlmMemoryBridge::send_write_back(std::uint64_t now) {
  Payload& ours = *atomic_;
  write_back_ps_ = Wakeup::kNever;
  ForeignPayload& f = take_foreign(ours, true, now);
  std::memcpy(f.data.data(), write_back_word_, ext_of(ours).length);
  ++write_backs_;
  // The atomic holds its slot from its read on: no slot of its own.
  transmit(f, now);
}

TlmMemoryBridge::ForeignPayload& TlmMemoryBridge::take_foreign(Payload& ours, bool write,
                                                               std::uint64_t now) {
  ForeignPayload& f = *free_foreign_.front();
  free_foreign_.pop_front();
  const RequestExt& e = ext_of(ours);
  f.ours = &ours;
  f.sent_ps = now;
  f.request_ended = false;
  f.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  f.set_address(e.channel_address + params_.address_offset);
  f.set_data_ptr(f.data.data());
  f.set_data_length(e.length);
  f.set_streaming_width(e.length);
  f.set_byte_enable_ptr(nullptr);
  f.set_byte_enable_length(0);
  f.set_dmi_allowed(false);
  f.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  bytes_ += e.length;
  if (write) {
    ++writes_;
    write_bytes_ += e.length;
  } else {
    ++reads_;
    read_bytes_ += e.length;
  }
  f.acquire();  // the bridge's, until the answer is in
  return f;
}

void TlmMemoryBridge::transmit(ForeignPayload& f, std::uint64_t now) {
  Phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time t = local_time_offset();
  time_.yield();
  const Sync r = ignoring_unknown_phase(out->nb_transport_fw(f, phase, t), phase, ignored_phases_);
  if (r == tlm::TLM_ACCEPTED) return;  // END_REQ or BEGIN_RESP comes through foreign_bw()
  const std::uint64_t at = ForeignTime::takes_effect_ps(now, t);
  if (r == tlm::TLM_UPDATED && phase == tlm::END_REQ) {
    request_taken(f, at, at);
  } else if (r == tlm::TLM_UPDATED && phase == tlm::BEGIN_RESP) {
    // The target answered on return and waits for END_RESP: given at once, at that time. END_RESP
    // ends the transaction whatever the target returns, TLM_COMPLETED or TLM_ACCEPTED (IEEE
    // 1666-2011 allows either).
    Phase end = tlm::END_RESP;
    sc_core::sc_time te = t;
    const Sync re = ignoring_unknown_phase(out->nb_transport_fw(f, end, te), end, ignored_phases_);
    if (re != tlm::TLM_COMPLETED && re != tlm::TLM_ACCEPTED) {
      SC_REPORT_FATAL(
          name(),
          "the foreign target answered END_RESP with TLM_UPDATED and a base-protocol phase: "
          "none follows END_RESP");
    }
    answered(f, at);
  } else if (r == tlm::TLM_COMPLETED) {
    answered(f, at);
  } else {
    SC_REPORT_FATAL(name(), "the foreign target answered BEGIN_REQ with an unsupported phase");
  }
}

// --- The foreign target's side ------------------------------------------------------------------

Sync TlmMemoryBridge::foreign_bw(ForeignPayload& f, Phase& phase, sc_core::sc_time& t) {
  time_.sync();
  const std::uint64_t now = now_ps();
  const std::uint64_t at = ForeignTime::takes_effect_ps(now, t);
  if (ignorable_phase(phase)) {
    ++ignored_phases_;
    return tlm::TLM_ACCEPTED;
  }
  if (!f.ours) SC_REPORT_FATAL(name(), "the foreign target sent a phase for a finished request");
  if (phase == tlm::END_REQ) {
    if (f.request_ended) SC_REPORT_FATAL(name(), "the foreign target sent END_REQ twice");
    request_taken(f, at, at);
    return tlm::TLM_ACCEPTED;
  }
  if (phase == tlm::BEGIN_RESP) {
    answered(f, at);
    // The slot is the answer's buffer: the target need not wait for famsim.
    phase = tlm::END_RESP;
    return tlm::TLM_COMPLETED;
  }
  protocol_error(name(), phase, "the foreign target's socket");
}

void TlmMemoryBridge::end_hold(std::uint64_t at_ps) {
  hold_until_ps_ = at_ps;
  held_ps_ += at_ps - hold_since_ps_;
  atomic_ = nullptr;
}

void TlmMemoryBridge::request_taken(ForeignPayload& f, std::uint64_t at_ps,
                                    std::uint64_t service_start_ps) {
  f.request_ended = true;
  if (f.is_write() && ext_of(*f.ours).atomic != AtomicOp::kNone) {
    // An atomic's write-back: any access sent from now reaches the word after it (the foreign
    // target keeps the order of accesses to one address), so the way is free from this time.
    end_hold(at_ps);
    wake_.at(at_ps, now_ps());
    return;
  }
  if (&f != sending_) return;
  end_req_ps_ = at_ps;
  ext_of(*f.ours).service_start_ps = service_start_ps;
  wake_.at(at_ps, now_ps());
}

void TlmMemoryBridge::answered(ForeignPayload& f, std::uint64_t at_ps) {
  if (!f.request_ended) {
    // BEGIN_RESP implies END_REQ (a target that answers on return, or an LT target behind a
    // convenience socket): the request was in its hands from the moment it went out.
    request_taken(f, at_ps, f.sent_ps);
  }
  Payload& ours = *f.ours;
  const RequestExt& e = ext_of(ours);
  const tlm::tlm_response_status status = f.get_response_status();
  // A read's data, an atomic's read's too: the word's old value is the atomic's answer, as the
  // device's memories give it (execute_atomic).
  if (!f.is_write() && status == tlm::TLM_OK_RESPONSE) {
    std::memcpy(ours.get_data_ptr(), f.data.data(), f.get_data_length());
  }
  bool answer = true;
  if (e.atomic != AtomicOp::kNone && !f.is_write()) {
    // The atomic's read. A changed word is written back when this answer takes effect
    // (behaviour()), and famsim's answer waits for the write-back's, whose status it takes; a
    // failed read (nothing to write) or an unchanged word (a compare-and-swap that missed, a
    // fetch-add of 0: the memory holds the result already) ends the atomic here.
    const std::uint64_t old = load_atomic_word(f.data.data(), e.length);
    const std::uint64_t result = atomic_result(e, old);
    if (status == tlm::TLM_OK_RESPONSE && result != old) {
      store_atomic_word(result, write_back_word_);
      write_back_ps_ = at_ps;
      answer = false;
    } else {
      end_hold(at_ps);
    }
  }
  if (answer) {
    ours.set_response_status(status);
    queue_answer(ours, at_ps);
  }
  f.ours = nullptr;
  wake_.at(at_ps, now_ps());
  f.release();  // free() takes it back once the target has let go too
}

void TlmMemoryBridge::queue_answer(Payload& ours, std::uint64_t ready_ps) {
  // Answers go back by the time they take effect, not by when the target called: a target may
  // annotate a later call with an earlier time (IEEE 1666-2011 leaves the order to the receiver's
  // payload event queue). Equal times keep the order of the calls.
  answers_.push_back({&ours, ready_ps});
  for (std::size_t i = answers_.size() - 1; i > 0 && answers_[i - 1].ready_ps > ready_ps; --i) {
    std::swap(answers_[i - 1], answers_[i]);
  }
}

void TlmMemoryBridge::free(tlm::tlm_generic_payload* p) {
  p->reset();  // deletes the extensions a target set as auto extensions, as a memory manager must
  free_foreign_.push_back(static_cast<ForeignPayload*>(p));
  // A request or a write-back waiting for a payload can go now.
  if ((pending_ && !sending_) || write_back_ps_ != Wakeup::kNever) {
    time_.sync();
    wake_.asap();
  }
}

std::uint64_t TlmMemoryBridge::debug_access(bool write, std::uint64_t a, unsigned char* data,
                                            std::uint64_t len) {
  tlm::tlm_generic_payload p;
  p.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  p.set_address(a + params_.address_offset);
  p.set_data_ptr(data);
  p.set_data_length(static_cast<unsigned>(len));
  p.set_streaming_width(static_cast<unsigned>(len));
  return out->transport_dbg(p);
}

// --- Statistics ---------------------------------------------------------------------------------

unsigned TlmMemoryBridge::foreign_in_use() const {
  return static_cast<unsigned>(foreign_.size() - free_foreign_.size());
}

std::size_t TlmMemoryBridge::occupancy() const {
  // A pending request that went out already holds a slot.
  return in_bridge_ + (pending_ && !sending_ && end_req_ps_ == Wakeup::kNever ? 1 : 0);
}

void TlmMemoryBridge::probes(std::vector<ResourceProbe>& out) const {
  out.push_back(pool_probe("outstanding window", outstanding_));
  if (params_.peak_gbps > 0) {
    // Its bytes at the stated peak: 1000 / GB/s ps a byte.
    ResourceProbe u;
    u.use.name = "data path";
    u.use.capacity = params_.peak_gbps;
    u.counter = &bytes_;
    u.scale = 1000.0 / params_.peak_gbps;
    out.push_back(std::move(u));
  }
}

void TlmMemoryBridge::report(ComponentReport& r, const ReportWindow& window) const {
  const double secs = window.seconds();
  const double bytes = static_cast<double>(bytes_);
  const double gbps = secs > 0 ? bytes / secs * 1e-9 : 0.0;
  r.bytes = bytes;
  r.utilization = params_.peak_gbps > 0 ? std::min(1.0, gbps / params_.peak_gbps) : 0.0;
  r.backpressure_ns = static_cast<double>(backpressure_ps_) * 1e-3;
  r.extra["model"] = "external";
  r.extra["standard"] = params_.name;
  r.extra["peak_bandwidth_gbps"] = params_.peak_gbps;
  r.extra["bandwidth_gbps"] = gbps;
  // Each of famsim's requests is one foreign read or write, an atomic a read and its write-back.
  r.extra["requests"] = reads_ + writes_ - write_backs_;
  r.extra["reads"] = reads_;
  r.extra["writes"] = writes_;
  r.extra["read_bytes"] = read_bytes_;
  r.extra["write_bytes"] = write_bytes_;
  // Atomics are executed on the foreign memory now, none answered by the bridge itself: the key
  // stays, as stats.json's keys do.
  r.extra["answered_at_once"] = {{"atomics", 0}};
  r.extra["atomics"] = atomics_;
  r.extra["atomic_write_backs"] = write_backs_;
  r.extra["ignored_phases"] = ignored_phases_;
  r.extra["max_outstanding"] = params_.max_outstanding;
  r.extra["mean_outstanding"] = outstanding_.mean(window);
  r.extra["read_latency_ns"] = read_latency_.to_json();
  r.extra["write_latency_ns"] = write_latency_.to_json();
  r.extra["atomic_latency_ns"] = atomic_latency_.to_json();
  if (reads_ + writes_ > 0) {
    r.resources.push_back(slot_pool("outstanding window", outstanding_, window));
  }
  atomic_hold(r, window);
  if (reads_ + writes_ > 0 && params_.peak_gbps > 0) {
    ResourceUse u;
    u.name = "data path";
    u.utilization = r.utilization;
    u.capacity = params_.peak_gbps;
    u.used = gbps;
    u.backpressure_ns = r.backpressure_ns;
    r.resources.push_back(std::move(u));
  }
}

// The atomics' hold on the way (module comment): the share of the window during which an atomic
// kept every other request from the foreign memory, at what rate atomics could pass if they came
// back to back at their mean hold, and the rate they came. Whole run only: the held time is
// added when each hold ends (one still on at the window's end counts to there).
void TlmMemoryBridge::atomic_hold(ComponentReport& r, const ReportWindow& window) const {
  const std::uint64_t span = window.duration_ps();
  const std::uint64_t open =
      atomic_ && hold_since_ps_ < window.end_ps ? window.end_ps - hold_since_ps_ : 0;
  const std::uint64_t held = held_ps_ + open;
  if (atomics_ == 0 || span == 0 || held == 0) return;
  const double atomics = static_cast<double>(atomics_);
  ResourceUse u;
  u.name = "atomic hold (from an atomic's read to its write-back taken)";
  u.unit = "M atomics/s";
  u.utilization = std::min(1.0, static_cast<double>(held) / static_cast<double>(span));
  u.capacity = atomics / static_cast<double>(held) * 1e6;  // per ps -> M/s
  u.used = atomics / window.seconds() * 1e-6;
  u.advice =
      "Atomics on this channel hold the foreign memory's way from each one's read to its "
      "write-back: the channel serves nothing else meanwhile, whatever the other requests' "
      "addresses. Spread the atomics over more channels (more words, or a finer interleave), or "
      "model a memory that executes atomics itself.";
  u.whole_run_only = true;
  r.resources.push_back(std::move(u));
}

}  // namespace famsim
