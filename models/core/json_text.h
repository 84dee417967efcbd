// JSON text for the files and lines famsim writes (stats.json, timeline.json, bench and validate
// output).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace famsim {

// `j` as text, `indent` spaces per level (-1: one line). Configuration text is checked to be
// UTF-8 where it is read (models/core/config.cpp), but some strings reach the outputs unchecked
// (a file name from the command line may be any bytes): a byte that is not UTF-8 becomes U+FFFD
// rather than the exception nlohmann::json throws by default, which would turn a finished run
// into an internal error.
inline std::string json_text(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace famsim
