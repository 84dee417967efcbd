#include "models/core/initiator.h"

#include <stdexcept>
#include <string>

namespace famsim {

void TargetTraffic::merge(const TargetTraffic& other) {
  read_bytes += other.read_bytes;
  write_bytes += other.write_bytes;
  read_latency.merge(other.read_latency);
  write_latency.merge(other.write_latency);
}

nlohmann::json TargetTraffic::to_json(const ReportWindow& window, bool latency) const {
  const double secs = window.seconds();
  const auto gbps = [&](std::uint64_t bytes) {
    return secs > 0 ? static_cast<double>(bytes) / secs * 1e-9 : 0.0;
  };
  nlohmann::json j = {{"read_bytes", read_bytes},
                      {"write_bytes", write_bytes},
                      {"read_bandwidth_gbps", gbps(read_bytes)},
                      {"write_bandwidth_gbps", gbps(write_bytes)},
                      {"bandwidth_gbps", gbps(read_bytes + write_bytes)}};
  if (latency) {
    LatencyHistogram all;
    all.merge(read_latency);
    all.merge(write_latency);
    j["latency_ns"] = all.to_json();
    j["read_latency_ns"] = read_latency.to_json();
    j["write_latency_ns"] = write_latency.to_json();
  }
  return j;
}

Initiator::Initiator(const MemoryLayout* layout)
    : layout_(layout),
      targets_(layout ? layout->targets().size() : 0),
      slots_(targets_ + kTargetClasses),
      slot_class_(targets_ + kTargetClasses, kUnset) {
  for (TargetClass c : kAllTargetClasses) {
    slot_class_[targets_ + static_cast<unsigned>(c)] = c;
  }
}

void Initiator::check_class(std::size_t i, TargetClass c) {
  if (slot_class_[i] == kUnset) {
    slot_class_[i] = c;
    return;
  }
  throw std::logic_error(std::string("requests to ") + layout_->targets()[i].name + " as " +
                         to_string(slot_class_[i]) + " and as " + to_string(c) +
                         " from one initiator");
}

TargetTraffic Initiator::traffic(TargetClass c) const {
  TargetTraffic t;
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    if (slot_class_[i] == c) t.merge(slots_[i]);
  }
  return t;
}

TargetTraffic Initiator::total_traffic() const {
  TargetTraffic total;
  for (const TargetTraffic& t : slots_) total.merge(t);
  return total;
}

}  // namespace famsim
