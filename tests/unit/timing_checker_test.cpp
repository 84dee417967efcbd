// TimingChecker: legal command sequences pass; for every rule a sequence one clock too early is
// flagged with the rule's name and the same sequence one clock later passes. Every expected
// cycle is worked out by hand from the Timing built in checker_spec() (the arithmetic is in the
// comments), never taken from the checker.
#include "models/memory/dram/timing_checker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace famsim::dram {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

// Two ranks of 2 bank groups x 4 banks; every timing value distinct so that a sequence can be
// made to break exactly one rule. Derived values used below:
//   write_to_precharge = CWL + burst + WR    = 8 + 4 + 7 = 19
//   write_to_read_l    = CWL + burst + WTR_L = 8 + 4 + 5 = 17
//   write_to_read_s    = CWL + burst + WTR_S = 8 + 4 + 2 = 14
//   read data  [RD + 10, RD + 14), write data [WR + 8, WR + 12)
//   per-bank refresh interval of one bank = banks * REFIpb = 8 * 125 = 1000
Spec checker_spec() {
  Spec s;
  s.name = "checker_test";
  s.standard = Standard::kLPDDR5X;
  s.org.ranks = 2;
  s.org.bank_groups = 2;
  s.org.banks_per_group = 4;
  s.org.rows = 1024;
  s.org.columns = 128;
  s.org.pseudo_channels = 1;
  Timing& t = s.timing;
  t.burst = 4;
  t.CL = 10;
  t.CWL = 8;
  t.RCD_RD = 11;
  t.RCD_WR = 9;
  t.RP = 12;
  t.RAS = 25;
  t.RC = 40;
  t.RTP = 6;
  t.WR = 7;
  t.CCD_S = 5;
  t.CCD_L = 7;
  t.CCD_L_WR = 9;
  t.RRD_S = 3;
  t.RRD_L = 5;
  t.FAW = 20;
  t.WTR_S = 2;
  t.WTR_L = 5;
  t.RTW = 13;
  t.RTRS = 2;
  t.PPD = 3;
  t.REFI = 1000;
  t.RFC = 50;
  t.REFIpb = 125;
  t.RFCpb = 30;
  t.RREFD = 8;
  t.refresh_postpone_max = 2;
  return s;
}

Spec one_rank_spec() {
  Spec s = checker_spec();
  s.org.ranks = 1;
  return s;
}

CommandRecord make(std::uint64_t cycle, Command c, unsigned bg = 0, unsigned bank = 0,
                   unsigned rank = 0) {
  CommandRecord r;
  r.cycle = cycle;
  r.command = c;
  r.rank = rank;
  r.bank_group = bg;
  r.bank = bank;
  return r;
}
CommandRecord act(std::uint64_t c, unsigned bg, unsigned bank, unsigned rank = 0) {
  return make(c, Command::kACT, bg, bank, rank);
}
CommandRecord pre(std::uint64_t c, unsigned bg, unsigned bank, unsigned rank = 0) {
  return make(c, Command::kPRE, bg, bank, rank);
}
CommandRecord prea(std::uint64_t c, unsigned rank = 0) {
  return make(c, Command::kPREA, 0, 0, rank);
}
CommandRecord rd(std::uint64_t c, unsigned bg, unsigned bank, unsigned rank = 0) {
  return make(c, Command::kRD, bg, bank, rank);
}
CommandRecord rda(std::uint64_t c, unsigned bg, unsigned bank, unsigned rank = 0) {
  return make(c, Command::kRDA, bg, bank, rank);
}
CommandRecord wr(std::uint64_t c, unsigned bg, unsigned bank, unsigned rank = 0) {
  return make(c, Command::kWR, bg, bank, rank);
}
CommandRecord wra(std::uint64_t c, unsigned bg, unsigned bank, unsigned rank = 0) {
  return make(c, Command::kWRA, bg, bank, rank);
}
CommandRecord refab(std::uint64_t c, unsigned rank = 0) {
  return make(c, Command::kREFab, 0, 0, rank);
}
CommandRecord refpb(std::uint64_t c, unsigned bg, unsigned bank, unsigned rank = 0) {
  return make(c, Command::kREFpb, bg, bank, rank);
}

// Feeds the commands (log lines 1, 2, ...) and, when end_cycle is given, finishes there.
std::vector<Violation> run(const Spec& spec, const std::vector<CommandRecord>& cmds,
                           std::optional<std::uint64_t> end_cycle = std::nullopt) {
  TimingChecker checker(spec);
  for (std::size_t i = 0; i < cmds.size(); ++i) checker.check(cmds[i], i + 1);
  if (end_cycle) checker.finish(*end_cycle);
  return checker.violations();
}

std::vector<std::string> names(const std::vector<Violation>& v) {
  std::vector<std::string> out;
  for (const Violation& x : v) out.push_back(x.constraint);
  return out;
}

std::string dump(const std::vector<Violation>& v) {
  std::string out;
  for (const Violation& x : v) out += "  line " + std::to_string(x.line) + ": " + x.message + "\n";
  return out;
}

// `sequence(c)` is a command sequence whose last command is at cycle c. At `earliest - 1` the
// checker must report exactly one violation, of `constraint`, on the last command; at `earliest`
// none.
void expect_earliest(const Spec& spec,
                     const std::function<std::vector<CommandRecord>(std::uint64_t)>& sequence,
                     std::uint64_t earliest, const std::string& constraint) {
  const std::vector<CommandRecord> early = sequence(earliest - 1);
  const std::vector<Violation> bad = run(spec, early);
  EXPECT_THAT(names(bad), ElementsAre(constraint)) << dump(bad);
  if (!bad.empty()) {
    EXPECT_EQ(bad[0].line, early.size());
    EXPECT_EQ(bad[0].cycle, earliest - 1);
    EXPECT_THAT(bad[0].message, HasSubstr("needs cycle >= " + std::to_string(earliest)));
  }
  const std::vector<Violation> good = run(spec, sequence(earliest));
  EXPECT_THAT(names(good), IsEmpty()) << dump(good);
}

