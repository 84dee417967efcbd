// DRAM commands and the command log: the reference an RTL controller test bench compares
// against, and the input of the independent timing checker.
//
// Log format (CSV, one file per modelled channel, header line first):
//   cycle,time_ps,channel,pseudo_channel,rank,bank_group,bank,command,row,column,request
// cycle   : tCK cycle of the command clock at which the command is issued, counted from time 0
//           (time_ps = cycle*tCK, rounded to the ps)
// channel, pseudo_channel: the controller's place (DramControllerParams)
// command : ACT PRE PREA RD RDA WR WRA REFab REFpb REFsb
// rank, bank_group, bank: 0-based; bank is the bank within its group
// bank_group, bank: for PREA and REFab "-" (they address the whole rank); for REFsb (DDR5
//           same-bank refresh: bank `bank` of every bank group) bank_group is "-"
// row     : for ACT; "-" otherwise.   column: for RD/RDA/WR/WRA, the burst's first column
//           (a multiple of the burst length: columns count device-width words); "-" otherwise.
// request : the id of the request whose burst the command was issued for (transactions.csv's
//           `id`: a GPU's GPU << 40 | sequence, a trace player's sequence number), also for the
//           ACT and PRE that open or close a row for it; "-" for refreshes, PREA, and PREs of the
//           page policy (timeout) or of a refresh. Logs written before it had no such column
//           (kCommandLogHeaderV1); parse_record() and the timing checker read both.
// Lines starting with '#' are comments.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

namespace famsim::dram {

enum class Command : std::uint8_t {
  kACT,
  kPRE,
  kPREA,
  kRD,
  kRDA,
  kWR,
  kWRA,
  kREFab,
  kREFpb,
  kREFsb
};
inline constexpr unsigned kCommandCount = 10;
const char* to_string(Command c);
std::optional<Command> parse_command(const std::string& s);

inline bool is_read(Command c) { return c == Command::kRD || c == Command::kRDA; }
inline bool is_write(Command c) { return c == Command::kWR || c == Command::kWRA; }
inline bool is_column(Command c) { return is_read(c) || is_write(c); }
inline bool is_auto_precharge(Command c) { return c == Command::kRDA || c == Command::kWRA; }
inline bool is_rank_wide(Command c) { return c == Command::kPREA || c == Command::kREFab; }
// A refresh of some banks of a rank: REFpb (one bank) or REFsb (one bank index in every group).
inline bool is_bank_refresh(Command c) { return c == Command::kREFpb || c == Command::kREFsb; }

// CommandRecord::request of a command issued for no request (refresh, page policy).
inline constexpr std::uint64_t kNoRequest = ~std::uint64_t{0};

struct CommandRecord {
  std::uint64_t cycle = 0;
  std::uint64_t time_ps = 0;
  unsigned channel = 0;
  unsigned pseudo_channel = 0;
  unsigned rank = 0;
  unsigned bank_group = 0;  // meaningless for rank-wide commands
  unsigned bank = 0;        // bank within its group; meaningless for rank-wide commands
  Command command = Command::kACT;
  std::uint32_t row = 0;     // ACT only
  std::uint32_t column = 0;  // column commands only
  std::uint64_t request = kNoRequest;  // the request it was issued for, or kNoRequest
};

inline constexpr const char* kCommandLogHeader =
    "cycle,time_ps,channel,pseudo_channel,rank,bank_group,bank,command,row,column,request";
// The header of logs written before the request column.
inline constexpr const char* kCommandLogHeaderV1 =
    "cycle,time_ps,channel,pseudo_channel,rank,bank_group,bank,command,row,column";

// Writes one record as a log line (with '\n').
void write_record(std::ostream& os, const CommandRecord& r);
// Parses one log line: `fields` 11 (with request), 10 (an old log's, without) or 0 (either);
// returns nullopt and sets `error` (what was expected) for a bad line.
std::optional<CommandRecord> parse_record(const std::string& line, std::string& error,
                                          unsigned fields = 0);

}  // namespace famsim::dram
