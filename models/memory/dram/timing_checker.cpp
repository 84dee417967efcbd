#include "models/memory/dram/timing_checker.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <ostream>
#include <regex>
#include <sstream>
#include <stdexcept>

// Sources of the rules, cited by section or table title of JESD79-4 (DDR4) because section
// numbers move between revisions; the same rule appears in JESD79-5 (DDR5), JESD209-5
// (LPDDR5/5X) and JESD238 (HBM3) under the same parameter name.
// - Bank state machine: "Simplified State Diagram" and the command truth table (ACTIVATE only to
//   an idle bank; READ/WRITE only to an active bank; REFRESH with all banks idle).
// - Same-bank timing (tRC, tRCD, tRAS, tRP, tRTP, tWR) and the table "Precharge & Auto
//   Precharge clarification": RD(A) -> PRE >= AL + tRTP, WR(A) -> PRE >= WL + BL/2 + tWR,
//   PRE -> PRE same bank legal, note 1 "the precharge period is counted from the latest
//   precharge command issued to that bank".
// - Auto-precharge ("Auto Precharge Operation"): the internal precharge starts at the earliest
//   cycle an explicit PRE would be legal (tRTP/tWR after the column command, not before tRAS
//   after the ACT; LPDDR datasheets: "as if an explicit PRECHARGE command was issued at the
//   earliest possible time").
// - Same-rank spacing (tRRD_S/L, tFAW, tCCD_S/L, tWTR_S/L): "Timing Parameters by Speed Bin"
//   tables, "different/same bank group"; tCCD_L_WR: JESD79-5 timing tables.
// - Refresh (tRFC, tREFI, postponing/pulling in up to 8 REF): "Refresh Command". Per-bank
//   refresh (tRFCpb, REFpb -> ACT/REFpb other bank, ACT -> REFpb tRRD, REFpb -> REFab tRFCpb):
//   LPDDR family (JESD209-2/4/5 "REFRESH command scheduling separation requirements"); tRREFD:
//   JESD238; tPPD: JESD209-5 / JESD238. DDR5 same-bank refresh (JESD79-5 "Same Bank Refresh"):
//   REFsb refreshes bank BA of every bank group, each of which must be precharged; it is checked
//   as a per-bank refresh of each of those banks, with tRFCsb as tRFCpb and tREFSBRD (REFsb ->
//   ACT or REFsb of another bank index) as tRREFD.
// - Command bus: one command per clock (per bus on HBM3, JESD238 row and column command buses);
//   DDR5's 2-cycle commands (JESD79-5 section 4.1, Command Truth Table: ACT, RD, RDA, WR, WRA,
//   sent over two clocks of the CA bus) hold it for their second clock as well, so the next
//   command starts two clocks after one of them at the earliest (command_bus_clocks()).

namespace famsim::dram {

namespace {

// Six names a line, in the enum's order.
// clang-format off
constexpr std::array<const char*, kConstraintCount> kConstraintNames = {
    "cycle_order", "address",     "bank_state", "refresh_mode", "tRC",           "tRCD_RD",
    "tRCD_WR",     "tRAS",        "tRP",        "tRTP",         "tWR",           "tRRD_L",
    "tRRD_S",      "tFAW",        "tCCD_L",     "tCCD_S",       "tCCD_L_WR",     "tWTR_L",
    "tWTR_S",      "tRTW",        "tPPD",       "tRFC",         "tRFCpb",        "tRREFD",
    "data_bus",    "tRTRS",       "tREFI",      "tREFIpb",      "refresh_count", "refresh_count_pb",
    "tPBR2PBR",    "command_bus", "clock",      "command_bus_held"};
// clang-format on

constexpr unsigned kNumCommands = kCommandCount;

}  // namespace

// The state's parts below are members of TimingChecker's state types, so they are not in an
// anonymous namespace (GCC's -Wsubobject-linkage when this file is part of a unity build).
namespace timing_state {

// Refresh bookkeeping of one refresh unit: a rank (all-bank refresh) or a bank (per-bank).
// Refresh number k is nominally due at k * interval (k = 1, 2, ...); the start of the log counts
// as a refresh point, as after initialisation.
struct RefreshTracker {
  std::uint64_t last = 0;     // cycle of the last refresh of the unit (0: start of the log)
  std::uint64_t credits = 0;  // refreshes that count towards the schedule (pull-in capped)
};

// A cycle at which something happened, and to which bank (flat index, -1 for a rank).
struct Stamp {
  bool seen = false;
  std::uint64_t cycle = 0;
  int bank = -1;
};

// One data burst on the channel's data bus, [start, end) in clocks.
struct Burst {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint64_t issued = 0;
  unsigned rank = 0;
  int bank = -1;
  Command command = Command::kRD;
};

}  // namespace timing_state

using timing_state::Burst;
using timing_state::RefreshTracker;
using timing_state::Stamp;

namespace {

unsigned flat_bank(const CommandRecord& r, const Organization& org) {
  return r.bank_group * org.banks_per_group + r.bank;
}

std::string bank_text(int flat, const Organization& org) {
  if (flat < 0) return "";
  const unsigned f = static_cast<unsigned>(flat);
  return fmt::format(" bg {} bank {}", f / org.banks_per_group, f % org.banks_per_group);
}

// "ACT at cycle 100 to ch 0 pc 0 rank 0 bg 1 bank 2"
std::string command_text(const CommandRecord& r, const Organization& org) {
  const int bank = is_rank_wide(r.command) ? -1 : static_cast<int>(flat_bank(r, org));
  return fmt::format("{} at cycle {} to ch {} pc {} rank {}{}", to_string(r.command), r.cycle,
                     r.channel, r.pseudo_channel, r.rank, bank_text(bank, org));
}

}  // namespace

const char* constraint_name(Constraint c) { return kConstraintNames.at(static_cast<unsigned>(c)); }

// The earliest cycle a rule allows the next command, and the command that set it (for the
// message). Rules from several earlier commands combine by taking the latest bound.
struct TimingChecker::Bound {
  std::uint64_t earliest = 0;  // 0: nothing constrains yet
  std::uint64_t from_cycle = 0;
  Command from = Command::kACT;
  int from_bank = -1;

