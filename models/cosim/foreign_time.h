// Time at the boundary between famsim's blocks and SystemC processes outside famsim (a foreign
// TLM-2.0 initiator or target behind models/cosim/tlm_bridge.h or tlm_memory_bridge.h), under
// the famsim kernel, whose local time runs ahead of sc_time_stamp() (models/core/wakeup.h).
// Under the systemc kernel (no scheduler) there is no run-ahead and sync() and yield() do nothing.
#pragma once

#include "models/core/wakeup.h"

#include <systemc>

#include <algorithm>
#include <cstdint>

namespace famsim {

class ForeignTime {
 public:
  explicit ForeignTime(Scheduler* scheduler) : scheduler_(scheduler) {}

  // A foreign process called in from its own activation: famsim's local time becomes its
  // sc_time_stamp() first.
  void sync() const {
    if (scheduler_) scheduler_->sync_to_systemc();
  }
  // famsim has just called out to a foreign process (annotated with local_time_offset()): the
  // run-ahead stops after this wake-up, so the process can act at that time first.
  void yield() const {
    if (scheduler_) scheduler_->yield();
  }
  // When a phase a foreign process sent with annotated delay `t` takes effect, famsim's local
  // time being `now`. The delay counts from sc_time_stamp(), which famsim's local time may be
  // ahead of (a call the process makes back while famsim called it out of its run-ahead).
  static std::uint64_t takes_effect_ps(std::uint64_t now, const sc_core::sc_time& t) {
    return std::max<std::uint64_t>(now, sc_core::sc_time_stamp().value() + t.value());
  }

 private:
  Scheduler* scheduler_;
};

}  // namespace famsim
