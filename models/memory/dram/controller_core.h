// The DRAM controller's decision logic for one modelled channel, free of SystemC: read and write
// queues of bursts kept per bank, write drain with high/low watermarks, a scheduler and a page
// policy (policies.h), all-bank or per-bank refresh with postponing, and the channel's timing
// state (channel_state.h). The SystemC DramController wraps it; tests drive it directly.
//
// Time is in cycles of the command clock tCK. run(now) issues at most one command at `now` (one
// command bus, which a command holds for Spec::command_clocks(): two clocks for a DDR5 ACT, RD or
// WR) and says when it next has something to do, so the owner wakes it only then.
//
// Requests: a request of n bursts is queued as n entries (each burst decoded to its bank, row
// and column by the caller); it completes when its last burst's data has moved. Queue depths are
// in bursts, as a controller's request CAM is. Reads and writes queue apart; the controller works
// on one direction at a time: writes once the write queue reaches the high watermark, until it
// falls to the low one, or when no read is queued (and a read arriving ends that). One exception:
// a bank whose row was activated for the other direction's oldest burst there serves that burst
// before it closes the row, so a turn of direction between an ACT and its column command does not
// waste the ACT (Ramulator 2's active buffer and DRAMSys's bank machines do the same).
//
// Refresh: every tREFI (all-bank) or tREFIpb (per-bank, banks in turn) one refresh becomes due
// per rank. A due refresh waits while the rank (bank) has queued work, up to the standard's
// postponing limit (refresh_postpone_max); at the limit, or when the rank (bank) is idle, the
// controller closes the rank's rows (PREA, or PRE for the bank) and refreshes, and no ACT reaches
// the rank (bank) meanwhile (JESD79-4 4.26, JESD79-5 4.13: up to 8 REF may be postponed).
#pragma once

#include "models/core/occupancy.h"
#include "models/core/ring.h"
#include "models/memory/dram/channel_state.h"
#include "models/memory/dram/dram_command.h"
#include "models/memory/dram/dram_spec.h"
#include "models/memory/dram/policies.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace famsim::dram {

enum class RefreshMode { kAllBank, kPerBank, kOff };

struct CoreParams {
  unsigned read_queue = 64;   // bursts
  unsigned write_queue = 64;  // bursts
  unsigned write_high_watermark = 48;
  unsigned write_low_watermark = 16;
  std::string scheduler = "frfcfs";
  // FR-FCFS: row hits that may overtake a bank's oldest burst; and column commands of other
  // banks that may go while the direction's oldest burst has a column command ready (or about
  // to be) in its bank, before they are held back for it.
  unsigned starvation_cap = 16;
  std::string page_policy = "open";
  std::uint64_t page_timeout_cycles = 100;  // timeout policy only
  RefreshMode refresh = RefreshMode::kAllBank;
  bool refresh_postpone = true;  // postpone while busy, up to the standard's limit
  // run_until() takes an idle stretch's refresh periods in one step once one period is seen to
  // repeat (no change in results; off only to check that).
  bool idle_fast_forward = true;
};

struct CoreStats {
  // What a command counts, in one cache line from here but for WR and the rarer commands: with
  // many channels busy, a line per counter touched cost a cache miss per command. row_hits and
  // the bursts follow from the command counts, and are worked out by finish_stats().
  alignas(64) std::uint64_t data_bus_cycles = 0;
  std::uint64_t row_misses = 0, row_conflicts = 0;
  std::array<std::uint64_t, kCommandCount> commands{};  // by Command
  std::uint64_t row_hits = 0;
  std::uint64_t read_bursts = 0, write_bursts = 0;
  // Queue room in use over time, in cycles: bursts, counted in whole largest requests (see
  // ControllerCore::count_room_in), so a queue reads full once it cannot take such a request.
  OccupancyGauge read_queue, write_queue;
  // Bank-level parallelism: the banks with bursts queued (in either direction) over time, in
  // cycles, and (capacity 1) whether any bank has some. Their means' ratio is the mean number of
  // banks with work while any has, as Mutlu and Moscibroda define it ("Parallelism-Aware Batch
  // Scheduling", ISCA 2008, section 3).
  OccupancyGauge busy_banks, bank_work{1};
  std::uint64_t refreshes_postponed = 0;          // refreshes issued after the next one fell due
  std::vector<std::uint64_t> bank_open_cycles;    // per flat bank, as of finish_stats()
  std::vector<std::uint64_t> bank_activates;      // ACTs per flat bank (rank-major)
  // The tCCD_L server of DramController's analysis: the busiest bank group (rank-major) of each
  // span of kGroupSpanCcd x tCCD_L cycles, added up over the spans (as of finish_stats()): its
  // column commands x tCCD_L (tCCD_L_WR for writes), and how many. Over the whole run the busiest
  // group hides a stream that keeps to one group at a time and moves on (an address order with
  // the column lowest: a review's 25 % "busy" group was at tCCD_L most of the run).
  std::uint64_t busiest_group_ck = 0;
  std::uint64_t busiest_group_bursts = 0;
  std::vector<std::uint64_t> rank_active_cycles;  // per rank: some row open
};

