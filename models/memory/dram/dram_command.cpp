#include "models/memory/dram/dram_command.h"

#include "models/core/clock.h"

#include <array>
#include <charconv>
#include <ostream>
#include <string>
#include <string_view>

namespace famsim::dram {

namespace {
constexpr std::array<const char*, kCommandCount> kNames = {"ACT", "PRE", "PREA",  "RD",    "RDA",
                                                           "WR",  "WRA", "REFab", "REFpb", "REFsb"};

bool parse_uint(std::string_view s, std::uint64_t& out) {
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}
}  // namespace

const char* to_string(Command c) { return kNames[static_cast<unsigned>(c)]; }

std::optional<Command> parse_command(const std::string& s) {
  for (unsigned i = 0; i < kNames.size(); ++i) {
    if (s == kNames[i]) return static_cast<Command>(i);
  }
  return std::nullopt;
}

void write_record(std::ostream& os, const CommandRecord& r) {
  os << r.cycle << ',' << r.time_ps << ',' << r.channel << ',' << r.pseudo_channel << ',' << r.rank
     << ',';
  if (is_rank_wide(r.command)) {
    os << "-,-,";
  } else if (r.command == Command::kREFsb) {
    os << "-," << r.bank << ',';
  } else {
    os << r.bank_group << ',' << r.bank << ',';
  }
  os << to_string(r.command) << ',';
  if (r.command == Command::kACT) {
    os << r.row;
  } else {
    os << '-';
  }
  os << ',';
  if (is_column(r.command)) {
    os << r.column;
  } else {
    os << '-';
  }
  os << '\n';
}

std::optional<CommandRecord> parse_record(const std::string& line, std::string& error) {
  std::array<std::string_view, 10> f;
  std::string_view rest(line);
  if (!rest.empty() && rest.back() == '\r') rest.remove_suffix(1);
  for (unsigned i = 0; i < f.size(); ++i) {
    const auto comma = rest.find(',');
    if ((comma == std::string_view::npos) != (i + 1 == f.size())) {
      error = "expected 10 comma-separated fields: " + std::string(kCommandLogHeader);
      return std::nullopt;
    }
    f[i] = rest.substr(0, comma);
    if (comma != std::string_view::npos) rest.remove_prefix(comma + 1);
  }
  CommandRecord r;
  const auto cmd = parse_command(std::string(f[7]));
  if (!cmd) {
    error = "unknown command '" + std::string(f[7]) +
            "' (expected ACT, PRE, PREA, RD, RDA, WR, WRA, REFab, REFpb or REFsb)";
    return std::nullopt;
  }
  r.command = *cmd;
  const char* names[] = {"cycle", "time_ps", "channel", "pseudo_channel", "rank", "bank_group",
                         "bank",  "command", "row",     "column"};
  // Cycles and times as far as famsim simulates (2^48 ps; a log's clock is at least 1 ps, so its
  // cycles x tCK stay within 64 bits); the coordinates are 32-bit fields of the record.
  constexpr std::uint64_t kMaxField = 0xffffffffULL;
  auto number = [&](unsigned i, std::uint64_t& out, bool needed, std::uint64_t max) {
    if (!needed) {
      if (f[i] == "-" || f[i].empty()) return true;
      error = std::string("field '") + names[i] + "' is '" + std::string(f[i]) +
              "', expected '-': " + to_string(r.command) + " has no " + names[i];
      return false;
    }
    if (!parse_uint(f[i], out) || out > max) {
      error = std::string("field '") + names[i] + "' is '" + std::string(f[i]) +
              "', expected an unsigned integer of at most " + std::to_string(max);
      return false;
    }
    return true;
  };
  std::uint64_t v[10] = {};
  const bool rank_wide = is_rank_wide(r.command);
  if (!number(0, v[0], true, kMaxSimTimePs) || !number(1, v[1], true, kMaxSimTimePs) ||
      !number(2, v[2], true, kMaxField) || !number(3, v[3], true, kMaxField) ||
      !number(4, v[4], true, kMaxField) ||
      !number(5, v[5], !rank_wide && r.command != Command::kREFsb, kMaxField) ||
      !number(6, v[6], !rank_wide, kMaxField) ||
      !number(8, v[8], r.command == Command::kACT, kMaxField) ||
      !number(9, v[9], is_column(r.command), kMaxField)) {
    return std::nullopt;
  }
  r.cycle = v[0];
  r.time_ps = v[1];
  r.channel = static_cast<unsigned>(v[2]);
  r.pseudo_channel = static_cast<unsigned>(v[3]);
  r.rank = static_cast<unsigned>(v[4]);
  r.bank_group = static_cast<unsigned>(v[5]);
  r.bank = static_cast<unsigned>(v[6]);
  r.row = static_cast<std::uint32_t>(v[8]);
  r.column = static_cast<std::uint32_t>(v[9]);
  return r;
}

}  // namespace famsim::dram
