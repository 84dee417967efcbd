#include "models/core/wakeup.h"

#include "models/core/phases.h"

#include <algorithm>
#include <stdexcept>

namespace famsim {

Scheduler::Scheduler(sc_core::sc_module_name name)
    : sc_core::sc_module(name), slots_(kSlots), occupied_(kSlots / 64, 0), event_("wake") {
  overflow_.reserve(256);
  detail::g_now_ps = 0;
  detail::g_now_cached = true;
  SC_HAS_PROCESS(Scheduler);
  SC_METHOD(run);
  sensitive << event_;
  dont_initialize();
}

void Wakeup::beyond_max_time() {
  detail::g_time_limit_hit = true;
  if (scheduler_) scheduler_->stop();
  sc_core::sc_stop();
}

Scheduler::~Scheduler() { detail::g_now_cached = false; }

void Scheduler::set_sampler(PhaseSampler* sampler) {
  sampler_ = sampler;
  sample_at_ps_ = sampler ? sampler->next_boundary() : std::numeric_limits<std::uint64_t>::max();
}

// link() and unlink() run for nearly every schedule() and wake-up (1.4 schedule() calls per
// wake-up on nvl8_fam): inlined into their callers, so that schedule()'s common path (a wheel
// slot, no SystemC notification) makes no call.
inline void Scheduler::link(Wakeup* w) {
  const std::uint32_t slot = static_cast<std::uint32_t>((w->pending_ps_ / kSlotPs) % kSlots);
  w->slot_ = slot;
  Slot& s = slots_[slot];
  // Keep the slot sorted by time, equal times in request order: walk back from the tail past
  // later entries (usually none: new requests tend to be the latest).
  const std::uint64_t at_ps = w->pending_ps_;
  Wakeup* after = s.tail;
  if (after && s.tail_ps > at_ps) {
    after = after->prev_;
    while (after && after->pending_ps_ > at_ps) after = after->prev_;
  }
  w->prev_ = after;
  w->next_ = after ? after->next_ : s.head;
  if (w->next_) {
    w->next_->prev_ = w;
  } else {
    s.tail = w;
    s.tail_ps = at_ps;
  }
  if (after) {
    after->next_ = w;
  } else {
    if (!s.head) occupied_[slot >> 6] |= std::uint64_t{1} << (slot & 63);
    s.head = w;
  }
  w->where_ = Wakeup::Where::kWheel;
}

inline void Scheduler::unlink(Wakeup* w) {
  const std::uint32_t slot = w->slot_;
  if (w->prev_) {
    w->prev_->next_ = w->next_;
  } else {
    slots_[slot].head = w->next_;
  }
  if (w->next_) {
    w->next_->prev_ = w->prev_;
  } else {
    slots_[slot].tail = w->prev_;
    if (w->prev_) slots_[slot].tail_ps = w->prev_->pending_ps_;
  }
  if (!slots_[slot].head) occupied_[slot >> 6] &= ~(std::uint64_t{1} << (slot & 63));
  // prev_ and next_ are left as they are: they are read only while the wake-up is in the wheel,
  // and link() sets both.
  w->where_ = Wakeup::Where::kNone;
}

void Scheduler::schedule(std::uint64_t at_ps, std::uint64_t now_ps, Wakeup* w) {
  w->seq_ = seq_++;
  if (w->where_ == Wakeup::Where::kWheel) unlink(w);
  // An overflow entry is left behind; its sequence number no longer matches, so it is skipped.
  // Each path ends in its only call, so that the common one (a wheel slot, no notification) keeps
  // nothing across a call and saves no registers.
  if (at_ps / kSlotPs - now_ps / kSlotPs >= kSlots) {
    push_overflow(at_ps, w);
    return;
  }
  link(w);
  // While running, the loop in run() picks up entries due now and re-arms the event at the end.
  if (running_ || at_ps >= notified_ps_) return;
  notify(at_ps);
}

void Scheduler::push_overflow(std::uint64_t at_ps, Wakeup* w) {
  overflow_.push_back({at_ps, w->seq_, w});
  std::push_heap(overflow_.begin(), overflow_.end(), std::greater<Overflow>());
  w->where_ = Wakeup::Where::kOverflow;
  // schedule()'s notification, made here on this path (see there).
  if (running_ || at_ps >= notified_ps_) return;
  notify(at_ps);
}

void Scheduler::notify(std::uint64_t at_ps) {
  notified_ps_ = at_ps;
  const std::uint64_t sc_now = sc_core::sc_time_stamp().value();
  if (at_ps <= sc_now) {
    event_.notify(sc_core::SC_ZERO_TIME);
  } else {
    event_.notify(sc_core::sc_time::from_value(at_ps - sc_now));
  }
}

void Scheduler::sync_to_systemc() {
  if (running_) return;
  const std::uint64_t sc_now = sc_core::sc_time_stamp().value();
  detail::g_sc_now_ps = sc_now;
  detail::g_now_ps = std::max(detail::g_now_ps, sc_now);
  detail::g_offset_for_ps = ~std::uint64_t{0};  // local_time_offset() recomputes it
}

// Inlined into run(), its only caller, which calls it once per wake-up.
inline Wakeup* Scheduler::earliest(std::uint64_t now_ps) {
  Wakeup* best = nullptr;
  // First non-empty slot at or after the current one, wrapping once around the wheel.
  const std::size_t start = (now_ps / kSlotPs) % kSlots;
  const std::size_t words = occupied_.size();
  std::size_t wi = start >> 6;
  std::uint64_t bits = occupied_[wi] & (~std::uint64_t{0} << (start & 63));
  for (std::size_t n = 0; n <= words; ++n) {
    if (bits) {
      const std::size_t slot = (wi << 6) + static_cast<std::size_t>(__builtin_ctzll(bits));
      best = slots_[slot].head;  // slots are sorted
      break;
    }
    if (++wi == words) wi = 0;
    bits = occupied_[wi];
  }
  // The heap's top is no later than any entry in it, stale or not: when the wheel has an earlier
  // one, nothing in the heap can go first.
  if (overflow_.empty() || (best && overflow_.front().at_ps > best->pending_ps_)) return best;
  while (!overflow_.empty()) {
    const Overflow& top = overflow_.front();
    const Wakeup* w = top.wakeup;
    if (w->where_ == Wakeup::Where::kOverflow && w->seq_ == top.seq) break;
    std::pop_heap(overflow_.begin(), overflow_.end(), std::greater<Overflow>());
    overflow_.pop_back();
  }
  if (!overflow_.empty()) {
    Wakeup* o = overflow_.front().wakeup;
    if (!best || o->pending_ps_ < best->pending_ps_ ||
        (o->pending_ps_ == best->pending_ps_ && o->seq_ < best->seq_)) {
      best = o;
    }
  }
  return best;
}

void Scheduler::run() {
  const std::uint64_t sc_now = sc_core::sc_time_stamp().value();
  // Run ahead at most one quantum, and never past another SystemC process's next activity.
  std::uint64_t limit = sc_now + quantum_ps_;
  const sc_core::sc_time to_other =
      sc_core::sc_time_to_pending_activity(sc_core::sc_get_curr_simcontext());
  if (to_other.value() < quantum_ps_) limit = sc_now + to_other.value();
  limit = std::min(limit, end_ps_ == 0 ? end_ps_ : end_ps_ - 1);
  running_ = true;
  notified_ps_ = std::numeric_limits<std::uint64_t>::max();
  detail::g_sc_now_ps = sc_now;
  detail::g_offset_for_ps = ~std::uint64_t{0};  // recomputed on first use
  Wakeup* w = earliest(detail::g_now_ps);
  for (;;) {
    // Up to the next phase boundary; the sampler then samples the state before any event at it
    // (phases.h). Checked once per boundary, not per wake-up.
    const std::uint64_t stop = std::min(limit, sample_at_ps_ - 1);
    for (; w && w->pending_ps_ <= stop && !halt_; w = earliest(detail::g_now_ps)) {
      detail::g_now_ps = std::max(detail::g_now_ps, w->pending_ps_);
      if (w->where_ == Wakeup::Where::kWheel) {
        // unlink(), for a wake-up earliest() found at the head of its slot: it has no
        // predecessor.
        Slot& s = slots_[w->slot_];
        s.head = w->next_;
        if (w->next_) {
          w->next_->prev_ = nullptr;
        } else {
          s.tail = nullptr;
          occupied_[w->slot_ >> 6] &= ~(std::uint64_t{1} << (w->slot_ & 63));
        }
        w->where_ = Wakeup::Where::kNone;
      } else {
        std::pop_heap(overflow_.begin(), overflow_.end(), std::greater<Overflow>());
        overflow_.pop_back();
        w->where_ = Wakeup::Where::kNone;
      }
      ++runs_;
      w->behaviour_(w->owner_);  // calls w->fired() first, and may schedule w again
    }
    if (!w || halt_ || w->pending_ps_ > limit) break;
    sample_at_ps_ = sampler_->before(w->pending_ps_);
  }
  running_ = false;
  halt_ = stopped_;  // a yield() lasts one run-ahead
  if (after_run_ahead_) after_run_ahead_(detail::g_now_ps);
  if (w && !stopped_ && w->pending_ps_ < end_ps_) {
    notified_ps_ = w->pending_ps_;
    event_.notify(sc_core::sc_time::from_value(notified_ps_ > sc_now ? notified_ps_ - sc_now : 0));
  } else if (w && !stopped_ && sampler_) {
    // Cut off by sim.max_time_ns with more to do: the boundaries before the end, as the systemc
    // kernel samples them.
    sampler_->before(w->pending_ps_);
  }
}

}  // namespace famsim
