// Per-module log levels: the longest configured prefix of whole name components wins.
#include "models/core/log.h"

#include <gtest/gtest.h>

namespace famsim {
namespace {

TEST(LogSettings, LongestWholeComponentPrefixWins) {
  LogSettings s;
  s.level = LogLevel::kWarning;
  s.modules["fam0.memory"] = LogLevel::kInfo;
  s.modules["fam0.memory.ch3"] = LogLevel::kDebug;
  s.modules["gpu0"] = LogLevel::kError;
  EXPECT_EQ(s.level_for("fam0.memory.ch0"), LogLevel::kInfo);
  EXPECT_EQ(s.level_for("fam0.memory.ch3"), LogLevel::kDebug);
  EXPECT_EQ(s.level_for("fam0.memory"), LogLevel::kInfo);
  // "fam0.memoryx" is not below "fam0.memory"; "gpu00" not below "gpu0".
  EXPECT_EQ(s.level_for("fam0.memoryx"), LogLevel::kWarning);
  EXPECT_EQ(s.level_for("gpu00"), LogLevel::kWarning);
  EXPECT_EQ(s.level_for("gpu0"), LogLevel::kError);
  EXPECT_EQ(s.level_for("switch"), LogLevel::kWarning);
}

TEST(LogSettings, LevelNames) {
  LogLevel l = LogLevel::kError;
  EXPECT_TRUE(parse_log_level("debug", l));
  EXPECT_EQ(l, LogLevel::kDebug);
  EXPECT_TRUE(parse_log_level("info", l));
  EXPECT_EQ(l, LogLevel::kInfo);
  EXPECT_FALSE(parse_log_level("verbose", l));
  ModuleLog m;
  m.set("x", LogLevel::kInfo);
  EXPECT_TRUE(m.enabled(LogLevel::kWarning));
  EXPECT_TRUE(m.enabled(LogLevel::kInfo));
  EXPECT_FALSE(m.enabled(LogLevel::kDebug));
}

}  // namespace
}  // namespace famsim
