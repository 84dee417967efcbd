#include "models/cosim/tlm_bridge.h"

#include "models/cosim/ignorable_phase.h"
#include "models/cosim/tlm_atomic.h"
#include "models/memory/atomic.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace famsim {

namespace {

// A foreign request asking for an atomic (a TlmAtomic other than kNone).
bool is_atomic(const tlm::tlm_generic_payload& p) {
  const TlmAtomic* a = p.get_extension<TlmAtomic>();
  return a != nullptr && a->op != AtomicOp::kNone;
}

}  // namespace

TlmBridge::TlmBridge(sc_core::sc_module_name name, SimContext& ctx, const TlmBridgeParams& params)
    : sc_core::sc_module(name),
      Component(ctx.registry, this->name(), BlockKind::kBridge),
      Initiator(&ctx.memories),
      in("in"),
      out("out", *this, 0),
      ctx_(ctx),
      time_(ctx.scheduler()),
      params_(params),
      fw_(*this),
      slots_(params.max_outstanding),
      free_(params.max_outstanding),
      to_issue_(params.max_outstanding),
      answered_(params.max_outstanding),
      blocking_answered_(params.max_outstanding),
      wake_("wake", ctx.scheduler(), this, &Wakeup::call_behaviour<TlmBridge>),
      outstanding_(params.max_outstanding) {
  if (params.max_outstanding == 0) throw std::invalid_argument("max_outstanding is 0");
  if (params.window_bytes == 0) throw std::invalid_argument("window_bytes is 0");
  for (std::uint32_t s = 0; s < params.max_outstanding; ++s) free_.push_back(s);
  in.bind(fw_);
  SC_HAS_PROCESS(TlmBridge);
  SC_METHOD(behaviour);
  sensitive << wake_.event();
  dont_initialize();
}

TlmBridge::~TlmBridge() {
  // A run that sc_stop() did not end (sc_start()'s time limit, starvation) had no
  // end_of_simulation(): the bridge's destruction is the last point to say what it still held.
  // Not while an exception unwinds, and a report that throws (warnings made SC_THROW) is dropped:
  // a destructor must not throw.
  if (std::uncaught_exceptions() > 0) return;
  try {
    warn_in_flight();
  } catch (...) {
  }
}

void TlmBridge::end_of_simulation() { warn_in_flight(); }

