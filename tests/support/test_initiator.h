// An initiator for unit tests: it issues nothing, and the test makes its completions.
#pragma once

#include "models/core/initiator.h"

#include <cstdint>

namespace famsim::test {

class TestInitiator : public Initiator {
 public:
  explicit TestInitiator(MemoryLayout* memories = nullptr) : Initiator(memories) {}
  bool finished() const override { return true; }
  // A request of class `c` to `pa` completed after `latency_ps`.
  void complete(TargetClass c, std::uint64_t pa, bool write, std::uint32_t bytes,
                std::uint64_t latency_ps) {
    count_completion(c, write, pa, bytes, latency_ps);
  }
};

}  // namespace famsim::test
