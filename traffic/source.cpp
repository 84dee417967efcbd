#include "traffic/source.h"

#include <algorithm>
#include <stdexcept>

namespace famsim {

PhasedSource::PhasedSource(unsigned depth)
    : depth_(depth), slots_(depth + 2), compute_end_(depth + 2, 0) {}

unsigned CollectivePlan::rounds() const {
  switch (algorithm) {
    case Algorithm::kAllToAll:
      return 2;
    case Algorithm::kRing:
      return 2 * (members - 1);
    case Algorithm::kOneShot:
      return 1;
    case Algorithm::kTwoShot:
      return 2;
  }
  return 0;
}

std::uint64_t CollectivePlan::round_bytes(std::uint64_t message_bytes) const {
  if (algorithm == Algorithm::kOneShot || algorithm == Algorithm::kAllToAll) return message_bytes;
  return (message_bytes + members - 1) / members;
}

unsigned CollectivePlan::destinations() const {
  return algorithm == Algorithm::kRing ? 1 : members - 1;
}

std::uint64_t CollectivePlan::bytes_written(std::uint64_t message_bytes) const {
  return std::uint64_t{rounds()} * destinations() * round_bytes(message_bytes);
}

AccessSource::State PhasedSource::next(std::uint64_t now_ps, Access& a, std::uint64_t& wake_ps) {
  // A phase waiting at its group's barrier may have been released by another member.
  if (group_) finalize(now_ps);
  return next_fetch(now_ps, a, wake_ps);
}

AccessSource::State PhasedSource::next_round(std::uint64_t now_ps, Access& a,
                                             std::uint64_t& wake_ps) {
  if (group_) finalize(now_ps);
  if (round_issuing()) {
    if (now_ps >= round_.start_ps) {
      round_access(a);
      return State::kReady;
    }
    wake_ps = round_.start_ps;
    return State::kWait;
  }
  // Every phase ended, its rounds with it.
  if (no_more_ && finalized_ == next_) return State::kDone;
  wake_ps = kNever;
  return State::kWait;
}

void PhasedSource::round_access(Access& a) {
  // The receive buffer is a ring: an access ends at its end at the latest.
  const std::uint64_t pos = (ring_pos_ + round_.offset) % collective_.buffer_bytes;
  const std::uint64_t bytes = round_dest_bytes(round_.dest);
  const std::uint64_t n = std::min({bytes - round_.offset, std::uint64_t{collective_.access_bytes},
                                    collective_.buffer_bytes - pos});
  a = Access{};
  a.va = collective_.peer_va[round_.dest] + pos;
  a.bytes = static_cast<std::uint32_t>(n);
  a.write = true;
  a.phase = kCollectiveTag;
  round_.offset += n;
  round_.issued += n;
  if (round_.offset == bytes) {
    round_.offset = 0;
    skip_empty_destinations(round_.dest + 1);
  }
}

void PhasedSource::skip_empty_destinations(unsigned d) {
  const unsigned n = static_cast<unsigned>(collective_.peer_va.size());
  while (d < n && round_dest_bytes(d) == 0) ++d;
  round_.dest = d;
}

void PhasedSource::begin_round(std::uint64_t start_ps) {
  round_.start_ps = start_ps;
  round_.offset = 0;
  round_.issued = 0;
  round_.completed = 0;
  round_.last_completion_ps = 0;
  if (round_.left > 0) skip_empty_destinations(0);
}

AccessSource::State PhasedSource::next_fetch(std::uint64_t now_ps, Access& a,
                                             std::uint64_t& wake_ps) {
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
        a.phase = static_cast<std::uint32_t>((next_ - 1) & ~kCollectiveTag);
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
    std::vector<std::uint64_t> kept = std::move(s.dest_bytes);  // its capacity: no allocation
    s = Slot{};
    s.dest_bytes = std::move(kept);
    s.index = i;
    s.compute_ps = start.compute_ps;
    s.collectives = start.collectives;
    s.collective_bytes = start.collective_bytes;
    s.dest_bytes.clear();
    if (start.dest_bytes) s.dest_bytes.assign(start.dest_bytes->begin(), start.dest_bytes->end());
    s.fetch_start_ps = std::max(gate, start.not_before_ps);
    ++next_;
    open_ = true;
  }
}

