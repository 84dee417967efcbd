#include "models/memory/dram/channel_state.h"

#include <algorithm>

namespace famsim::dram {

ChannelState::ChannelState(const Spec& spec)
    : org_(spec.org),
      t_(spec.timing),
      banks_(static_cast<std::size_t>(spec.org.ranks) * spec.org.banks()),
      groups_(static_cast<std::size_t>(spec.org.ranks) * spec.org.bank_groups),
      ranks_(spec.org.ranks) {
  for (unsigned c = 0; c < kCommandCount; ++c) {
    command_clocks_[c] = static_cast<std::uint8_t>(spec.command_clocks(static_cast<Command>(c)));
  }
}

std::uint64_t ChannelState::bus_ready(unsigned rank, unsigned latency) const {
  // The burst starts `latency` clocks after the command; it must start after the bus is free,
  // plus the rank-to-rank switch time when another rank drove the last burst.
  const std::uint64_t free = bus_free_ + (rank != bus_rank_ ? t_.RTRS : 0);
  return free > latency ? free - latency : 0;
}

void ChannelState::occupy_bus(unsigned rank, std::uint64_t start) {
  bus_free_ = start + t_.burst;
  bus_rank_ = rank;
}

void ChannelState::update_act_ready(unsigned rank) {
  Rank& r = ranks_[rank];
  r.act_ready = r.act;
  if (r.acts >= 4) r.act_ready = std::max(r.act_ready, r.faw[r.faw_next] + t_.FAW);
}

void ChannelState::update_column_ready(unsigned rank) {
  Rank& r = ranks_[rank];
  r.rd_ready = std::max(r.rd, bus_ready(rank, t_.CL));
  r.wr_ready = std::max(r.wr, bus_ready(rank, t_.CWL));
}

void ChannelState::shift(std::uint64_t delta) {
  for (Bank& b : banks_) {
    for (std::uint64_t* v : {&b.act, &b.rd, &b.wr, &b.pre}) *v += delta;
  }
  for (Group& g : groups_) {
    for (std::uint64_t* v : {&g.act, &g.rd, &g.wr}) *v += delta;
  }
  for (Rank& r : ranks_) {
    for (std::uint64_t* v :
         {&r.act, &r.rd, &r.wr, &r.pre, &r.refpb, &r.act_ready, &r.rd_ready, &r.wr_ready}) {
      *v += delta;
    }
    for (std::uint64_t& f : r.faw) f += delta;
  }
  bus_free_ += delta;
  command_bus_free_ += delta;
}

bool ChannelState::same_relative(std::uint64_t now, const ChannelState& other,
                                 std::uint64_t other_now, std::uint64_t horizon) const {
  // A cycle's distance ahead of now - horizon, 0 for anything at or before it.
  const auto ahead = [horizon](std::uint64_t v, std::uint64_t at) {
    return v + horizon > at ? v + horizon - at : 0;
  };
  const auto same = [&](std::uint64_t a, std::uint64_t b) {
    return ahead(a, now) == ahead(b, other_now);
  };
  if (banks_.size() != other.banks_.size() || ranks_.size() != other.ranks_.size() ||
      bus_rank_ != other.bus_rank_ || !same(bus_free_, other.bus_free_) ||
      !same(command_bus_free_, other.command_bus_free_)) {
    return false;
  }
  for (std::size_t i = 0; i < banks_.size(); ++i) {
    const Bank &a = banks_[i], &b = other.banks_[i];
    if (a.open != b.open || a.row != b.row || !same(a.act, b.act) || !same(a.rd, b.rd) ||
        !same(a.wr, b.wr) || !same(a.pre, b.pre)) {
      return false;
    }
  }
  for (std::size_t i = 0; i < groups_.size(); ++i) {
    const Group &a = groups_[i], &b = other.groups_[i];
    if (!same(a.act, b.act) || !same(a.rd, b.rd) || !same(a.wr, b.wr)) return false;
  }
  for (std::size_t i = 0; i < ranks_.size(); ++i) {
    const Rank &a = ranks_[i], &b = other.ranks_[i];
    if (a.faw_next != b.faw_next || a.acts != b.acts || a.open_banks != b.open_banks ||
        !same(a.act, b.act) || !same(a.rd, b.rd) || !same(a.wr, b.wr) || !same(a.pre, b.pre) ||
        !same(a.refpb, b.refpb) || !same(a.act_ready, b.act_ready) ||
        !same(a.rd_ready, b.rd_ready) || !same(a.wr_ready, b.wr_ready)) {
      return false;
    }
    for (std::size_t k = 0; k < a.faw.size(); ++k) {
      if (!same(a.faw[k], b.faw[k])) return false;
    }
  }
  return true;
}

std::uint64_t ChannelState::rule_horizon() const {
  std::uint64_t h = 0;
  for (unsigned v : {t_.burst, t_.CL,    t_.CWL,   t_.RCD_RD, t_.RCD_WR, t_.RP,       t_.RAS,
                     t_.RC,    t_.RTP,   t_.WR,    t_.CCD_S,  t_.CCD_L,  t_.CCD_L_WR, t_.RRD_S,
                     t_.RRD_L, t_.FAW,   t_.WTR_S, t_.WTR_L,  t_.RTW,    t_.RTRS,     t_.PPD,
                     t_.RFC,   t_.RFCpb, t_.RREFD, t_.PBR2PBR}) {
    h += v;
  }
  return h;
}

std::uint64_t ChannelState::earliest_rank_wide(Command cmd, const Coord& c) const {
  const Rank& r = ranks_[c.rank];
  switch (cmd) {
    case Command::kPREA: {
      std::uint64_t e = r.pre;
      const unsigned first = c.rank * org_.banks();
      // Closed banks count too: a precharge to a closed bank still waits for its tRAS / tRTP /
      // tWR (JEDEC "Precharge & Auto Precharge clarification": the precharge period counts from
      // the latest precharge to the bank).
      for (unsigned b = first; b < first + org_.banks(); ++b) e = std::max(e, banks_[b].pre);
      return e;
    }
    case Command::kREFab: {
      // Every bank closed and past its tRP / tRC / tRFC: the same "not before" as an ACT.
      std::uint64_t e = r.refpb;
      const unsigned first = c.rank * org_.banks();
      for (unsigned b = first; b < first + org_.banks(); ++b) e = std::max(e, banks_[b].act);
      return e;
    }
    case Command::kREFpb: {
      // A per-bank refresh activates rows of its bank: the ACT-to-ACT spacing (tRRD) applies.
      const Group& g = group(c);
      return std::max({banks_[flat_bank(c)].act, r.refpb, r.act, g.act});
    }
    case Command::kREFsb: {
      // The same, for bank c.bank of every group: each must be closed and past its tRP / tRC /
      // tRFCsb, and the refresh's activations keep every group's tRRD_L.
      std::uint64_t e = std::max(r.refpb, r.act);
      for (unsigned g = 0; g < org_.bank_groups; ++g) {
        Coord b = c;
        b.bank_group = static_cast<std::uint16_t>(g);
        e = std::max({e, banks_[flat_bank(b)].act, group(b).act});
      }
      return e;
    }
    default:
      break;
  }
  return earliest(cmd, c);
}

void ChannelState::close(unsigned flat, unsigned rank, std::uint64_t precharge_cycle) {
  Bank& b = banks_[flat];
  if (!b.open) return;
  b.open = false;
  b.act = std::max(b.act, precharge_cycle + t_.RP);
  --ranks_[rank].open_banks;
}

void ChannelState::issue(Command cmd, const Coord& c, std::uint64_t cycle) {
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
