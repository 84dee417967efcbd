#include "models/core/initiator.h"

namespace famsim {

TargetTraffic Initiator::total_traffic() const {
  TargetTraffic total;
  for (const TargetTraffic& t : traffic_) total.merge(t);
  return total;
}

}  // namespace famsim
