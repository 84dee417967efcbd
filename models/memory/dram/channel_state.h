// State of one modelled DRAM channel as its controller sees it: every bank's state (closed, open
// with a row, refreshing) and, for every command, the earliest cycle at which the JEDEC timing
// rules allow it. No SystemC in it.
//
// Each rule "command B may follow command A after t clocks" is kept as a "not before" cycle at the
// scope the rule covers, raised when A issues:
//   bank        ACT->ACT tRC, ACT->RD tRCD_RD, ACT->WR tRCD_WR, ACT->PRE tRAS, PRE->ACT tRP,
//               RD->PRE tRTP, WR->PRE CWL+tBL+tWR, REFab->ACT tRFC, REFpb->ACT tRFCpb
//   bank group  ACT->ACT tRRD_L, RD->RD tCCD_L, WR->WR tCCD_L_WR, WR->RD CWL+tBL+tWTR_L
//   rank        ACT->ACT tRRD_S, four-activate window tFAW, RD->RD and WR->WR tCCD_S,
//               WR->RD CWL+tBL+tWTR_S, RD->WR tRTW, PRE->PRE tPPD, REFpb->ACT tRREFD,
//               REFpb->REFpb tPBR2PBR (LPDDR5X; tRREFD elsewhere); DDR5 REFsb as REFpb on
//               bank `bank` of every group, with tRFCsb and tREFSBRD
//   channel     one data bus: bursts never overlap, and bursts of different ranks leave tRTRS;
//               one command bus: a command holds it for Spec::command_clocks() clocks (DDR5 ACT,
//               RD, WR: 2, JESD79-5 section 4.1), kept as command_bus_free(), which earliest()
//               leaves to the caller (a controller issues one command at a time anyway)
// The earliest cycle of a command is the maximum over the scopes it belongs to (JESD79-4
// section 13, JESD79-5 section 9, JESD238 section 7 define the rules; the scoping follows them).
// Auto-precharge (RDA/WRA) closes the bank at the cycle an explicit PRE could have issued.
#pragma once

#include "models/memory/dram/dram_command.h"
#include "models/memory/dram/dram_spec.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace famsim::dram {

// A burst's place in the channel.
struct Coord {
  std::uint16_t rank = 0;
  std::uint16_t bank_group = 0;
  std::uint16_t bank = 0;  // within its group
  std::uint32_t row = 0;
  std::uint32_t column = 0;
};

class ChannelState {
 public:
  explicit ChannelState(const Spec& spec);

  // Bank index over the whole channel: rank-major, then group, then bank.
  unsigned flat_bank(const Coord& c) const {
    return (c.rank * org_.bank_groups + c.bank_group) * org_.banks_per_group + c.bank;
  }
  unsigned banks_total() const { return static_cast<unsigned>(banks_.size()); }
  unsigned banks_per_rank() const { return org_.banks(); }

  bool is_open(unsigned flat) const { return banks_[flat].open; }
  std::uint32_t open_row(unsigned flat) const { return banks_[flat].row; }
  // Banks of `rank` with a row open.
  unsigned open_banks(unsigned rank) const { return ranks_[rank].open_banks; }