TEST(TimingChecker, LegalSequenceHasNoViolations) {
  const std::vector<CommandRecord> cmds = {
      act(0, 0, 0),      act(3, 1, 0),  // tRRD_S: 0 + 3
      rd(11, 0, 0),                     // tRCD_RD: 0 + 11; data [21, 25)
      rd(16, 1, 0),                     // tCCD_S: 11 + 5; tRCD_RD 3 + 11 = 14; data [26, 30)
      wr(29, 1, 0),                     // tRTW: 16 + 13; tCCD_L 16 + 7 = 23; data [37, 41)
      rd(43, 0, 0),                     // tWTR_S: 29 + 14 = 43; data [53, 57)
      pre(49, 0, 0),                    // tRTP: 43 + 6; tRAS 0 + 25
      pre(52, 1, 0),                    // tPPD: 49 + 3; tWR 29 + 19 = 48; tRAS 3 + 25 = 28
      act(61, 0, 0),                    // tRP: 49 + 12; tRC 0 + 40
      rda(72, 0, 0),      // tRCD_RD: 61 + 11; auto-precharge at max(72 + 6, 61 + 25) = 86
      act(101, 0, 0),     // tRC: 61 + 40 = 101; tRP after auto-precharge 86 + 12 = 98
      act(102, 0, 1, 1),  // rank 1 has its own banks and spacing
      rd(112, 0, 0),      // tRCD_RD: 101 + 11; data [122, 126)
      rd(114, 0, 1, 1),   // rank 1 data [124, 128) overlaps: not here, see below
  };
  // The last RD above is illegal on the shared data bus; the legal sequence replaces it by a
  // rank-1 read whose data starts RTRS after rank 0's: 126 + 2 = 128 = 118 + CL.
  std::vector<CommandRecord> legal(cmds.begin(), cmds.end() - 1);
  legal.push_back(rd(118, 0, 1, 1));  // tRCD_RD 102 + 11 = 113; data [128, 132)
  legal.push_back(prea(140));         // tRAS 101 + 25 = 126; tRTP 112 + 6 = 118
  legal.push_back(refab(152));        // tRP: 140 + 12
  legal.push_back(act(202, 1, 1));    // tRFC: 152 + 50
  legal.push_back(wra(211, 1, 1));    // tRCD_WR: 202 + 9
  TimingChecker checker(checker_spec());
  for (std::size_t i = 0; i < legal.size(); ++i) checker.check(legal[i], i + 1);
  checker.finish(212);
  EXPECT_THAT(names(checker.violations()), IsEmpty()) << dump(checker.violations());
  EXPECT_EQ(checker.violation_count(), 0u);
  EXPECT_EQ(checker.commands_checked(), legal.size());
  EXPECT_EQ(checker.commands_of(Command::kACT), 6u);
  EXPECT_EQ(checker.commands_of(Command::kRD), 5u);
  EXPECT_EQ(checker.commands_of(Command::kPRE), 2u);
  EXPECT_EQ(checker.commands_of(Command::kWR), 1u);
  EXPECT_EQ(checker.commands_of(Command::kRDA), 1u);
  EXPECT_EQ(checker.commands_of(Command::kWRA), 1u);
  EXPECT_EQ(checker.commands_of(Command::kPREA), 1u);
  EXPECT_EQ(checker.commands_of(Command::kREFab), 1u);
  // Every command is checked against tRFC once.
  EXPECT_EQ(checker.checks_of(Constraint::kRFC), legal.size());

  // With the original rank-1 read at 114: data [124, 128) overlaps rank 0's [122, 126).
  const std::vector<Violation> v = run(checker_spec(), cmds);
  EXPECT_THAT(names(v), ElementsAre("data_bus")) << dump(v);
}

// ---- Same bank ---------------------------------------------------------------------------

TEST(TimingChecker, ActToActSameBankIsTRC) {
  // PRE at 25 allows ACT at 25 + 12 = 37, tRC only at 0 + 40.
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), pre(25, 0, 0), act(c, 0, 0)};
      },
      40, "tRC");
}

TEST(TimingChecker, PreToActSameBankIsTRP) {
  // tRP: 30 + 12 = 42 > tRC 40.
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), pre(30, 0, 0), act(c, 0, 0)};
      },
      42, "tRP");
}

TEST(TimingChecker, ActToRdIsTRCD_RD) {
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), rd(c, 0, 0)};
      },
      11, "tRCD_RD");
}

TEST(TimingChecker, ActToWrIsTRCD_WR) {
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), wr(c, 0, 0)};
      },
      9, "tRCD_WR");
}

TEST(TimingChecker, ActToPreIsTRAS) {
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), pre(c, 0, 0)};
      },
      25, "tRAS");
}

TEST(TimingChecker, RdToPreIsTRTP) {
  // tRTP: 20 + 6 = 26 > tRAS 25.
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), rd(20, 0, 0), pre(c, 0, 0)};
      },
      26, "tRTP");
}

TEST(TimingChecker, WrToPreIsTWR) {
  // tWR: 10 + 19 = 29 > tRAS 25.
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), wr(10, 0, 0), pre(c, 0, 0)};
      },
      29, "tWR");
}

TEST(TimingChecker, RdaPrechargesAfterTRTPThenTRP) {
  // Auto-precharge at max(30 + 6, 0 + 25) = 36; ACT at 36 + 12 = 48 > tRC 40.
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), rda(30, 0, 0), act(c, 0, 0)};
      },
      48, "tRP");
  const auto v = run(checker_spec(), {act(0, 0, 0), rda(30, 0, 0), act(47, 0, 0)});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_THAT(v[0].message, HasSubstr("auto-precharge of RDA"));
  EXPECT_THAT(v[0].message, HasSubstr("internal precharge at cycle 36"));
}

TEST(TimingChecker, RdaPrechargeWaitsForTRAS) {
  Spec s = checker_spec();
  s.timing.RC = 30;  // so that tRP after the auto-precharge binds, not tRC
  // Auto-precharge at max(11 + 6, 0 + 25) = 25; ACT at 25 + 12 = 37.
  expect_earliest(
      s,
      [](auto c) {
        return std::vector{act(0, 0, 0), rda(11, 0, 0), act(c, 0, 0)};
      },
      37, "tRP");
}

TEST(TimingChecker, WraPrechargesAfterWriteRecoveryThenTRP) {
  // Auto-precharge at max(12 + 19, 0 + 25) = 31; ACT at 31 + 12 = 43 > tRC 40.
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), wra(12, 0, 0), act(c, 0, 0)};
      },
      43, "tRP");
}

TEST(TimingChecker, ColumnCommandAfterAutoPrechargeIsBankState) {
  const auto v = run(checker_spec(), {act(0, 0, 0), rda(11, 0, 0), rd(30, 0, 0)});
  EXPECT_THAT(names(v), ElementsAre("bank_state")) << dump(v);
}

TEST(TimingChecker, PreAfterRdaMustWaitTRTPAndTRAS) {
  // JEDEC clarification table: RDA -> PRE same bank >= tRTP: 20 + 6 = 26.
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), rda(20, 0, 0), pre(c, 0, 0)};
      },
      26, "tRTP");
  // RDA at 11: the row stays open until 0 + 25, a PREA before that cuts tRAS.
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), rda(11, 0, 0), prea(c)};
      },
      25, "tRAS");
}

TEST(TimingChecker, PreToIdleBankIsLegalAndRestartsTRP) {
  // PRE at 30 to the bank closed at 25 is a NOP for the bank but restarts the precharge
  // period: ACT at 30 + 12 = 42 (tRC 40, tRP from the first PRE 37).
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), pre(25, 0, 0), pre(30, 0, 0), act(c, 0, 0)};
      },
      42, "tRP");
  const auto v = run(checker_spec(), {pre(5, 1, 2), prea(8)});  // never-opened banks: legal
  EXPECT_THAT(names(v), IsEmpty()) << dump(v);
}

// ---- Bank state --------------------------------------------------------------------------

