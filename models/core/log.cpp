#include "models/core/log.h"

#include <systemc>

namespace famsim {

bool parse_log_level(const std::string& s, LogLevel& out) {
  if (s == "error") {
    out = LogLevel::kError;
  } else if (s == "warning") {
    out = LogLevel::kWarning;
  } else if (s == "info") {
    out = LogLevel::kInfo;
  } else if (s == "debug") {
    out = LogLevel::kDebug;
  } else {
    return false;
  }
  return true;
}

bool log_prefix_covers(const std::string& prefix, const std::string& module) {
  return module.compare(0, prefix.size(), prefix) == 0 &&
         (module.size() == prefix.size() || module[prefix.size()] == '.');
}

LogLevel LogSettings::level_for(const std::string& module) const {
  LogLevel l = level;
  std::size_t best = 0;
  for (const auto& [prefix, pl] : modules) {
    if (log_prefix_covers(prefix, module) && prefix.size() >= best) {
      best = prefix.size();
      l = pl;
    }
  }
  return l;
}

void ModuleLog::write(LogLevel l, const std::string& text) const {
  if (!enabled(l)) return;
  switch (l) {
    case LogLevel::kError:
      SC_REPORT_ERROR(module_.c_str(), text.c_str());
      break;
    case LogLevel::kWarning:
      SC_REPORT_WARNING(module_.c_str(), text.c_str());
      break;
    case LogLevel::kInfo:
      SC_REPORT_INFO_VERB(module_.c_str(), text.c_str(), sc_core::SC_MEDIUM);
      break;
    case LogLevel::kDebug:
      SC_REPORT_INFO_VERB(module_.c_str(), text.c_str(), sc_core::SC_MEDIUM);
      break;
  }
}

}  // namespace famsim