void TlmBridge::warn_in_flight() {
  const std::size_t held = occupancy();
  // b_transport calls in the bridge that hold no slot: in their annotated delay, waiting for a
  // slot, or answered (the slot freed) and not returned yet.
  std::size_t calls_holding = 0;
  for (const Slot& slot : slots_) calls_holding += slot.foreign && slot.done ? 1 : 0;
  const std::size_t calls_without_slot =
      blocking_calls_ > calls_holding ? blocking_calls_ - calls_holding : 0;
  if (warned_in_flight_ || held + calls_without_slot == 0) return;
  warned_in_flight_ = true;
  // By state, and the first of them: the one that goes back to the initiator first if the target
  // answers in order (the open response, then the answers waiting to be sent back in order, then
  // the earliest taken into famsim, then the request not taken yet).
  static const char* const kResponding = "waiting for the initiator's END_RESP";
  static const char* const kAnswered = "answered, waiting to be sent back";
  static const char* const kInFamsim = "in famsim, not answered";
  static const char* const kPending = "not taken yet (BEGIN_REQ without END_REQ)";
  std::size_t answered = 0, in_famsim = 0;
  const Slot* first_in_famsim = nullptr;
  for (const Slot& slot : slots_) {
    if (!slot.foreign) continue;
    if (slot.answered) {
      ++answered;
    } else {
      ++in_famsim;
      if (!first_in_famsim || slot.order < first_in_famsim->order) first_in_famsim = &slot;
    }
  }
  const bool pending = pending_ && pending_slot_ == kNoSlot;
  std::vector<std::string> states;
  if (responding_) states.push_back(fmt::format("1 {}", kResponding));
  if (answered > 0) states.push_back(fmt::format("{} {}", answered, kAnswered));
  if (in_famsim > 0) states.push_back(fmt::format("{} {}", in_famsim, kInFamsim));
  if (pending) states.push_back(fmt::format("1 {}", kPending));
  if (calls_without_slot > 0) {
    states.push_back(
        fmt::format("{} b_transport call{} holding no slot (in {} annotated delay, "
                    "waiting for a slot, or answered and not returned yet)",
                    calls_without_slot, calls_without_slot == 1 ? "" : "s",
                    calls_without_slot == 1 ? "its" : "their"));
  }
  Asked first;
  const char* first_state = nullptr;
  if (responding_) {
    first = responding_asked_;
    first_state = kResponding;
  } else if (answered > 0 && !(blocking_answered_.empty() && answered_.empty())) {
    // hand_back() gives b_transport's answers back first.
    first =
        slots_[!blocking_answered_.empty() ? blocking_answered_.front() : answered_.front()].asked;
    first_state = kAnswered;
  } else if (first_in_famsim) {
    first = first_in_famsim->asked;
    first_state = kInFamsim;
  } else if (pending) {
    first = pending_asked_;
    first_state = kPending;
  }
  // Under the famsim kernel its blocks may have run ahead of SystemC's time (models/core/wakeup.h)
  // and, with no other SystemC process to stop them, handled events past the end of sc_start().
  const std::uint64_t sc_now = sc_core::sc_time_stamp().value();
  const std::string ahead =
      now_ps() > sc_now
          ? fmt::format(" (famsim's blocks had run ahead to {}: the famsim kernel's decoupling)",
                        sc_core::sc_time::from_value(now_ps()).to_string())
          : std::string();
  const char* command = first.command == tlm::TLM_READ_COMMAND    ? "read"
                        : first.command == tlm::TLM_WRITE_COMMAND ? "write"
                                                                  : "TLM_IGNORE_COMMAND";
  const std::size_t in_bridge = held + calls_without_slot;
  const std::string first_text =
      first_state ? fmt::format(" The first, a {} of {} B at {:#x}, is {}.", command, first.length,
                                first.address, first_state)
                  : std::string();
  log().write(
      LogLevel::kWarning,
      fmt::format("the run ended at {}{} with {} request{} still in the bridge: {}.{} Typical "
                  "causes: sc_start() with a time limit that ended the run before they were "
                  "answered, or an initiator that does not send END_RESP (the bridge sends one "
                  "BEGIN_RESP at a time, so every later answer waits for it).",
                  sc_core::sc_time::from_value(sc_now).to_string(), ahead, in_bridge,
                  in_bridge == 1 ? "" : "s", fmt::join(states, "; "), first_text));
}

// --- The foreign initiator's side ---------------------------------------------------------------

bool TlmBridge::in_window(const Payload& p, std::uint64_t& pa) const {
  const std::uint64_t len = p.get_data_length();
  pa = p.get_address() + params_.address_offset;
  return pa >= p.get_address() && pa >= params_.window_base && len <= params_.window_bytes &&
         pa - params_.window_base <= params_.window_bytes - len;
}

bool TlmBridge::admissible(Payload& p) {
  const std::uint64_t len = p.get_data_length();
  std::uint64_t pa = 0;
  if (p.get_command() == tlm::TLM_IGNORE_COMMAND) {
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    ++refused_["TLM_IGNORE_COMMAND"];
    return false;
  }
  Refusal why;
  if (!in_window(p, pa)) {
    why = Refusal::kOutsideWindow;
  } else if (p.get_byte_enable_ptr() != nullptr && p.get_byte_enable_length() > 0) {
    why = Refusal::kByteEnables;
  } else if (len == 0) {
    why = Refusal::kNoData;
  } else if (len > ctx_.pool.max_data_bytes()) {
    why = Refusal::kTooLong;
  } else if (p.get_streaming_width() < len) {
    // A streaming width at least the data length is no streaming (IEEE 1666-2011, the streaming
    // width attribute).
    why = Refusal::kStreaming;
  } else if (!is_atomic(p)) {
    return true;
  } else if (!p.is_read()) {
    why = Refusal::kAtomicNotRead;
  } else if (!valid_atomic_length(static_cast<std::uint32_t>(len))) {
    why = Refusal::kAtomicLength;
  } else if ((pa - params_.window_base) % len != 0) {
    why = Refusal::kAtomicAlignment;
  } else {
    return true;
  }
  p.set_response_status(why == Refusal::kOutsideWindow || why == Refusal::kAtomicAlignment
                            ? tlm::TLM_ADDRESS_ERROR_RESPONSE
                        : why == Refusal::kByteEnables   ? tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE
                        : why == Refusal::kAtomicNotRead ? tlm::TLM_COMMAND_ERROR_RESPONSE
                                                         : tlm::TLM_BURST_ERROR_RESPONSE);
  ++refused_[p.get_response_string()];
  const unsigned bit = 1u << static_cast<unsigned>(why);
  if ((warned_ & bit) == 0) {
    warned_ |= bit;
    warn_refused(p, pa, why);
  }
  return false;
}