TEST(TimingChecker, BankStateRules) {
  const Spec s = checker_spec();
  // ACT to an open bank (tRC met at 40).
  EXPECT_THAT(names(run(s, {act(0, 0, 0), act(40, 0, 0)})), ElementsAre("bank_state"));
  // RD / WR / RDA / WRA to a closed bank.
  EXPECT_THAT(names(run(s, {rd(5, 0, 0)})), ElementsAre("bank_state"));
  EXPECT_THAT(names(run(s, {wr(5, 1, 3)})), ElementsAre("bank_state"));
  EXPECT_THAT(names(run(s, {rda(5, 0, 1)})), ElementsAre("bank_state"));
  EXPECT_THAT(names(run(s, {wra(5, 1, 0)})), ElementsAre("bank_state"));
  // REFab with a bank open; REFpb to an open bank.
  EXPECT_THAT(names(run(s, {act(0, 1, 2), refab(30)})), ElementsAre("bank_state"));
  EXPECT_THAT(names(run(s, {act(0, 1, 2), refpb(30, 1, 2)})), ElementsAre("bank_state"));
  // PREA closes every bank: ACT after it is legal (tRP 28 + 12 = 40 = tRC), RD is not.
  EXPECT_THAT(names(run(s, {act(0, 0, 0), act(3, 1, 0), prea(28), act(40, 0, 0)})), IsEmpty());
  EXPECT_THAT(names(run(s, {act(0, 0, 0), act(3, 1, 0), prea(28), rd(40, 1, 0)})),
              ElementsAre("bank_state"));
}

// ---- Same rank -----------------------------------------------------------------------------

TEST(TimingChecker, ActToActSameBankGroupIsTRRD_L) {
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), act(c, 0, 1)};
      },
      5, "tRRD_L");
}

TEST(TimingChecker, ActToActOtherBankGroupIsTRRD_S) {
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), act(c, 1, 0)};
      },
      3, "tRRD_S");
}

TEST(TimingChecker, ActsInOtherRanksAreNotSpaced) {
  // One clock apart (the command bus takes one command per clock), well inside tRRD_L 5.
  EXPECT_THAT(names(run(checker_spec(), {act(0, 0, 0, 0), act(1, 0, 0, 1)})), IsEmpty());
}

TEST(TimingChecker, TwoCommandsInOneClockAreACommandBusConflict) {
  // Two ranks, so no other rule relates the two ACTs.
  EXPECT_THAT(names(run(checker_spec(), {act(0, 0, 0, 0), act(0, 0, 0, 1)})),
              ElementsAre("command_bus"));
}

// DDR5's ACT, RD and WR are 2-cycle commands (JESD79-5 section 4.1, Command Truth Table): the
// command bus is theirs for the clock after as well, so the next command, whatever it addresses,
// starts two clocks after one at the earliest. PRE and REF are 1-cycle. The test spec as DDR5 and
// as DDR4 (every command one clock, JESD79-4); commands to the other rank, which no other rule
// relates to the first.
Spec as_standard(Standard standard) {
  Spec s = checker_spec();
  s.standard = standard;
  return s;
}

TEST(TimingChecker, Ddr5TwoCycleActHoldsTheCommandBusForTwoClocks) {
  const Spec ddr5 = as_standard(Standard::kDDR5);
  // ACT at 10 (rank 0) holds the bus in clocks 10 and 11: an ACT to rank 1 at 11 starts in the
  // ACT's second clock, at 12 it is free.
  const auto early = run(ddr5, {act(10, 0, 0, 0), act(11, 0, 0, 1)});
  EXPECT_THAT(names(early), ElementsAre("command_bus_held")) << dump(early);
  if (!early.empty()) {
    EXPECT_EQ(early[0].line, 2u);
    EXPECT_EQ(early[0].cycle, 11u);
    EXPECT_THAT(early[0].message, HasSubstr("the 2-clock ACT of cycle 10 holds the command bus "
                                            "until cycle 12"));
  }
  EXPECT_THAT(names(run(ddr5, {act(10, 0, 0, 0), act(12, 0, 0, 1)})), IsEmpty());
  // The same pair on DDR4: one clock each, the next clock is free.
  EXPECT_THAT(names(run(as_standard(Standard::kDDR4), {act(10, 0, 0, 0), act(11, 0, 0, 1)})),
              IsEmpty());
}

TEST(TimingChecker, Ddr5ReadAndWriteAreTwoCycleAndPrechargeOneCycle) {
  const Spec ddr5 = as_standard(Standard::kDDR5);
  // ACT at 0, RD at tRCD_RD 11, a PRE to rank 1 one clock after the RD: in the RD's second clock.
  EXPECT_THAT(names(run(ddr5, {act(0, 0, 0, 0), rd(11, 0, 0, 0), pre(12, 0, 0, 1)})),
              ElementsAre("command_bus_held"));
  EXPECT_THAT(names(run(ddr5, {act(0, 0, 0, 0), rd(11, 0, 0, 0), pre(13, 0, 0, 1)})), IsEmpty());
  // WR at tRCD_WR 9, then an ACT to rank 1 at 10 (violation) or 11.
  EXPECT_THAT(names(run(ddr5, {act(0, 0, 0, 0), wr(9, 0, 0, 0), act(10, 0, 0, 1)})),
              ElementsAre("command_bus_held"));
  EXPECT_THAT(names(run(ddr5, {act(0, 0, 0, 0), wr(9, 0, 0, 0), act(11, 0, 0, 1)})), IsEmpty());
  // PRE at 30 (tRAS 25 after the ACT at 0) is 1-cycle: an ACT to rank 1 at 31 is legal.
  EXPECT_THAT(names(run(ddr5, {act(0, 0, 0, 0), pre(30, 0, 0, 0), act(31, 0, 0, 1)})), IsEmpty());
}

TEST(TimingChecker, FifthActIsTFAW) {
  // ACTs at 0 (g0), 3 (g1), 8 (g0: tRRD_L 0 + 5, tRRD_S 3 + 3), 11 (g1: 3 + 5, 8 + 3).
  // Fifth in g0: tRRD_L 8 + 5 = 13, tRRD_S 11 + 3 = 14, tFAW 0 + 20 = 20.
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), act(3, 1, 0), act(8, 0, 1), act(11, 1, 1), act(c, 0, 2)};
      },
      20, "tFAW");
}

TEST(TimingChecker, TFAWWindowSlides) {
  // ACTs at 0, 10, 13, 16, 20 (fifth legal: tFAW 0 + 20). Sixth in g1: tFAW from the second
  // ACT 10 + 20 = 30; tRRD_S 20 + 3 = 23; tRRD_L 16 + 5 = 21.
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0),  act(10, 1, 0), act(13, 0, 1),
                           act(16, 1, 1), act(20, 0, 2), act(c, 1, 2)};
      },
      30, "tFAW");
}

TEST(TimingChecker, RdToRdSameBankGroupIsTCCD_L) {
  // tRCD_RD of bank 1: 5 + 11 = 16; tCCD_L 11 + 7 = 18.
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), act(5, 0, 1), rd(11, 0, 0), rd(c, 0, 1)};
      },
      18, "tCCD_L");
}

TEST(TimingChecker, RdToRdOtherBankGroupIsTCCD_S) {
  // tRCD_RD: 3 + 11 = 14; tCCD_S 11 + 5 = 16. At 15 the data [25, 29) follows [21, 25).
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), act(3, 1, 0), rd(11, 0, 0), rd(c, 1, 0)};
      },
      16, "tCCD_S");
}

