#include "models/core/gpu_balance.h"

#include <algorithm>

namespace famsim {

nlohmann::json gpu_balance(const std::vector<GpuActivity>& gpus) {
  std::vector<const GpuActivity*> active;
  for (const GpuActivity& g : gpus) {
    if (g.requests > 0 && g.last_completion_ps > g.first_issue_ps) active.push_back(&g);
  }
  if (active.size() < 2) return nullptr;
  // bytes per ns = GB/s
  auto gbps = [](const GpuActivity* g) {
    return static_cast<double>(g->bytes) /
           (static_cast<double>(g->last_completion_ps - g->first_issue_ps) * 1e-3);
  };
  const double n = static_cast<double>(active.size());
  double sum = 0, sum_sq = 0, latency_sum = 0;
  const GpuActivity* least = active[0];
  const GpuActivity* most = active[0];
  const GpuActivity* slowest = active[0];
  std::uint64_t first_finish = active[0]->last_completion_ps;
  std::uint64_t last_finish = first_finish;
  for (const GpuActivity* g : active) {
    const double x = gbps(g);
    sum += x;
    sum_sq += x * x;
    latency_sum += g->latency_mean_ns;
    if (x < gbps(least)) least = g;
    if (x > gbps(most)) most = g;
    if (g->latency_mean_ns > slowest->latency_mean_ns) slowest = g;
    first_finish = std::min(first_finish, g->last_completion_ps);
    last_finish = std::max(last_finish, g->last_completion_ps);
  }
  const double mean = sum / n;
  const double latency_mean = latency_sum / n;
  const double jain = sum * sum / (n * sum_sq);
  return {{"gpus", gpus.size()},
          {"gpus_active", active.size()},
          {"bandwidth_gbps", {{"mean", mean}, {"min", gbps(least)}, {"max", gbps(most)}}},
          {"jain_index", jain},
          {"uneven", jain < kJainUneven || gbps(least) / mean < kLeastServedUneven},
          {"least_served", least->name},
          {"least_served_over_mean", gbps(least) / mean},
          {"most_served", most->name},
          {"most_served_over_mean", gbps(most) / mean},
          {"highest_latency", slowest->name},
          {"highest_latency_over_mean",
           latency_mean > 0 ? slowest->latency_mean_ns / latency_mean : 1.0},
          {"finish_spread_ns", static_cast<double>(last_finish - first_finish) * 1e-3}};
}

}  // namespace famsim