void TlmBridge::warn_refused(const Payload& p, std::uint64_t pa, Refusal why) const {
  const std::uint64_t len = p.get_data_length();
  std::string text;
  switch (why) {
    case Refusal::kOutsideWindow:
      text = pa < p.get_address()
                 ? fmt::format("its address + address_offset {:#x} wraps past 2^64",
                               params_.address_offset)
                 : fmt::format(
                       "with address_offset {:#x} it is famsim address {:#x}, not wholly inside "
                       "the window (window_base {:#x}, window_bytes {})",
                       params_.address_offset, pa, params_.window_base, params_.window_bytes);
      break;
    case Refusal::kByteEnables:
      text = "it has byte enables, which famsim does not carry (its memories write whole requests)";
      break;
    case Refusal::kNoData:
      text = "its data length is 0";
      break;
    case Refusal::kTooLong:
      text = fmt::format("its data length is above the {} B of famsim's payloads (max_data_bytes)",
                         ctx_.pool.max_data_bytes());
      break;
    case Refusal::kStreaming:
      text = fmt::format("its streaming width, {} B, is under its data length",
                         p.get_streaming_width());
      break;
    case Refusal::kAtomicNotRead:
      text =
          "it carries a TlmAtomic, which famsim executes on a read command only (the response "
          "holds the word's old value)";
      break;
    case Refusal::kAtomicLength:
      text = "it carries a TlmAtomic, which acts on a word of 4 or 8 B";
      break;
    case Refusal::kAtomicAlignment:
      text = fmt::format(
          "it carries a TlmAtomic, whose word must lie at a multiple of its length "
          "from window_base {:#x} (famsim address {:#x})",
          params_.window_base, pa);
      break;
  }
  log().write(LogLevel::kWarning,
              fmt::format("a {} of {} B at {:#x} was answered {} without entering famsim: {}. "
                          "Later answers for this reason are only counted (answered_at_once).",
                          p.is_write() ? "write" : "read", len, p.get_address(),
                          p.get_response_string(), text));
}

unsigned TlmBridge::foreign_dbg(Payload& p) {
  // Under TLM_MIN_PAYLOAD (the default) only the command, address, data pointer and length are
  // the initiator's to set; byte enables and streaming width count under TLM_FULL_PAYLOAD alone.
  bool whole = true;
  if (p.get_gp_option() == tlm::TLM_FULL_PAYLOAD) {
    whole = (p.get_byte_enable_ptr() == nullptr || p.get_byte_enable_length() == 0) &&
            p.get_streaming_width() >= p.get_data_length();
    p.set_gp_option(tlm::TLM_FULL_PAYLOAD_ACCEPTED);
  }
  std::uint64_t pa = 0;
  if (!debug_access_ || !whole || p.get_command() == tlm::TLM_IGNORE_COMMAND || !in_window(p, pa)) {
    return 0;
  }
  return static_cast<unsigned>(
      debug_access_(p.is_write(), pa, p.get_data_ptr(), p.get_data_length()));
}

bool TlmBridge::deny_dmi(tlm::tlm_dmi& dmi) {
  // A target that denies DMI still says for which access and which addresses it denies it
  // (IEEE 1666-2011, the DMI rules), so the initiator need not ask again: the bridge grants none
  // anywhere, every access being timed.
  dmi.allow_read_write();
  dmi.set_start_address(0);
  dmi.set_end_address(~sc_dt::uint64{0});
  return false;
}