TEST(TimingChecker, WrToWrSameBankGroupIsTCCD_L_WR) {
  // tRCD_WR: 5 + 9 = 14; tCCD_L_WR 9 + 9 = 18 (tCCD_L would give 16).
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), act(5, 0, 1), wr(9, 0, 0), wr(c, 0, 1)};
      },
      18, "tCCD_L_WR");
}

TEST(TimingChecker, WrToWrOtherBankGroupIsTCCD_S) {
  // tRCD_WR: 3 + 9 = 12; tCCD_S 9 + 5 = 14.
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), act(3, 1, 0), wr(9, 0, 0), wr(c, 1, 0)};
      },
      14, "tCCD_S");
}

TEST(TimingChecker, WrToRdSameBankGroupIsTWTR_L) {
  // tWTR_L: 9 + 17 = 26; tCCD_L 9 + 7 = 16; tRCD_RD 5 + 11 = 16.
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), act(5, 0, 1), wr(9, 0, 0), rd(c, 0, 1)};
      },
      26, "tWTR_L");
}

TEST(TimingChecker, WrToRdOtherBankGroupIsTWTR_S) {
  // tWTR_S: 9 + 14 = 23; tCCD_S 9 + 5 = 14; tRCD_RD 3 + 11 = 14.
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), act(3, 1, 0), wr(9, 0, 0), rd(c, 1, 0)};
      },
      23, "tWTR_S");
}

TEST(TimingChecker, RdToWrIsTRTW) {
  // tRTW: 11 + 13 = 24; tCCD_S 11 + 5 = 16; tRCD_WR 3 + 9 = 12. At 23 the write data
  // [31, 35) is clear of the read data [21, 25).
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), act(3, 1, 0), rd(11, 0, 0), wr(c, 1, 0)};
      },
      24, "tRTW");
}

TEST(TimingChecker, PreToPreIsTPPD) {
  // PRE g0 at 27; PRE g1: tPPD 27 + 3 = 30 > tRAS 3 + 25 = 28.
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), act(3, 1, 0), pre(27, 0, 0), pre(c, 1, 0)};
      },
      30, "tPPD");
  // PREA counts too: PRE at 25, PREA at 25 + 3 = 28.
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), pre(25, 0, 0), prea(c)};
      },
      28, "tPPD");
}

TEST(TimingChecker, NoTPPDWhenZero) {
  Spec s = checker_spec();
  s.timing.PPD = 0;
  EXPECT_THAT(names(run(s, {act(0, 0, 0), act(3, 1, 0), pre(28, 0, 0), pre(29, 1, 0)})), IsEmpty());
}

TEST(TimingChecker, OneBankGroupUsesTheSameGroupValues) {
  Spec s = checker_spec();
  s.org.bank_groups = 1;
  // Two banks of the only group: tRRD_L (5), not tRRD_S (3).
  expect_earliest(
      s,
      [](auto c) {
        return std::vector{act(0, 0, 0), act(c, 0, 1)};
      },
      5, "tRRD_L");
}

// ---- Refresh timing ----------------------------------------------------------------------

TEST(TimingChecker, RefabToAnyCommandIsTRFC) {
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{refab(0), act(c, 1, 3)};
      },
      50, "tRFC");
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{refab(0), refab(c)};
      },
      50, "tRFC");
  // The other rank is not blocked.
  EXPECT_THAT(names(run(checker_spec(), {refab(0, 0), act(1, 0, 0, 1)})), IsEmpty());
}

TEST(TimingChecker, PreToRefabIsTRP) {
  // The latest precharge of any bank: 25 + 12 = 37.
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), pre(25, 0, 0), refab(c)};
      },
      37, "tRP");
  // After RDA the auto-precharge counts: max(20 + 6, 25) = 26, + 12 = 38.
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), rda(20, 0, 0), refab(c)};
      },
      38, "tRP");
}

TEST(TimingChecker, RefpbBlocksItsBankForTRFCpb) {
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{refpb(0, 1, 2), act(c, 1, 2)};
      },
      30, "tRFCpb");
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{refpb(0, 1, 2), refpb(c, 1, 2)};
      },
      30, "tRFCpb");
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{refpb(0, 1, 2), refab(c)};
      },
      30, "tRFCpb");
}

TEST(TimingChecker, RefpbToOtherBankIsTRREFD) {
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{refpb(0, 0, 0), act(c, 1, 0)};
      },
      8, "tRREFD");
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{refpb(0, 0, 0), refpb(c, 0, 1)};
      },
      8, "tRREFD");
}

TEST(TimingChecker, RefpbToRefpbIsTPBR2PBRWhereTheStandardSeparatesIt) {
  // LPDDR5-style: REFpb -> REFpb of another bank 12 clocks, REFpb -> ACT (tRREFD) 8.
  Spec s = checker_spec();
  s.timing.PBR2PBR = 12;
  expect_earliest(
      s,
      [](auto c) {
        return std::vector{refpb(0, 0, 0), refpb(c, 0, 1)};
      },
      12, "tPBR2PBR");
}

TEST(TimingChecker, ActToRefpbIsTRRD) {
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), refpb(c, 0, 1)};
      },
      5, "tRRD_L");
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0), refpb(c, 1, 1)};
      },
      3, "tRRD_S");
}

TEST(TimingChecker, RefpbWithoutPerBankRefreshIsRefreshMode) {
  Spec s = checker_spec();
  s.timing.REFIpb = 0;
  EXPECT_THAT(names(run(s, {refpb(0, 0, 0)})), ElementsAre("refresh_mode"));
}

// ---- Data bus ----------------------------------------------------------------------------

TEST(TimingChecker, BurstsOfDifferentRanksNeedTRTRS) {
  // Rank 0 read data [21, 25). Rank 1 read at c has data [c + 10, c + 14): it must start at
  // 25 + 2 = 27, so c >= 17. At 16: [26, 30) does not overlap but is 1 clock after.
  expect_earliest(
      checker_spec(),
      [](auto c) {
        return std::vector{act(0, 0, 0, 0), act(1, 0, 0, 1), rd(11, 0, 0, 0), rd(c, 0, 0, 1)};
      },
      17, "tRTRS");
  // At 14: [24, 28) overlaps [21, 25).
  const auto v =
      run(checker_spec(), {act(0, 0, 0, 0), act(1, 0, 0, 1), rd(11, 0, 0, 0), rd(14, 0, 0, 1)});
  EXPECT_THAT(names(v), ElementsAre("data_bus")) << dump(v);
}

TEST(TimingChecker, OverlappingBurstsOfOneRankAreDataBus) {
  // Only a tCCD_S shorter than the burst lets one rank overlap itself: CCD_S = 3 < burst = 4.
  // Read data [21, 25); the g1 read (tRCD_RD 3 + 11 = 14, tCCD_S 11 + 3 = 14) has data
  // [c + 10, c + 14), clear of the first from c = 15.
  Spec s = checker_spec();
  s.timing.CCD_S = 3;
  expect_earliest(
      s,
      [](auto c) {
        return std::vector{act(0, 0, 0), act(3, 1, 0), rd(11, 0, 0), rd(c, 1, 0)};
      },
      15, "data_bus");
}

