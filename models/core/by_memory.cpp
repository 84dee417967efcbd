#include "models/core/by_memory.h"

#include <algorithm>
#include <stdexcept>

namespace famsim {

const char* to_string(MemoryLayout::Kind k) {
  switch (k) {
    case MemoryLayout::Kind::kDevice:
      return "device";
    case MemoryLayout::Kind::kGpuHbm:
      return "gpu_hbm";
    case MemoryLayout::Kind::kStandalone:
      return "standalone_memory";
  }
  return "?";
}

void MemoryLayout::set_targets(std::vector<Target> targets) {
  std::sort(targets.begin(), targets.end(),
            [](const Target& a, const Target& b) { return a.base < b.base; });
  for (std::size_t i = 1; i < targets.size(); ++i) {
    if (targets[i].base - targets[i - 1].base < targets[i - 1].size) {
      throw std::logic_error("memory targets " + targets[i - 1].name + " and " + targets[i].name +
                             " overlap");
    }
  }
  targets_ = std::move(targets);
  traffic_ = std::vector<TargetTraffic>(targets_.size());
  // The largest granule every base is a multiple of. A memory ends before the next one's base, a
  // multiple of it, so no two memories share a granule. A table only up to kMaxGranules long.
  constexpr std::uint64_t kMaxGranules = 1 << 16;
  table_.clear();
  if (targets_.empty()) return;
  unsigned shift = 63;
  for (const Target& t : targets_) {
    if (t.base != 0) shift = std::min(shift, static_cast<unsigned>(__builtin_ctzll(t.base)));
  }
  const Target& last = targets_.back();
  const std::uint64_t end = last.base + std::max<std::uint64_t>(last.size, 1) - 1;
  if ((end >> shift) >= kMaxGranules) return;
  std::vector<std::uint32_t> table((end >> shift) + 1, kNoTarget);
  for (std::size_t i = 0; i < targets_.size(); ++i) {
    const Target& t = targets_[i];
    const std::uint64_t first = t.base >> shift;
    const std::uint64_t past = (t.base + std::max<std::uint64_t>(t.size, 1) - 1) >> shift;
    for (std::uint64_t g = first; g <= past; ++g) table[g] = static_cast<std::uint32_t>(i);
  }
  table_ = std::move(table);
  granule_shift_ = shift;
}

namespace {
std::uint64_t bytes_of(const TargetTraffic& t) { return t.read_bytes + t.write_bytes; }
}  // namespace

nlohmann::json MemoryLayout::by_memory_json(const ReportWindow& window) const {
  std::uint64_t all = 0;
  for (const TargetTraffic& t : traffic_) all += bytes_of(t);
  nlohmann::json out = nlohmann::json::object();
  for (std::size_t i = 0; i < targets_.size(); ++i) {
    const TargetTraffic& t = traffic_[i];
    nlohmann::json j = t.to_json(window, true);
    j["kind"] = to_string(targets_[i].kind);
    j["share_of_bytes"] =
        all > 0 ? static_cast<double>(bytes_of(t)) / static_cast<double>(all) : 0.0;
    out[targets_[i].name] = std::move(j);
  }
  return out;
}

nlohmann::json MemoryLayout::device_balance() const {
  std::size_t devices = 0;
  std::size_t used = 0;
  std::uint64_t sum = 0;
  std::size_t busiest = kNone;
  std::size_t least = kNone;
  for (std::size_t i = 0; i < targets_.size(); ++i) {
    if (targets_[i].kind != Kind::kDevice) continue;
    const std::uint64_t b = bytes_of(traffic_[i]);
    ++devices;
    if (b > 0) ++used;
    sum += b;
    if (busiest == kNone || b > bytes_of(traffic_[busiest])) busiest = i;
    if (least == kNone || b < bytes_of(traffic_[least])) least = i;
  }
  if (devices == 0 || sum == 0) return nullptr;
  const double mean = static_cast<double>(sum) / static_cast<double>(devices);
  return {{"devices", devices},
          {"devices_used", used},
          {"busiest", targets_[busiest].name},
          {"least_busy", targets_[least].name},
          {"max_over_mean", static_cast<double>(bytes_of(traffic_[busiest])) / mean},
          {"min_over_mean", static_cast<double>(bytes_of(traffic_[least])) / mean}};
}

}  // namespace famsim
