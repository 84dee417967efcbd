// Logging with a verbosity per module, from configuration (sim.log). Messages go through
// SystemC's report handler (SC_REPORT_*) with the module's hierarchical name as the message type,
// so a co-simulation sees them like any other SystemC model's. Nothing is printed per request
// unless a module's level is `debug` (tracing).
//
//   sim:
//     log: {level: warning, modules: [fam0.memory=info, gpu0=debug]}
//
// A module takes the level of the longest configured prefix of its name (whole name components:
// "fam0.memory" covers "fam0.memory.ch3", not "fam0.memoryx"), else `level`.
#pragma once

#include <map>
#include <string>

namespace famsim {

enum class LogLevel { kError, kWarning, kInfo, kDebug };

// "error" | "warning" | "info" | "debug"; false for anything else.
bool parse_log_level(const std::string& s, LogLevel& out);

// Whether the configured `prefix` covers `module`: equal, or a prefix ending at a '.'.
bool log_prefix_covers(const std::string& prefix, const std::string& module);

struct LogSettings {
  LogLevel level = LogLevel::kWarning;
  std::map<std::string, LogLevel> modules;  // name prefix -> level

  LogLevel level_for(const std::string& module) const;
};

// What a block uses: its level, fixed at elaboration, and the call that reports.
class ModuleLog {
 public:
  void set(std::string module, LogLevel level) {
    module_ = std::move(module);
    level_ = level;
  }
  bool enabled(LogLevel l) const { return l <= level_; }
  // Reports `text` at level `l` if enabled (error and warning always go to SystemC's handler
  // as SC_ERROR / SC_WARNING; info and debug as SC_INFO).
  void write(LogLevel l, const std::string& text) const;

 private:
  std::string module_ = "famsim";
  LogLevel level_ = LogLevel::kWarning;
};

}  // namespace famsim
