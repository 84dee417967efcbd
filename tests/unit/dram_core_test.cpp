// ControllerCore driven directly (no SystemC): command timing worked out by hand from the timing
// set below (DDR4-3200-like values, JESD79-4 speed bin 3200AA, x8).
#include "models/memory/dram/controller_core.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <vector>

namespace famsim::dram {
namespace {

Spec test_spec() {
  Spec s;
  s.name = "test_ddr4";
  s.standard = Standard::kDDR4;
  s.org = Organization{};  // 1 rank, 4 groups x 4 banks, BL8, 64-bit
  Timing& t = s.timing;
  t.tck_ps = 625;
  t.burst = 4;
  t.CL = 22;
  t.CWL = 16;
  t.RCD_RD = t.RCD_WR = 22;
  t.RP = 22;
  t.RAS = 52;
  t.RC = 74;
  t.RTP = 12;
  t.WR = 24;
  t.CCD_S = 4;
  t.CCD_L = 8;
  t.CCD_L_WR = 8;
  t.RRD_S = 4;
  t.RRD_L = 8;
  t.FAW = 34;
  t.WTR_S = 4;
  t.WTR_L = 12;
  t.RTW = 10;
  t.REFI = 12480;
  t.RFC = 560;
  return s;
}

CoreParams no_refresh() {
  CoreParams p;
  p.refresh = RefreshMode::kOff;
  return p;
}

struct Issued {
  std::uint64_t cycle;
  Command cmd;
  unsigned bank_group, bank;
};

// Runs the core until it has nothing left, returning the commands and completion cycles.
struct Driver {
  explicit Driver(const Spec& s, const CoreParams& p) : core(s, p) {
    core.set_command_log(&log, 0, 0);
  }
  void run_until_idle(std::uint64_t now = 0, std::uint64_t limit = 10'000'000) {
    std::uint64_t next = now;
    while (next < limit) {
      now = next;
      next = core.run(now);
      while (core.next_completion() <= now) {
        bool w;
        std::uint64_t a;
        core.pop_completion(w, a);
      }
      std::uint64_t c = core.next_completion();
      if (c != ControllerCore::kNever && c < next) next = c;
      if (core.pending_requests() == 0 && core.queued_bursts() == 0) {
        // Collect the completion times logged so far and stop when only refresh remains.
        if (next == ControllerCore::kNever || c == ControllerCore::kNever) break;
      }
    }
  }
  // Takes the completions whose data is done by cycle `upto`.
  void collect(std::uint64_t upto) {
    for (std::uint64_t c = core.next_completion(); c != ControllerCore::kNever && c <= upto;
         c = core.next_completion()) {
      bool w;
      std::uint64_t arrival;
      core.pop_completion(w, arrival);
    }
  }
  std::vector<CommandRecord> commands() const {
    std::vector<CommandRecord> out;
    std::istringstream in(log.str());
    std::string line, err;
    while (std::getline(in, line)) out.push_back(*parse_record(line, err));
    return out;
  }
  ControllerCore core;
  std::ostringstream log;
  int tag = 0;
};

Coord at(unsigned bg, unsigned bank, unsigned row, unsigned col = 0) {
  Coord c;
  c.bank_group = static_cast<std::uint16_t>(bg);
  c.bank = static_cast<std::uint16_t>(bank);
  c.row = row;
  c.column = col;
  return c;
}

TEST(DramCore, ReadToClosedBankIsRcdPlusClPlusBurst) {
  Driver d(test_spec(), no_refresh());
  Coord c = at(1, 2, 100, 8);
  d.core.enqueue(&d.tag, false, &c, 1, 10);
  // ACT issued at 10; nothing else can happen before the RD at 10 + tRCD = 32.
  ASSERT_EQ(d.core.run(10), 32u);
  std::uint64_t next = 11;
  while (d.core.next_completion() == ControllerCore::kNever) next = d.core.run(next);
  // ACT at 10, RD at 10 + tRCD = 32, data ends at 32 + CL + tBL = 58.
  EXPECT_EQ(d.core.next_completion(), 58u);
  const auto cmds = d.commands();
  ASSERT_EQ(cmds.size(), 2u);
  EXPECT_EQ(cmds[0].command, Command::kACT);
  EXPECT_EQ(cmds[0].cycle, 10u);
  EXPECT_EQ(cmds[0].row, 100u);
  EXPECT_EQ(cmds[1].command, Command::kRD);
  EXPECT_EQ(cmds[1].cycle, 32u);
  EXPECT_EQ(cmds[1].column, 8u);
}

// The command log's request column names the request each command was issued for, the ACT and
// PRE that open or close a row for it included; the untagged-done hook tells of a posted write.
// Hand-worked from test_spec(): a posted write (id 7) to group 0 bank 0 row 0 arrives at 10, a
// read (id 9) to the same bank, row 128, at 11.
//   10  ACT row 0 for the write (only writes queued at 10)
//   32  WR (10 + tRCD 22): the row was opened for the write, which goes before the read's PRE;
//       its data is in at 32 + CWL 16 + tBL 4 = 52, so the hook says (7, first 10, done 52)
//   76  PRE for the read: max(ACT + tRAS = 62, WR + CWL + tBL + tWR = 32 + 16 + 4 + 24 = 76)
//   98  ACT row 128 for the read: max(PRE + tRP = 98, first ACT + tRC = 84)
//  120  RD (98 + tRCD 22); its data ends at 120 + CL 22 + tBL 4 = 146
TEST(DramCore, CommandLogNamesTheRequestOfEachCommand) {
  Driver d(test_spec(), no_refresh());
  struct Done {
    std::uint64_t id = 0, first = 0, done = 0;
    int calls = 0;
  } seen;
  d.core.set_untagged_done(
      [](void* ctx, std::uint64_t id, std::uint64_t first, std::uint64_t done) {
        auto* s = static_cast<Done*>(ctx);
        *s = Done{id, first, done, s->calls + 1};
      },
      &seen);
  Coord w = at(0, 0, 0, 0);
  d.core.enqueue(nullptr, true, &w, 1, 10, 7);
  ASSERT_EQ(d.core.run(10), 32u);
  Coord r = at(0, 0, 128, 0);
  d.core.enqueue(&d.tag, false, &r, 1, 11, 9);
  std::uint64_t next = d.core.next_decision(11);
  while (d.core.next_completion() == ControllerCore::kNever) next = d.core.run(next);
  EXPECT_EQ(d.core.next_completion(), 146u);
  const auto cmds = d.commands();
  ASSERT_EQ(cmds.size(), 5u) << d.log.str();
  const std::uint64_t cycles[] = {10, 32, 76, 98, 120};
  const Command kinds[] = {Command::kACT, Command::kWR, Command::kPRE, Command::kACT, Command::kRD};
  const std::uint64_t ids[] = {7, 7, 9, 9, 9};
  for (unsigned i = 0; i < 5; ++i) {
    EXPECT_EQ(cmds[i].cycle, cycles[i]) << i;
    EXPECT_EQ(cmds[i].command, kinds[i]) << i;
    EXPECT_EQ(cmds[i].request, ids[i]) << i;
  }
  EXPECT_EQ(seen.calls, 1);
  EXPECT_EQ(seen.id, 7u);
  EXPECT_EQ(seen.first, 10u);
  EXPECT_EQ(seen.done, 52u);
  // The text: the id last, as transactions.csv writes it (decimal).
  EXPECT_NE(d.log.str().find("32,20000,0,0,0,0,0,WR,-,0,7\n"), std::string::npos) << d.log.str();
}

// Commands issued for no request carry "-": a refresh's PREA and REFab, and the timeout page
// policy's PRE. test_spec(): a read (id 5) at 10 opens row 1 of group 0 bank 0 (ACT 10, RD 32).
// Timeout policy (100 cycles): the idle row closes at RD + 100 = 132 (tRAS and tRTP long past).
// All-bank refresh falls due at tREFI = 12480 with the rank idle and its rows closed: REFab then.
TEST(DramCore, CommandsForNoRequestLogADash) {
  CoreParams p;
  p.page_policy = "timeout";
  p.page_timeout_cycles = 100;
  Driver d(test_spec(), p);
  Coord c = at(0, 0, 1, 0);
  d.core.enqueue(&d.tag, false, &c, 1, 10, 5);
  for (std::uint64_t now = 10; now <= 12480;) {
    const std::uint64_t next = d.core.run(now);
    d.collect(now);
    now = next;
  }
  const auto cmds = d.commands();
  ASSERT_EQ(cmds.size(), 4u) << d.log.str();
  EXPECT_EQ(cmds[0].command, Command::kACT);
  EXPECT_EQ(cmds[0].request, 5u);
  EXPECT_EQ(cmds[1].command, Command::kRD);
  EXPECT_EQ(cmds[1].request, 5u);
  EXPECT_EQ(cmds[2].command, Command::kPRE);
  EXPECT_EQ(cmds[2].cycle, 132u);
  EXPECT_EQ(cmds[2].request, kNoRequest);
  EXPECT_EQ(cmds[3].command, Command::kREFab);
  EXPECT_EQ(cmds[3].cycle, 12480u);
  EXPECT_EQ(cmds[3].request, kNoRequest);
  EXPECT_NE(d.log.str().find(",PRE,-,-,-\n"), std::string::npos) << d.log.str();
  EXPECT_NE(d.log.str().find(",REFab,-,-,-\n"), std::string::npos) << d.log.str();
}

// A row closed for a refresh (PREA) is closed for no request, though requests are queued: a read
// (id 3) at 10 opens row 1 (ACT 10, RD 32); the refresh at tREFI 12480 finds the row open and the
// rank idle: PREA at 12480, REFab at 12480 + tRP 22 = 12502.
TEST(DramCore, ARefreshClosesRowsForNoRequest) {
  Driver d(test_spec(), CoreParams{});
  Coord c = at(0, 0, 1, 0);
  d.core.enqueue(&d.tag, false, &c, 1, 10, 3);
  for (std::uint64_t now = 10; now <= 12502;) {
    const std::uint64_t next = d.core.run(now);
    d.collect(now);
    now = next;
  }
  const auto cmds = d.commands();
  ASSERT_EQ(cmds.size(), 4u) << d.log.str();
  EXPECT_EQ(cmds[2].command, Command::kPREA);
  EXPECT_EQ(cmds[2].cycle, 12480u);
  EXPECT_EQ(cmds[2].request, kNoRequest);
  EXPECT_EQ(cmds[3].command, Command::kREFab);
  EXPECT_EQ(cmds[3].cycle, 12502u);
  EXPECT_EQ(cmds[3].request, kNoRequest);
}

TEST(DramCore, AnArrivalReadyBeforeThePlannedCommandGoesFirst) {
  // A read to group 0 bank 0 arrives at 10: ACT at 10, and the core plans its RD for
  // 10 + tRCD = 32. A read to group 1 arrives at 12: its ACT may issue at 10 + tRRD_S = 14, before
  // the planned RD, so next_decision() moves to 14 and the core issues it there (ACT at 14,
  // RD at 14 + 22 = 36). The RD to bank 0 still issues at 32.
  Driver d(test_spec(), no_refresh());
  Coord a = at(0, 0, 100, 0);
  d.core.enqueue(&d.tag, false, &a, 1, 10);
  ASSERT_EQ(d.core.run(10), 32u);
  EXPECT_EQ(d.core.next_decision(12), 32u);  // nothing arrived: the plan stands
  Coord b = at(1, 0, 200, 0);
  d.core.enqueue(&d.tag, false, &b, 1, 12);
  ASSERT_EQ(d.core.next_decision(12), 14u);
  d.run_until_idle(14);
  const auto cmds = d.commands();
  ASSERT_EQ(cmds.size(), 4u);
  EXPECT_EQ(cmds[1].command, Command::kACT);
  EXPECT_EQ(cmds[1].cycle, 14u);
  EXPECT_EQ(cmds[1].bank_group, 1u);
  EXPECT_EQ(cmds[2].command, Command::kRD);
  EXPECT_EQ(cmds[2].cycle, 32u);
  EXPECT_EQ(cmds[3].command, Command::kRD);
  EXPECT_EQ(cmds[3].cycle, 36u);
}

TEST(DramCore, AnArrivalToThePlannedBankDropsThePlan) {
  // The plan after ACT at 10 is bank 0's RD at 32; a second read to bank 0 at 12 changes bank 0's
  // queue, which its next command depends on (which burst, and under a closed or adaptive page
  // policy whether it auto-precharges), so the owner must decide at 12.
  Driver d(test_spec(), no_refresh());
  Coord a = at(0, 0, 100, 0);
  d.core.enqueue(&d.tag, false, &a, 1, 10);
  ASSERT_EQ(d.core.run(10), 32u);
  Coord a2 = at(0, 0, 100, 8);
  d.core.enqueue(&d.tag, false, &a2, 1, 12);
  EXPECT_EQ(d.core.next_decision(12), 12u);
}

// The same arrivals into two cores: one run at every arrival's cycle (deciding afresh each time),
// one run only when next_decision() says. The command logs must be identical: keeping the planned
// decision is an optimisation, not a change of behaviour. Random reads and writes over 16 banks
// and 4 rows each (hits, misses and conflicts), shallow write watermarks (drains start and end
// often), bursts of arrivals and idle gaps, for each scheduler and page policy.
void expect_same_commands_with_and_without_plans(const std::string& scheduler,
                                                 const std::string& page_policy) {
  CoreParams p = no_refresh();
  p.read_queue = 16;
  p.write_queue = 12;
  p.write_high_watermark = 8;
  p.write_low_watermark = 3;
  p.scheduler = scheduler;
  p.page_policy = page_policy;
  Driver fresh(test_spec(), p), planned(test_spec(), p);
  std::mt19937_64 rng(42);
  std::uint64_t t = 0;
  struct Arrival {
    std::uint64_t cycle;
    bool write;
    Coord c;
  };
  std::vector<Arrival> arrivals;
  for (int i = 0; i < 3000; ++i) {
    t += rng() % 4 == 0 ? rng() % 300 : rng() % 8;  // bursts and gaps
    arrivals.push_back({t, rng() % 10 < 4,
                        at(static_cast<unsigned>(rng() % 4), static_cast<unsigned>(rng() % 4),
                           static_cast<unsigned>(rng() % 4), static_cast<unsigned>(rng() % 128))});
  }
  // The owner's loop: run the core while its next decision comes before the next arrival, then
  // hand the arrival in at the first cycle after the core's last decision; an arrival that finds
  // the queue full waits for the core's next decisions (as the SystemC wrapper's hold slot does).
  // Finished requests are collected up to the core's last decision.
  auto drive = [&](Driver& d, bool run_at_arrivals) {
    std::uint64_t next = ControllerCore::kNever;
    auto collect = [&d](std::uint64_t upto) { d.collect(upto); };
    for (const Arrival& a : arrivals) {
      while (next < a.cycle) next = d.core.run(next);
      collect(a.cycle);
      while (!d.core.has_room(a.write, 1)) {
        ASSERT_NE(next, ControllerCore::kNever);
        next = d.core.run(next);
        collect(d.core.last_run_cycle());
      }
      const std::uint64_t cycle = std::max(a.cycle, d.core.last_run_cycle() + 1);
      d.core.enqueue(&d.tag, a.write, &a.c, 1, cycle);
      next = std::min(next, run_at_arrivals ? cycle : d.core.next_decision(cycle));
    }
    d.run_until_idle(next);
  };
  drive(fresh, true);
  drive(planned, false);
  const auto a = fresh.commands(), b = planned.commands();
  ASSERT_GE(a.size(), arrivals.size());  // every burst needs its column command
  ASSERT_EQ(a.size(), b.size()) << scheduler << " " << page_policy;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_TRUE(a[i].cycle == b[i].cycle && a[i].command == b[i].command &&
                a[i].bank_group == b[i].bank_group && a[i].bank == b[i].bank &&
                a[i].row == b[i].row && a[i].column == b[i].column)
        << scheduler << " " << page_policy << ": command " << i << " differs: " << a[i].cycle << " "
        << to_string(a[i].command) << " vs " << b[i].cycle << " " << to_string(b[i].command);
  }
}

TEST(DramCore, KeepingThePlanAcrossArrivalsIssuesTheSameCommands) {
  for (const char* sched : {"frfcfs", "fcfs"}) {
    for (const char* page : {"open", "closed"})
      expect_same_commands_with_and_without_plans(sched, page);
  }
}

TEST(DramCore, FifthActivateWaitsForTheFawWindow) {
  Driver d(test_spec(), no_refresh());
  // Five reads to banks in different groups where possible: ACTs spaced by tRRD_S = 4 (groups
  // differ) -> 0, 4, 8, 12; the fifth (group 0 again, a different bank) needs tRRD_L = 8 after
  // the first in group 0 and, binding here, the first ACT + tFAW = 34. At 34 the command bus
  // carries the fourth bank's RD (its ACT at 12 + tRCD 22; row hits go first), so the fifth ACT
  // issues at 35. Without tFAW it would have issued at 16.
  std::vector<Coord> cs = {at(0, 0, 1), at(1, 0, 1), at(2, 0, 1), at(3, 0, 1), at(0, 1, 1)};
  for (auto& c : cs) d.core.enqueue(&d.tag, false, &c, 1, 0);
  d.run_until_idle();
  std::vector<std::uint64_t> acts;
  for (const auto& r : d.commands()) {
    if (r.command == Command::kACT) acts.push_back(r.cycle);
  }
  ASSERT_EQ(acts.size(), 5u);
  EXPECT_EQ(acts[0], 0u);
  EXPECT_EQ(acts[1], 4u);
  EXPECT_EQ(acts[2], 8u);
  EXPECT_EQ(acts[3], 12u);
  EXPECT_EQ(acts[4], 35u);
}

TEST(DramCore, RowConflictsInOneBankAreSpacedByRc) {
  CoreParams p = no_refresh();
  p.scheduler = "fcfs";  // keep arrival order (FR-FCFS would group the rows)
  Driver d(test_spec(), p);
  // Reads to alternating rows of one bank: each needs PRE, ACT, RD. ACT to ACT is
  // max(tRC, tRAS + tRP, tRCD + tRTP + tRP) = max(74, 74, 56) = 74 clocks.
  std::vector<Coord> cs;
  for (unsigned i = 0; i < 8; ++i) cs.push_back(at(0, 0, i % 2 ? 7 : 3));
  for (auto& c : cs) d.core.enqueue(&d.tag, false, &c, 1, 0);
  d.run_until_idle();
  std::vector<std::uint64_t> acts;
  for (const auto& r : d.commands()) {
    if (r.command == Command::kACT) acts.push_back(r.cycle);
  }
  ASSERT_EQ(acts.size(), 8u);
  for (unsigned i = 1; i < acts.size(); ++i) EXPECT_EQ(acts[i] - acts[i - 1], 74u) << i;
}

TEST(DramCore, ActivatesAreCountedPerBank) {
  CoreParams p = no_refresh();
  p.scheduler = "fcfs";
  Driver d(test_spec(), p);
  // Six reads alternating two rows of bank (1, 2): six activates there; one read to (3, 0).
  std::vector<Coord> cs;
  for (unsigned i = 0; i < 6; ++i) cs.push_back(at(1, 2, i % 2 ? 7 : 3));
  cs.push_back(at(3, 0, 5));
  for (auto& c : cs) d.core.enqueue(&d.tag, false, &c, 1, 0);
  d.run_until_idle();
  const auto& acts = d.core.stats().bank_activates;
  ASSERT_EQ(acts.size(), 16u);
  std::uint64_t total = 0;
  for (std::uint64_t a : acts) total += a;
  EXPECT_EQ(total, 7u);
  EXPECT_EQ(acts[d.core.state().flat_bank(at(1, 2, 0))], 6u);
  EXPECT_EQ(acts[d.core.state().flat_bank(at(3, 0, 0))], 1u);
}

TEST(DramCore, QueueGaugeCountsRoomForWholeRequests) {
  CoreParams p = no_refresh();
  p.read_queue = 8;
  p.write_queue = 8;
  p.write_high_watermark = 6;
  p.write_low_watermark = 2;
  Driver d(test_spec(), p);
  // Requests of up to 3 bursts: an 8-entry queue holds two (6 entries); the last 2 are no use.
  d.core.count_room_in(3);
  const auto& g = d.core.stats().read_queue;
  EXPECT_EQ(g.capacity(), 6u);
  std::vector<Coord> three = {at(0, 0, 1, 0), at(0, 0, 1, 8), at(0, 0, 1, 16)};
  d.core.enqueue(&d.tag, false, three.data(), 3, 0);
  EXPECT_EQ(g.level(), 3u);  // 5 free: room for one more request of 3
  std::vector<Coord> two = {at(1, 0, 1, 0), at(1, 0, 1, 8)};
  d.core.enqueue(&d.tag, false, two.data(), 2, 0);
  EXPECT_EQ(g.level(), 3u);  // 3 free: still room for one
  Coord one = at(2, 0, 1, 0);
  d.core.enqueue(&d.tag, false, &one, 1, 0);
  EXPECT_EQ(g.level(), 6u);  // 2 free: full
  EXPECT_FALSE(d.core.has_room(false, 3));
  d.run_until_idle();
  EXPECT_EQ(g.level(), 0u);
  EXPECT_EQ(g.max(), 6u);
}

TEST(DramCore, BankGaugeCountsBanksWithWorkInEitherDirection) {
  Driver d(test_spec(), no_refresh());
  const auto& banks = d.core.stats().busy_banks;
  const auto& work = d.core.stats().bank_work;
  EXPECT_EQ(banks.capacity(), 16u);  // 1 rank x 4 groups x 4 banks
  Coord a = at(0, 0, 1, 0), a2 = at(0, 0, 1, 8), b = at(1, 0, 1, 0), c = at(2, 3, 5, 0);
  d.core.enqueue(&d.tag, false, &a, 1, 0);
  EXPECT_EQ(banks.level(), 1u);
  EXPECT_EQ(work.level(), 1u);
  d.core.enqueue(&d.tag, false, &a2, 1, 0);  // the same bank
  EXPECT_EQ(banks.level(), 1u);
  d.core.enqueue(&d.tag, false, &b, 1, 0);
  EXPECT_EQ(banks.level(), 2u);
  d.core.enqueue(&d.tag, true, &a, 1, 0);  // a write to a bank that has reads queued
  EXPECT_EQ(banks.level(), 2u);
  d.core.enqueue(&d.tag, true, &c, 1, 0);
  EXPECT_EQ(banks.level(), 3u);
  EXPECT_EQ(work.level(), 1u);
  d.run_until_idle();
  EXPECT_EQ(banks.level(), 0u);
  EXPECT_EQ(work.level(), 0u);
  EXPECT_EQ(banks.max(), 3u);
}

TEST(DramCore, FrFcfsServesRowHitsFirstFcfsDoesNot) {
  // Queue: row 1, row 2, row 1 in one bank. FR-FCFS serves both row-1 reads before row 2 (one
  // ACT saved); FCFS follows arrival order (three ACTs).
  for (const char* sched : {"frfcfs", "fcfs"}) {
    CoreParams p = no_refresh();
    p.scheduler = sched;
    Driver d(test_spec(), p);
    std::vector<Coord> cs = {at(0, 0, 1, 0), at(0, 0, 2, 0), at(0, 0, 1, 8)};
    for (auto& c : cs) d.core.enqueue(&d.tag, false, &c, 1, 0);
    d.run_until_idle();
    unsigned acts = 0;
    for (const auto& r : d.commands()) acts += r.command == Command::kACT;
    EXPECT_EQ(acts, std::string(sched) == "frfcfs" ? 2u : 3u) << sched;
  }
}

// The channel-wide starvation guard. Two ranks; a stream of row hits to rank 0's 16 banks kept
// topped up, and at cycle 1000 one read to rank 1 (then the oldest burst). Once its row is open,
// rank 0's next hit is always ready before rank 1's (a burst of the other rank waits tBL + tRTRS
// after the last one on the bus, 4 + 2 cycles, one of the same rank tCCD_S = 4), so FR-FCFS alone
// would serve rank 0 for as long as its hits keep coming. With starvation_cap C, once rank 1's
// read is ready (tRCD after its ACT) at most the bursts older than it and C younger ones go first.
TEST(DramCore, StarvationCapBoundsHowLongOtherBanksHitsPushOutTheOldestBurst) {
  for (const unsigned cap : {1u, 4u, 16u}) {
    SCOPED_TRACE(cap);
    Spec spec = test_spec();
    spec.org.ranks = 2;
    CoreParams p = no_refresh();
    p.starvation_cap = cap;
    Driver d(spec, p);
    unsigned sent = 0;
    std::uint64_t now = 0;
    bool old_sent = false;
    long older = 0;  // bursts queued before it: FR-FCFS serves them first by age
    while (sent < 400 && now < 100000) {
      if (!old_sent && now >= 1000) {  // rank 0's rows are open and its hits stream
        Coord old = at(0, 0, 1);
        old.rank = 1;
        older = static_cast<long>(d.core.queued_bursts());
        d.core.enqueue(&d.tag, false, &old, 1, now);
        old_sent = true;
      }
      while (d.core.queued_bursts() < 8 && sent < 400) {
        Coord c = at(sent % 4, sent / 4 % 4, 1, sent / 16 % 128 * 8);
        d.core.enqueue(&d.tag, false, &c, 1, now);
        ++sent;
      }
      const std::uint64_t next = d.core.run(now);
      d.collect(now);
      now = std::max(next, now + 1);
    }
    d.run_until_idle(now);
    std::uint64_t act = 0, rd = 0;
    std::vector<std::uint64_t> rank0_reads;
    for (const CommandRecord& r : d.commands()) {
      if (r.rank == 1 && r.command == Command::kACT) act = r.cycle;
      if (r.rank == 1 && r.command == Command::kRD) rd = r.cycle;
      if (r.rank == 0 && r.command == Command::kRD) rank0_reads.push_back(r.cycle);
    }
    ASSERT_GT(rd, act);
    const std::uint64_t ready = act + test_spec().timing.RCD_RD;
    const auto between = std::count_if(rank0_reads.begin(), rank0_reads.end(),
                                       [&](std::uint64_t c) { return c >= ready && c < rd; });
    EXPECT_LE(between, older + cap + 1) << "rank 1's read at " << rd << ", ready at " << ready;
    EXPECT_EQ(rank0_reads.size(), 400u);
  }
}

// A row activated for a burst is not closed before that burst has moved, even when the direction
// turns in between. A lone write (no read queued, so writes are served) opens row 1 of bank 0 at
// cycle 0; a read to row 2 of that bank arrives at cycle 1 and turns the direction to reads. The
// write goes first: WR at tRCD = 22; PRE once the write has recovered, at 22 + CWL + tBL + tWR =
// 22 + 16 + 4 + 24 = 66; ACT row 2 at 66 + tRP = 88; RD at 88 + tRCD = 110. Two ACTs. (Closing
// row 1 for the read at tRAS = 52 would have wasted its ACT and opened row 1 again afterwards.)
TEST(DramCore, ARowOpenedForABurstServesItWhenTheDirectionTurns) {
  Driver d(test_spec(), no_refresh());
  Coord w = at(0, 0, 1, 0);
  d.core.enqueue(&d.tag, true, &w, 1, 0);
  ASSERT_EQ(d.core.run(0), 22u);  // ACT row 1 for the write; its WR is next, at tRCD
  Coord r = at(0, 0, 2, 0);
  d.core.enqueue(&d.tag, false, &r, 1, 1);
  d.run_until_idle(1);
  const auto cmds = d.commands();
  std::vector<std::pair<Command, std::uint64_t>> got;
  for (const auto& c : cmds) got.emplace_back(c.command, c.cycle);
  const std::vector<std::pair<Command, std::uint64_t>> want = {{Command::kACT, 0},
                                                               {Command::kWR, 22},
                                                               {Command::kPRE, 66},
                                                               {Command::kACT, 88},
                                                               {Command::kRD, 110}};
  EXPECT_EQ(got, want);
  ASSERT_EQ(cmds.size(), 5u);
  EXPECT_EQ(cmds[0].row, 1u);
  EXPECT_EQ(cmds[3].row, 2u);
}

// Only while the data bus still faces the burst's direction: once a read has moved, a write would
// need the read-to-write turnaround, which a stream of reads keeps pushing out, and the bank would
// hold its row and its reads until the writes drained. A read to bank (1,0) opens row 5 at 0 and
// reads at tRCD = 22: the bus faces reads. A lone write opens row 1 of bank (0,0) at 23 (tRRD_S
// from 0 is 4); a read to row 2 of that bank arrives at 24 and turns the direction to reads. The
// row is closed for it: PRE at 23 + tRAS = 75, ACT row 2 at 75 + tRP = 97, RD at 97 + tRCD = 119;
// then the write: PRE at max(119 + tRTP, 97 + tRAS) = max(131, 149) = 149, ACT row 1 at 149 + tRP
// = 171, WR at 171 + tRCD = 193 (the read-to-write turnaround, 119 + tRTW = 129, is long past).
TEST(DramCore, ARowOpenedForAWriteIsClosedForAReadOnceTheBusFacesReads) {
  Driver d(test_spec(), no_refresh());
  Coord r0 = at(1, 0, 5, 0);
  d.core.enqueue(&d.tag, false, &r0, 1, 0);
  ASSERT_EQ(d.core.run(0), 22u);                      // ACT row 5 of bank (1,0)
  ASSERT_EQ(d.core.run(22), ControllerCore::kNever);  // its RD; nothing else queued
  Coord w = at(0, 0, 1, 0);
  d.core.enqueue(&d.tag, true, &w, 1, 23);
  ASSERT_EQ(d.core.run(23), 45u);  // ACT row 1 for the write; its WR would be next, at tRCD
  Coord r1 = at(0, 0, 2, 0);
  d.core.enqueue(&d.tag, false, &r1, 1, 24);
  d.run_until_idle(24);
  std::vector<std::pair<Command, std::uint64_t>> got;
  for (const auto& c : d.commands()) got.emplace_back(c.command, c.cycle);
  const std::vector<std::pair<Command, std::uint64_t>> want = {
      {Command::kACT, 0},   {Command::kRD, 22},   {Command::kACT, 23},
      {Command::kPRE, 75},  {Command::kACT, 97},  {Command::kRD, 119},
      {Command::kPRE, 149}, {Command::kACT, 171}, {Command::kWR, 193}};
  EXPECT_EQ(got, want);
}

TEST(DramCore, ClosedPagePolicyAutoPrecharges) {
  CoreParams p = no_refresh();
  p.page_policy = "closed";
  Driver d(test_spec(), p);
  std::vector<Coord> cs = {at(0, 0, 1, 0), at(0, 0, 1, 8), at(0, 0, 2, 0)};
  for (auto& c : cs) d.core.enqueue(&d.tag, false, &c, 1, 0);
  d.run_until_idle();
  std::vector<Command> kinds;
  for (const auto& r : d.commands()) kinds.push_back(r.command);
  // Row 1: ACT, RD (another hit queued), RDA; row 2: ACT, RDA. No explicit PRE.
  const std::vector<Command> want = {Command::kACT, Command::kRD, Command::kRDA, Command::kACT,
                                     Command::kRDA};
  EXPECT_EQ(kinds, want);
}

TEST(DramCore, AllBankRefreshEveryRefi) {
  CoreParams p;  // refresh on
  Spec s = test_spec();
  Driver d(s, p);
  // Idle channel for 10 refresh intervals: a refresh is due at every multiple of tREFI and an
  // idle rank takes it at once.
  std::uint64_t now = 0;
  while (now <= 10 * s.timing.REFI) now = d.core.run(now);
  std::vector<std::uint64_t> refs;
  for (const auto& r : d.commands()) {
    if (r.command == Command::kREFab) refs.push_back(r.cycle);
  }
  ASSERT_EQ(refs.size(), 10u);
  for (unsigned i = 0; i < refs.size(); ++i) EXPECT_EQ(refs[i], (i + 1) * s.timing.REFI);
}

// refreshes_postponed counts the refreshes that issued after the next one fell due (JESD79-4
// 4.26: a postponed REF is one not issued in its own tREFI interval), not every refresh that
// found work queued. A rank kept busy for 20 tREFI: with postponement off each REF is forced as it
// falls due, so none is postponed; with it on the rank is never idle, so each REF waits until
// refresh_postpone_max (8) are owed, the first at 8 x tREFI, and every one of them was postponed.
TEST(DramCore, OnlyRefreshesIssuedPastTheirIntervalCountAsPostponed) {
  const Spec s = test_spec();
  ASSERT_EQ(s.timing.refresh_postpone_max, 8u);
  auto busy = [&s](bool postpone) {
    CoreParams p;
    p.refresh_postpone = postpone;
    Driver d(s, p);
    const std::uint64_t end = 20 * std::uint64_t{s.timing.REFI};
    std::uint64_t now = 0, next = 0;
    unsigned k = 0;
    while (now < end) {
      while (d.core.has_room(false, 1)) {
        // Every read to another row of the next bank: row misses in all 16 banks in turn.
        const Coord c = at(k % 4, (k / 4) % 4, 1 + k / 16);
        d.core.enqueue(&d.tag, false, &c, 1, now);
        ++k;
      }
      next = std::min(d.core.run(now), d.core.next_decision(now));
      now = std::max(now + 1, next);
      d.collect(now);
    }
    return d.core.stats();
  };
  const CoreStats off = busy(false), on = busy(true);
  const auto refab = static_cast<unsigned>(Command::kREFab);
  // Refreshes fall due at 1, 2, ..., 19 x tREFI before the end (the 20th at it).
  EXPECT_EQ(off.commands[refab], 19u);
  EXPECT_EQ(off.refreshes_postponed, 0u);
  EXPECT_EQ(on.commands[refab], 19u - 7u);
  EXPECT_EQ(on.refreshes_postponed, on.commands[refab]);
}

// The idle fast-forward (ControllerCore::run_until) against the same core deciding every refresh
// one by one (idle_fast_forward off): random reads and writes in bursts, separated now and then
// by idle stretches of up to 12 refresh periods, over every shipped DRAM preset, all-bank and
// per-bank (DDR5: same-bank) refresh, each page policy, and one or two ranks. The command logs
// must be identical line for line, and so must every statistic; and the fast core must have
// skipped periods (else the comparison proves nothing).
void expect_same_with_and_without_idle_skip(const std::string& preset, RefreshMode refresh,
                                            const std::string& page_policy, unsigned ranks) {
  Spec s = load_spec_preset(preset);
  s.org.ranks = ranks;
  CoreParams p;
  p.refresh = refresh;
  p.page_policy = page_policy;
  p.page_timeout_cycles = 300;
  p.read_queue = 16;
  p.write_queue = 12;
  p.write_high_watermark = 8;
  p.write_low_watermark = 3;
  CoreParams reference = p;
  reference.idle_fast_forward = false;
  Driver fast(s, p), slow(s, reference);
  const std::uint64_t period = refresh == RefreshMode::kPerBank
                                   ? std::uint64_t{s.timing.REFIpb} * s.bank_refresh_units()
                                   : s.timing.REFI;
  std::mt19937_64 rng(7);
  struct Arrival {
    std::uint64_t cycle;
    bool write;
    Coord c;
  };
  std::vector<Arrival> arrivals;
  std::uint64_t t = 0;
  for (int i = 0; i < 600; ++i) {
    const std::uint64_t r = rng() % 40;
    t += r == 0 ? rng() % (12 * period) : r < 10 ? rng() % 300 : rng() % 8;
    Coord c;
    c.rank = static_cast<std::uint16_t>(rng() % ranks);
    c.bank_group = static_cast<std::uint16_t>(rng() % s.org.bank_groups);
    c.bank = static_cast<std::uint16_t>(rng() % s.org.banks_per_group);
    c.row = static_cast<std::uint32_t>(rng() % 4);
    c.column = static_cast<std::uint32_t>(rng() % s.org.columns);
    arrivals.push_back({t, rng() % 10 < 4, c});
  }
  const std::uint64_t end = t + 20 * period;
  auto drive = [&](Driver& d) {
    std::uint64_t next = 0;
    auto collect = [&d](std::uint64_t upto) { d.collect(upto); };
    for (const Arrival& a : arrivals) {
      next = d.core.run_until(next, a.cycle);
      collect(a.cycle);
      while (!d.core.has_room(a.write, 1)) {
        next = d.core.run(next);
        collect(d.core.last_run_cycle());
      }
      const std::uint64_t cycle = std::max(a.cycle, d.core.last_run_cycle() + 1);
      d.core.enqueue(&d.tag, a.write, &a.c, 1, cycle);
      next = std::min(next, d.core.next_decision(cycle));
    }
    next = d.core.run_until(next, end);
    collect(end);
    d.core.finish_stats(end);
  };
  drive(fast);
  drive(slow);
  const std::string what = preset +
                           (refresh == RefreshMode::kPerBank ? " per-bank " : " all-bank ") +
                           page_policy + " ranks " + std::to_string(ranks);
  EXPECT_GT(fast.core.idle_periods_skipped(), 0u) << what;
  EXPECT_EQ(slow.core.idle_periods_skipped(), 0u) << what;
  ASSERT_EQ(fast.log.str(), slow.log.str()) << what;
  const CoreStats &a = fast.core.stats(), &b = slow.core.stats();
  EXPECT_EQ(a.commands, b.commands) << what;
  EXPECT_EQ(a.refreshes_postponed, b.refreshes_postponed) << what;
  EXPECT_EQ(a.row_hits, b.row_hits) << what;
  EXPECT_EQ(a.row_misses, b.row_misses) << what;
  EXPECT_EQ(a.row_conflicts, b.row_conflicts) << what;
  EXPECT_EQ(a.data_bus_cycles, b.data_bus_cycles) << what;
  EXPECT_EQ(a.bank_open_cycles, b.bank_open_cycles) << what;
  EXPECT_EQ(a.rank_active_cycles, b.rank_active_cycles) << what;
  EXPECT_EQ(a.bank_activates, b.bank_activates) << what;
  EXPECT_EQ(fast.core.last_run_cycle(), slow.core.last_run_cycle()) << what;
  // Refreshes over the whole run: one per period per rank (per refresh unit with per-bank
  // refresh), give or take those still owed or pulled in at the end.
  const std::uint64_t refreshes = a.commands[static_cast<unsigned>(Command::kREFab)] +
                                  a.commands[static_cast<unsigned>(Command::kREFpb)] +
                                  a.commands[static_cast<unsigned>(Command::kREFsb)];
  const std::uint64_t per_period =
      ranks * (refresh == RefreshMode::kPerBank ? s.bank_refresh_units() : 1u);
  EXPECT_NEAR(static_cast<double>(refreshes), static_cast<double>(end / period * per_period),
              static_cast<double>(ranks * (s.timing.refresh_postpone_max + 1) + per_period))
      << what;
}

TEST(DramCore, IdleFastForwardIssuesTheSameCommandsAsDecidingEveryRefresh) {
  for (const std::string& preset : spec_preset_names()) {
    const Spec s = load_spec_preset(preset);
    for (RefreshMode refresh : {RefreshMode::kAllBank, RefreshMode::kPerBank}) {
      if (refresh == RefreshMode::kPerBank && s.timing.REFIpb == 0) continue;
      for (const char* page : {"open", "closed", "timeout"}) {
        for (unsigned ranks : {1u, 2u}) {
          expect_same_with_and_without_idle_skip(preset, refresh, page, ranks);
        }
      }
    }
  }
}

}  // namespace
}  // namespace famsim::dram