TEST(TimingChecker, LaterWriteCanLandOnEarlierBursts) {
  // Rank 0 reads at 20 ([30, 34)) and 25 (g1, tCCD_S 20 + 5: [35, 39)). A rank-1 write at 26
  // has data [34, 38) (CWL < CL): it overlaps the second burst and is 0 < RTRS clocks after
  // the first, which is not the last burst seen.
  const auto seq = [](std::uint64_t c) {
    return std::vector{act(0, 0, 0, 0), act(1, 0, 0, 1), act(3, 1, 0, 0),
                       rd(20, 0, 0, 0), rd(25, 1, 0, 0), wr(c, 0, 0, 1)};
  };
  const auto v = run(checker_spec(), seq(26));
  EXPECT_THAT(names(v), UnorderedElementsAre("data_bus", "tRTRS")) << dump(v);
  // A write at 31 ([39, 43)) starts 0 clocks after the second read: tRTRS; at 33 ([41, 45))
  // it is RTRS after.
  EXPECT_THAT(names(run(checker_spec(), seq(31))), ElementsAre("tRTRS"));
  EXPECT_THAT(names(run(checker_spec(), seq(33))), IsEmpty());
}

TEST(TimingChecker, ChannelsAndPseudoChannelsAreIndependent) {
  Spec s = checker_spec();
  s.org.pseudo_channels = 2;
  std::vector<CommandRecord> cmds = {act(0, 0, 0), act(1, 0, 0), rd(11, 0, 0), rd(12, 0, 0)};
  cmds[1].pseudo_channel = 1;  // same bank, other pseudo-channel: no tRC, tRRD, bank state
  cmds[3].pseudo_channel = 1;  // its data [22, 26) is on its own bus
  EXPECT_THAT(names(run(s, cmds)), IsEmpty()) << dump(run(s, cmds));
  cmds[1].pseudo_channel = 0;
  cmds[1].channel = 3;
  cmds[3].pseudo_channel = 0;
  cmds[3].channel = 3;
  EXPECT_THAT(names(run(s, cmds)), IsEmpty()) << dump(run(s, cmds));
}

// ---- Refresh schedule ----------------------------------------------------------------------
// REFI 1000, postpone_max 2: at most (2 + 1) * 1000 = 3000 clocks between REFab, and at any
// cycle t at least floor(t / 1000) - 2 REFab issued.

TEST(TimingChecker, RefabGapIsTREFI) {
  // Three REFab pulled in at 0, 50, 100; the next is due 100 + 3000 = 3100 at the latest.
  // The count rule holds there: floor(3100 / 1000) = 3 <= 3 credited + 2.
  const Spec s = one_rank_spec();
  const auto seq = [](std::uint64_t c) {
    return std::vector{refab(0), refab(50), refab(100), refab(c)};
  };
  EXPECT_THAT(names(run(s, seq(3101))), ElementsAre("tREFI"));
  EXPECT_THAT(names(run(s, seq(3100))), IsEmpty());
}

TEST(TimingChecker, TooManyPostponedIsRefreshCount) {
  // First REFab at 3000 (gap 3000, due floor(2999 / 1000) = 2 <= 0 + 2). The second may come
  // while floor((c - 1) / 1000) <= 1 + 2, i.e. c <= 4000, long before the 6000 gap limit.
  const Spec s = one_rank_spec();
  EXPECT_THAT(names(run(s, {refab(3000), refab(4001)})), ElementsAre("refresh_count"));
  EXPECT_THAT(names(run(s, {refab(3000), refab(4000)})), IsEmpty());
  // Late by both rules: 1000, 2000, then 5001 (gap 3001; floor(5000 / 1000) = 5 > 2 + 2).
  EXPECT_THAT(names(run(s, {refab(1000), refab(2000), refab(5001)})),
              UnorderedElementsAre("tREFI", "refresh_count"));
  EXPECT_THAT(names(run(s, {refab(1000), refab(2000), refab(5000)})), IsEmpty());
}

TEST(TimingChecker, PulledInRefreshesBeyondTheLimitDoNotCount) {
  // At most 2 pulled in: a REFab during [0, 1000) is the one due at 1000, plus 2 ahead, so of
  // REFab at 0..200 only 3 count. Then 3000 (4 credited) and 6000 (5). The next may come while
  // floor((c - 1) / 1000) <= 5 + 2, i.e. c <= 8000 (gap limit 9000). Five or three early
  // REFab give the same answer.
  const Spec s = one_rank_spec();
  for (const bool five : {true, false}) {
    const auto seq = [five](std::uint64_t c) {
      std::vector<CommandRecord> v = {refab(0), refab(50), refab(100)};
      if (five) {
        v.push_back(refab(150));
        v.push_back(refab(200));
      }
      for (std::uint64_t x : {std::uint64_t{3000}, std::uint64_t{6000}, c}) v.push_back(refab(x));
      return v;
    };
    EXPECT_THAT(names(run(s, seq(8001))), ElementsAre("refresh_count")) << five;
    EXPECT_THAT(names(run(s, seq(8000))), IsEmpty()) << five;
  }
}

TEST(TimingChecker, FinishChecksTheRefreshOfTheWholeRun) {
  const Spec s = one_rank_spec();
  // REFab at 1000: a REF at the end would be legal up to cycle 4000 (gap 3000, due
  // floor(3999 / 1000) = 3 <= 1 + 2).
  EXPECT_THAT(names(run(s, {refab(1000)}, 4000)), IsEmpty());
  EXPECT_THAT(names(run(s, {refab(1000)}, 4001)), UnorderedElementsAre("tREFI", "refresh_count"));
  // Count only: REFab at 3000, end 4001: floor(4000 / 1000) = 4 > 1 + 2; gap 1001.
  EXPECT_THAT(names(run(s, {refab(3000)}, 4001)), ElementsAre("refresh_count"));
  // Gap only: REFab at 0, 50, 100, end 3101: gap 3001; floor(3100 / 1000) = 3 <= 3 + 2.
  EXPECT_THAT(names(run(s, {refab(0), refab(50), refab(100)}, 3101)), ElementsAre("tREFI"));
  // An empty log of 3001 clocks: both ranks of the two-rank spec missed their refreshes.
  TimingChecker empty(checker_spec());
  empty.finish(3001);
  EXPECT_THAT(names(empty.violations()),
              ElementsAre("tREFI", "refresh_count", "tREFI", "refresh_count"));
  TimingChecker short_run(checker_spec());
  short_run.finish(3000);
  EXPECT_THAT(names(short_run.violations()), IsEmpty());
}

TEST(TimingChecker, FinishBeforeTheLastCommandIsCycleOrder) {
  const auto v = run(one_rank_spec(), {refab(100)}, 50);
  EXPECT_THAT(names(v), ElementsAre("cycle_order"));
}