class ControllerCore {
 public:
  static constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();
  // CoreStats::busiest_group_ck's span, in tCCD_L: long enough for a group's column commands to
  // show its rate, short enough that a stream moving from group to group stays in one for most
  // of a span.
  static constexpr std::uint64_t kGroupSpanCcd = 64;

  ControllerCore(const Spec& spec, const CoreParams& params);

  // Command log (dram_command.h format); null switches it off.
  void set_command_log(std::ostream* os, unsigned channel, unsigned pseudo_channel);

  // Room for a request of `bursts` bursts: queue entries, and a request record (records of
  // finished requests stay taken until pop_completion(), so an owner that cannot hand answers
  // on backpressures instead of overflowing).
  bool has_room(bool write, unsigned bursts) const {
    if (free_requests_.empty()) return false;
    return write ? write_count_ + bursts <= write_queue_depth_
                 : read_count_ + bursts <= read_queue_depth_;
  }
  // Queues a request of `n` bursts arriving at cycle `now`. `tag` comes back from
  // pop_completion(); a null tag asks for no completion (a posted write). `id`: what the command
  // log's request column says for its commands (kNoRequest: "-").
  void enqueue(void* tag, bool write, const Coord* bursts, unsigned n, std::uint64_t now,
               std::uint64_t id = kNoRequest);
  // Called as the last burst of a request with a null tag issues (no completion tells of it):
  // its id, the cycle of its first command (see pop_completion()) and the cycle its data is done.
  // Null (the default) calls nothing; DramController sets it only for the transaction log, at the
  // start of the simulation (before any request, whose id it needs).
  using UntaggedDone = void (*)(void* context, std::uint64_t id, std::uint64_t first_command,
                                std::uint64_t done);
  void set_untagged_done(UntaggedDone f, void* context);
  // After enqueue() at cycle `now`: the cycle at which run() has to decide next. The decision
  // planned after the last command stands when the arrival cannot change it or comes before it
  // (then at that decision's cycle or earlier), so the owner need not run the core at the
  // arrival's cycle only to find nothing ready; otherwise `now`.
  std::uint64_t next_decision(std::uint64_t now) const {
    if (plan_.valid && plan_.cycle >= now) return plan_.cycle;
    // Not while the last command still holds the command bus.
    return std::max(now, state_.command_bus_free());
  }

  // Decides at cycle `now` (not earlier than any previous call): issues at most one command.
  // Returns the next cycle at which run() has something to do, or kNever.
  std::uint64_t run(std::uint64_t now);

  // Calls run() from `next` (what it last returned) while the decision cycle is before `until`,
  // and returns the next decision cycle (>= until, or kNever). Results, statistics and command
  // log are those of the calls one by one, but an idle stretch (nothing queued, every row closed)
  // of three or more refresh periods costs about one period: once a period of refreshes leaves
  // the channel as it found it, relative to the time (ChannelState::same_relative), every period
  // after it repeats it, and the whole periods left before `until` are accounted for at once
  // (the refresh commands counted and logged, the timing state moved on).
  std::uint64_t run_until(std::uint64_t next, std::uint64_t until) {
    // Inline: the owner catches up at every arrival, mostly over a command or two.
    if (until - next < idle_skip_span_) {
      while (next < until) next = run(next);
      return next;
    }
    return run_until_idle_aware(next, until);
  }
  // Refresh periods run_until() accounted for without deciding them one by one.
  std::uint64_t idle_periods_skipped() const { return idle_periods_skipped_; }