Sync TlmBridge::foreign_fw(Payload& p, Phase& phase, sc_core::sc_time& t) {
  time_.sync();
  const std::uint64_t now = now_ps();
  if (phase == tlm::BEGIN_REQ) {
    if (pending_) {
      SC_REPORT_FATAL(name(),
                      "BEGIN_REQ before END_REQ of the previous request: the base protocol's "
                      "exclusion rule (IEEE 1666-2011) allows one request phase at a time");
    }
    // What famsim cannot carry is answered at once: TLM_COMPLETED implies its BEGIN_RESP.
    // While another BEGIN_RESP is open that would be two responses at once, which the response
    // exclusion rule forbids: the request is then taken as any other (END_REQ when it takes
    // effect and a slot is free), and its answer, its error status set already, goes out through
    // the slot after the open response has ended.
    const bool refused = !admissible(p);
    if (refused && !responding_) return tlm::TLM_COMPLETED;
    pending_refused_ = refused;
    if (p.has_mm()) p.acquire();
    pending_ = &p;
    pending_asked_ = Asked::of(p);
    pending_at_ps_ = ForeignTime::takes_effect_ps(now, t);
    wake_.at(pending_at_ps_, now);
    return tlm::TLM_ACCEPTED;
  }
  if (phase == tlm::END_RESP) {
    if (&p != responding_) {
      SC_REPORT_FATAL(name(), "END_RESP for a transaction that has no BEGIN_RESP outstanding");
    }
    if (p.has_mm()) p.release();
    responding_ = nullptr;
    respond_from_ps_ = ForeignTime::takes_effect_ps(now, t);
    wake_.at(respond_from_ps_, now);
    return tlm::TLM_COMPLETED;
  }
  if (ignorable_phase(phase)) {
    ++ignored_phases_;
    return tlm::TLM_ACCEPTED;
  }
  protocol_error(name(), phase, "the foreign initiator's socket");
}

void TlmBridge::foreign_b_transport(Payload& p, sc_core::sc_time& t) {
  if (!admissible(p)) return;
  // Counted until it returns, for the end-of-run warning (not by a guard object: a thread the
  // kernel never resumes is not unwound before the bridge goes).
  ++blocking_calls_;
  if (t != sc_core::SC_ZERO_TIME) {
    sc_core::wait(t);
    t = sc_core::SC_ZERO_TIME;
  }
  time_.sync();
  while (free_.empty()) {
    ++waiting_for_slot_;
    sc_core::wait(slot_freed_);
    --waiting_for_slot_;
    time_.sync();
  }
  sc_core::sc_event done;
  const std::uint32_t s = take_slot(p, &done, now_ps());
  enter_famsim(s, now_ps());
  to_issue_.push_back(s);
  wake_.asap();
  sc_core::wait(done);
  --blocking_calls_;
}

// --- famsim's side ------------------------------------------------------------------------------

Sync TlmBridge::bw(unsigned, Payload& p, Phase& phase, sc_core::sc_time&) {
  const std::uint64_t now = now_ps();
  if (phase == tlm::BEGIN_RESP) {
    RequestExt& e = ext_of(p);
    e.resp_enter(now);
    const std::uint32_t s = e.phase;
    if (s < slots_.size() && slots_[s].ours == &p && !slots_[s].answered) {
      slots_[s].answered = true;
      (slots_[s].done ? blocking_answered_ : answered_).push_back(s);
      wake_.asap();
    } else {
      count_duplicate_response();
    }
    // The slot holds its reference until behaviour() hands the answer back.
    phase = tlm::END_RESP;
    return tlm::TLM_UPDATED;
  }
  if (phase == tlm::END_REQ) {
    end_req_arrived_ = true;
    wake_.asap();
    return tlm::TLM_ACCEPTED;
  }
  protocol_error(name(), phase, "a bridge's famsim socket");
}

std::uint32_t TlmBridge::take_slot(Payload& foreign, sc_core::sc_event* done, std::uint64_t now) {
  const std::uint32_t s = free_.front();
  free_.pop_front();
  slots_[s] = Slot{&foreign, nullptr, done, false, Asked::of(foreign), slots_taken_++};
  outstanding_.set(outstanding_.level() + 1, now);
  return s;
}