TEST(TimingChecker, PerBankRefreshGapIsTREFIpb) {
  // Per bank one refresh per 8 * 125 = 1000 clocks, gap at most 3 * 1000.
  const Spec s = one_rank_spec();
  // REFpb to g0 b0 at 0 and c. Count at 3001: floor(3000 / 1000) = 3 <= 1 + 2.
  EXPECT_THAT(names(run(s, {refpb(0, 0, 0), refpb(3001, 0, 0)})), ElementsAre("tREFIpb"));
  EXPECT_THAT(names(run(s, {refpb(0, 0, 0), refpb(3000, 0, 0)})), IsEmpty());
  // Count: REFpb at 3000 (1 credited), next while floor((c - 1) / 1000) <= 3: c <= 4000.
  EXPECT_THAT(names(run(s, {refpb(3000, 0, 0), refpb(4001, 0, 0)})),
              ElementsAre("refresh_count_pb"));
  EXPECT_THAT(names(run(s, {refpb(3000, 0, 0), refpb(4000, 0, 0)})), IsEmpty());
}

TEST(TimingChecker, PerBankFinishCountsEveryBank) {
  // One REFpb to g0 b0 at 100 puts rank 0 in per-bank mode. At end 3001 the other 7 banks of
  // rank 0 have gone 3001 > 3000 clocks without refresh and have floor(3000 / 1000) = 3 > 0 +
  // 2 due; g0 b0 is fine (gap 2901, 3 <= 1 + 2). Rank 1 (all-bank mode) misses its REFab: 2.
  const auto v = run(checker_spec(), {refpb(100, 0, 0)}, 3001);
  EXPECT_EQ(v.size(), 7u * 2 + 2) << dump(v);
  unsigned pb = 0;
  for (const Violation& x : v) {
    if (x.constraint == "tREFIpb" || x.constraint == "refresh_count_pb") {
      ++pb;
      EXPECT_THAT(x.message, ::testing::Not(HasSubstr("bg 0 bank 0:"))) << x.message;
    }
  }
  EXPECT_EQ(pb, 14u);
}

TEST(TimingChecker, RefabRefreshesEveryBankInPerBankMode) {
  // REFpb g0 b0 at 0, REFab at 2500: every bank refreshed at 2500. End 4000: gap 1500 and
  // floor(3999 / 1000) = 3 <= credits + 2 (1 for most banks) for all. End 4001 breaks the count
  // of the 7 banks refreshed once (floor(4000 / 1000) = 4 > 3), not of g0 b0 (2 credited).
  const Spec s = one_rank_spec();
  EXPECT_THAT(names(run(s, {refpb(0, 0, 0), refab(2500)}, 4000)), IsEmpty());
  const auto v = run(s, {refpb(0, 0, 0), refab(2500)}, 4001);
  EXPECT_EQ(v.size(), 7u) << dump(v);
  for (const Violation& x : v) EXPECT_EQ(x.constraint, "refresh_count_pb");
}

// ---- Stream and address checks -----------------------------------------------------------

TEST(TimingChecker, DecreasingCycleIsCycleOrder) {
  const auto v = run(checker_spec(), {act(10, 0, 0, 0), act(9, 0, 0, 1)});
  EXPECT_THAT(names(v), ElementsAre("cycle_order")) << dump(v);
  EXPECT_EQ(v[0].line, 2u);
}

TEST(TimingChecker, OutOfRangeAddressesAreReported) {
  const Spec s = checker_spec();
  EXPECT_THAT(names(run(s, {act(0, 0, 0, 2)})), ElementsAre("address"));  // 2 ranks
  EXPECT_THAT(names(run(s, {act(0, 2, 0)})), ElementsAre("address"));     // 2 bank groups
  EXPECT_THAT(names(run(s, {act(0, 0, 4)})), ElementsAre("address"));     // 4 banks per group
  CommandRecord pc = act(0, 0, 0);
  pc.pseudo_channel = 1;  // 1 pseudo-channel
  EXPECT_THAT(names(run(s, {pc})), ElementsAre("address"));
  CommandRecord row = act(0, 0, 0);
  row.row = 1024;  // rows 0..1023
  EXPECT_THAT(names(run(s, {row})), ElementsAre("address"));
  CommandRecord col = rd(11, 0, 0);
  col.column = 128;  // columns 0..127
  EXPECT_THAT(names(run(s, {act(0, 0, 0), col})), ElementsAre("address"));
  // An ignored command leaves no state behind: the bank is still closed for the next ACT.
  EXPECT_THAT(names(run(s, {act(0, 0, 0, 2), act(1, 0, 0, 1), act(2, 0, 0, 0)})),
              ElementsAre("address"));
  // Rank-wide commands do not look at bank_group/bank.
  CommandRecord all = prea(0);
  all.bank_group = 99;
  EXPECT_THAT(names(run(s, {all})), IsEmpty());
}

TEST(TimingChecker, KeepsTheFirstNMessagesAndCountsAll) {
  TimingChecker checker(checker_spec(), 3);
  for (unsigned i = 0; i < 5; ++i) checker.check(rd(i * 10, 0, 0), i + 1);
  EXPECT_EQ(checker.violations().size(), 3u);
  EXPECT_EQ(checker.violation_count(), 5u);
  EXPECT_EQ(checker.violations_of(Constraint::kBankState), 5u);
  EXPECT_EQ(checker.checks_of(Constraint::kBankState), 5u);
  EXPECT_EQ(checker.violations()[2].line, 3u);
}

TEST(TimingChecker, MessageNamesCommandBankAndCycles) {
  const auto v = run(checker_spec(), {act(0, 1, 2), rd(10, 1, 2)});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].constraint, "tRCD_RD");
  EXPECT_EQ(v[0].cycle, 10u);
  EXPECT_THAT(v[0].message, HasSubstr("RD at cycle 10"));
  EXPECT_THAT(v[0].message, HasSubstr("bg 1 bank 2"));
  EXPECT_THAT(v[0].message, HasSubstr("needs cycle >= 11"));
  EXPECT_THAT(v[0].message, HasSubstr("ACT bg 1 bank 2 at cycle 0"));
}

TEST(TimingChecker, ConstraintNamesAreStable) {
  EXPECT_STREQ(constraint_name(Constraint::kRCD_RD), "tRCD_RD");
  EXPECT_STREQ(constraint_name(Constraint::kFAW), "tFAW");
  EXPECT_STREQ(constraint_name(Constraint::kDataBus), "data_bus");
  EXPECT_STREQ(constraint_name(Constraint::kRefreshCountPb), "refresh_count_pb");
  EXPECT_STREQ(constraint_name(Constraint::kClock), "clock");
  EXPECT_STREQ(constraint_name(Constraint::kCommandBusHeld), "command_bus_held");
}

TEST(TimingChecker, RejectsUnusableSpec) {
  Spec s = checker_spec();
  s.org.banks_per_group = 0;
  EXPECT_THROW(TimingChecker{s}, std::invalid_argument);
  s = checker_spec();
  s.timing.REFI = 0;
  EXPECT_THROW(TimingChecker{s}, std::invalid_argument);
}

// ---- Log files ---------------------------------------------------------------------------

class TimingCheckerLog : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("famsim_timing_checker_" + std::to_string(::getpid()) + ".csv"))
                .string();
  }
  void TearDown() override { std::remove(path_.c_str()); }
  void write(const std::string& text) { std::ofstream(path_) << text; }
  std::string path_;
};

const char* const kHeader =
    "cycle,time_ps,channel,pseudo_channel,rank,bank_group,bank,command,row,column\n";