  // Whether run() has anything to do besides waiting for the next refresh to fall due: queued
  // bursts, a due refresh, or (timeout page policy) an open row to close. An owner may leave an
  // idle core unwoken and call run() at the skipped cycles later (catch-up): with nothing queued
  // the outcome is the same.
  bool has_work() const;

  // The cycle the oldest unfinished completion's data is done, or kNever.
  std::uint64_t next_completion() const { return next_completion_; }
  // Whether enqueue()'s `id` is kept (the command log or the untagged-done call wants it):
  // otherwise a caller need not read it.
  bool keeps_request_ids() const { return !request_ids_.empty(); }
  // Takes that completion; its data must be done (next_completion() <= now). `first_command`:
  // the cycle of the first command issued on the request's behalf (a PRE closing another row in
  // its bank, the ACT opening its row, or its first column command), where its service began:
  // before it, it waited in the queue.
  void* pop_completion(bool& write, std::uint64_t& arrival_cycle, std::uint64_t& first_command);
  void* pop_completion(bool& write, std::uint64_t& arrival_cycle) {
    std::uint64_t first = 0;
    return pop_completion(write, arrival_cycle, first);
  }

  // The queue gauges (CoreStats) count room for whole requests of `bursts` bursts: a queue of Q
  // entries holds floor(Q / bursts) of them, and the room one more would need is in use once
  // fewer than `bursts` entries are free. 1 (the default) counts bursts.
  void count_room_in(unsigned bursts);

  // Entries and requests still held.
  unsigned queued_bursts() const { return read_count_ + write_count_; }
  std::size_t pending_requests() const { return requests_in_use_; }
  // Requests that want a completion (a tag) and whose last burst has not issued yet. While there
  // is one, the next completion can come no earlier than min_completion_delay() cycles after the
  // next command: an owner that only hands completions on may sleep until then (DramController).
  unsigned tagged_in_flight() const { return tagged_in_flight_; }
  std::uint64_t min_completion_delay() const { return state_.min_data_delay(); }
  // Brings time-weighted statistics up to `now` and works out the counts that follow from others
  // (call before reading stats()).
  void finish_stats(std::uint64_t now);
  const CoreStats& stats() const { return stats_; }
  std::uint64_t last_run_cycle() const { return last_run_; }
  const Spec& spec() const { return spec_; }
  const ChannelState& state() const { return state_; }

 private:
  static constexpr std::uint32_t kNil = std::numeric_limits<std::uint32_t>::max();
  enum Flags : std::uint8_t { kMissed = 1, kConflicted = 2 };

  struct Entry {
    Coord c;
    std::uint32_t request;
    std::uint32_t next;
    std::uint64_t seq;  // arrival order
    // The direction's bursts in arrival order (age_), across banks.
    std::uint32_t older, younger;
    std::uint64_t flags : 8;
    // The cycle of the first PRE or ACT issued for the burst, set with the first of kConflicted
    // and kMissed; its column command folds it into its request's first_command. Kept here, in
    // the bits beside the flags (a cycle in picoseconds' range is below 2^56), so that a PRE or
    // an ACT, which sets the flags, does not also touch the request's record: a cache miss per
    // command with many channels.
    std::uint64_t first_command : 56;
  };
  // Records a PRE (kConflicted) or an ACT (kMissed) issued for entry e at `now`.
  void note_row_command(std::uint32_t e, Flags flag, std::uint64_t now) {
    Entry& ent = entries_[e];
    if (!(ent.flags & (kMissed | kConflicted))) ent.first_command = now;
    ent.flags |= flag;
  }
  // The bursts of one direction in arrival order: the oldest is `head`.
  struct AgeList {
    std::uint32_t head = kNil, tail = kNil;
  };
  // The channel-wide starvation guard of one direction (FR-FCFS): its oldest burst (seq), the
  // bank it is in, and the column commands of other banks that went while that bank had a column
  // command standing and ready within one burst time. At starvation_cap the other banks' column
  // commands wait until that bank's has gone: a ready row hit of one rank is otherwise pushed out
  // by the other rank's stream of hits, each taking the data bus first (minimal.yaml, one
  // channel, sequential reads: the oldest reads waited 12 us, from one refresh to the next).
  struct Guard {
    std::uint64_t seq = ~std::uint64_t{0};
    unsigned bank = 0;
    unsigned passed = 0;
  };
  struct BankQueue {
    std::uint32_t head = kNil, tail = kNil;
    std::uint32_t count = 0;
    std::uint32_t overtaken = 0;  // hits served before the head burst
  };
  struct Request {
    void* tag = nullptr;
    std::uint64_t arrival = 0;
    std::uint64_t done = 0;
    std::uint32_t bursts_left = 0;
    bool write = false;
    std::uint64_t first_command = kNever;  // see pop_completion()
  };
  struct RankRefresh {
    std::uint64_t next_due = 0;
    unsigned pending = 0;
    unsigned next_bank = 0;  // per-bank refresh: the bank (DDR5: bank index) in turn
  };
  // The command chosen in one decision. One cache line: a bank's standing choice is read back
  // whole when its planned command issues, usually long after it was worked out.
  struct alignas(64) Choice {
    Command cmd = Command::kACT;
    bool valid = false;
    std::uint8_t queue = 0;  // 0 reads, 1 writes
    Coord c;
    std::uint32_t entry = kNil;  // the burst it serves, if any
    std::uint32_t prev = kNil;   // entry's predecessor in its bank list (for removal)
    Candidate cand;
    std::uint64_t prio = 0;  // SchedulerPolicy::priority(cand)
  };
  static_assert(sizeof(Choice) == 64, "a choice is one cache line");

