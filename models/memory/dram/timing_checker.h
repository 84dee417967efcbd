// Independent DRAM timing checker: replays a command log (dram_command.h) against the timing of
// a famsim::dram::Spec and reports every command that breaks a rule of the DRAM standard. It is
// the evidence that the memory controller never violates timing, so it is written from the JEDEC
// rules (JESD79-4 DDR4, JESD79-5 DDR5, JESD209-5 LPDDR5/5X, JESD238 HBM3), not from controller
// code. No SystemC in it.
//
// Inputs : commands in issue order (CommandRecord, or a CSV log file), all times in tCK clocks.
// Outputs: violations (constraint name, log line, cycle, message); per command kind and per
//          constraint counts of what was checked and what failed.
// Memory : bounded. Per bank and per rank it keeps the earliest cycle each rule allows, the last
//          four ACTs per rank (tFAW) and the data bursts still in flight; never the whole log.
//          Only the first `max_stored_violations` messages are kept, all violations are counted.
//
// Each (channel, pseudo_channel) of the stream is an independent device: its own ranks, banks
// and data bus. Cycles must be non-decreasing over the whole stream (one log is one command
// stream in issue order).
//
// Interpretation choices (the rule each constraint implements is documented where it is checked,
// in timing_checker.cpp, with its source):
// - One bank group (bank_groups == 1): every pair of banks is "same bank group", so tRRD_L,
//   tCCD_L, tCCD_L_WR and tWTR_L apply. Standards without bank groups have a single tRRD/tCCD/
//   tWTR; a preset for them sets the _L and _S values equal.
// - A PRE or PREA to a closed bank is legal (a NOP for the bank) but, as in the JEDEC "Precharge
//   and Auto Precharge clarification" table, it must respect the bank's precharge lock-outs
//   (tRAS, tRTP, tWR; e.g. RDA -> PRE same bank >= tRTP) and it restarts tRP: "the precharge
//   period is counted from the latest precharge command issued to that bank".
// - RDA/WRA precharge the bank internally at the first cycle an explicit PRE would be legal
//   (max of ACT + tRAS, RD + tRTP, WR + CWL + tBL + tWR); the next ACT or REF to that bank needs
//   tRP after it.
// - Refresh: see finish() and the tREFI/refresh_count rules in timing_checker.cpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/memory/dram/dram_command.h"
#include "models/memory/dram/dram_spec.h"