TEST_F(TimingCheckerLog, GoodFileHasNoViolations) {
  write(std::string("# a comment before the header\n") + kHeader +
        "0,0,0,0,0,1,2,ACT,17,-\n"
        "# comment\n"
        "\n"
        "11,6875,0,0,0,1,2,RDA,-,8\n"
        "40,25000,0,0,0,1,2,ACT,18,-\n"
        "65,40625,0,0,0,-,-,PREA,-,-\n"
        "77,48125,0,0,0,-,-,REFab,-,-\n");
  const LogCheckResult res = check_log_file(path_, checker_spec());
  EXPECT_EQ(res.commands, 5u);
  EXPECT_EQ(res.last_cycle, 77u);
  EXPECT_EQ(res.violation_count, 0u);
  EXPECT_THAT(names(res.violations), IsEmpty()) << dump(res.violations);
  EXPECT_THAT(res.summary, HasSubstr("5 commands, 0 violations"));
}

// The log's format since the request column (famsim's logs): the checker ignores the column.
// The same commands as GoodFileHasNoViolations, with request ids and "-" where none, pass alike;
// a RD one clock before tRCD_RD (11 clocks in test_spec) is still found.
const char* const kHeaderWithRequest =
    "cycle,time_ps,channel,pseudo_channel,rank,bank_group,bank,command,row,column,request\n";

TEST_F(TimingCheckerLog, LogWithRequestColumnIsCheckedAlike) {
  write(std::string("# a comment before the header\n") + kHeaderWithRequest +
        "0,0,0,0,0,1,2,ACT,17,-,1099511627776\n"
        "11,6875,0,0,0,1,2,RDA,-,8,1099511627776\n"
        "40,25000,0,0,0,1,2,ACT,18,-,3\n"
        "65,40625,0,0,0,-,-,PREA,-,-,-\n"
        "77,48125,0,0,0,-,-,REFab,-,-,-\n");
  const LogCheckResult res = check_log_file(path_, checker_spec());
  EXPECT_EQ(res.commands, 5u);
  EXPECT_EQ(res.violation_count, 0u) << dump(res.violations);
  write(std::string(kHeaderWithRequest) +
        "0,0,0,0,0,0,0,ACT,1,-,4\n"
        "10,6250,0,0,0,0,0,RD,-,0,4\n");
  const LogCheckResult bad = check_log_file(path_, checker_spec());
  ASSERT_EQ(bad.violations.size(), 1u);
  EXPECT_EQ(bad.violations[0].constraint, "tRCD_RD");
  EXPECT_EQ(bad.violations[0].line, 3u);
}

// A line must have the fields its header names: 11 under the new header, 10 under the old.
TEST_F(TimingCheckerLog, LineMustMatchItsHeadersFormat) {
  write(std::string(kHeaderWithRequest) + "0,0,0,0,0,0,0,ACT,1,-\n");
  try {
    check_log_file(path_, checker_spec());
    FAIL() << "a 10-field line under the 11-column header was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr(":2: expected 11 comma-separated fields"));
  }
  write(std::string(kHeader) + "0,0,0,0,0,0,0,ACT,1,-,5\n");
  try {
    check_log_file(path_, checker_spec());
    FAIL() << "an 11-field line under the old header was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr(":2: expected 10 comma-separated fields"));
  }
}

TEST_F(TimingCheckerLog, ViolationCarriesTheFileLine) {
  write(std::string(kHeader) +
        "0,0,0,0,0,0,0,ACT,1,-\n"
        "# RD one clock before tRCD_RD\n"
        "10,6250,0,0,0,0,0,RD,-,0\n");
  const LogCheckResult res = check_log_file(path_, checker_spec());
  ASSERT_EQ(res.violations.size(), 1u);
  EXPECT_EQ(res.violations[0].constraint, "tRCD_RD");
  EXPECT_EQ(res.violations[0].line, 4u);
}

TEST_F(TimingCheckerLog, EndCycleChecksRefresh) {
  write(std::string(kHeader) + "0,0,0,0,0,-,-,REFab,-,-\n");
  // The second rank never refreshes: gap 3001 and floor(3000 / 1000) = 3 > 0 + 2 (rank 0:
  // floor(3000 / 1000) = 3 <= 1 + 2 but gap 3001 > 3000).
  const LogCheckResult res = check_log_file(path_, checker_spec(), 3001);
  EXPECT_THAT(names(res.violations), ElementsAre("tREFI", "tREFI", "refresh_count"));
}

TEST_F(TimingCheckerLog, BadLineNamesFileAndLine) {
  write(std::string(kHeader) + "0,0,0,0,0,0,0,ACT,1,-\n5,0,0,0,0,0,RD,-,0\n");
  try {
    check_log_file(path_, checker_spec());
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr(path_ + ":3: expected 10 comma-separated fields"));
  }
}

TEST_F(TimingCheckerLog, UnknownCommandNamesFileAndLine) {
  write(std::string(kHeader) + "0,0,0,0,0,0,0,NOP,-,-\n");
  try {
    check_log_file(path_, checker_spec());
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr(path_ + ":2: unknown command 'NOP'"));
  }
}

TEST_F(TimingCheckerLog, MissingHeaderOrFileThrows) {
  write("0,0,0,0,0,0,0,ACT,1,-\n");
  EXPECT_THROW(check_log_file(path_, checker_spec()), std::runtime_error);
  EXPECT_THROW(check_log_file(path_ + ".missing", checker_spec()), std::runtime_error);
}

// A directory opens and reads as an empty file would: say what it is, not "no header line".
TEST_F(TimingCheckerLog, DirectoryIsNotALog) {
  const std::string dir = std::filesystem::temp_directory_path().string();
  try {
    check_log_file(dir, checker_spec());
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr(dir + ": is a directory; expected a command log file"));
  }
}

// DDR5 same-bank refresh (JESD79-5 REFsb): bank `bank` of every bank group at once. The test spec
// as a DDR5 with 2 groups x 4 banks: REFsb every 125 clocks, tRFCsb 30, tREFSBRD 8.
Spec same_bank_spec() {
  Spec s = one_rank_spec();
  s.standard = Standard::kDDR5;
  s.timing.same_bank_refresh = true;
  s.timing.PBR2PBR = s.timing.RREFD;
  return s;
}
CommandRecord refsb(std::uint64_t c, unsigned bank, unsigned rank = 0) {
  return make(c, Command::kREFsb, 0, bank, rank);
}

TEST(TimingChecker, RefsbKeepsItsBankInEveryGroupForTRFCsb) {
  // REFsb of bank 2 at 0: bank 2 of group 1 (as of group 0) takes its ACT at 0 + 30.
  expect_earliest(
      same_bank_spec(),
      [](auto c) {
        return std::vector{refsb(0, 2), act(c, 1, 2)};
      },
      30, "tRFCpb");
}

TEST(TimingChecker, RefsbToActOfAnotherBankIsTREFSBRD) {
  expect_earliest(
      same_bank_spec(),
      [](auto c) {
        return std::vector{refsb(0, 2), act(c, 1, 3)};
      },
      8, "tRREFD");
  // ... and the next REFsb, of another bank index, as well.
  expect_earliest(
      same_bank_spec(),
      [](auto c) {
        return std::vector{refsb(0, 2), refsb(c, 3)};
      },
      8, "tRREFD");
}