  int direction() const;  // 0 reads, 1 writes (write drain)
  // The write drain's hysteresis: on at the high watermark, off at the low one.
  // Written as (above low) and (at high, or draining), which is the same (low < high): with no
  // write queued, as in read-only traffic, the first test settles it and this and direction()
  // cost a load and a test each, four times per command.
  bool drain_wanted() const {
    return write_count_ > write_low_watermark_ &&
           (write_count_ >= write_high_watermark_ || draining_);
  }
  void update_draining() { draining_ = drain_wanted(); }
  void advance_refresh(std::uint64_t now);
  bool refresh_forced(unsigned rank) const;
  // Works out the command to issue at `now` in direction q into *best (left invalid if none is
  // ready) and lowers `next` to the earliest cycle a candidate that is not ready can issue.
  void select(int q, std::uint64_t now, Choice* best, std::uint64_t& next);
  // Looks only: lowers `next` to the earliest cycle any candidate in direction q, ready or not,
  // can issue from `now` on, and plans in plan_ the bank whose standing command goes first then
  // (by cycle, then priority, then the lowest bank). Runs after every command, from run() only,
  // which it is inlined into: a call would pass `next` through memory and save and restore the
  // registers once more per command.
  [[gnu::always_inline]] inline void look(int q, std::uint64_t now, std::uint64_t& next);
  // The parts of select() and look() besides the banks' standing commands, which `best` null
  // only looks at: forced refreshes (returns whether one blocks banks, marked in blocked_), and
  // under the timeout page policy rows to close.
  bool consider_refreshes(Choice* best, std::uint64_t now, std::uint64_t& next);
  void consider_idle_rows(Choice* best, std::uint64_t now, std::uint64_t& next, bool any_blocked);
  // consider_refreshes() once it found rank `first` forced: the forced refreshes from it on.
  void force_refreshes(unsigned first, Choice* best, std::uint64_t now, std::uint64_t& next);
  void consider(Choice* best, const Choice& c, std::uint64_t now, std::uint64_t& next) const;
  // In-order scheduling: the bank holding the oldest burst of direction q, or kNil (also when
  // that bank is set in the bit mask `except`, laid out as nonempty_).
  unsigned oldest_bank(int q, const std::uint64_t* except) const;
  // Works out again the standing command in direction q of every bank marked dirty.
  void refresh_choices(int q);
  // The command bank `flat` would issue next in direction q (its queue is not empty), into
  // cache_ and busy_. Inlined into refresh_choices(), its one caller, which runs it for about one
  // bank per command: as a call it saved and restored six registers each time, and its caller
  // kept its own values on the stack across it (0.7 % of famsim bench's instructions).
  [[gnu::always_inline]] inline void work_out_choice(unsigned flat, int q);
  // Keeps the planned decision after `n` bursts of direction q arrived at `now` (their banks in
  // arrival_banks_) when they cannot change it, or moves it to a bank of theirs whose command
  // goes first; else drops it.
  void revise_plan(int q, unsigned n, std::uint64_t now);
  bool another_hit(unsigned flat, std::uint32_t row, std::uint32_t except) const;
  void mark_dirty(unsigned flat);
  void set_nonempty(int q, unsigned flat, bool on, std::uint64_t now) {
    const std::uint64_t bit = std::uint64_t{1} << (flat & 63);
    std::vector<BankView>& listed = busy_[q];
    std::vector<std::uint16_t>& banks = busy_bank_[q];
    std::uint16_t& at = books_[flat].busy_at[q];
    if (on) {
      nonempty_[q][flat >> 6] |= bit;
      at = static_cast<std::uint16_t>(listed.size());
      listed.emplace_back();  // worked out by refresh_choices() before it is read: flat is dirty
      banks.push_back(static_cast<std::uint16_t>(flat));
    } else {
      nonempty_[q][flat >> 6] &= ~bit;
      // The last listed bank takes this one's place.
      listed[at] = listed.back();
      banks[at] = banks.back();
      books_[banks[at]].busy_at[q] = at;
      listed.pop_back();
      banks.pop_back();
    }
    if (nonempty_[1 - q][flat >> 6] & bit) return;  // the bank has work the other way
    const std::uint64_t busy = on ? stats_.busy_banks.level() + 1 : stats_.busy_banks.level() - 1;
    stats_.busy_banks.set(busy, now);
    if (busy == (on ? 1u : 0u)) stats_.bank_work.set(busy, now);  // work starts or ends
  }
  // Calls f(flat) for every bank with bursts queued in direction q, in bank order, leaving out
  // the banks set in the bit mask `except` (same layout as nonempty_) when it is given.
  template <class F>
  void for_each_nonempty(int q, F&& f, const std::uint64_t* except = nullptr) const {
    for (std::size_t w = 0; w < nonempty_[q].size(); ++w) {
      const std::uint64_t skip = except ? except[w] : 0;
      for (std::uint64_t bits = nonempty_[q][w] & ~skip; bits != 0; bits &= bits - 1) {
        f(static_cast<unsigned>(w * 64 + static_cast<unsigned>(__builtin_ctzll(bits))));
      }
    }
  }
  // Calls f(flat) for every bank of refresh unit `unit` of `rank` (Spec::bank_refresh_units):
  // the bank itself, or (DDR5 REFsb) bank index `unit` of every bank group.
  template <class F>
  void for_each_unit_bank(unsigned rank, unsigned unit, F&& f) const {
    const Organization& o = spec_.org;
    const unsigned first = rank * o.banks();
    if (!spec_.timing.same_bank_refresh) {
      f(first + unit);
      return;
    }
    for (unsigned g = 0; g < o.bank_groups; ++g) f(first + g * o.banks_per_group + unit);
  }
  void issue(const Choice& ch, std::uint64_t now);
  // The guard's bookkeeping for a column command of direction q to bank `flat` serving entry e
  // (before e leaves the age list).
  void guard_column(int q, unsigned flat, std::uint32_t e, std::uint64_t now);
  // The bank whose column command direction q's guard holds the others back for, or kNil.
  unsigned guarded_bank(int q) const {
    const Guard& g = guard_[q];
    if (g.passed < starvation_cap_ || in_order_) return kNil;
    const std::uint32_t oldest = age_[q].head;
    if (oldest == kNil || entries_[oldest].seq != g.seq) return kNil;
    // Only while that bank's command is a column command: a refresh may have closed its row.
    const Choice& c = cache_[q][g.bank];
    return c.valid && is_column(c.cmd) ? g.bank : kNil;
  }
  void log(Command cmd, const Coord& c, std::uint64_t now, std::uint64_t request);
  CommandRecord record(Command cmd, const Coord& c, std::uint64_t now,
                       std::uint64_t request = kNoRequest) const;
  // run_until() over three refresh periods or more (next < until).
  std::uint64_t run_until_idle_aware(std::uint64_t next, std::uint64_t until);
  // run_until()'s fast-forward: nothing queued, every row closed, refresh on.
  bool idle_closed() const;
  // From decision cycle `next` (idle_closed(), `until` at least three periods on): runs one
  // refresh period, and when it repeated the state it started from, skips the whole periods
  // after it that end by `until`. Returns the next decision cycle.
  std::uint64_t skip_idle_periods(std::uint64_t next, std::uint64_t until);
  void note_open_change(unsigned flat, bool was_open, std::uint64_t now);
  Coord bank_coord(unsigned flat) const;