namespace famsim::dram {

// Every rule the checker applies. constraint_name() gives its stable key (the JEDEC parameter
// name where there is one): the `constraint` of a Violation and the key of the summary.
enum class Constraint : std::uint8_t {
  kCycleOrder,      // "cycle_order": cycles non-decreasing; finish() not before the last command
  kAddress,         // "address": rank/bank group/bank/pseudo-channel/row/column in range
  kBankState,       // "bank_state": ACT to a closed bank, RD/WR to an open one, REF to closed
  kRefreshMode,     // "refresh_mode": REFpb on a spec without per-bank refresh (REFIpb == 0)
  kRC,              // "tRC": ACT -> ACT same bank
  kRCD_RD,          // "tRCD_RD": ACT -> RD/RDA same bank
  kRCD_WR,          // "tRCD_WR": ACT -> WR/WRA same bank
  kRAS,             // "tRAS": ACT -> PRE same bank
  kRP,              // "tRP": PRE (explicit or auto) -> ACT/REF same bank
  kRTP,             // "tRTP": RD -> PRE same bank
  kWR,              // "tWR": WR -> PRE same bank (CWL + tBL + WR)
  kRRD_L,           // "tRRD_L": ACT -> ACT (or REFpb) same bank group, same rank
  kRRD_S,           // "tRRD_S": ACT -> ACT (or REFpb) different bank group, same rank
  kFAW,             // "tFAW": at most four ACTs in any tFAW window, same rank
  kCCD_L,           // "tCCD_L": column -> column same bank group (except WR -> WR)
  kCCD_S,           // "tCCD_S": column -> column different bank group
  kCCD_L_WR,        // "tCCD_L_WR": WR -> WR same bank group
  kWTR_L,           // "tWTR_L": WR -> RD same bank group (CWL + tBL + WTR_L)
  kWTR_S,           // "tWTR_S": WR -> RD different bank group (CWL + tBL + WTR_S)
  kRTW,             // "tRTW": RD -> WR same rank
  kPPD,             // "tPPD": PRE/PREA -> PRE/PREA same rank
  kRFC,             // "tRFC": REFab -> any command to the rank
  kRFCpb,           // "tRFCpb": REFpb -> any command to that bank, and -> REFab
  kRREFD,           // "tRREFD": REFpb -> ACT/REFpb of another bank, same rank
  kDataBus,         // "data_bus": two data bursts overlap on the channel's data bus
  kRTRS,            // "tRTRS": bursts of different ranks closer than RTRS
  kREFI,            // "tREFI": REFab -> REFab gap > (postpone_max + 1) * REFI
  kREFIpb,          // "tREFIpb": refresh gap of one bank > banks * REFIpb * (postpone_max + 1)
  kRefreshCount,    // "refresh_count": more than postpone_max REFab postponed
  kRefreshCountPb,  // "refresh_count_pb": more than postpone_max refreshes of a bank postponed
  kPBR2PBR,         // "tPBR2PBR": REFpb -> REFpb of another bank (LPDDR5 tpbR2pbR)
  kCommandBus,      // "command_bus": two commands in one clock on one command bus
  kClock,           // "clock": time_ps is not cycle x tCK plus the log's first offset (files only)
  kCommandBusHeld,  // "command_bus_held": a command starts while an earlier multi-clock
                    // command (DDR5 ACT, RD, WR: 2 clocks) still holds the command bus
  kCount
};
inline constexpr std::size_t kConstraintCount = static_cast<std::size_t>(Constraint::kCount);
const char* constraint_name(Constraint c);

struct Violation {
  std::size_t line = 0;     // log line (1-based) of the offending command, 0 if fed directly
  std::uint64_t cycle = 0;  // cycle of the offending command (end cycle for finish() checks)
  std::string constraint;   // constraint_name(): "tRCD_RD", "tFAW", "bank_state", ...
  std::string message;      // command, bank, earliest legal cycle, actual cycle, cause
};

class TimingChecker {
 public:
  static constexpr std::size_t kDefaultMaxStoredViolations = 1000;

  // Throws std::invalid_argument for an organisation or timing the checker cannot use (zero
  // ranks/banks/rows/columns/pseudo-channels, zero burst or REFI).
  explicit TimingChecker(const Spec& spec,
                         std::size_t max_stored_violations = kDefaultMaxStoredViolations);
  ~TimingChecker();
  TimingChecker(TimingChecker&&) noexcept;
  TimingChecker& operator=(TimingChecker&&) noexcept;
  TimingChecker(const TimingChecker&) = delete;
  TimingChecker& operator=(const TimingChecker&) = delete;

  // Feeds one command, in issue order. A command with an out-of-range rank, bank group, bank or
  // pseudo-channel is reported ("address") and otherwise ignored; every other command is checked
  // and then applied to the bank state, even when it broke a rule, so that one mistake is
  // reported once rather than as a cascade.
  void check(const CommandRecord& r, std::size_t line = 0);
  // For a log read from a file (check_log_file), before check(): the record's time_ps is its
  // cycle at the spec's tCK plus one offset for the whole log, that of its first command (0 in
  // famsim's logs; a test bench may count from its reset). Another clock period, or a time that
  // does not match its cycle, is a "clock" violation.
  void check_time(const CommandRecord& r, std::size_t line);

  // End of the run: the log covered cycles [0, end_cycle) (end_cycle is the simulated time in
  // clocks, at least the last command's cycle + 1; an end_cycle equal to the last command's
  // cycle is taken as one more, an earlier one is a "cycle_order" violation). Applies the
  // refresh rules as if the missing refresh were issued at end_cycle: for every rank of every
  // (channel, pseudo-channel) seen (all pseudo-channels of a seen channel; channel 0 if none
  // was seen) the last refresh must be at most (postpone_max + 1) intervals before end_cycle
  // ("tREFI"/"tREFIpb") and at most postpone_max refreshes may be outstanding at the last
  // covered cycle, i.e. at least floor((end_cycle - 1) / interval) - postpone_max issued
  // ("refresh_count"/"refresh_count_pb"). Call once.
  void finish(std::uint64_t end_cycle);