void TlmBridge::enter_famsim(std::uint32_t s, std::uint64_t now) {
  const Payload& foreign = *slots_[s].foreign;
  const auto len = static_cast<std::uint32_t>(foreign.get_data_length());
  const std::uint64_t pa = foreign.get_address() + params_.address_offset;
  const bool write = foreign.is_write();
  Payload& p = ctx_.pool.allocate();
  p.acquire();  // the slot's
  p.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  p.set_address(pa);
  p.set_data_length(len);
  p.set_streaming_width(len);
  p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  if (write) std::memcpy(p.get_data_ptr(), foreign.get_data_ptr(), len);
  RequestExt& e = ext_of(p);
  if (const TlmAtomic* atomic = foreign.get_extension<TlmAtomic>();
      atomic && atomic->op != AtomicOp::kNone) {
    e.atomic = atomic->op;  // admissible() checked the command, length and alignment
    e.atomic_operand = atomic->operand;
    e.atomic_compare = atomic->compare;
    ++atomics_;
  }
  e.id = std::uint64_t{params_.source} << 40 | next_seq_++;
  e.gpu = params_.source;
  e.dest_gpu = RequestExt::kNoGpu;
  e.stream = 0;
  e.phase = s;
  e.write = write;
  e.length = len;
  e.physical_address = pa;
  e.virtual_address = foreign.get_address();
  e.issue_ps = now;
  e.outstanding = true;
  e.target_class = params_.target_class;
  e.enter(block_id(), 0, now);
  slots_[s].ours = &p;
  count_issue(len, now);
}

void TlmBridge::end_foreign_request(std::uint64_t now) {
  Payload& p = *pending_;
  pending_ = nullptr;
  pending_slot_ = kNoSlot;
  backpressure_ps_ += now - pending_at_ps_;
  Phase phase = tlm::END_REQ;
  sc_core::sc_time t = local_time_offset();
  time_.yield();
  // The reference taken at BEGIN_REQ stays until the response has ended: the slot points at p.
  if (ignoring_unknown_phase(in->nb_transport_bw(p, phase, t), phase, ignored_phases_) !=
      tlm::TLM_ACCEPTED) {
    SC_REPORT_FATAL(name(), "the foreign initiator answered END_REQ with other than TLM_ACCEPTED");
  }
}

void TlmBridge::free_slot(std::uint32_t s, std::uint64_t now) {
  slots_[s] = Slot{};
  free_.push_back(s);
  outstanding_.set(outstanding_.level() - 1, now);
  if (waiting_for_slot_ > 0) {
    slot_freed_.notify(local_time_offset());
    time_.yield();
  }
}

void TlmBridge::complete(std::uint32_t s, std::uint64_t now) {
  const Slot slot = slots_[s];
  Payload& foreign = *slot.foreign;
  // (A request refused by admissible() never entered famsim: its status is set already.)
  if (slot.ours) {
    Payload& ours = *slot.ours;
    RequestExt& e = ext_of(ours);
    e.outstanding = false;
    const std::uint64_t arrived = e.hops[0].resp_in_ps();
    const std::size_t memory = count_completion(params_.target_class, e.write, e.physical_address,
                                                e.length, arrived - e.issue_ps);
    const tlm::tlm_response_status status = ours.get_response_status();
    count_response(e.length, status == tlm::TLM_OK_RESPONSE, arrived);
    ctx_.record_completion(e, arrived, status, memory, ours.get_data_ptr());
    if (!e.write && status == tlm::TLM_OK_RESPONSE) {
      std::memcpy(foreign.get_data_ptr(), ours.get_data_ptr(), e.length);
    }
    foreign.set_response_status(status);
    ours.release();
  }
  free_slot(s, now);
  if (slot.done) {
    // The b_transport caller resumes at famsim's local time.
    slot.done->notify(local_time_offset());
    time_.yield();
    return;
  }
  responding_ = &foreign;
  responding_asked_ = slot.asked;
  Phase phase = tlm::BEGIN_RESP;
  sc_core::sc_time t = local_time_offset();
  time_.yield();
  const Sync r =
      ignoring_unknown_phase(in->nb_transport_bw(foreign, phase, t), phase, ignored_phases_);
  if (r == tlm::TLM_ACCEPTED) return;  // END_RESP comes through foreign_fw()
  if (r == tlm::TLM_COMPLETED || (r == tlm::TLM_UPDATED && phase == tlm::END_RESP)) {
    responding_ = nullptr;
    respond_from_ps_ = ForeignTime::takes_effect_ps(now, t);
    if (foreign.has_mm()) foreign.release();
    return;
  }
  SC_REPORT_FATAL(name(), "the foreign initiator answered BEGIN_RESP with an unsupported phase");
}