  Spec spec_;
  CoreParams params_;
  ChannelState state_;
  std::unique_ptr<SchedulerPolicy> scheduler_;
  std::unique_ptr<PagePolicy> page_;

  // The next decision as the look after the last command worked it out: bank `bank` of
  // direction `queue` issues at `cycle`, unless work arrives first (see run()).
  struct Plan {
    std::uint64_t cycle = 0;
    std::uint64_t prio = 0;  // the planned command's priority
    unsigned bank = 0;
    int queue = 0;
    bool valid = false;
    bool refresh_forced = false;  // the last select() met a forced refresh
  };

  // What every command and arrival reads or changes, together in the three cache lines from
  // here: with many channels busy, a channel's state is out of the L1 cache each time its
  // controller decides, and these members spread over the object (among the parameters, vectors
  // and statistics) cost a cache miss each per command. The parameters it needs are copied here.
  alignas(64) std::uint64_t last_run_ = 0;  // the latest cycle run() decided at
  std::uint64_t next_due_ = kNever;         // earliest next_due over the ranks
  Plan plan_;
  unsigned read_count_ = 0, write_count_ = 0;
  unsigned refreshes_owed_ = 0;  // sum of the ranks' pending refreshes
  // The direction of the last column command (0 reads, 1 writes; -1 before the first): the way the
  // data bus faces, which decides whether a burst of the other direction may keep the row opened
  // for it (work_out_choice).
  int bus_direction_ = -1;
  unsigned tagged_in_flight_ = 0;
  unsigned room_unit_ = 1;  // count_room_in()
  // params_'s queue depths, write watermarks and starvation cap; spec_'s burst time (tBL) and
  // banks per bank group.
  unsigned read_queue_depth_, write_queue_depth_;
  unsigned write_high_watermark_, write_low_watermark_;
  unsigned starvation_cap_;
  unsigned burst_cycles_;
  unsigned banks_per_group_;
  bool draining_ = false;
  // scheduler_->in_order(), asked once: select() and look() need it at every decision.
  bool in_order_;
  bool timeout_policy_ = false;
  // Whether the page policy closes a row with its column command whatever else is queued for the
  // row (open and timeout policies: never), asked once: work_out_choice() then need not look for
  // another hit in the bank's queues. auto_precharge_ is the answer when it is fixed.
  bool auto_precharge_fixed_ = false;
  bool auto_precharge_ = false;
  bool idle_recording_ = false;  // see idle_period_log_
  std::uint64_t seq_ = 0;
  std::ostream* log_ = nullptr;
  std::uint64_t next_completion_ = kNever;  // the earlier of the done rings' first done cycles
  std::size_t requests_in_use_ = 0;
  std::array<AgeList, 2> age_;
  std::array<Guard, 2> guard_;

