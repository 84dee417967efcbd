#include "models/core/initiator.h"

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

TargetTraffic Initiator::total_traffic() const {
  TargetTraffic total;
  for (const TargetTraffic& t : traffic_) total.merge(t);
  return total;
}

}  // namespace famsim
