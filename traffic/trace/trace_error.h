// The error every trace reader throws for a file it cannot read or a line it cannot take.
#pragma once

#include <stdexcept>

namespace famsim {

// "FILE:LINE: what was wrong; what was expected" (or "FILE: ..." for the file as a whole).
class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace famsim