  // The earliest cycle at which `cmd` to `c` satisfies every timing rule (bank-state rules are
  // the caller's: ACT to a closed bank, column commands to the open row, REFab with all banks of
  // the rank closed). For PREA and REFab only c.rank matters.
  std::uint64_t earliest(Command cmd, const Coord& c) const {
    // The common commands inline: the scheduler asks for every waiting bank on every decision.
    const Rank& r = ranks_[c.rank];
    switch (cmd) {
      case Command::kACT:
        return max3(banks_[flat_bank(c)].act, group(c).act, r.act_ready);
      case Command::kRD:
      case Command::kRDA:
        return max3(banks_[flat_bank(c)].rd, group(c).rd, r.rd_ready);
      case Command::kWR:
      case Command::kWRA:
        return max3(banks_[flat_bank(c)].wr, group(c).wr, r.wr_ready);
      case Command::kPRE: {
        const std::uint64_t b = banks_[flat_bank(c)].pre;
        return b > r.pre ? b : r.pre;
      }
      default:
        return earliest_rank_wide(cmd, c);
    }
  }
  // Where earliest() finds its "not before" cycles for ACT, RD/RDA, WR/WRA and PRE: the earliest
  // cycle is the largest of the three, and issue() keeps them current. at[0] is the bank's own,
  // which only a command to that bank (or a rank-wide PREA / REF) changes; at[1] and at[2] are
  // shared by its group and rank. A scheduler that asks the same question of many banks at every
  // decision reads them directly instead of dispatching on the command each time. Valid for the
  // life of this object.
  struct Slots {
    const std::uint64_t* at[3];
  };
  Slots slots(Command cmd, const Coord& c) const {
    const Rank& r = ranks_[c.rank];
    const Bank& b = banks_[flat_bank(c)];
    switch (cmd) {
      case Command::kACT:
        return {{&b.act, &group(c).act, &r.act_ready}};
      case Command::kRD:
      case Command::kRDA:
        return {{&b.rd, &group(c).rd, &r.rd_ready}};
      case Command::kWR:
      case Command::kWRA:
        return {{&b.wr, &group(c).wr, &r.wr_ready}};
      case Command::kPRE:
        return {{&b.pre, &r.pre, &kZero}};
      default:
        throw std::logic_error("ChannelState::slots: rank-wide command");
    }
  }

  static std::uint64_t max3(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
    const std::uint64_t m = a > b ? a : b;
    return m > c ? m : c;
  }

  // Records `cmd` issued at `cycle` (>= earliest(cmd, c)).
  void issue(Command cmd, const Coord& c, std::uint64_t cycle);

  // Time translation: every cycle the state holds moves `delta` later, as if every command so far
  // had issued `delta` cycles later (ControllerCore's idle fast-forward).
  void shift(std::uint64_t delta);
  // Whether this state at cycle `now` constrains every command from then on as `other` does from
  // cycle `other_now`: the same banks open on the same rows, the same ACT-window and bus owner,
  // and every "not before" cycle the same distance from its now, where a cycle `horizon` or more
  // before its now counts as long past (no rule adds more than `horizon` cycles to one).
  bool same_relative(std::uint64_t now, const ChannelState& other, std::uint64_t other_now,
                     std::uint64_t horizon) const;
  // A bound on what any timing rule adds to a command's cycle: the sum of every timing value but
  // the refresh intervals.
  std::uint64_t rule_horizon() const;

  // The first cycle the command bus is free again after the last command: its cycle plus the
  // clocks it holds the bus (Spec::command_clocks()). No command may issue before it.
  std::uint64_t command_bus_free() const { return command_bus_free_; }

  // Cycle at which the data burst of a column command issued at `cycle` ends.
  std::uint64_t data_end(Command cmd, std::uint64_t cycle) const {
    return cycle + (is_read(cmd) ? t_.CL : t_.CWL) + t_.burst;
  }
  // The fewest cycles from a column command to the end of its data: data_end(cmd, c) >= c + this
  // for every command.
  std::uint64_t min_data_delay() const { return (t_.CL < t_.CWL ? t_.CL : t_.CWL) + t_.burst; }

 private:
  struct Bank {
    std::uint64_t act = 0, rd = 0, wr = 0, pre = 0;
    std::uint32_t row = 0;
    bool open = false;
  };
  struct Group {
    std::uint64_t act = 0, rd = 0, wr = 0;
  };
  // What most commands and every scheduling look read first, on one cache line (a column command
  // updates every rank's rd_ready and wr_ready); the ACT window after it. With many channels busy
  // a channel's ranks are out of the L1 cache at each decision: a line each time.
  struct Rank {
    // Derived, kept current by issue(): act with tFAW; rd and wr with the data bus.
    alignas(64) std::uint64_t act_ready = 0;
    std::uint64_t rd_ready = 0, wr_ready = 0;
    std::uint64_t act = 0, rd = 0, wr = 0, pre = 0;
    unsigned open_banks = 0;
    unsigned faw_next = 0;
    std::array<std::uint64_t, 4> faw{};  // cycles of the last four ACTs (ring)
    std::uint64_t refpb = 0;
    unsigned acts = 0;  // ACTs so far, saturating at 4
  };
  static_assert(sizeof(Rank) == 128, "a rank's state is two cache lines");

