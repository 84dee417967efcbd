#include "models/memory/dram/channel_state.h"

#include <algorithm>

namespace famsim::dram {

ChannelState::ChannelState(const Spec& spec)
    : banks_(static_cast<std::size_t>(spec.org.ranks) * spec.org.banks()),
      groups_(static_cast<std::size_t>(spec.org.ranks) * spec.org.bank_groups),
      ranks_(spec.org.ranks),
      org_(spec.org),
      t_(spec.timing) {
  for (unsigned c = 0; c < kCommandCount; ++c) {
    command_clocks_[c] = static_cast<std::uint8_t>(spec.command_clocks(static_cast<Command>(c)));
  }
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

}  // namespace famsim::dram