void TlmBridge::behaviour() {
  wake_.fired();
  const std::uint64_t now = now_ps();
  if (end_req_arrived_) {
    end_req_arrived_ = false;
    const std::uint32_t s = held_slot_;
    held_slot_ = kNoSlot;
    if (s == pending_slot_) end_foreign_request(now);
  }
  hand_back(now);
  // The nb_transport request whose time has come takes a slot.
  if (pending_ && pending_slot_ == kNoSlot && pending_at_ps_ <= now && !free_.empty()) {
    const std::uint32_t s = take_slot(*pending_, nullptr, now);
    if (pending_refused_) {
      // Taken; its answer is ready, to go out when no other response is open.
      pending_refused_ = false;
      slots_[s].answered = true;
      answered_.push_back(s);
      end_foreign_request(now);
      hand_back(now);
    } else {
      enter_famsim(s, now);
      pending_slot_ = s;
      to_issue_.push_back(s);
    }
  }
  while (held_slot_ == kNoSlot && !to_issue_.empty()) {
    const std::uint32_t s = to_issue_.front();
    to_issue_.pop_front();
    if (!out.send_req(*slots_[s].ours)) {
      held_slot_ = s;
    } else if (s == pending_slot_) {
      end_foreign_request(now);
    }
  }
  std::uint64_t next = Wakeup::kNever;
  if (pending_ && pending_slot_ == kNoSlot && pending_at_ps_ > now) next = pending_at_ps_;
  if (!answered_.empty() && !responding_ && respond_from_ps_ > now) {
    next = std::min(next, respond_from_ps_);
  }
  if (next != Wakeup::kNever) wake_.at(next, now);
}

void TlmBridge::hand_back(std::uint64_t now) {
  // A b_transport caller's answer goes back as it arrives: the exclusion rules are nb_transport's
  // hand-shake, and another thread is another initiator to them.
  while (!blocking_answered_.empty()) {
    const std::uint32_t s = blocking_answered_.front();
    blocking_answered_.pop_front();
    complete(s, now);
  }
  // nb_transport's, in arrival order, each once the initiator ended the previous BEGIN_RESP.
  while (!answered_.empty() && !responding_ && respond_from_ps_ <= now) {
    const std::uint32_t s = answered_.front();
    answered_.pop_front();
    complete(s, now);
  }
}

// --- Statistics ---------------------------------------------------------------------------------

std::uint64_t TlmBridge::refused() const {
  std::uint64_t n = 0;
  for (const auto& [status, count] : refused_) n += count;
  return n;
}

std::size_t TlmBridge::occupancy() const {
  return (slots_.size() - free_.size()) + (pending_ && pending_slot_ == kNoSlot ? 1 : 0) +
         (responding_ ? 1 : 0);
}

void TlmBridge::probes(std::vector<ResourceProbe>& out) const {
  out.push_back(pool_probe("outstanding window", outstanding_));
}

void TlmBridge::report(ComponentReport& r, const ReportWindow& window) const {
  const TargetTraffic& t = traffic(params_.target_class);
  r.bytes = static_cast<double>(t.read_bytes + t.write_bytes);
  r.utilization = outstanding_.mean_fraction(window);
  r.backpressure_ns = static_cast<double>(backpressure_ps_) * 1e-3;
  if (issued() > 0) r.resources.push_back(slot_pool("outstanding window", outstanding_, window));
  const double secs = window.seconds();
  r.extra["requests"] = issued();
  r.extra["answered_at_once"] = refused_;
  r.extra["ignored_phases"] = ignored_phases_;
  r.extra["atomics"] = atomics_;
  r.extra["max_outstanding"] = params_.max_outstanding;
  r.extra["mean_outstanding"] = outstanding_.mean(window);
  r.extra["bandwidth_gbps"] = secs > 0 ? (t.read_bytes + t.write_bytes) / secs * 1e-9 : 0.0;
  r.extra["read_latency_ns"] = t.read_latency.to_json();
  r.extra["write_latency_ns"] = t.write_latency.to_json();
}

}  // namespace famsim