TEST(TimingChecker, RefsbNeedsItsBankClosedInEveryGroup) {
  // Bank 1 of group 1 open (ACT at 0): a REFsb of bank 1 at 100 finds it open; after its PRE at
  // 50 (tRAS 25 passed) the REFsb waits tRP: 50 + 12.
  const auto open = run(same_bank_spec(), {act(0, 1, 1), refsb(100, 1)});
  EXPECT_THAT(names(open), ElementsAre("bank_state")) << dump(open);
  expect_earliest(
      same_bank_spec(),
      [](auto c) {
        return std::vector{act(0, 1, 1), pre(50, 1, 1), refsb(c, 1)};
      },
      62, "tRP");
}

TEST(TimingChecker, RefsbOnASpecWithSingleBankRefreshIsRefreshMode) {
  const auto v = run(one_rank_spec(), {refsb(0, 0)});
  EXPECT_THAT(names(v), ElementsAre("refresh_mode")) << dump(v);
  const auto w = run(same_bank_spec(), {refpb(0, 0, 0)});
  EXPECT_THAT(names(w), ElementsAre("refresh_mode")) << dump(w);
}

TEST(TimingChecker, RefsbCountsForEveryBankOfItsIndex) {
  // 4 bank indices x 125 = 500 clocks per bank; postpone_max 2. REFsb of indices 0..3 at 100,
  // 200, 300, 400, then none: at the end 1600 (last cycle covered 1599) floor(1599 / 500) = 3
  // refreshes fell due for every bank and each had 1 (3 <= 1 + 2 postponed: legal); the longest
  // gap, of index 0 (both groups), is 1600 - 100 = 1500 <= (2 + 1) x 500. One cycle later it is
  // 1501: too long for the two banks of index 0.
  std::vector<CommandRecord> cmds = {refsb(100, 0), refsb(200, 1), refsb(300, 2), refsb(400, 3)};
  const auto ok = run(same_bank_spec(), cmds, 1600);
  EXPECT_THAT(names(ok), IsEmpty()) << dump(ok);
  const auto gap = run(same_bank_spec(), cmds, 1601);
  EXPECT_THAT(names(gap), ElementsAre("tREFIpb", "tREFIpb")) << dump(gap);
  // At end 2001, floor(2000 / 500) = 4 fell due: 4 > 1 + 2 for every one of the 8 banks, and
  // the gap of bank index 0 (1901 > 1500) too.
  const auto late = run(same_bank_spec(), cmds, 2001);
  EXPECT_GE(late.size(), 8u) << dump(late);
  for (const Violation& x : late) {
    EXPECT_TRUE(x.constraint == "refresh_count_pb" || x.constraint == "tREFIpb") << x.message;
  }
}

TEST(CommandLog, RefsbRoundTripsWithoutABankGroup) {
  CommandRecord r = refsb(42, 3, 1);
  r.time_ps = 17472;
  std::ostringstream os;
  write_record(os, r);
  EXPECT_EQ(os.str(), "42,17472,0,0,1,-,3,REFsb,-,-,-\n");
  std::string error;
  const auto back = parse_record("42,17472,0,0,1,-,3,REFsb,-,-", error);
  ASSERT_TRUE(back.has_value()) << error;
  EXPECT_EQ(back->command, Command::kREFsb);
  EXPECT_EQ(back->rank, 1u);
  EXPECT_EQ(back->bank, 3u);
}

// The request column: an id written in decimal, "-" for none; parse_record reads both formats.
TEST(CommandLog, RequestColumnRoundTrips) {
  CommandRecord r = act(7, 1, 2);
  r.time_ps = 4375;
  r.row = 9;
  r.request = (std::uint64_t{3} << 40) | 12;  // GPU 3's request 12
  std::ostringstream os;
  write_record(os, r);
  EXPECT_EQ(os.str(), "7,4375,0,0,0,1,2,ACT,9,-,3298534883340\n");
  std::string error;
  const auto back = parse_record("7,4375,0,0,0,1,2,ACT,9,-,3298534883340", error);
  ASSERT_TRUE(back.has_value()) << error;
  EXPECT_EQ(back->request, r.request);
  const auto none = parse_record("7,4375,0,0,0,-,-,PREA,-,-,-", error);
  ASSERT_TRUE(none.has_value()) << error;
  EXPECT_EQ(none->request, kNoRequest);
  const auto old = parse_record("7,4375,0,0,0,1,2,ACT,9,-", error);
  ASSERT_TRUE(old.has_value()) << error;
  EXPECT_EQ(old->request, kNoRequest);
  EXPECT_FALSE(parse_record("7,4375,0,0,0,1,2,ACT,9,-,x", error).has_value());
  EXPECT_THAT(error, HasSubstr("field 'request' is 'x'"));
  EXPECT_FALSE(parse_record("7,4375,0,0,0,1,2,ACT,9,-,1,2", error).has_value());
  EXPECT_FALSE(parse_record("7,4375,0,0,0,1,2,ACT,9", error).has_value());
}

// A field that does not fit its record is refused, not cut to its low bits (rank 2^32 + 1 read as
// rank 1), nor a number where the writer puts '-' ignored.
TEST(CommandLog, FieldsOutOfRangeOrNotApplicableAreRefused) {
  std::string error;
  auto refused = [&](const std::string& line, const std::string& what) {
    error.clear();
    EXPECT_FALSE(parse_record(line, error).has_value()) << line;
    EXPECT_THAT(error, HasSubstr(what)) << line;
  };
  refused("0,0,0,0,4294967297,0,0,ACT,1,-",
          "field 'rank' is '4294967297', expected an unsigned "
          "integer of at most 4294967295");
  refused("0,0,0,0,0,0,0,ACT,4294970594,-", "field 'row'");
  refused("0,0,4294967296,0,0,0,0,ACT,1,-", "field 'channel'");
  // 2^48 ps, past famsim's longest run: cycle x tCK could wrap 64 bits further on.
  refused("281474976710656,0,0,0,0,0,0,ACT,1,-", "field 'cycle'");
  refused("0,18446744073709551615,0,0,0,0,0,ACT,1,-", "field 'time_ps'");
  refused("0,0,0,0,0,0,0,PRE,7,-", "field 'row' is '7', expected '-': PRE has no row");
  refused("0,0,0,0,0,0,0,RD,3,0", "field 'row'");
  refused("0,0,0,0,0,2,1,PREA,-,-", "field 'bank_group' is '2', expected '-'");
  refused("0,0,0,0,0,0,0,ACT,1,5", "field 'column' is '5', expected '-': ACT has no column");
  // The largest values that fit still parse.
  const auto ok = parse_record("281474976710655,1,0,4294967295,0,0,0,ACT,4294967295,-", error);
  ASSERT_TRUE(ok.has_value()) << error;
  EXPECT_EQ(ok->pseudo_channel, 4294967295u);
  EXPECT_EQ(ok->row, 4294967295u);
}
}  // namespace
}  // namespace famsim::dram