  const std::vector<Violation>& violations() const { return violations_; }  // first N only
  std::uint64_t violation_count() const { return violation_count_; }        // all
  std::uint64_t commands_checked() const { return commands_; }
  std::uint64_t last_cycle() const { return last_cycle_; }
  std::uint64_t commands_of(Command c) const { return per_command_[static_cast<unsigned>(c)]; }
  // How many times a rule was evaluated, and how many times it failed.
  std::uint64_t checks_of(Constraint c) const { return checks_[static_cast<unsigned>(c)]; }
  std::uint64_t violations_of(Constraint c) const {
    return violations_by_constraint_[static_cast<unsigned>(c)];
  }
  // A readable summary: commands per kind, then checks and violations per constraint.
  void write_summary(std::ostream& os) const;

 private:
  struct Bound;
  struct BankState;
  struct RankState;
  struct ChannelState;

  ChannelState& channel_state(unsigned channel, unsigned pseudo_channel);
  bool check_address(const CommandRecord& r, std::size_t line);
  void on_activate(const CommandRecord& r, std::size_t line, RankState& rank);
  void require_rrd(const CommandRecord& r, std::size_t line, RankState& rank);
  void on_precharge(const CommandRecord& r, std::size_t line, RankState& rank);
  void on_column(const CommandRecord& r, std::size_t line, ChannelState& ch, RankState& rank);
  void on_refresh_all(const CommandRecord& r, std::size_t line, RankState& rank);
  void on_refresh_bank(const CommandRecord& r, std::size_t line, RankState& rank);
  // The refresh unit of a flat bank: the bank itself, or (DDR5 REFsb) its bank index.
  int refresh_unit(int flat) const;
  void check_data_bus(const CommandRecord& r, std::size_t line, ChannelState& ch);
  void precharge_bank(const CommandRecord& r, RankState& rank, unsigned bank);
  // Evaluates one rule: the command is legal at or after `bound.earliest`.
  void require(Constraint c, const CommandRecord& r, std::size_t line, const Bound& bound,
               int bank = -1);
  void count_check(Constraint c) { ++checks_[static_cast<unsigned>(c)]; }
  // Counts a violation; builds its message (make_message() -> std::string) only while messages
  // are kept.
  template <typename MakeMessage>
  void report(Constraint c, std::size_t line, std::uint64_t cycle, MakeMessage make_message);

  Spec spec_;
  std::size_t max_stored_;
  std::map<std::pair<unsigned, unsigned>, std::unique_ptr<ChannelState>> channels_;
  ChannelState* cached_ = nullptr;  // the last (channel, pseudo-channel) used
  std::pair<unsigned, unsigned> cached_key_{};
  std::vector<Violation> violations_;
  std::uint64_t violation_count_ = 0;
  std::uint64_t commands_ = 0;
  std::uint64_t last_cycle_ = 0;
  bool time_seen_ = false;
  std::int64_t time_offset_ps_ = 0;  // time_ps - cycle x tCK of the first command (check_time)
  std::array<std::uint64_t, kCommandCount> per_command_{};
  std::array<std::uint64_t, kConstraintCount> checks_{};
  std::array<std::uint64_t, kConstraintCount> violations_by_constraint_{};
};

// Result of checking a whole log file.
struct LogCheckResult {
  std::uint64_t commands = 0;
  std::uint64_t last_cycle = 0;
  std::uint64_t violation_count = 0;  // all violations; `violations` holds the first N
  std::vector<Violation> violations;
  std::string summary;  // TimingChecker::write_summary()
};

// Checks a CSV command log (dram_command.h format: header line first, '#' comment lines and
// blank lines skipped). finish() runs at end_cycle, or at the last command's cycle + 1 if none
// is given. A line that does not parse throws std::runtime_error "FILE:LINE: what was expected";
// a file that cannot be opened or lacks the header throws too.
LogCheckResult check_log_file(const std::string& path, const Spec& spec,
                              std::optional<std::uint64_t> end_cycle = std::nullopt);

}  // namespace famsim::dram
