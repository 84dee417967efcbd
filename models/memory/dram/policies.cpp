#include "models/memory/dram/policies.h"

#include <stdexcept>

namespace famsim::dram {

std::unique_ptr<SchedulerPolicy> make_scheduler(const std::string& name, unsigned starvation_cap) {
  if (name == "fcfs") return std::make_unique<FcfsScheduler>();
  if (name == "frfcfs") return std::make_unique<FrFcfsScheduler>(starvation_cap);
  throw std::invalid_argument("unknown scheduler '" + name + "' (expected fcfs or frfcfs)");
}

std::unique_ptr<PagePolicy> make_page_policy(const std::string& name,
                                             std::uint64_t timeout_cycles) {
  if (name == "open") return std::make_unique<OpenPagePolicy>();
  if (name == "closed") return std::make_unique<ClosedPagePolicy>();
  if (name == "timeout") return std::make_unique<TimeoutPagePolicy>(timeout_cycles);
  throw std::invalid_argument("unknown page policy '" + name +
                              "' (expected open, closed or timeout)");
}

}  // namespace famsim::dram
