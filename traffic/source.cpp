#include "traffic/source.h"

#include <algorithm>
#include <stdexcept>

namespace famsim {

PhasedSource::PhasedSource(unsigned depth)
    : depth_(depth), slots_(depth + 2), compute_end_(depth + 2, 0) {}

AccessSource::State PhasedSource::next(std::uint64_t now_ps, Access& a, std::uint64_t& wake_ps) {
  // A phase waiting at its group's barrier may have been released by another member.
  if (group_) finalize(now_ps);
  for (;;) {
    if (open_) {
      Slot& s = slot(next_ - 1);
      if (now_ps < s.fetch_start_ps) {
        wake_ps = s.fetch_start_ps;
        return State::kWait;
      }
      if (!s.began) {
        s.began = true;
        s.fetch_start_ps = now_ps;  // the fetch really starts when the GPU first asks
      }
      if (phase_access(a)) {
        a.phase = static_cast<std::uint32_t>(next_ - 1);
        s.issued += a.bytes;
        return State::kReady;
      }
      s.all_issued = true;
      open_ = false;
      if (s.completed == s.issued) {
        s.fetched = true;
        s.fetch_end_ps = std::max(s.fetch_start_ps, s.last_completion_ps);
        finalize(now_ps);
      }
      continue;
    }
    if (no_more_) {
      if (finalized_ < next_) {
        wake_ps = kNever;
        return State::kWait;
      }
      if (now_ps < last_compute_end_) {
        wake_ps = last_compute_end_;
        return State::kWait;
      }
      return State::kDone;
    }
    // Phase next_ may start once compute_{next_-1-depth} has ended, so that one must be known.
    const std::uint64_t i = next_;
    if (i > finalized_ + depth_) {
      wake_ps = kNever;
      return State::kWait;
    }
    PhaseStart start;
    if (!open_phase(i, start)) {
      no_more_ = true;
      continue;
    }
    const std::uint64_t gate =
        i >= depth_ + 1 ? compute_end_[(i - 1 - depth_) % compute_end_.size()] : 0;
    Slot& s = slot(i);
    s = Slot{};
    s.index = i;
    s.compute_ps = start.compute_ps;
    s.fetch_start_ps = std::max(gate, start.not_before_ps);
    ++next_;
    open_ = true;
  }
}

void PhasedSource::completed(std::uint32_t phase, std::uint32_t bytes, std::uint64_t now_ps,
                             std::uint64_t seen_ps) {
  // The tag is the phase index modulo 2^32; the phase is one of the few in flight.
  std::uint64_t index = (next_ & ~std::uint64_t{0xffffffff}) | phase;
  if (index >= next_) index -= std::uint64_t{1} << 32;
  Slot& s = slot(index);
  s.completed += bytes;
  s.last_completion_ps = std::max(s.last_completion_ps, now_ps);
  if (s.all_issued && !s.fetched && s.completed == s.issued) {
    s.fetched = true;
    s.fetch_end_ps = std::max(s.fetch_start_ps, s.last_completion_ps);
    finalize(seen_ps);
  }
}

std::uint64_t PhasedSource::phases_ended(std::uint64_t now_ps) const {
  // Phases are finalized when their fetch is done, their compute end then known and possibly
  // still ahead: at most depth + 1 of them (phase i fetches only once compute_{i-1-depth} has
  // ended), whose ends the ring still holds. Compute ends are in phase order.
  std::uint64_t n = finalized_;
  for (std::size_t k = 0; n > 0 && k < compute_end_.size(); ++k, --n) {
    if (compute_end_[(n - 1) % compute_end_.size()] <= now_ps) break;
  }
  return n;
}

void PhasedSource::finalize(std::uint64_t now_ps) {
  while (finalized_ < next_) {
    Slot& s = slot(finalized_);
    if (!s.fetched) return;
    const std::uint64_t prev = finalized_ > 0 ? last_compute_end_ : 0;
    std::uint64_t end = std::max(s.fetch_end_ps, prev) + s.compute_ps;
    if (group_) {
      if (!s.arrived) {
        s.arrived = true;
        group_->arrive(finalized_, end, now_ps);
      }
      if (!group_->released(finalized_, now_ps, end)) return;
    }
    compute_end_[finalized_ % compute_end_.size()] = end;
    last_compute_end_ = end;
    phase_finished(PhaseTimes{finalized_, s.fetch_start_ps, s.fetch_end_ps, end, s.issued});
    ++finalized_;
  }
}

void PhasedSource::stopped(std::uint64_t now_ps) {
  if (!group_) return;
  const bool waiting = finalized_ < next_ && slot(finalized_).arrived;
  group_->leave(waiting ? finalized_ : GroupBarrier::kNone, now_ps);
  group_.reset();  // on its own from here: its remaining completions wait for nobody
}

void GroupBarrier::arrive(std::uint64_t phase, std::uint64_t end_ps, std::uint64_t now_ps) {
  if (phase != gathering_) {
    throw std::logic_error("GroupBarrier: a member arrived at a phase other than the one gathered");
  }
  latest_end_ps_ = std::max(latest_end_ps_, end_ps);
  if (++arrived_ < members_) return;
  release(now_ps);
}

void GroupBarrier::leave(std::uint64_t arrived_at, std::uint64_t now_ps) {
  if (members_ == 0) return;
  --members_;
  if (arrived_at == gathering_ && arrived_ > 0) --arrived_;
  if (arrived_ > 0 && arrived_ >= members_) release(now_ps);
}

void GroupBarrier::release(std::uint64_t now_ps) {
  released_end_ps_ = latest_end_ps_;
  released_at_ps_ = now_ps;
  ++gathering_;
  arrived_ = 0;
  latest_end_ps_ = 0;
  for (const PhasedSource* m : joined_) m->wake_after(now_ps);
}

}  // namespace famsim