  static Bound at(std::uint64_t earliest, std::uint64_t cycle, Command cmd, int bank) {
    return Bound{earliest, cycle, cmd, bank};
  }
  void raise(const Bound& other) {
    if (other.earliest > earliest) *this = other;
  }
  void raise(std::uint64_t at_cycle, std::uint64_t cycle, Command cmd, int bank) {
    raise(at(at_cycle, cycle, cmd, bank));
  }
};

struct TimingChecker::BankState {
  bool open = false;
  std::uint64_t opened_at = 0;
  Bound act_rc;      // ACT + RC: next ACT
  Bound act_rp;      // latest precharge (explicit or automatic) + RP: next ACT or REF
  Bound rd_rcd;      // ACT + RCD_RD: first RD
  Bound wr_rcd;      // ACT + RCD_WR: first WR
  Bound pre_ras;     // ACT + RAS: first PRE
  Bound pre_rtp;     // RD + RTP: first PRE
  Bound pre_wr;      // WR + CWL + burst + WR: first PRE
  Bound refpb_busy;  // REFpb + RFCpb: any command to the bank, and REFab
  RefreshTracker refresh;
};

struct TimingChecker::RankState {
  std::vector<BankState> banks;  // flat index bank_group * banks_per_group + bank
  // Per bank group: the last ACT, RD and WR issue cycles (rank-level spacing rules).
  std::vector<Stamp> last_act;
  std::vector<Stamp> last_rd;
  std::vector<Stamp> last_wr;
  std::array<Stamp, 4> faw{};  // the last four ACTs, ring buffer
  unsigned faw_size = 0;
  unsigned faw_oldest = 0;
  Stamp last_pre;  // last PRE or PREA (tPPD)
  Command last_pre_command = Command::kPRE;
  Bound rfc;           // REFab + RFC: any command to the rank
  Stamp refpb_latest;  // last REFpb
  Stamp refpb_other;   // last REFpb to a bank other than refpb_latest's
  RefreshTracker refresh_all;
  bool per_bank_mode = false;  // a REFpb was seen: refresh is accounted per bank
};

struct TimingChecker::ChannelState {
  std::vector<RankState> ranks;
  std::vector<Burst> bursts;  // bursts that may still conflict with a later one
  std::uint64_t max_cycle = 0;
  // Command bus: the cycle of the last command on it (HBM3 has separate row and column command
  // buses, JESD238; the other standards one).
  bool row_bus_used = false, col_bus_used = false;
  std::uint64_t row_bus_cycle = 0, col_bus_cycle = 0;
  // The command holding each bus longest: its cycle and command, and the first cycle the bus is
  // free after it (its cycle plus the clocks it takes, command_bus_clocks()).
  struct BusHold {
    std::uint64_t from = 0, free = 0;
    Command command = Command::kACT;
  };
  BusHold row_bus_hold, col_bus_hold;
};

TimingChecker::TimingChecker(const Spec& spec, std::size_t max_stored_violations)
    : spec_(spec), max_stored_(max_stored_violations) {
  const Organization& o = spec_.org;
  if (o.ranks == 0 || o.bank_groups == 0 || o.banks_per_group == 0 || o.rows == 0 ||
      o.columns == 0 || o.pseudo_channels == 0) {
    throw std::invalid_argument(
        "TimingChecker: ranks, bank_groups, banks_per_group, rows, columns and pseudo_channels "
        "must be > 0");
  }
  if (spec_.timing.burst == 0) throw std::invalid_argument("TimingChecker: burst must be > 0");
  if (spec_.timing.REFI == 0) throw std::invalid_argument("TimingChecker: REFI must be > 0");
}

TimingChecker::~TimingChecker() = default;
TimingChecker::TimingChecker(TimingChecker&&) noexcept = default;
TimingChecker& TimingChecker::operator=(TimingChecker&&) noexcept = default;

TimingChecker::ChannelState& TimingChecker::channel_state(unsigned channel,
                                                          unsigned pseudo_channel) {
  const std::pair<unsigned, unsigned> key{channel, pseudo_channel};
  if (cached_ != nullptr && cached_key_ == key) return *cached_;
  auto it = channels_.find(key);
  if (it == channels_.end()) {
    // Only the (channel, pseudo-channel) pairs a log addresses are checked: famsim writes one
    // log per modelled channel (an HBM3 pseudo-channel each), so a log holds one pair.
    const Organization& o = spec_.org;
    for (unsigned pc = pseudo_channel; pc <= pseudo_channel; ++pc) {
      auto ch = std::make_unique<ChannelState>();
      ch->ranks.resize(o.ranks);
      for (RankState& rank : ch->ranks) {
        rank.banks.resize(o.banks());
        rank.last_act.resize(o.bank_groups);
        rank.last_rd.resize(o.bank_groups);
        rank.last_wr.resize(o.bank_groups);
      }
      channels_.emplace(std::make_pair(channel, pc), std::move(ch));
    }
    it = channels_.find(key);
  }
  cached_ = it->second.get();
  cached_key_ = key;
  return *cached_;
}

template <typename MakeMessage>
void TimingChecker::report(Constraint c, std::size_t line, std::uint64_t cycle,
                           MakeMessage make_message) {
  ++violation_count_;
  ++violations_by_constraint_[static_cast<unsigned>(c)];
  // Messages are built only while they are kept: a broken controller may produce millions.
  if (violations_.size() < max_stored_) {
    violations_.push_back(Violation{line, cycle, constraint_name(c), make_message()});
  }
}

void TimingChecker::require(Constraint c, const CommandRecord& r, std::size_t line,
                            const Bound& bound, int bank) {
  count_check(c);
  if (r.cycle >= bound.earliest) return;
  report(c, line, r.cycle, [&] {
    const Organization& o = spec_.org;
    std::string cause = fmt::format("{}{} at cycle {}", to_string(bound.from),
                                    bank_text(bound.from_bank, o), bound.from_cycle);
    if (c == Constraint::kRP && is_auto_precharge(bound.from)) {
      cause = fmt::format("auto-precharge of {} (internal precharge at cycle {})", cause,
                          bound.earliest - spec_.timing.RP);
    }
    return fmt::format("{}{}: {} needs cycle >= {} after {}; {} clock(s) early", command_text(r, o),
                       bank >= 0 ? " (for" + bank_text(bank, o) + ")" : "", constraint_name(c),
                       bound.earliest, cause, bound.earliest - r.cycle);
  });
}

bool TimingChecker::check_address(const CommandRecord& r, std::size_t line) {
  const Organization& o = spec_.org;
  count_check(Constraint::kAddress);
  std::string what;
  if (r.pseudo_channel >= o.pseudo_channels) {
    what = fmt::format("pseudo_channel {} (spec has {})", r.pseudo_channel, o.pseudo_channels);
  } else if (r.rank >= o.ranks) {
    what = fmt::format("rank {} (spec has {})", r.rank, o.ranks);
  } else if (!is_rank_wide(r.command) && r.bank_group >= o.bank_groups) {
    what = fmt::format("bank_group {} (spec has {})", r.bank_group, o.bank_groups);
  } else if (!is_rank_wide(r.command) && r.bank >= o.banks_per_group) {
    what = fmt::format("bank {} (spec has {} per bank group)", r.bank, o.banks_per_group);
  }
  if (!what.empty()) {
    report(Constraint::kAddress, line, r.cycle, [&] {
      return fmt::format("{} at cycle {}: {} out of range; command ignored", to_string(r.command),
                         r.cycle, what);
    });
    return false;
  }
  // A row or column out of range does not stop the bank state machine: report and go on.
  if (r.command == Command::kACT && r.row >= o.rows) {
    report(Constraint::kAddress, line, r.cycle, [&] {
      return fmt::format("{}: row {} out of range (spec has {} rows)", command_text(r, o), r.row,
                         o.rows);
    });
  }
  if (is_column(r.command) && r.column >= o.columns) {
    report(Constraint::kAddress, line, r.cycle, [&] {
      return fmt::format("{}: column {} out of range (spec has {} columns)", command_text(r, o),
                         r.column, o.columns);
    });
  }
  return true;
}

void TimingChecker::check(const CommandRecord& r, std::size_t line) {
  ++commands_;
  ++per_command_[static_cast<unsigned>(r.command)];

  // The log is one command stream in issue order: cycles never go back.
  count_check(Constraint::kCycleOrder);
  if (commands_ > 1 && r.cycle < last_cycle_) {
    report(Constraint::kCycleOrder, line, r.cycle, [&] {
      return fmt::format("{}: cycle goes back from {} (commands must be in issue order)",
                         command_text(r, spec_.org), last_cycle_);
    });
  }
  last_cycle_ = std::max(last_cycle_, r.cycle);

  if (!check_address(r, line)) return;
  ChannelState& ch = channel_state(r.channel, r.pseudo_channel);
  ch.max_cycle = std::max(ch.max_cycle, r.cycle);
  RankState& rank = ch.ranks[r.rank];

  // One command per clock per command bus (HBM3: one row and one column command per clock).
  count_check(Constraint::kCommandBus);
  const bool column_bus = spec_.standard == Standard::kHBM3 && is_column(r.command);
  bool& used = column_bus ? ch.col_bus_used : ch.row_bus_used;
  std::uint64_t& at = column_bus ? ch.col_bus_cycle : ch.row_bus_cycle;
  if (used && at == r.cycle) {
    report(Constraint::kCommandBus, line, r.cycle, [&] {
      return fmt::format(
          "{}: a second command in cycle {} on the {}command bus", command_text(r, spec_.org),
          r.cycle, spec_.standard == Standard::kHBM3 ? (column_bus ? "column " : "row ") : "");
    });
  }
  // A multi-clock command holds the bus for all its clocks: DDR5 ACT, RD, RDA, WR and WRA are
  // 2-cycle commands (JESD79-5 section 4.1, Command Truth Table), whose second clock carries
  // the rest of their address, so no command starts in it. (A second command in the same clock
  // is a command_bus violation already, one that goes back a cycle_order one.)
  count_check(Constraint::kCommandBusHeld);
  ChannelState::BusHold& hold = column_bus ? ch.col_bus_hold : ch.row_bus_hold;
  if (used && r.cycle > at && r.cycle < hold.free) {
    report(Constraint::kCommandBusHeld, line, r.cycle, [&] {
      return fmt::format(
          "{}: the {}-clock {} of cycle {} holds the command bus until cycle {} (JESD79-5 "
          "2-cycle command)",
          command_text(r, spec_.org), hold.free - hold.from, to_string(hold.command), hold.from,
          hold.free);
    });
  }
  used = true;
  at = r.cycle;
  const std::uint64_t free = r.cycle + spec_.command_clocks(r.command);
  if (free >= hold.free) hold = ChannelState::BusHold{r.cycle, free, r.command};

  // tRFC: after REFab only deselects until tRFC has passed, whatever the command (JESD79-4
  // "Refresh Command": "the delay between the REFRESH command and the next valid command,
  // except DES").
  require(Constraint::kRFC, r, line, rank.rfc);
  // tRFCpb: the bank being refreshed takes no command until tRFCpb (LPDDR "the target bank is
  // inaccessible during tRFCpb"). Rank-wide commands check every bank in their handlers.
  if (!is_rank_wide(r.command)) {
    require(Constraint::kRFCpb, r, line, rank.banks[flat_bank(r, spec_.org)].refpb_busy);
  }

  switch (r.command) {
    case Command::kACT:
      on_activate(r, line, rank);
      break;
    case Command::kPRE:
    case Command::kPREA:
      on_precharge(r, line, rank);
      break;
    case Command::kRD:
    case Command::kRDA:
    case Command::kWR:
    case Command::kWRA:
      on_column(r, line, ch, rank);
      break;
    case Command::kREFab:
      on_refresh_all(r, line, rank);
      break;
    case Command::kREFpb:
    case Command::kREFsb:
      on_refresh_bank(r, line, rank);
      break;
  }
}

// tRRD_L / tRRD_S from every earlier ACT of the rank, by bank group. With one bank group all
// banks are "same bank group" (see the header).
void TimingChecker::require_rrd(const CommandRecord& r, std::size_t line, RankState& rank) {
  const Timing& t = spec_.timing;
  Bound same_group;
  Bound other_group;
  for (unsigned g = 0; g < rank.last_act.size(); ++g) {
    const Stamp& a = rank.last_act[g];
    if (!a.seen) continue;
    if (g == r.bank_group) {
      same_group.raise(a.cycle + t.RRD_L, a.cycle, Command::kACT, a.bank);
    } else {
      other_group.raise(a.cycle + t.RRD_S, a.cycle, Command::kACT, a.bank);
    }
  }
  require(Constraint::kRRD_L, r, line, same_group);
  require(Constraint::kRRD_S, r, line, other_group);
}

void TimingChecker::on_activate(const CommandRecord& r, std::size_t line, RankState& rank) {
  const Timing& t = spec_.timing;
  const unsigned b = flat_bank(r, spec_.org);
  const int bi = static_cast<int>(b);
  BankState& bank = rank.banks[b];

  // ACT only to an idle (precharged) bank (JESD79-4 "Simplified State Diagram").
  count_check(Constraint::kBankState);
  if (bank.open) {
    report(Constraint::kBankState, line, r.cycle, [&] {
      return fmt::format("{}: bank already open (ACT at cycle {}, no PRE since)",
                         command_text(r, spec_.org), bank.opened_at);
    });
  }
  require(Constraint::kRC, r, line, bank.act_rc);
  require(Constraint::kRP, r, line, bank.act_rp);

  // tRRD_L / tRRD_S from every earlier ACT of the rank.
  require_rrd(r, line, rank);

  // tFAW: a fifth ACT no earlier than FAW after the first of the last four.
  if (rank.faw_size == 4) {
    const Stamp& first = rank.faw[rank.faw_oldest];
    require(Constraint::kFAW, r, line,
            Bound::at(first.cycle + t.FAW, first.cycle, Command::kACT, first.bank));
  }

  // tRREFD: REFpb -> ACT to another bank of the rank (JESD238 tRREFD; LPDDR5 tpbR2act); DDR5
  // tREFSBRD: REFsb -> ACT to a bank of another bank index.
  if (t.RREFD > 0) {
    const Stamp& ref =
        (rank.refpb_latest.seen && refresh_unit(rank.refpb_latest.bank) != refresh_unit(bi))
            ? rank.refpb_latest
            : rank.refpb_other;
    Bound rrefd;
    if (ref.seen) rrefd.raise(ref.cycle + t.RREFD, ref.cycle, Command::kREFpb, ref.bank);
    require(Constraint::kRREFD, r, line, rrefd);
  }

  bank.open = true;
  bank.opened_at = r.cycle;
  bank.act_rc = Bound::at(r.cycle + t.RC, r.cycle, Command::kACT, bi);
  bank.rd_rcd = Bound::at(r.cycle + t.RCD_RD, r.cycle, Command::kACT, bi);
  bank.wr_rcd = Bound::at(r.cycle + t.RCD_WR, r.cycle, Command::kACT, bi);
  bank.pre_ras = Bound::at(r.cycle + t.RAS, r.cycle, Command::kACT, bi);
  rank.last_act[r.bank_group] = Stamp{true, r.cycle, bi};
  if (rank.faw_size < 4) {
    rank.faw[rank.faw_size++] = Stamp{true, r.cycle, bi};
  } else {
    rank.faw[rank.faw_oldest] = Stamp{true, r.cycle, bi};
    rank.faw_oldest = (rank.faw_oldest + 1) % 4;
  }
}

void TimingChecker::precharge_bank(const CommandRecord& r, RankState& rank, unsigned b) {
  // A precharge to an already idle bank is legal and restarts the precharge period (JESD79-4
  // "Precharge & Auto Precharge clarification" table, note 1), so the bound moves to the latest
  // precharge.
  BankState& bank = rank.banks[b];
  bank.open = false;
  bank.act_rp.raise(r.cycle + spec_.timing.RP, r.cycle, r.command, static_cast<int>(b));
}

void TimingChecker::on_precharge(const CommandRecord& r, std::size_t line, RankState& rank) {
  const Timing& t = spec_.timing;
  // tPPD: PRE/PREA -> PRE/PREA in the same rank, whatever the banks (JESD209-5, JESD238).
  if (t.PPD > 0) {
    Bound ppd;
    if (rank.last_pre.seen) {
      ppd.raise(rank.last_pre.cycle + t.PPD, rank.last_pre.cycle, rank.last_pre_command,
                rank.last_pre.bank);
    }
    require(Constraint::kPPD, r, line, ppd);
  }

  // The precharge lock-outs apply to every bank the command addresses, open or not: for a bank
  // closed by RDA/WRA they are the clarification table's RDA/WRA -> PRE rows; for a bank closed
  // by an explicit PRE they are already past.
  if (r.command == Command::kPRE) {
    const unsigned b = flat_bank(r, spec_.org);
    const BankState& bank = rank.banks[b];
    require(Constraint::kRAS, r, line, bank.pre_ras);
    require(Constraint::kRTP, r, line, bank.pre_rtp);
    require(Constraint::kWR, r, line, bank.pre_wr);
    precharge_bank(r, rank, b);
    rank.last_pre = Stamp{true, r.cycle, static_cast<int>(b)};
    rank.last_pre_command = Command::kPRE;
  } else {
    // PREA: one check per rule against the latest bound of any bank, so that one early PREA
    // is one violation per rule, naming the bank that binds.
    Bound ras;
    Bound rtp;
    Bound wr;
    Bound refpb;
    for (const BankState& bank : rank.banks) {
      ras.raise(bank.pre_ras);
      rtp.raise(bank.pre_rtp);
      wr.raise(bank.pre_wr);
      refpb.raise(bank.refpb_busy);
    }
    require(Constraint::kRAS, r, line, ras, ras.from_bank);
    require(Constraint::kRTP, r, line, rtp, rtp.from_bank);
    require(Constraint::kWR, r, line, wr, wr.from_bank);
    require(Constraint::kRFCpb, r, line, refpb, refpb.from_bank);
    for (unsigned b = 0; b < rank.banks.size(); ++b) precharge_bank(r, rank, b);
    rank.last_pre = Stamp{true, r.cycle, -1};
    rank.last_pre_command = Command::kPREA;
  }
}

void TimingChecker::on_column(const CommandRecord& r, std::size_t line, ChannelState& ch,
                              RankState& rank) {
  const Timing& t = spec_.timing;
  const bool read = is_read(r.command);
  const unsigned b = flat_bank(r, spec_.org);
  const int bi = static_cast<int>(b);
  BankState& bank = rank.banks[b];

  // RD/WR only to an active bank (JESD79-4 "Simplified State Diagram"); tRCD from its ACT.
  count_check(Constraint::kBankState);
  if (!bank.open) {
    report(Constraint::kBankState, line, r.cycle, [&] {
      return fmt::format("{}: bank is closed (no ACT since its last precharge)",
                         command_text(r, spec_.org));
    });
  } else {
    require(read ? Constraint::kRCD_RD : Constraint::kRCD_WR, r, line,
            read ? bank.rd_rcd : bank.wr_rcd);
  }

  // Column-to-column spacing within the rank, from the last RD and WR of every bank group:
  // tCCD_L (same group; WR -> WR uses tCCD_L_WR), tCCD_S (other groups), WR -> RD tWTR_L/S
  // counted from the end of write data (CWL + burst + WTR), RD -> WR tRTW only.
  Bound ccd_l;
  Bound ccd_l_wr;
  Bound ccd_s;
  Bound wtr_l;
  Bound wtr_s;
  Bound rtw;
  for (unsigned g = 0; g < rank.last_rd.size(); ++g) {
    const bool same = g == r.bank_group;
    const Stamp& rd = rank.last_rd[g];
    const Stamp& wr = rank.last_wr[g];
    if (rd.seen) {
      if (read) {
        (same ? ccd_l : ccd_s)
            .raise(rd.cycle + (same ? t.CCD_L : t.CCD_S), rd.cycle, Command::kRD, rd.bank);
      } else {
        // RD -> WR has its own minimum, the read-to-write turnaround, in every bank group
        // (JESD79-5 tCCD_L_RTW / tCCD_S_RTW, DDR4's RL + BL/2 - WL + 2 tCK): tCCD does not apply.
        rtw.raise(rd.cycle + t.RTW, rd.cycle, Command::kRD, rd.bank);
      }
    }
    if (wr.seen) {
      if (read) {
        (same ? ccd_l : ccd_s)
            .raise(wr.cycle + (same ? t.CCD_L : t.CCD_S), wr.cycle, Command::kWR, wr.bank);
        (same ? wtr_l : wtr_s)
            .raise(wr.cycle + (same ? t.write_to_read_l() : t.write_to_read_s()), wr.cycle,
                   Command::kWR, wr.bank);
      } else if (same) {
        ccd_l_wr.raise(wr.cycle + t.CCD_L_WR, wr.cycle, Command::kWR, wr.bank);
      } else {
        ccd_s.raise(wr.cycle + t.CCD_S, wr.cycle, Command::kWR, wr.bank);
      }
    }
  }
  require(Constraint::kCCD_L, r, line, ccd_l);
  require(Constraint::kCCD_S, r, line, ccd_s);
  if (read) {
    require(Constraint::kWTR_L, r, line, wtr_l);
    require(Constraint::kWTR_S, r, line, wtr_s);
  } else {
    require(Constraint::kCCD_L_WR, r, line, ccd_l_wr);
    require(Constraint::kRTW, r, line, rtw);
  }

  check_data_bus(r, line, ch);

  if (bank.open) {
    if (read) {
      bank.pre_rtp.raise(r.cycle + t.RTP, r.cycle, r.command, bi);
    } else {
      bank.pre_wr.raise(r.cycle + t.write_to_precharge(), r.cycle, r.command, bi);
    }
    if (is_auto_precharge(r.command)) {
      // The internal precharge starts when an explicit PRE would first be legal: tRTP / write
      // recovery after this command and not before tRAS after the ACT (JESD79-4 "Auto Precharge
      // Operation").
      std::uint64_t precharge_at = r.cycle;
      precharge_at = std::max(precharge_at, bank.pre_ras.earliest);
      precharge_at = std::max(precharge_at, bank.pre_rtp.earliest);
      precharge_at = std::max(precharge_at, bank.pre_wr.earliest);
      bank.open = false;
      bank.act_rp.raise(precharge_at + t.RP, r.cycle, r.command, bi);
    }
  }
  (read ? rank.last_rd : rank.last_wr)[r.bank_group] = Stamp{true, r.cycle, bi};
}

void TimingChecker::check_data_bus(const CommandRecord& r, std::size_t line, ChannelState& ch) {
  const Timing& t = spec_.timing;
  const bool read = is_read(r.command);
  // Read data occupies [cycle + CL, + burst), write data [cycle + CWL, + burst) on the data bus
  // shared by all ranks of the channel; bursts of different ranks need RTRS clocks between them.
  const std::uint64_t start = r.cycle + (read ? t.CL : t.CWL);
  const std::uint64_t end = start + t.burst;

  // Every later burst starts at or after max_cycle + min(CL, CWL): older bursts that end (plus
  // RTRS) before that can never conflict again. This keeps the list to a few entries.
  const std::uint64_t horizon = ch.max_cycle + std::min(t.CL, t.CWL);
  ch.bursts.erase(std::remove_if(ch.bursts.begin(), ch.bursts.end(),
                                 [&](const Burst& x) { return x.end + t.RTRS <= horizon; }),
                  ch.bursts.end());

  count_check(Constraint::kDataBus);
  if (spec_.org.ranks > 1) count_check(Constraint::kRTRS);
  bool overlap_reported = false;
  bool rtrs_reported = false;
  for (const Burst& x : ch.bursts) {
    const std::uint64_t gap = x.rank == r.rank ? 0 : t.RTRS;
    if (!(start < x.end + gap && x.start < end + gap)) continue;
    const bool overlap = start < x.end && x.start < end;
    if (overlap ? overlap_reported : rtrs_reported) continue;
    (overlap ? overlap_reported : rtrs_reported) = true;
    report(overlap ? Constraint::kDataBus : Constraint::kRTRS, line, r.cycle, [&] {
      const std::string mine = fmt::format("{}: {} data [{}, {})", command_text(r, spec_.org),
                                           read ? "read" : "write", start, end);
      const std::string other =
          fmt::format("{} data [{}, {}) of {} rank {}{} issued at cycle {}",
                      is_read(x.command) ? "read" : "write", x.start, x.end, to_string(x.command),
                      x.rank, bank_text(x.bank, spec_.org), x.issued);
      // Data starting after the other burst's start must start `gap` clocks after its end.
      const std::string fix =
          x.start <= start
              ? fmt::format("; needs cycle >= {} to follow it", r.cycle + (x.end + gap - start))
              : fmt::format("; its data must end {} clock(s) before", gap);
      if (overlap) return fmt::format("{} overlaps {}{}", mine, other, fix);
      return fmt::format("{} is less than RTRS = {} clock(s) from {} (rank switch){}", mine, t.RTRS,
                         other, fix);
    });
  }
  ch.bursts.push_back(
      Burst{start, end, r.cycle, r.rank, static_cast<int>(flat_bank(r, spec_.org)), r.command});
}

namespace {

// Refresh rules at `cycle` for a unit refreshed every `interval` clocks on average, with up to
// `postpone` refreshes postponed (JESD79-4 "Refresh Command"; the same 8 in JESD79-5, JESD209-5,
// JESD238):
// - gap: at most (postpone + 1) * interval between two refreshes ("the maximum interval between
//   the surrounding Refresh commands is limited to 9 x tREFI"), the start of the log counting
//   as a refresh;
// - count: refresh k is due at k * interval; at no time more than `postpone` are outstanding.
// Returns the messages of the broken rules (empty strings when they hold).
struct RefreshFindings {
  std::string gap;
  std::string count;
};

RefreshFindings refresh_due(const RefreshTracker& tr, std::uint64_t cycle, std::uint64_t due,
                            std::uint64_t interval, unsigned postpone) {
  RefreshFindings f;
  const std::uint64_t max_gap = (static_cast<std::uint64_t>(postpone) + 1) * interval;
  if (cycle > tr.last + max_gap) {
    f.gap = fmt::format("last refresh at cycle {}, gap {} > (postpone_max {} + 1) x {} = {}",
                        tr.last, cycle - tr.last, postpone, interval, max_gap);
  }
  if (due > tr.credits + postpone) {
    f.count = fmt::format("{} refreshes due, {} credited: {} postponed > postpone_max {}", due,
                          tr.credits, due - tr.credits, postpone);
  }
  return f;
}

// Credits one refresh at `cycle`. At most `postpone` refreshes may be issued in advance ("pulled
// in"); more do not reduce the later requirement (JESD79-4 "Refresh Command"). A refresh issued
// during [k * interval, (k + 1) * interval) is the one due at the end of that interval, so by
// `cycle` at most floor(cycle / interval) + 1 + postpone refreshes count.
void credit_refresh(RefreshTracker& tr, std::uint64_t cycle, std::uint64_t interval,
                    unsigned postpone) {
  tr.last = cycle;
  tr.credits = std::min(tr.credits + 1, cycle / interval + postpone + 1);
}

}  // namespace

void TimingChecker::on_refresh_all(const CommandRecord& r, std::size_t line, RankState& rank) {
  const Timing& t = spec_.timing;
  const Organization& o = spec_.org;

  // REFab only when every bank of the rank is idle (JESD79-4 "Refresh Command"), tRP after the
  // latest precharge of each bank and tRFCpb after a per-bank refresh (LPDDR "REFab ... tRFCpb
  // after the prior REFpb").
  count_check(Constraint::kBankState);
  unsigned open_banks = 0;
  int first_open = -1;
  Bound rp;
  Bound refpb;
  for (unsigned b = 0; b < rank.banks.size(); ++b) {
    const BankState& bank = rank.banks[b];
    if (bank.open) {
      if (open_banks++ == 0) first_open = static_cast<int>(b);
    }
    rp.raise(bank.act_rp);
    refpb.raise(bank.refpb_busy);
  }
  if (open_banks > 0) {
    report(Constraint::kBankState, line, r.cycle, [&] {
      return fmt::format("{}: {} bank(s) still open, first{}", command_text(r, o), open_banks,
                         bank_text(first_open, o));
    });
  }
  require(Constraint::kRP, r, line, rp, rp.from_bank);
  require(Constraint::kRFCpb, r, line, refpb, refpb.from_bank);

  // Refresh schedule. All-bank mode: the rank is the unit. Per-bank mode (a REFpb was seen): a
  // REFab refreshes every bank once; each bank is its own unit.
  const unsigned P = t.refresh_postpone_max;
  const std::uint64_t due_ab = r.cycle == 0 ? 0 : (r.cycle - 1) / t.REFI;
  if (!rank.per_bank_mode) {
    count_check(Constraint::kREFI);
    count_check(Constraint::kRefreshCount);
    const RefreshFindings f = refresh_due(rank.refresh_all, r.cycle, due_ab, t.REFI, P);
    if (!f.gap.empty()) {
      report(Constraint::kREFI, line, r.cycle, [&] { return command_text(r, o) + ": " + f.gap; });
    }
    if (!f.count.empty()) {
      report(Constraint::kRefreshCount, line, r.cycle,
             [&] { return command_text(r, o) + ": before it " + f.count; });
    }
  }
  credit_refresh(rank.refresh_all, r.cycle, t.REFI, P);
  const std::uint64_t interval_pb = static_cast<std::uint64_t>(o.banks()) * t.REFIpb;
  for (unsigned b = 0; b < rank.banks.size(); ++b) {
    RefreshTracker& tr = rank.banks[b].refresh;
    if (interval_pb == 0) {
      tr.last = r.cycle;
      continue;
    }
    if (rank.per_bank_mode) {
      count_check(Constraint::kREFIpb);
      count_check(Constraint::kRefreshCountPb);
      const std::uint64_t due = r.cycle == 0 ? 0 : (r.cycle - 1) / interval_pb;
      const RefreshFindings f = refresh_due(tr, r.cycle, due, interval_pb, P);
      const auto where = [&] {
        return command_text(r, o) + " (for" + bank_text(static_cast<int>(b), o) + "): ";
      };
      if (!f.gap.empty()) {
        report(Constraint::kREFIpb, line, r.cycle, [&] { return where() + f.gap; });
      }
      if (!f.count.empty()) {
        report(Constraint::kRefreshCountPb, line, r.cycle,
               [&] { return where() + "before it " + f.count; });
      }
    }
    credit_refresh(tr, r.cycle, interval_pb, P);
  }
  rank.rfc = Bound::at(r.cycle + t.RFC, r.cycle, Command::kREFab, -1);
}

int TimingChecker::refresh_unit(int flat) const {
  return spec_.timing.same_bank_refresh ? flat % static_cast<int>(spec_.org.banks_per_group) : flat;
}

void TimingChecker::on_refresh_bank(const CommandRecord& r, std::size_t line, RankState& rank) {
  const Timing& t = spec_.timing;
  const Organization& o = spec_.org;
  // REFpb refreshes one bank; DDR5's REFsb bank r.bank of every bank group (JESD79-5 "Same Bank
  // Refresh"). Each refreshed bank is checked as a per-bank refresh of its own.
  const bool same_bank = r.command == Command::kREFsb;
  const int unit = static_cast<int>(same_bank ? r.bank : flat_bank(r, o));
  const unsigned groups = same_bank ? o.bank_groups : 1;

  count_check(Constraint::kRefreshMode);
  if (t.REFIpb == 0 || same_bank != t.same_bank_refresh) {
    report(Constraint::kRefreshMode, line, r.cycle, [&] {
      return fmt::format("{}: the spec has {}", command_text(r, o),
                         t.REFIpb == 0         ? "no per-bank refresh (REFIpb = 0)"
                         : t.same_bank_refresh ? "same-bank refresh (REFsb), not REFpb"
                                               : "per-bank refresh (REFpb), not REFsb");
    });
  }
  const std::uint64_t interval_pb =
      static_cast<std::uint64_t>(spec_.bank_refresh_units()) * t.REFIpb;
  for (unsigned g = 0; g < groups; ++g) {
    CommandRecord one = r;
    if (same_bank) one.bank_group = g;
    const unsigned b = flat_bank(one, o);
    BankState& bank = rank.banks[b];
    // Only to an idle bank, tRP after its latest precharge (LPDDR REFpb conditions; JESD79-5
    // REFsb: the bank in every bank group precharged), tRFCpb after its previous refresh.
    count_check(Constraint::kBankState);
    if (bank.open) {
      report(Constraint::kBankState, line, r.cycle, [&] {
        return fmt::format("{}: {} is open (ACT at cycle {})", command_text(r, o),
                           bank_text(static_cast<int>(b), o), bank.opened_at);
      });
    }
    require(Constraint::kRP, one, line, bank.act_rp);
    if (same_bank) require(Constraint::kRFCpb, one, line, bank.refpb_busy);
    // ACT -> REFpb: "tRRD has been satisfied after the prior ACTIVATE command" (LPDDR REFpb
    // conditions): a bank refresh activates rows like an ACT does, in each group it touches.
    require_rrd(one, line, rank);

    // Refresh schedule of this bank: one refresh per units * REFIpb on average (REFIpb is the
    // interval between bank refreshes of the rank, JESD209-4/5 tREFIpb = tREFI / banks), with
    // up to postpone_max postponed.
    if (interval_pb > 0) {
      const unsigned P = t.refresh_postpone_max;
      count_check(Constraint::kREFIpb);
      count_check(Constraint::kRefreshCountPb);
      const std::uint64_t due = r.cycle == 0 ? 0 : (r.cycle - 1) / interval_pb;
      const RefreshFindings f = refresh_due(bank.refresh, r.cycle, due, interval_pb, P);
      if (!f.gap.empty()) {
        report(Constraint::kREFIpb, line, r.cycle, [&] {
          return command_text(r, o) + bank_text(static_cast<int>(b), o) + ": " + f.gap;
        });
      }
      if (!f.count.empty()) {
        report(Constraint::kRefreshCountPb, line, r.cycle, [&] {
          return command_text(r, o) + bank_text(static_cast<int>(b), o) + ": before it " + f.count;
        });
      }
      credit_refresh(bank.refresh, r.cycle, interval_pb, P);
      rank.per_bank_mode = true;
    }
    bank.refpb_busy = Bound::at(r.cycle + t.RFCpb, r.cycle, r.command, static_cast<int>(b));
  }

  // tRREFD: REFpb -> REFpb to another bank of the rank (JESD238; LPDDR5 tpbR2pbR; DDR5
  // tREFSBRD between REFsb of different bank indices). The same bank is covered by tRFCpb.
  const Stamp& ref = (rank.refpb_latest.seen && refresh_unit(rank.refpb_latest.bank) != unit)
                         ? rank.refpb_latest
                         : rank.refpb_other;
  if (t.RREFD > 0) {
    Bound rrefd;
    if (ref.seen) rrefd.raise(ref.cycle + t.RREFD, ref.cycle, r.command, ref.bank);
    require(Constraint::kRREFD, r, line, rrefd);
  }
  // LPDDR5 separates REFpb -> REFpb (tpbR2pbR, JESD209-5 refresh command scheduling) from
  // REFpb -> ACT (tpbR2act = tRREFD); the loader sets PBR2PBR = RREFD where they are one value.
  if (t.PBR2PBR > t.RREFD) {
    Bound pbr;
    if (ref.seen) pbr.raise(ref.cycle + t.PBR2PBR, ref.cycle, r.command, ref.bank);
    require(Constraint::kPBR2PBR, r, line, pbr);
  }

  const int bi = static_cast<int>(flat_bank(r, o));
  if (rank.refpb_latest.seen && refresh_unit(rank.refpb_latest.bank) != unit) {
    rank.refpb_other = rank.refpb_latest;
  }
  rank.refpb_latest = Stamp{true, r.cycle, bi};
}

void TimingChecker::check_time(const CommandRecord& r, std::size_t line) {
  count_check(Constraint::kClock);
  const auto tck = static_cast<std::int64_t>(std::llround(spec_.timing.tck_ps));
  const std::int64_t offset =
      static_cast<std::int64_t>(r.time_ps) - static_cast<std::int64_t>(r.cycle) * tck;
  if (!time_seen_) {
    time_seen_ = true;
    time_offset_ps_ = offset;
    return;
  }
  if (offset == time_offset_ps_) return;
  report(Constraint::kClock, line, r.cycle, [&] {
    return fmt::format(
        "{}: time_ps {} is not cycle {} x tCK {} ps{} = {}: the log's clock is not the preset's, "
        "or the time or cycle is wrong",
        command_text(r, spec_.org), r.time_ps, r.cycle, tck,
        time_offset_ps_ == 0
            ? std::string()
            : fmt::format(" + {} ps (the first command's offset)", time_offset_ps_),
        static_cast<std::int64_t>(r.cycle) * tck + time_offset_ps_);
  });
}

void TimingChecker::finish(std::uint64_t end_cycle) {
  const Timing& t = spec_.timing;
  const Organization& o = spec_.org;
  count_check(Constraint::kCycleOrder);
  if (commands_ > 0 && end_cycle < last_cycle_) {
    report(Constraint::kCycleOrder, 0, end_cycle, [&] {
      return fmt::format(
          "end of log at cycle {} is before the last command (cycle {}); checking "
          "refresh at cycle {}",
          end_cycle, last_cycle_, last_cycle_ + 1);
    });
  }
  if (commands_ > 0) end_cycle = std::max(end_cycle, last_cycle_ + 1);
  if (channels_.empty()) channel_state(0, 0);

  // The run covered [0, end_cycle): a refresh missing from the log could at best be issued at
  // end_cycle, so the rules are those a REF at end_cycle would be checked against (gap from the
  // last refresh; refreshes due by end_cycle - 1).
  const std::uint64_t last_covered = end_cycle == 0 ? 0 : end_cycle - 1;
  const unsigned P = t.refresh_postpone_max;
  const std::uint64_t interval_pb =
      static_cast<std::uint64_t>(spec_.bank_refresh_units()) * t.REFIpb;
  for (const auto& [key, ch] : channels_) {
    for (unsigned rk = 0; rk < ch->ranks.size(); ++rk) {
      const RankState& rank = ch->ranks[rk];
      const std::string where = fmt::format("end of log at cycle {}: ch {} pc {} rank {}",
                                            end_cycle, key.first, key.second, rk);
      if (!rank.per_bank_mode) {
        count_check(Constraint::kREFI);
        count_check(Constraint::kRefreshCount);
        const RefreshFindings f =
            refresh_due(rank.refresh_all, end_cycle, last_covered / t.REFI, t.REFI, P);
        if (!f.gap.empty()) {
          report(Constraint::kREFI, 0, end_cycle, [&] { return where + ": " + f.gap; });
        }
        if (!f.count.empty()) {
          report(Constraint::kRefreshCount, 0, end_cycle, [&] { return where + ": " + f.count; });
        }
        continue;
      }
      for (unsigned b = 0; b < rank.banks.size(); ++b) {
        count_check(Constraint::kREFIpb);
        count_check(Constraint::kRefreshCountPb);
        const RefreshFindings f = refresh_due(rank.banks[b].refresh, end_cycle,
                                              last_covered / interval_pb, interval_pb, P);
        const std::string bank_where = where + bank_text(static_cast<int>(b), o);
        if (!f.gap.empty()) {
          report(Constraint::kREFIpb, 0, end_cycle, [&] { return bank_where + ": " + f.gap; });
        }
        if (!f.count.empty()) {
          report(Constraint::kRefreshCountPb, 0, end_cycle,
                 [&] { return bank_where + ": " + f.count; });
        }
      }
    }
  }
}

void TimingChecker::write_summary(std::ostream& os) const {
  os << fmt::format("DRAM timing check ({}): {} commands, {} violations\n", spec_.name, commands_,
                    violation_count_);
  os << "commands:";
  for (unsigned c = 0; c < kNumCommands; ++c) {
    os << ' ' << to_string(static_cast<Command>(c)) << '=' << per_command_[c];
  }
  os << '\n';
  os << fmt::format("{:<18} {:>14} {:>12}\n", "constraint", "checked", "violated");
  for (unsigned c = 0; c < kConstraintCount; ++c) {
    if (checks_[c] == 0 && violations_by_constraint_[c] == 0) continue;
    os << fmt::format("{:<18} {:>14} {:>12}\n", kConstraintNames[c], checks_[c],
                      violations_by_constraint_[c]);
  }
}

namespace {

// famsim's logs start "# fam0.memory.ch0: ddr5_4800_x4 (DDR5), tCK 416 ps": checked against another
// preset, every command would be reported against the wrong timings. Other comments (a test
// bench's own) are not read.
void check_log_preset(const std::string& path, std::size_t line, const std::string& text,
                      const Spec& spec) {
  static const std::regex kPresetLine(R"(^# \S+: (\S+) \(\S+\), tCK \S+ ps$)");
  std::smatch m;
  if (!std::regex_match(text, m, kPresetLine) || m[1] == spec.name) return;
  throw std::runtime_error(fmt::format(
      "{}:{}: the log was written for memory preset '{}', but --preset is '{}'; expected the "
      "preset the log was made with (a log checked against other timings shows their "
      "differences, not its own mistakes; to do that deliberately, remove this line and the "
      "'# spec:' line after it)",
      path, line, m[1].str(), spec.name));
}

// famsim's logs carry, in their second line, the organisation and timings they were made with
// (spec_line(): the preset's, or what a run's configuration changed): checked against others,
// every command would be reported against the wrong timings. Each difference is named with the
// --set that gives the log's value.
void check_log_spec(const std::string& path, std::size_t line, const std::string& text,
                    const Spec& spec) {
  if (text.rfind(kSpecLinePrefix, 0) != 0) return;
  std::map<std::string, std::string> logged;
  std::istringstream in(text.substr(std::strlen(kSpecLinePrefix)));
  for (std::string item; in >> item;) {
    const auto eq = item.find('=');
    if (eq != std::string::npos) logged[item.substr(0, eq)] = item.substr(eq + 1);
  }
  // Compared as numbers ("40" and "40.0" agree). A figure the log has and the checking spec has
  // not (per-bank refresh timings on a preset without) differs unless the log's is 0.
  std::vector<std::string> differ, sets;
  auto number = [](const std::string& v) {
    try {
      return std::stod(v);
    } catch (const std::exception&) {
      return std::numeric_limits<double>::quiet_NaN();
    }
  };
  std::map<std::string, double> mine;
  for (const SpecFigure& f : spec_figures(spec)) mine[f.key] = f.value;
  for (const auto& [key, text] : logged) {
    const auto it = mine.find(key);
    const double v = number(text);
    if (it == mine.end() ? v == 0 : v == it->second) continue;
    differ.push_back(it == mine.end()
                         ? fmt::format("{} {} (checking with none)", key, text)
                         : fmt::format("{} {} (checking with {:g})", key, text, it->second));
    sets.push_back(fmt::format("--set {}={}", key, text));
  }
  if (differ.empty()) return;
  std::string all_differ, all_sets;
  for (std::size_t i = 0; i < differ.size(); ++i) {
    all_differ += (i ? ", " : "") + differ[i];
    all_sets += (i ? " " : "") + sets[i];
  }
  throw std::runtime_error(fmt::format(
      "{}:{}: the log was made with figures other than those of preset '{}' and the --set options "
      "given: {}; expected the figures the log was made with: add {}",
      path, line, spec.name, all_differ, all_sets));
}

}  // namespace

LogCheckResult check_log_file(const std::string& path, const Spec& spec,
                              std::optional<std::uint64_t> end_cycle) {
  // A directory opens like a file and reads as nothing, which would be "no header line".
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw std::runtime_error(path + ": is a directory; expected a command log file");
  }
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the command log");
  TimingChecker checker(spec);
  std::string text;
  std::size_t line = 0;
  bool header_seen = false;
  unsigned fields = 0;  // of the header's format
  while (std::getline(in, text)) {
    ++line;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (!text.empty() && text.front() == '#' && !header_seen) {
      check_log_preset(path, line, text, spec);
      check_log_spec(path, line, text, spec);
    }
    if (text.empty() || text.front() == '#') continue;
    if (!header_seen) {
      // A log written before the request column has the old header; the column is not checked.
      if (text != kCommandLogHeader && text != kCommandLogHeaderV1) {
        throw std::runtime_error(
            fmt::format("{}:{}: expected the header line '{}' (or, without "
                        "request, '{}')",
                        path, line, kCommandLogHeader, kCommandLogHeaderV1));
      }
      fields = text == kCommandLogHeader ? 11 : 10;
      header_seen = true;
      continue;
    }
    std::string error;
    const std::optional<CommandRecord> record = parse_record(text, error, fields);
    if (!record) throw std::runtime_error(fmt::format("{}:{}: {}", path, line, error));
    checker.check_time(*record, line);
    checker.check(*record, line);
  }
  if (!header_seen) {
    throw std::runtime_error(
        fmt::format("{}:{}: expected the header line '{}'", path, line + 1, kCommandLogHeader));
  }
  checker.finish(end_cycle.value_or(checker.commands_checked() > 0 ? checker.last_cycle() + 1 : 0));
  LogCheckResult result;
  result.commands = checker.commands_checked();
  result.last_cycle = checker.last_cycle();
  result.violation_count = checker.violation_count();
  result.violations = checker.violations();
  std::ostringstream summary;
  checker.write_summary(summary);
  result.summary = summary.str();
  return result;
}

}  // namespace famsim::dram
