#include "models/memory/dram/dram_spec.h"

namespace famsim::dram {

const char* to_string(Standard s) {
  switch (s) {
    case Standard::kDDR4:
      return "DDR4";
    case Standard::kDDR5:
      return "DDR5";
    case Standard::kLPDDR5X:
      return "LPDDR5X";
    case Standard::kHBM3:
      return "HBM3";
  }
  return "?";
}

}  // namespace famsim::dram
