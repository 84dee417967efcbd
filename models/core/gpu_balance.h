// How evenly the GPUs were served: stats.json summary.gpu_balance. An arbitration policy (a
// switch's, a device port's, a memory controller's) or a topology that favours some GPUs shows as
// GPUs that get less bandwidth and see longer latencies than the others for like work; the
// run-wide totals hide it.
//
// Each GPU's bandwidth is over its own span, from its first issue to its last completion: a GPU
// that is served less finishes its work later, while its bytes over the run's common window would
// be the same as the others'. Jain's fairness index over those bandwidths, (sum x)^2 / (n sum x^2),
// is 1 when every GPU got the same and 1/n when one got everything (R. Jain, D. Chiu, W. Hawe, "A
// Quantitative Measure of Fairness and Discrimination for Resource Allocation in Shared Computer
// Systems", DEC-TR-301, 1984). The index barely moves for one outlier among many (one GPU at half
// the others' bandwidth: 0.970 of 8 GPUs, 0.996 of 64), so the verdict `uneven` also looks at the
// least served GPU alone: uneven when the index is below kJainUneven or the least served GPU got
// less than kLeastServedUneven of the mean. The figures compare GPUs fairly only when the workload
// gives them like work and keeps them busy (no compute gaps, pacing or trace timestamps: those set
// a GPU's rate, not its service; the latencies still compare).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace famsim {

constexpr double kJainUneven = 0.95;
constexpr double kLeastServedUneven = 0.8;

struct GpuActivity {
  std::string name;
  std::uint64_t bytes = 0;     // read + write bytes of its completed requests
  std::uint64_t requests = 0;  // completed
  double latency_mean_ns = 0;  // over its completed requests
  std::uint64_t first_issue_ps = 0;
  std::uint64_t last_completion_ps = 0;
};

// {gpus, gpus_active (that completed requests over a span longer than 0), bandwidth_gbps {mean,
// min, max} over the active GPUs' own spans, jain_index, least_served and most_served (names) with
// least_served_over_mean and most_served_over_mean, highest_latency (name) with its mean latency
// over the mean of the active GPUs' means, highest_latency_over_mean, and finish_spread_ns (the
// last GPU's last completion less the first's)}; null with fewer than two active GPUs. Ties go to
// the GPU listed first. Also `uneven` (see above).
nlohmann::json gpu_balance(const std::vector<GpuActivity>& gpus);

}  // namespace famsim