  Group& group(const Coord& c) { return groups_[c.rank * org_.bank_groups + c.bank_group]; }
  const Group& group(const Coord& c) const {
    return groups_[c.rank * org_.bank_groups + c.bank_group];
  }
  static constexpr std::uint64_t kZero = 0;
  std::uint64_t earliest_rank_wide(Command cmd, const Coord& c) const;
  // Refresh a rank's derived "ready" values: act_ready after its ACT timing changed (r.act, the
  // tFAW window), rd_ready and wr_ready after its column timing or the data bus did.
  void update_act_ready(unsigned rank);
  void update_column_ready(unsigned rank);
  void close(unsigned flat, unsigned rank, std::uint64_t precharge_cycle);
  // The first cycle a burst of `rank` may start on the data bus.
  std::uint64_t bus_free_for(unsigned rank) const;
  void occupy_bus(unsigned rank, std::uint64_t start);

  // Every command reads the first two cache lines from here and two of the timing values: with
  // many channels busy a channel's state is out of the L1 cache at each decision, and a line
  // touched is a miss. (Unaligned and in declaration order the same members spread over six.)
  alignas(64) std::vector<Bank> banks_;
  std::vector<Group> groups_;
  // The command bus: when the last command lets go of it, and the clocks each command holds it
  // (by Command).
  std::uint64_t command_bus_free_ = 0;
  // The data bus: end of the last burst and the rank that drove it.
  std::uint64_t bus_free_ = 0;
  std::vector<Rank> ranks_;
  unsigned bus_rank_ = 0;
  std::array<std::uint8_t, kCommandCount> command_clocks_{};
  Organization org_;
  alignas(64) Timing t_;
};

// issue() and the helpers it uses, defined here so that they inline into ControllerCore::issue():
// a call into channel_state.cpp per DRAM command cost the call and the registers saved around it.
// issue() is forced inline (one call site): GCC otherwise kept it out of line, which saved nothing.
inline std::uint64_t ChannelState::bus_free_for(unsigned rank) const {
  // After the last burst, plus the rank-to-rank switch time when another rank drove it.
  return bus_free_ + (rank != bus_rank_ ? t_.RTRS : 0);
}

inline void ChannelState::occupy_bus(unsigned rank, std::uint64_t start) {
  bus_free_ = start + t_.burst;
  bus_rank_ = rank;
}

inline void ChannelState::update_act_ready(unsigned rank) {
  Rank& r = ranks_[rank];
  r.act_ready = r.act;
  if (r.acts >= 4) r.act_ready = std::max(r.act_ready, r.faw[r.faw_next] + t_.FAW);
}

inline void ChannelState::update_column_ready(unsigned rank) {
  Rank& r = ranks_[rank];
  // A column command's burst starts CL (reads) or CWL (writes) clocks after it, when the bus is
  // free. The bus read once for both: the store to rd_ready in between would otherwise have the
  // compiler read it again.
  const std::uint64_t free = bus_free_for(rank);
  const unsigned cl = t_.CL, cwl = t_.CWL;
  r.rd_ready = std::max(r.rd, free > cl ? free - cl : 0);
  r.wr_ready = std::max(r.wr, free > cwl ? free - cwl : 0);
}

inline void ChannelState::close(unsigned flat, unsigned rank, std::uint64_t precharge_cycle) {
  Bank& b = banks_[flat];
  if (!b.open) return;
  b.open = false;
  b.act = std::max(b.act, precharge_cycle + t_.RP);
  --ranks_[rank].open_banks;
}