  std::vector<Entry> entries_;
  std::vector<Request> requests_;
  // Per flat bank, what a command or an arrival for it updates, in one cache line: its queues
  // ([0] reads, [1] writes), whether each direction's standing choice is stale (listed in
  // dirty_list_), when its row opened, its open cycles so far (copied to the statistics by
  // finish_stats()) and its last column command (timeout page policy).
  struct alignas(64) BankBook {
    BankQueue queue[2];
    std::uint8_t dirty[2] = {0, 0};
    std::uint16_t busy_at[2] = {0, 0};  // its place in busy_ while it has bursts queued
    std::uint64_t open_since = 0;
    std::uint64_t open_cycles = 0;
    std::uint64_t last_column = 0;
  };
  static_assert(sizeof(BankBook) == 64, "a bank's book is one cache line");
  BankQueue& queue(int q, unsigned flat) { return books_[flat].queue[q]; }
  const BankQueue& queue(int q, unsigned flat) const { return books_[flat].queue[q]; }
  std::vector<BankBook> books_;
  // Per direction and bank: the command the bank would issue next, kept until the bank's queues
  // or state change (then it is listed in dirty_list_), and the part of it the per-decision scan
  // reads: its earliest cycle as the bank's own "not before" cycle (a copy: only a command to the
  // bank, which marks it dirty, changes it) and where its group's and rank's are kept, and its
  // priority. The scan reads these 32 bytes per bank and the few group and rank cycles, not the
  // banks' state: with many channels the banks' state is out of cache at each decision.
  struct BankView {
    std::uint64_t bank_ready = 0;
    const std::uint64_t* group_ready = nullptr;
    const std::uint64_t* rank_ready = nullptr;
    std::uint64_t prio = 0;
    std::uint64_t earliest() const {
      return ChannelState::max3(bank_ready, *group_ready, *rank_ready);
    }
  };
  std::array<std::vector<Choice>, 2> cache_;
  // The views of the banks with bursts queued in each direction (those set in nonempty_), one
  // after the other in no particular order (a bank's place: BankBook::busy_at), and their banks:
  // look() reads them in a row, two to a cache line, rather than from a table by bank, where the
  // banks with work lay a line apart each (with many channels busy, a cache miss each), or by
  // working out each bank from the bit mask (a bit scan, a sign extension and an index per bank,
  // a sixth of the look's instructions). Their order cannot matter: no two banks' commands have
  // the same priority (each serves its own burst, and bursts are numbered apart).
  std::array<std::vector<BankView>, 2> busy_;
  std::array<std::vector<std::uint16_t>, 2> busy_bank_;
  // The view of bank `flat`, which has bursts queued in direction q.
  BankView& view(int q, unsigned flat) { return busy_[q][books_[flat].busy_at[q]]; }
  const BankView& view(int q, unsigned flat) const { return busy_[q][books_[flat].busy_at[q]]; }
  std::array<std::vector<unsigned>, 2> dirty_list_;
  std::vector<std::uint32_t> free_entries_;
  std::vector<std::uint32_t> free_requests_;
  std::vector<unsigned> rank_entries_;                  // queued bursts per rank
  std::array<std::vector<std::uint64_t>, 2> nonempty_;  // bit per bank with bursts queued
  // The flat banks of the bursts enqueue() is taking, worked out once for it and revise_plan().
  std::vector<unsigned> arrival_banks_;
  std::vector<RankRefresh> refresh_;
  Ring<std::uint32_t> read_done_, write_done_;  // requests in completion order
  void update_next_completion();
  // Sets queue gauge `g` (capacity: the entries whole requests can use) for `count` of `depth`
  // entries taken at `now`.
  void set_room(OccupancyGauge& g, unsigned count, unsigned depth, std::uint64_t now) const {
    g.set(g.capacity() - (depth - count) / room_unit_ * room_unit_, now);
  }