void PhasedSource::completed(std::uint32_t phase, std::uint32_t bytes, std::uint64_t now_ps,
                             std::uint64_t seen_ps) {
  if (phase == kCollectiveTag) {
    round_.completed += bytes;
    collective_written_ += bytes;
    round_.last_completion_ps = std::max(round_.last_completion_ps, now_ps);
    if (!round_issuing() && round_.completed == round_.issued) finalize(seen_ps);
    return;
  }
  // The tag is the phase index modulo 2^31; the phase is one of the few in flight.
  constexpr std::uint64_t kWrap = std::uint64_t{kCollectiveTag};
  std::uint64_t index = (next_ & ~(kWrap - 1)) | phase;
  if (index >= next_) index -= kWrap;
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
  if (left_collectives_) return;
  while (finalized_ < next_) {
    Slot& s = slot(finalized_);
    if (!s.fetched) return;
    if (!s.computed) {
      const std::uint64_t prev = finalized_ > 0 ? last_compute_end_ : 0;
      std::uint64_t end = std::max(s.fetch_end_ps, prev) + s.compute_ps;
      if (!synchronise(end, now_ps)) return;
      s.computed = true;
      s.compute_end_ps = end;
      if (group_ && !collective_.peer_va.empty() && s.collectives > 0) {
        round_.left = s.collectives * collective_.rounds();
        round_.index = 0;
        round_.bytes = collective_.round_bytes(s.collective_bytes);
        round_.dest_bytes = s.dest_bytes.empty() ? nullptr : &s.dest_bytes;
        if (round_.dest_bytes &&
            round_.dest_bytes->size() != std::size_t{round_.left} * collective_.peer_va.size()) {
          throw std::logic_error("PhasedSource: a phase's dest_bytes do not match its rounds");
        }
        begin_round(end);
      }
    }
    std::uint64_t end = s.compute_end_ps;
    while (round_.left > 0) {
      if (round_issuing() || round_.completed < round_.issued) return;
      end = std::max(round_.start_ps, round_.last_completion_ps);
      if (!synchronise(end, now_ps)) return;
      --round_.left;
      ring_pos_ = (ring_pos_ + round_most_bytes()) % collective_.buffer_bytes;
      ++round_.index;
      begin_round(end);
    }
    compute_end_[finalized_ % compute_end_.size()] = end;
    last_compute_end_ = end;
    phase_finished(
        PhaseTimes{finalized_, s.fetch_start_ps, s.fetch_end_ps, s.compute_end_ps, s.issued, end});
    ++finalized_;
  }
}

bool PhasedSource::synchronise(std::uint64_t& end_ps, std::uint64_t now_ps) {
  if (!group_) return true;
  if (!at_barrier_) {
    at_barrier_ = true;
    group_->arrive(event_, end_ps, now_ps);
  }
  if (!group_->released(event_, now_ps, end_ps)) return false;
  at_barrier_ = false;
  ++event_;
  return true;
}

void PhasedSource::stopped(std::uint64_t now_ps) {
  if (!group_) return;
  group_->leave(at_barrier_ ? event_ : GroupBarrier::kNone, now_ps);
  group_.reset();  // on its own from here: its remaining completions wait for nobody
  // Without the group its phases' collectives cannot run: no phase of it ends any more (one
  // ended at its compute would count a step without its all-reduces).
  if (!collective_.peer_va.empty()) left_collectives_ = true;
}

void GroupBarrier::arrive(std::uint64_t event, std::uint64_t end_ps, std::uint64_t now_ps) {
  if (event != gathering_) {
    throw std::logic_error(
        "GroupBarrier: a member arrived at an event other than the one gathered");
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