[[gnu::always_inline]] inline void ChannelState::issue(Command cmd, const Coord& c,
                                                       std::uint64_t cycle) {
  command_bus_free_ = cycle + command_clocks_[static_cast<unsigned>(cmd)];
  // Each case records its command, then refreshes the derived "ready" values of the ranks that
  // the command changed, and only those: a column command moves the data bus, which every rank's
  // column timing depends on, and changes no ACT timing; an ACT or a bank refresh changes its
  // rank's ACT timing (tRRD, tFAW, tRREFD) and no column timing; a PRE, PREA or REFab changes
  // neither. One switch in one function: recording in a function of its own and switching again
  // for the derived values cost a call and a second dispatch per command (about 18 instructions,
  // 0.5 % of famsim bench).
  Rank& r = ranks_[c.rank];
  switch (cmd) {
    case Command::kACT: {
      Bank& b = banks_[flat_bank(c)];
      Group& g = group(c);
      b.open = true;
      b.row = c.row;
      ++r.open_banks;
      b.act = std::max(b.act, cycle + t_.RC);
      b.rd = std::max(b.rd, cycle + t_.RCD_RD);
      b.wr = std::max(b.wr, cycle + t_.RCD_WR);
      b.pre = std::max(b.pre, cycle + t_.RAS);
      g.act = std::max(g.act, cycle + t_.RRD_L);
      r.act = std::max(r.act, cycle + t_.RRD_S);
      r.faw[r.faw_next] = cycle;
      r.faw_next = (r.faw_next + 1) & 3;
      if (r.acts < 4) ++r.acts;
      update_act_ready(c.rank);
      return;
    }
    case Command::kRD:
    case Command::kRDA: {
      const unsigned f = flat_bank(c);
      Bank& b = banks_[f];
      Group& g = group(c);
      g.rd = std::max(g.rd, cycle + t_.CCD_L);
      r.rd = std::max(r.rd, cycle + t_.CCD_S);
      r.wr = std::max(r.wr, cycle + t_.RTW);
      b.pre = std::max(b.pre, cycle + t_.RTP);
      occupy_bus(c.rank, cycle + t_.CL);
      if (cmd == Command::kRDA) close(f, c.rank, b.pre);
      for (unsigned k = 0; k < ranks_.size(); ++k) update_column_ready(k);
      return;
    }
    case Command::kWR:
    case Command::kWRA: {
      const unsigned f = flat_bank(c);
      Bank& b = banks_[f];
      Group& g = group(c);
      g.wr = std::max(g.wr, cycle + t_.CCD_L_WR);
      r.wr = std::max(r.wr, cycle + t_.CCD_S);
      g.rd = std::max(g.rd, cycle + t_.write_to_read_l());
      r.rd = std::max(r.rd, cycle + t_.write_to_read_s());
      b.pre = std::max(b.pre, cycle + t_.write_to_precharge());
      occupy_bus(c.rank, cycle + t_.CWL);
      if (cmd == Command::kWRA) close(f, c.rank, b.pre);
      for (unsigned k = 0; k < ranks_.size(); ++k) update_column_ready(k);
      return;
    }
    case Command::kPRE:
      close(flat_bank(c), c.rank, cycle);
      if (t_.PPD) r.pre = std::max(r.pre, cycle + t_.PPD);
      return;
    case Command::kPREA: {
      const unsigned first = c.rank * org_.banks();
      for (unsigned b = first; b < first + org_.banks(); ++b) {
        close(b, c.rank, cycle);
        banks_[b].act = std::max(banks_[b].act, cycle + t_.RP);  // restarts tRP of closed banks
      }
      if (t_.PPD) r.pre = std::max(r.pre, cycle + t_.PPD);
      return;
    }
    case Command::kREFab: {
      const unsigned first = c.rank * org_.banks();
      for (unsigned b = first; b < first + org_.banks(); ++b) {
        banks_[b].act = std::max(banks_[b].act, cycle + t_.RFC);
      }
      return;
    }
    case Command::kREFpb:
    case Command::kREFsb: {
      // REFpb refreshes one bank, REFsb bank c.bank of every group: nothing reaches them during
      // tRFCpb (tRFCsb).
      const unsigned groups = cmd == Command::kREFsb ? org_.bank_groups : 1;
      for (unsigned g = 0; g < groups; ++g) {
        Coord bc = c;
        if (cmd == Command::kREFsb) bc.bank_group = static_cast<std::uint16_t>(g);
        Bank& b = banks_[flat_bank(bc)];
        b.act = std::max(b.act, cycle + t_.RFCpb);
        b.pre = std::max(b.pre, cycle + t_.RFCpb);
      }
      if (t_.RREFD) r.act = std::max(r.act, cycle + t_.RREFD);
      const unsigned to_next_refpb = t_.PBR2PBR ? t_.PBR2PBR : t_.RREFD;
      r.refpb = std::max(r.refpb, cycle + to_next_refpb);
      update_act_ready(c.rank);
      return;
    }
  }
}

}  // namespace famsim::dram