  std::vector<std::uint64_t> blocked_;  // bit per bank a forced refresh keeps new work from
  std::uint64_t refresh_interval_ = 0;  // tREFI, or tREFIpb with per-bank refresh
  unsigned postpone_limit_ = 0;
  // The current span of the busiest-group count: each group's column work and bursts in it, and
  // the spans before it, folded.
  std::uint64_t group_span_cycles_ = 1;
  std::uint64_t group_span_end_ = 1;
  std::vector<std::uint64_t> span_group_ck_, span_group_bursts_;
  std::uint64_t folded_group_ck_ = 0, folded_group_bursts_ = 0;
  void fold_group_span(std::uint64_t now);
  // The busiest group of the current span: its work and bursts.
  std::pair<std::uint64_t, std::uint64_t> span_busiest_group() const;

  unsigned log_channel_ = 0, log_pseudo_channel_ = 0;
  UntaggedDone untagged_done_ = nullptr;
  void* untagged_context_ = nullptr;
  // The id of each request record (enqueue()), kept only while the command log or the
  // untagged-done call wants them: 8 bytes per record and channel would add 1.3 MiB to the peak
  // RSS of nvl8_fam's 1296 channels with neither on.
  std::vector<std::uint64_t> request_ids_;
  void keep_request_ids() { request_ids_.resize(requests_.size(), kNoRequest); }

  CoreStats stats_;
  std::vector<std::uint64_t> rank_active_since_;

  // Idle fast-forward (run_until): the refresh period (tREFI, or tREFIpb x the refresh units: one
  // turn of the banks), 0 when off, and the stretch it needs; the rule horizon
  // (ChannelState::same_relative); the commands the period being checked logged.
  std::uint64_t idle_period_ = 0;
  std::uint64_t idle_skip_span_ = kNever;  // 3 x idle_period_: the shortest stretch worth a try
  std::uint64_t idle_horizon_ = 0;
  std::vector<CommandRecord> idle_period_log_;
  std::uint64_t idle_periods_skipped_ = 0;
};

}  // namespace famsim::dram
