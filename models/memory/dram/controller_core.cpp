#include "models/memory/dram/controller_core.h"

#include <algorithm>
#include <ostream>
#include <stdexcept>

namespace famsim::dram {

ControllerCore::ControllerCore(const Spec& spec, const CoreParams& params)
    : spec_(spec),
      params_(params),
      state_(spec),
      scheduler_(make_scheduler(params.scheduler, params.starvation_cap)),
      page_(make_page_policy(params.page_policy, params.page_timeout_cycles)),
      read_queue_depth_(params.read_queue),
      write_queue_depth_(params.write_queue),
      write_high_watermark_(params.write_high_watermark),
      write_low_watermark_(params.write_low_watermark),
      starvation_cap_(params.starvation_cap),
      burst_cycles_(spec.timing.burst),
      banks_per_group_(spec.org.banks_per_group),
      in_order_(scheduler_->in_order()) {
  stats_.read_queue.set_capacity(params.read_queue);
  stats_.write_queue.set_capacity(params.write_queue);
  if (params.read_queue == 0 || params.write_queue == 0) {
    throw std::invalid_argument("read and write queues need at least one entry");
  }
  if (params.write_low_watermark >= params.write_high_watermark ||
      params.write_high_watermark > params.write_queue) {
    throw std::invalid_argument("write watermarks need low < high <= write queue depth");
  }
  if (params.refresh == RefreshMode::kPerBank && spec.timing.REFIpb == 0) {
    throw std::invalid_argument(std::string(to_string(spec.standard)) + " preset '" + spec.name +
                                "' has no per-bank refresh (timing REFIpb is 0)");
  }
  const unsigned entries = params.read_queue + params.write_queue;
  entries_.resize(entries);
  requests_.resize(entries);
  for (unsigned i = entries; i-- > 0;) {
    free_entries_.push_back(i);
    free_requests_.push_back(i);
  }
  const unsigned banks = state_.banks_total();
  // BankBook::busy_at holds a bank's place in a list of banks in 16 bits.
  if (banks > 65536) throw std::invalid_argument("more than 65536 banks in one channel");
  books_.resize(banks);
  for (auto& c : cache_) c.resize(banks);
  for (auto& v : busy_) v.reserve(banks);
  for (auto& b : busy_bank_) b.reserve(banks);
  blocked_.assign((banks + 63) / 64, 0);
  for (auto& n : nonempty_) n.assign((banks + 63) / 64, 0);
  stats_.busy_banks.set_capacity(banks);
  rank_entries_.assign(spec.org.ranks, 0);
  read_done_.set_capacity(entries);
  write_done_.set_capacity(entries);
  refresh_.resize(spec.org.ranks);
  refresh_interval_ =
      params.refresh == RefreshMode::kPerBank ? spec.timing.REFIpb : spec.timing.REFI;
  for (auto& r : refresh_) r.next_due = refresh_interval_;
  next_due_ = params.refresh == RefreshMode::kOff ? kNever : refresh_interval_;
  timeout_policy_ = params.page_policy == "timeout";
  auto_precharge_ = page_->auto_precharge(false);
  auto_precharge_fixed_ = page_->auto_precharge(true) == auto_precharge_;
  postpone_limit_ = params.refresh_postpone ? spec.timing.refresh_postpone_max : 0;
  stats_.bank_open_cycles.assign(banks, 0);
  stats_.bank_activates.assign(banks, 0);
  span_group_ck_.assign(spec.org.ranks * spec.org.bank_groups, 0);
  span_group_bursts_.assign(spec.org.ranks * spec.org.bank_groups, 0);
  group_span_cycles_ = kGroupSpanCcd * std::max(1u, spec.timing.CCD_L);
  group_span_end_ = group_span_cycles_;
  stats_.rank_active_cycles.assign(spec.org.ranks, 0);
  rank_active_since_.assign(spec.org.ranks, 0);
  if (params.idle_fast_forward && params.refresh != RefreshMode::kOff) {
    idle_period_ = params.refresh == RefreshMode::kPerBank
                       ? refresh_interval_ * spec.bank_refresh_units()
                       : refresh_interval_;
    idle_skip_span_ = 3 * idle_period_;
    idle_horizon_ = state_.rule_horizon();
  }
}

void ControllerCore::count_room_in(unsigned bursts) {
  if (bursts == 0 || bursts > params_.read_queue || bursts > params_.write_queue) {
    throw std::invalid_argument("queue room unit must be 1 .. the queue depth");
  }
  if (read_count_ + write_count_ > 0) throw std::logic_error("count_room_in on a busy core");
  room_unit_ = bursts;
  stats_.read_queue.set_capacity(params_.read_queue / bursts * bursts);
  stats_.write_queue.set_capacity(params_.write_queue / bursts * bursts);
}

void ControllerCore::set_command_log(std::ostream* os, unsigned channel, unsigned pseudo_channel) {
  log_ = os;
  if (os) keep_request_ids();
  log_channel_ = channel;
  log_pseudo_channel_ = pseudo_channel;
}

void ControllerCore::set_untagged_done(UntaggedDone f, void* context) {
  untagged_done_ = f;
  untagged_context_ = context;
  if (f) keep_request_ids();
}

void ControllerCore::enqueue(void* tag, bool write, const Coord* bursts, unsigned n,
                             std::uint64_t now, std::uint64_t id) {
  if (!has_room(write, n) || n == 0) throw std::logic_error("DRAM queue overflow");
  const std::uint32_t r = free_requests_.back();
  free_requests_.pop_back();
  ++requests_in_use_;
  if (tag) ++tagged_in_flight_;
  requests_[r] = Request{tag, now, 0, n, write, kNever};
  if (!request_ids_.empty()) request_ids_[r] = id;
  const int q = write ? 1 : 0;
  // Grows to the largest request's bursts once (a few entries), not per request: sized to the
  // queues up front it added 0.8 MiB to famsim bench's peak RSS over its 1296 channels.
  if (arrival_banks_.size() < n) arrival_banks_.resize(n);
  for (unsigned i = 0; i < n; ++i) {
    const std::uint32_t e = free_entries_.back();
    free_entries_.pop_back();
    entries_[e] = Entry{bursts[i], r, kNil, seq_++, kNil, kNil, 0, 0};
    AgeList& age = age_[q];
    entries_[e].older = age.tail;
    (age.tail == kNil ? age.head : entries_[age.tail].younger) = e;
    age.tail = e;
    const unsigned flat = state_.flat_bank(bursts[i]);
    arrival_banks_[i] = flat;
    BankQueue& bq = queue(q, flat);
    if (bq.tail == kNil) {
      bq.head = e;
    } else {
      entries_[bq.tail].next = e;
    }
    bq.tail = e;
    if (bq.count++ == 0) set_nonempty(q, flat, true, now);
    mark_dirty(flat);
    ++rank_entries_[bursts[i].rank];
  }
  if (write) {
    write_count_ += n;
    set_room(stats_.write_queue, write_count_, write_queue_depth_, now);
  } else {
    read_count_ += n;
    set_room(stats_.read_queue, read_count_, read_queue_depth_, now);
  }
  revise_plan(q, n, now);
}

void ControllerCore::revise_plan(int q, unsigned n, std::uint64_t now) {
  if (!plan_.valid) return;
  // The plan was the first command from its cycle on among every bank's standing command in its
  // direction, and nothing could be ready before it. The arrival changes nothing else if it leaves
  // the direction alone (the watermarks) and the planned bank's own queues (its command, or its
  // auto-precharge, may depend on them). A forced refresh invalidates plans already, and new work
  // only ever unforces one. Under an in-order scheduler new bursts are never the oldest; else a
  // bank the bursts joined may now go first, by cycle then priority as select() ranks them.
  if (plan_.cycle < now || direction() != plan_.queue || guarded_bank(plan_.queue) != kNil) {
    plan_.valid = false;
    return;
  }
  for (unsigned i = 0; i < n; ++i) {
    if (arrival_banks_[i] == plan_.bank) {
      plan_.valid = false;
      return;
    }
  }
  if (q != plan_.queue || scheduler_->in_order()) return;
  refresh_choices(q);
  // Nothing issues before the last command lets go of the command bus.
  const std::uint64_t from = std::max(now, state_.command_bus_free());
  for (unsigned i = 0; i < n; ++i) {
    const unsigned b = arrival_banks_[i];
    const BankView& v = view(q, b);
    const std::uint64_t c = std::max(v.earliest(), from);
    if (c < plan_.cycle ||
        (c == plan_.cycle && (v.prio < plan_.prio || (v.prio == plan_.prio && b < plan_.bank)))) {
      plan_.bank = b;
      plan_.cycle = c;
      plan_.prio = v.prio;
    }
  }
}

void ControllerCore::advance_refresh(std::uint64_t now) {
  // next_due_ first: the parameters lie on a cache line of their own.
  if (now < next_due_ || params_.refresh == RefreshMode::kOff) return;
  next_due_ = kNever;
  for (RankRefresh& r : refresh_) {
    while (r.next_due <= now) {
      ++r.pending;
      ++refreshes_owed_;
      r.next_due += refresh_interval_;
    }
    next_due_ = std::min(next_due_, r.next_due);
  }
}

// Inline: consider_refreshes() asks it for every rank at every decision while refreshes are owed.
inline bool ControllerCore::refresh_forced(unsigned rank) const {
  const RankRefresh& r = refresh_[rank];
  if (r.pending == 0) return false;
  // JEDEC counts the refreshes still owed when a REF issues: at most postpone_max may be owed
  // besides it, so the controller forces a refresh once that many are owed, and it completes
  // before the next one falls due (PREA + tRP is far below tREFI).
  if (r.pending >= std::max(1u, postpone_limit_)) return true;
  if (params_.refresh == RefreshMode::kPerBank) {
    bool idle = true;
    for_each_unit_bank(rank, r.next_bank, [&](unsigned flat) {
      idle = idle && queue(0, flat).count + queue(1, flat).count == 0;
    });
    return idle;
  }
  return rank_entries_[rank] == 0;
}

Coord ControllerCore::bank_coord(unsigned flat) const {
  const Organization& o = spec_.org;
  Coord c;
  c.bank = static_cast<std::uint16_t>(flat % o.banks_per_group);
  c.bank_group = static_cast<std::uint16_t>((flat / o.banks_per_group) % o.bank_groups);
  c.rank = static_cast<std::uint16_t>(flat / o.banks());
  return c;
}

void ControllerCore::consider(Choice* best, const Choice& c, std::uint64_t now,
                              std::uint64_t& next) const {
  if (!best || c.cand.earliest > now) {
    next = std::min(next, c.cand.earliest);
    return;
  }
  if (!best->valid || c.prio < best->prio) *best = c;
}

bool ControllerCore::another_hit(unsigned flat, std::uint32_t row, std::uint32_t except) const {
  for (int q = 0; q < 2; ++q) {
    for (std::uint32_t e = queue(q, flat).head; e != kNil; e = entries_[e].next) {
      if (e != except && entries_[e].c.row == row) return true;
    }
  }
  return false;
}

void ControllerCore::mark_dirty(unsigned flat) {
  for (int q = 0; q < 2; ++q) {
    std::uint8_t& dirty = books_[flat].dirty[q];
    if (dirty) continue;
    dirty = 1;
    dirty_list_[q].push_back(flat);
  }
}

void ControllerCore::refresh_choices(int q) {
  // Which burst a bank works for and with what command depends only on the bank's queues and
  // state: worked out again only for banks whose queues or state changed since the last look in
  // this direction (a direction not being served keeps its list until it is).
  for (const unsigned b : dirty_list_[q]) {
    BankBook& book = books_[b];
    book.dirty[q] = 0;
    if (book.queue[q].count) work_out_choice(b, q);
  }
  dirty_list_[q].clear();
}

inline void ControllerCore::work_out_choice(unsigned flat, int q) {
  Choice& ch = cache_[q][flat];
  const BankQueue& bq = queue(q, flat);
  const Entry& head = entries_[bq.head];
  ch.queue = static_cast<std::uint8_t>(q);
  ch.valid = true;
  ch.prev = kNil;
  if (state_.is_open(flat)) {
    const std::uint32_t open = state_.open_row(flat);
    std::uint32_t hit = kNil, prev = kNil;
    if (head.c.row == open) {
      hit = bq.head;
    } else if (scheduler_->may_overtake(bq.overtaken)) {
      for (std::uint32_t p = bq.head, e = head.next; e != kNil; p = e, e = entries_[e].next) {
        if (entries_[e].c.row == open) {
          hit = e;
          prev = p;
          break;
        }
      }
    }
    // The row may have been opened for the other direction's oldest burst of this bank, whose
    // ACT issued before the direction turned (write drain starting or ending, a read arriving).
    // Closing it now would waste that ACT and reopen the row for the same burst later: serve
    // that burst first, as Ramulator 2 (its active buffer) and DRAMSys (a bank machine keeps the
    // request it activated for) do. Only that burst: the rest of its direction waits its turn.
    // And only while the data bus still faces that burst's direction (no column command of
    // direction q since the turn), when it goes at tCCD like the ones before it. Once the bus
    // has turned, it would need a turnaround that the stream of column commands in direction q
    // keeps pushing out: the bank would hold its row, and its own bursts, until the direction
    // turned back (minimal.yaml, one channel, read_fraction 0.9: reads held up to 3.6 us, p99
    // 1.03 -> 1.73 us). The ACT is then wasted, as a bank with no such claim wastes none.
    int hq = q;
    if (hit == kNil && bus_direction_ != q) {
      const BankQueue& other = queue(1 - q, flat);
      if (other.count && entries_[other.head].c.row == open &&
          (entries_[other.head].flags & kMissed)) {
        hit = other.head;
        hq = 1 - q;
        ch.queue = static_cast<std::uint8_t>(hq);
      }
    }
    if (hit != kNil) {
      const Entry& h = entries_[hit];
      const bool ap = auto_precharge_fixed_ ? auto_precharge_
                                            : page_->auto_precharge(another_hit(flat, open, hit));
      ch.cmd = hq == 1 ? (ap ? Command::kWRA : Command::kWR) : (ap ? Command::kRDA : Command::kRD);
      ch.c = h.c;
      ch.entry = hit;
      ch.prev = prev;
      ch.cand = Candidate{0, h.seq, true};
    } else {
      ch.cmd = Command::kPRE;
      ch.c = head.c;
      ch.entry = bq.head;
      ch.cand = Candidate{0, head.seq, false};
    }
  } else {
    ch.cmd = Command::kACT;
    ch.c = head.c;
    ch.entry = bq.head;
    ch.cand = Candidate{0, head.seq, false};
  }
  ch.prio = scheduler_->priority(ch.cand);
  BankView& v = view(q, flat);
  const ChannelState::Slots slots = state_.slots(ch.cmd, ch.c);
  v.bank_ready = *slots.at[0];
  v.group_ready = slots.at[1];
  v.rank_ready = slots.at[2];
  v.prio = ch.prio;
}

int ControllerCore::direction() const {
  return write_count_ > 0 && (read_count_ == 0 || drain_wanted()) ? 1 : 0;
}

std::uint64_t ControllerCore::run(std::uint64_t now) {
  last_run_ = now;
  // The last command still holds the command bus (a DDR5 ACT, RD or WR takes two clocks of it,
  // JESD79-5 section 4.1): nothing can issue before it lets go. An owner woken by an arrival may
  // call in between; the decision waits, and nothing it depends on changes meanwhile but the
  // queues, which it reads then.
  if (now < state_.command_bus_free()) return state_.command_bus_free();
  advance_refresh(now);
  // Direction: drain writes from the high watermark down to the low one; otherwise reads, or
  // writes when no read waits.
  const int q = direction();
  update_draining();
  std::uint64_t next = kNever;
  if (plan_.valid && plan_.cycle == now && plan_.queue == q) {
    // The look after the last command found this one first in line, and nothing has arrived
    // since: the decision is already made. It issues straight from the bank's standing choice
    // (issue() changes the queues and the timing state, never cache_), without a copy.
    plan_.valid = false;
    issue(cache_[q][plan_.bank], now);
  } else {
    Choice best;
    select(q, now, &best, next);
    plan_.valid = false;
    if (!best.valid) return std::min(next, next_due_);
    issue(best, now);
  }
  // The write drain ends as soon as a write takes the queue down to the low watermark, not at
  // whatever next call to run() comes (an arrival's or the next command's): the drain state then
  // depends on the queues alone, so the next decision is the same whether or not the owner runs
  // the core at arrivals in between.
  update_draining();
  // One command at a time on the command bus, which this one holds for one clock, or two (DDR5
  // ACT, RD, WR). The issue raised "not before" cycles across its bank, group, rank
  // and the data bus, and may have turned the direction or forced a refresh: look at every
  // candidate again for the cycle the next command can issue, so the owner wakes only then
  // rather than at every clock while tRRD, tFAW or tCCD runs. The look also finds which bank's
  // command that will be; with no refresh forced now or falling due by then (a refresh becomes
  // forced only then, or when work arrives) and no timeout policy (whose candidates it does not
  // rank), that is the next decision unless work arrives first.
  next = kNever;
  const int q_next = direction();
  const std::uint64_t bus_free = state_.command_bus_free();
  look(q_next, bus_free, next);
  next = std::min(std::max(next, bus_free), next_due_);
  plan_.valid = plan_.bank != kNil && plan_.cycle == next && next < next_due_ &&
                !plan_.refresh_forced && !timeout_policy_;
  plan_.queue = q_next;
  return next;
}

// Inline: select() and look() call it at every decision, and without refreshes owed it is one test.
inline bool ControllerCore::consider_refreshes(Choice* best, std::uint64_t now,
                                               std::uint64_t& next) {
  // A forced refresh outranks every request, and blocks new work in what it refreshes (the whole
  // rank, or the bank in turn).
  plan_.refresh_forced = false;
  if (!refreshes_owed_) return false;
  // Under load a due refresh mostly waits for its rank (bank) to fall idle: the ranks are tested
  // here, and the work of a forced one is left to force_refreshes(), so that such decisions cost
  // little more than the test.
  for (unsigned r = 0; r < spec_.org.ranks; ++r) {
    if (refresh_forced(r)) {
      force_refreshes(r, best, now, next);
      return true;
    }
  }
  return false;
}

void ControllerCore::force_refreshes(unsigned first, Choice* best, std::uint64_t now,
                                     std::uint64_t& next) {
  const unsigned ranks = spec_.org.ranks;
  const unsigned per_rank = state_.banks_per_rank();
  std::fill(blocked_.begin(), blocked_.end(), 0);
  auto block = [&](unsigned flat) { blocked_[flat >> 6] |= std::uint64_t{1} << (flat & 63); };
  for (unsigned r = first; r < ranks; ++r) {
    if (r != first && !refresh_forced(r)) continue;
    Choice ch;
    ch.valid = true;
    ch.cand.arrival = 0;  // before any burst
    if (params_.refresh == RefreshMode::kPerBank) {
      // The bank in turn (DDR5: that bank index in every group): close what is open, then
      // refresh.
      unsigned open = kNil;
      for_each_unit_bank(r, refresh_[r].next_bank, [&](unsigned flat) {
        block(flat);
        if (open == kNil && state_.is_open(flat)) open = flat;
      });
      if (open != kNil) {
        ch.c = bank_coord(open);
        ch.cmd = Command::kPRE;
      } else {
        ch.c = bank_coord(r * per_rank + refresh_[r].next_bank);
        ch.cmd = spec_.timing.same_bank_refresh ? Command::kREFsb : Command::kREFpb;
      }
    } else {
      ch.c = bank_coord(r * per_rank);
      ch.cmd = state_.open_banks(r) ? Command::kPREA : Command::kREFab;
      for (unsigned b = r * per_rank; b < (r + 1) * per_rank; ++b) block(b);
    }
    plan_.refresh_forced = true;
    ch.cand.earliest = state_.earliest(ch.cmd, ch.c);
    consider(best, ch, now, next);  // priority 0: the first forced refresh ready goes first
  }
}

void ControllerCore::consider_idle_rows(Choice* best, std::uint64_t now, std::uint64_t& next,
                                        bool any_blocked) {
  // Timeout page policy: close rows nobody queued for once they have idled long enough.
  const unsigned banks = state_.banks_total();
  for (unsigned b = 0; b < banks; ++b) {
    if (!state_.is_open(b) || queue(0, b).count || queue(1, b).count ||
        (any_blocked && (blocked_[b >> 6] >> (b & 63) & 1))) {
      continue;
    }
    Choice ch;
    ch.valid = true;
    ch.cmd = Command::kPRE;
    ch.c = bank_coord(b);
    ch.cand.earliest = std::max(page_->idle_close_cycle(books_[b].last_column),
                                state_.earliest(Command::kPRE, ch.c));
    ch.cand.arrival = kNever;
    ch.prio = kNever;
    consider(best, ch, now, next);
  }
}

unsigned ControllerCore::oldest_bank(int q, const std::uint64_t* except) const {
  unsigned oldest = kNil;
  std::uint64_t oldest_seq = kNever;
  for_each_nonempty(q, [&](unsigned b) {
    const BankQueue& bq = queue(q, b);
    if (entries_[bq.head].seq < oldest_seq) {
      oldest_seq = entries_[bq.head].seq;
      oldest = b;
    }
  });
  if (oldest != kNil && except && (except[oldest >> 6] >> (oldest & 63) & 1)) return kNil;
  return oldest;
}

void ControllerCore::select(int q, std::uint64_t now, Choice* best, std::uint64_t& next) {
  refresh_choices(q);
  const bool any_blocked = consider_refreshes(best, now, next);
  if (best->valid) return;
  const std::uint64_t* except = any_blocked ? blocked_.data() : nullptr;

  // The banks' standing commands: among those ready at `now`, the one the scheduler ranks first
  // (the lowest bank on equal priority) issues; the others say when they could. Each bank is read
  // through its compact view (three "not before" cycles and a priority) and nothing else.
  unsigned pick = kNil;
  std::uint64_t pick_prio = kNever;
  auto decide = [&](unsigned b) {
    const BankView& v = view(q, b);
    const std::uint64_t e = v.earliest();
    if (e <= now) {
      if (pick == kNil || v.prio < pick_prio) {
        pick = b;
        pick_prio = v.prio;
      }
    } else if (e < next) {
      next = e;
    }
  };
  const unsigned guarded = guarded_bank(q);
  if (in_order_) {
    // Only the oldest burst of this direction gets commands.
    const unsigned oldest = oldest_bank(q, except);
    if (oldest != kNil) decide(oldest);
  } else if (guarded != kNil) {
    // The guard holds the other banks' column commands (row hits) back.
    for_each_nonempty(
        q,
        [&](unsigned b) {
          if (b == guarded || view(q, b).prio >> 63) decide(b);
        },
        except);
  } else {
    for_each_nonempty(q, decide, except);
  }
  if (pick != kNil) {
    *best = cache_[q][pick];
    best->cand.earliest = now;
    return;
  }
  if (timeout_policy_) consider_idle_rows(best, now, next, any_blocked);
}

void ControllerCore::look(int q, std::uint64_t now, std::uint64_t& next) {
  refresh_choices(q);
  const bool any_blocked = consider_refreshes(nullptr, now, next);
  const std::uint64_t* except = any_blocked ? blocked_.data() : nullptr;

  // The bank that would issue first from `now` on, by cycle then priority, as one 128-bit key
  // (cycle above priority), so that the comparison needs no unpredictable branch. No two keys
  // are equal (busy_), so the order the banks are met in cannot change the pick. This runs
  // after every command over every bank with work, so it reads each bank's compact view and
  // nothing else, and keeps the winning view's address rather than its bank, worked out once at
  // the end.
  const BankView* views = busy_[q].data();
  using Key = unsigned __int128;
  Key pick_key = ~Key{0};
  const BankView* pick = nullptr;
  auto look_at = [&](const BankView& v) {
    const std::uint64_t e = v.earliest();
    const Key key = (Key{e > now ? e : now} << 64) | v.prio;
    if (key < pick_key) {
      pick_key = key;
      pick = &v;
    }
  };
  const unsigned guarded = guarded_bank(q);
  if (in_order_) {
    // Only the oldest burst of this direction gets commands.
    const unsigned oldest = oldest_bank(q, except);
    if (oldest != kNil) look_at(view(q, oldest));
  } else if (guarded != kNil) {
    // The guard holds the other banks' column commands (row hits) back.
    for_each_nonempty(
        q,
        [&](unsigned b) {
          const BankView& v = view(q, b);
          if (b == guarded || v.prio >> 63) look_at(v);
        },
        except);
  } else if (!except) {
    for (const BankView& v : busy_[q]) look_at(v);
  } else {
    // A forced refresh holds some banks: the others with work, from the bit mask.
    for_each_nonempty(
        q, [&](unsigned b) { look_at(view(q, b)); }, except);
  }
  plan_.bank = pick ? busy_bank_[q][static_cast<std::size_t>(pick - views)] : kNil;
  plan_.cycle = static_cast<std::uint64_t>(pick_key >> 64);
  plan_.prio = static_cast<std::uint64_t>(pick_key);
  // The earliest cycle any bank's command can issue, clamped to `now` (kNever with no bank): the
  // caller clamps `next` to `now` from below anyway.
  next = std::min(next, plan_.cycle);
  if (timeout_policy_) consider_idle_rows(nullptr, now, next, any_blocked);
}

std::uint64_t ControllerCore::run_until_idle_aware(std::uint64_t next, std::uint64_t until) {
  while (next < until) {
    if (until - next >= idle_skip_span_ && idle_closed()) {
      next = skip_idle_periods(next, until);
    } else {
      next = run(next);
    }
  }
  return next;
}

bool ControllerCore::idle_closed() const {
  if (read_count_ + write_count_ > 0) return false;
  for (unsigned r = 0; r < spec_.org.ranks; ++r) {
    if (state_.open_banks(r)) return false;
  }
  return true;
}

std::uint64_t ControllerCore::skip_idle_periods(std::uint64_t next, std::uint64_t until) {
  // One period decided as usual, from the state at its start.
  const std::uint64_t start = next, period = idle_period_, end = start + period;
  // Copies made here, not kept: a thousand idle HBM channels each keeping one would add to the
  // peak memory, and a try is rare (one per refresh period of a long idle stretch at most).
  const ChannelState start_state = state_;
  const std::vector<RankRefresh> start_refresh = refresh_;
  const unsigned owed = refreshes_owed_;
  const std::uint64_t due = next_due_;
  const int bus_direction = bus_direction_;
  const auto commands = stats_.commands;
  const std::uint64_t postponed = stats_.refreshes_postponed;
  idle_period_log_.clear();
  idle_recording_ = log_ != nullptr;
  while (next < end) next = run(next);
  idle_recording_ = false;

  // It repeats when it ends at the same point of the cycle (the next decision at the period's
  // end, as it began at its start) with the channel's, the refresh schedule's and the scheduler's
  // state the same relative to the time, and did nothing but refresh (nothing arrives during a
  // catch-up). From the same state the same decisions follow, so every later period repeats it.
  if (next != end || !idle_closed() || plan_.valid || refreshes_owed_ != owed ||
      next_due_ - end != due - start || bus_direction_ != bus_direction ||
      !state_.same_relative(end, start_state, start, idle_horizon_)) {
    return next;
  }
  for (std::size_t r = 0; r < refresh_.size(); ++r) {
    const RankRefresh &a = refresh_[r], &b = start_refresh[r];
    if (a.pending != b.pending || a.next_bank != b.next_bank ||
        a.next_due - end != b.next_due - start) {
      return next;
    }
  }
  std::array<std::uint64_t, kCommandCount> per_period{};
  for (unsigned i = 0; i < kCommandCount; ++i) {
    per_period[i] = stats_.commands[i] - commands[i];
    const Command c = static_cast<Command>(i);
    if (per_period[i] && c != Command::kREFab && !is_bank_refresh(c)) return next;
  }

  // The whole periods from `end` that end by `until`: their decisions all come before it.
  const std::uint64_t skipped = (until - end) / period;
  const std::uint64_t shift = skipped * period;
  idle_periods_skipped_ += skipped;
  if (log_) {
    for (std::uint64_t k = 1; k <= skipped; ++k) {
      for (const CommandRecord& c : idle_period_log_) {
        const Coord at{static_cast<std::uint16_t>(c.rank), static_cast<std::uint16_t>(c.bank_group),
                       static_cast<std::uint16_t>(c.bank), c.row, c.column};
        write_record(*log_, record(c.command, at, c.cycle + k * period));
      }
    }
  }
  for (unsigned i = 0; i < kCommandCount; ++i) stats_.commands[i] += skipped * per_period[i];
  stats_.refreshes_postponed += skipped * (stats_.refreshes_postponed - postponed);
  state_.shift(shift);
  for (RankRefresh& r : refresh_) r.next_due += shift;
  next_due_ += shift;
  last_run_ += shift;
  for (BankBook& b : books_) {
    b.open_since += shift;
    b.last_column += shift;
  }
  for (std::uint64_t& t : rank_active_since_) t += shift;
  return next + shift;
}

CommandRecord ControllerCore::record(Command cmd, const Coord& c, std::uint64_t now,
                                     std::uint64_t request) const {
  CommandRecord r;
  r.cycle = now;
  r.time_ps = static_cast<std::uint64_t>(static_cast<double>(now) * spec_.timing.tck_ps + 0.5);
  r.channel = log_channel_;
  r.pseudo_channel = log_pseudo_channel_;
  r.rank = c.rank;
  r.bank_group = c.bank_group;
  r.bank = c.bank;
  r.command = cmd;
  r.row = c.row;
  r.column = c.column;
  r.request = request;
  return r;
}

void ControllerCore::log(Command cmd, const Coord& c, std::uint64_t now, std::uint64_t request) {
  const CommandRecord r = record(cmd, c, now, request);
  if (idle_recording_) idle_period_log_.push_back(r);
  write_record(*log_, r);
}

void ControllerCore::note_open_change(unsigned flat, bool was_open, std::uint64_t now) {
  const bool open = state_.is_open(flat);
  if (open == was_open) return;
  if (open) {
    books_[flat].open_since = now;
  } else {
    books_[flat].open_cycles += now - books_[flat].open_since;
  }
}

void ControllerCore::guard_column(int q, unsigned flat, std::uint32_t e, std::uint64_t now) {
  Guard& g = guard_[q];
  const std::uint32_t oldest = age_[q].head;
  const unsigned ob = state_.flat_bank(entries_[oldest].c);
  if (oldest == e || ob == flat) {
    // The oldest burst, or its bank (the per-bank cap governs what goes first there), had the
    // data bus.
    g.passed = 0;
    return;
  }
  if (g.seq != entries_[oldest].seq) g = Guard{entries_[oldest].seq, ob, 0};
  // Counted only while that bank's command is a column command ready within one burst time: one
  // waiting for its row (tRCD, a precharge) is not being pushed out by this one.
  const Choice& c = cache_[q][ob];
  if (books_[ob].dirty[q] || !c.valid || !is_column(c.cmd)) return;
  if (view(q, ob).earliest() > now + burst_cycles_) return;
  ++g.passed;
}

void ControllerCore::issue(const Choice& ch, std::uint64_t now) {
  const Command cmd = ch.cmd;
  const unsigned rank = ch.c.rank;
  // The bank a bank command addresses (not used for rank-wide ones), worked out once: the stores
  // in between keep the compiler from reusing it.
  const unsigned flat = state_.flat_bank(ch.c);
  const bool rank_was_active = state_.open_banks(rank) > 0;
  // The request a command serves: its burst's (a column command, or the ACT or PRE opening or
  // closing a row for it); none for refreshes and the page policy's PREs (entry kNil).
  if (log_)
    log(cmd, ch.c, now, ch.entry != kNil ? request_ids_[entries_[ch.entry].request] : kNoRequest);
  ++stats_.commands[static_cast<unsigned>(cmd)];
  if (!in_order_ && is_column(cmd)) guard_column(ch.queue, flat, ch.entry, now);

  // One call of ChannelState::issue(), which is inline: a copy of it per kind of command would
  // triple its code here.
  const bool one_bank = cmd != Command::kPREA && cmd != Command::kREFab && cmd != Command::kREFsb;
  bool was_open = false;
  if (one_bank) {
    mark_dirty(flat);
    was_open = state_.is_open(flat);
  } else if (cmd == Command::kREFsb) {
    for_each_unit_bank(rank, ch.c.bank, [&](unsigned b) { mark_dirty(b); });
  } else {
    const unsigned first = rank * state_.banks_per_rank();
    for (unsigned b = first; b < first + state_.banks_per_rank(); ++b) {
      if (state_.is_open(b)) books_[b].open_cycles += now - books_[b].open_since;
      mark_dirty(b);
    }
  }
  state_.issue(cmd, ch.c, now);
  if (one_bank) note_open_change(flat, was_open, now);
  const bool rank_active = state_.open_banks(rank) > 0;
  if (rank_active != rank_was_active) {
    if (rank_active) {
      rank_active_since_[rank] = now;
    } else {
      stats_.rank_active_cycles[rank] += now - rank_active_since_[rank];
    }
  }

  switch (cmd) {
    case Command::kREFab:
    case Command::kREFpb:
    case Command::kREFsb: {
      RankRefresh& r = refresh_[rank];
      // Postponed: issued after the next refresh fell due (JESD79-4 4.26), not merely with work
      // queued (a refresh forced as it falls due is on time whatever waits behind it).
      if (r.pending > 1) ++stats_.refreshes_postponed;
      --r.pending;
      --refreshes_owed_;
      if (cmd != Command::kREFab) r.next_bank = (r.next_bank + 1) % spec_.bank_refresh_units();
      return;
    }
    case Command::kPREA:
      return;
    case Command::kACT:
      ++stats_.bank_activates[flat];
      if (ch.entry != kNil) note_row_command(ch.entry, kMissed, now);
      return;
    case Command::kPRE:
      if (ch.entry != kNil) note_row_command(ch.entry, kConflicted, now);
      return;
    default:
      break;
  }

  // A column command: the burst leaves its queue. The first one of its direction d since the data
  // bus last faced the other way turns the rule on open rows (work_out_choice) around: the
  // claims of bursts of the other direction in direction d's choices end, and bursts of
  // direction d may now claim rows in the other direction's. The banks either can concern (work
  // queued, a row open) work out their commands again: once per turn.
  if (bus_direction_ != ch.queue) {
    bus_direction_ = ch.queue;
    for (int d = 0; d < 2; ++d) {
      for_each_nonempty(d, [&](unsigned b) {
        if (state_.is_open(b)) mark_dirty(b);
      });
    }
  }
  BankQueue& bq = queue(ch.queue, flat);
  const std::uint32_t e = ch.entry;
  const Entry& ent = entries_[e];
  if (ch.prev == kNil) {
    bq.head = ent.next;
    bq.overtaken = 0;
  } else {
    entries_[ch.prev].next = ent.next;
    ++bq.overtaken;
  }
  if (bq.tail == e) bq.tail = ch.prev;
  if (--bq.count == 0) set_nonempty(ch.queue, flat, false, now);
  --rank_entries_[rank];
  // A row hit otherwise (finish_stats()).
  if (ent.flags & kConflicted) {
    ++stats_.row_conflicts;
  } else if (ent.flags & kMissed) {
    ++stats_.row_misses;
  }
  books_[flat].last_column = now;
  stats_.data_bus_cycles += burst_cycles_;
  Request& req = requests_[ent.request];
  // The request's service began at its first command: this one, or the first PRE or ACT of this
  // burst (note_row_command()), or a command of another of its bursts.
  req.first_command =
      std::min(req.first_command,
               ent.flags & (kMissed | kConflicted) ? std::uint64_t{ent.first_command} : now);
  const unsigned group = flat / banks_per_group_;
  if (now >= group_span_end_) fold_group_span(now);
  ++span_group_bursts_[group];
  if (ch.queue == 1) {
    set_room(stats_.write_queue, --write_count_, write_queue_depth_, now);
    span_group_ck_[group] += spec_.timing.CCD_L_WR;
  } else {
    set_room(stats_.read_queue, --read_count_, read_queue_depth_, now);
    span_group_ck_[group] += spec_.timing.CCD_L;
  }
  AgeList& age = age_[ch.queue];
  (ent.older == kNil ? age.head : entries_[ent.older].younger) = ent.younger;
  (ent.younger == kNil ? age.tail : entries_[ent.younger].older) = ent.older;
  free_entries_.push_back(e);
  if (--req.bursts_left == 0) {
    req.done = state_.data_end(cmd, now);
    const std::uint32_t r = ent.request;
    if (req.tag) {
      --tagged_in_flight_;
      Ring<std::uint32_t>& done = req.write ? write_done_ : read_done_;
      done.push_back(r);
      if (done.size() == 1) next_completion_ = std::min(next_completion_, req.done);
    } else {
      if (untagged_done_) {
        untagged_done_(untagged_context_, request_ids_[r], req.first_command, req.done);
      }
      free_requests_.push_back(r);
      --requests_in_use_;
    }
  }
}

bool ControllerCore::has_work() const {
  if (read_count_ + write_count_ > 0 || refreshes_owed_ > 0) return true;
  if (timeout_policy_) {
    for (unsigned r = 0; r < spec_.org.ranks; ++r) {
      if (state_.open_banks(r)) return true;
    }
  }
  return false;
}

void ControllerCore::update_next_completion() {
  std::uint64_t t = kNever;
  if (!read_done_.empty()) t = requests_[read_done_.front()].done;
  if (!write_done_.empty()) t = std::min(t, requests_[write_done_.front()].done);
  next_completion_ = t;
}

void* ControllerCore::pop_completion(bool& write, std::uint64_t& arrival_cycle,
                                     std::uint64_t& first_command) {
  Ring<std::uint32_t>* from = &read_done_;
  if (read_done_.empty() || (!write_done_.empty() && requests_[write_done_.front()].done <
                                                         requests_[read_done_.front()].done)) {
    from = &write_done_;
  }
  const std::uint32_t r = from->front();
  from->pop_front();
  Request& req = requests_[r];
  write = req.write;
  arrival_cycle = req.arrival;
  first_command = req.first_command;
  free_requests_.push_back(r);
  --requests_in_use_;
  update_next_completion();
  return req.tag;
}

std::pair<std::uint64_t, std::uint64_t> ControllerCore::span_busiest_group() const {
  std::size_t hot = 0;
  for (std::size_t g = 1; g < span_group_ck_.size(); ++g) {
    if (span_group_ck_[g] > span_group_ck_[hot]) hot = g;
  }
  return {span_group_ck_[hot], span_group_bursts_[hot]};
}

void ControllerCore::fold_group_span(std::uint64_t now) {
  const auto [ck, bursts] = span_busiest_group();
  folded_group_ck_ += ck;
  folded_group_bursts_ += bursts;
  std::fill(span_group_ck_.begin(), span_group_ck_.end(), 0);
  std::fill(span_group_bursts_.begin(), span_group_bursts_.end(), 0);
  group_span_end_ = (now / group_span_cycles_ + 1) * group_span_cycles_;
}

void ControllerCore::finish_stats(std::uint64_t now) {
  // The spans so far and the current one, which may go on (finish_stats() may be called again).
  const auto [span_ck, span_bursts] = span_busiest_group();
  stats_.busiest_group_ck = folded_group_ck_ + span_ck;
  stats_.busiest_group_bursts = folded_group_bursts_ + span_bursts;
  // Every column command moves one burst, RD or RDA a read, WR or WRA a write; a row hit unless
  // its burst met a conflict or a miss.
  const auto count = [&](Command c) { return stats_.commands[static_cast<unsigned>(c)]; };
  stats_.read_bursts = count(Command::kRD) + count(Command::kRDA);
  stats_.write_bursts = count(Command::kWR) + count(Command::kWRA);
  stats_.row_hits =
      stats_.read_bursts + stats_.write_bursts - stats_.row_misses - stats_.row_conflicts;
  for (unsigned b = 0; b < state_.banks_total(); ++b) {
    BankBook& book = books_[b];
    if (state_.is_open(b) && now > book.open_since) {
      book.open_cycles += now - book.open_since;
      book.open_since = now;
    }
    stats_.bank_open_cycles[b] = book.open_cycles;
  }
  for (unsigned r = 0; r < spec_.org.ranks; ++r) {
    if (state_.open_banks(r) && now > rank_active_since_[r]) {
      stats_.rank_active_cycles[r] += now - rank_active_since_[r];
      rank_active_since_[r] = now;
    }
  }
}

}  // namespace famsim::dram
