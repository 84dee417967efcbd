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
  os << ',';
  if (r.request == kNoRequest) {
    os << '-';
  } else {
    os << r.request;
  }
  os << '\n';
}

std::optional<CommandRecord> parse_record(const std::string& line, std::string& error,
                                          unsigned fields) {
  std::array<std::string_view, 11> f;
  std::string_view rest(line);
  if (!rest.empty() && rest.back() == '\r') rest.remove_suffix(1);
  // 11 fields (with request) or, from a log written before that column, 10.
  unsigned n = 0;
  for (bool more = true; more;) {
    const auto comma = rest.find(',');
    more = comma != std::string_view::npos;
    if (n == f.size()) {
      n = f.size() + 1;  // too many
      break;
    }
    f[n++] = rest.substr(0, comma);
    if (more) rest.remove_prefix(comma + 1);
  }
  if (fields != 0 ? n != fields : n != 10 && n != 11) {
    error = fields == 10 ? "expected 10 comma-separated fields: " + std::string(kCommandLogHeaderV1)
                         : (fields == 11 ? "expected 11 comma-separated fields: "
                                         : "expected 11 comma-separated fields (10 without "
                                           "request): ") +
                               std::string(kCommandLogHeader);
    return std::nullopt;
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
  // request: an id, or "-" for a command issued for no request.
  if (n == 11 && f[10] != "-") {
    std::uint64_t id = 0;
    if (!parse_uint(f[10], id) || id == kNoRequest) {
      error = "field 'request' is '" + std::string(f[10]) +
              "', expected a request id (an unsigned integer below 2^64 - 1) or '-'";
      return std::nullopt;
    }
    r.request = id;
  }
  return r;
}

}  // namespace famsim::dram
