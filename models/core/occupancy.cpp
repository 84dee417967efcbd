#include "models/core/occupancy.h"

#include "models/core/stats.h"

#include <algorithm>

namespace famsim {

void OccupancyGauge::set_capacity(std::uint64_t capacity) {
  capacity_ = capacity;
  // The smallest power-of-two width that fits levels 0..capacity in kBuckets buckets.
  shift_ = 0;
  while (capacity > 0 && ((capacity >> shift_) + 1) > kBuckets) ++shift_;
}

ReportWindow OccupancyGauge::covered(const ReportWindow& window) const {
  ReportWindow w = window;
  w.end_ps = std::max(w.end_ps, since_ps_);
  return w;
}

double OccupancyGauge::mean(const ReportWindow& window) const {
  const ReportWindow w = covered(window);
  return window_mean(integral_to(w.end_ps), w);
}

double OccupancyGauge::mean_fraction(const ReportWindow& window) const {
  return capacity_ == 0 ? 0.0 : std::min(1.0, mean(window) / static_cast<double>(capacity_));
}

nlohmann::json OccupancyGauge::to_json(const ReportWindow& report_window) const {
  const ReportWindow window = covered(report_window);
  std::array<std::uint64_t, kBuckets> t = time_ps_;
  t[bucket(level_)] += window.end_ps - std::min(window.end_ps, since_ps_);
  // The pool is empty before the window opens (the run's first request), so that time sits in
  // bucket 0 and is taken out.
  t[0] -= std::min(t[0], window.start_ps);
  const double d = static_cast<double>(window.duration_ps());
  // Buckets beyond the one holding `capacity` (or the highest level seen) are always empty.
  const std::uint64_t top = std::max(capacity_, max());
  const unsigned used = bucket(top) + 1;
  nlohmann::json frac = nlohmann::json::array();
  for (unsigned i = 0; i < used; ++i) frac.push_back(d > 0 ? static_cast<double>(t[i]) / d : 0.0);
  return {{"capacity", capacity_},
          {"mean", mean(window)},
          {"max", max()},
          {"bucket_width", std::uint64_t{1} << shift_},
          {"time_fraction", std::move(frac)}};
}

ResourceUse slot_pool(std::string name, const OccupancyGauge& g, const ReportWindow& window) {
  ResourceUse u;
  u.name = std::move(name);
  u.type = ResourceUse::Type::kSlots;
  u.utilization = g.mean_fraction(window);
  u.capacity = static_cast<double>(g.capacity());
  u.used = g.mean(window);
  u.occupancy = g.to_json(window);
  return u;
}

ResourceProbe pool_probe(std::string name, const OccupancyGauge& g, std::uint64_t tick_fs) {
  ResourceProbe p;
  p.use.name = std::move(name);
  p.use.type = ResourceUse::Type::kSlots;
  p.use.capacity = static_cast<double>(g.capacity());
  p.servers = p.use.capacity;
  p.gauge = &g;
  p.tick_fs = tick_fs;
  p.scale = static_cast<double>(tick_fs) * 1e-3;
  return p;
}

}  // namespace famsim
