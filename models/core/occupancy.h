// Occupancy of a finite pool (a queue, a tag pool, an outstanding-request window) over time: the
// time integral (for the mean), the maximum, and how long the pool spent at each occupancy level
// (a time-weighted histogram, at most kBuckets buckets of equal power-of-two width). One update
// per change of the level, no allocation: it sits on the hot path of the blocks that own pools.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>

namespace famsim {

struct ReportWindow;
struct ResourceUse;
struct ResourceProbe;

class OccupancyGauge {
 public:
  static constexpr unsigned kBuckets = 16;

  // `capacity`: the pool's size (levels 0..capacity); 0 when unbounded (levels above the last
  // bucket are counted in it).
  explicit OccupancyGauge(std::uint64_t capacity = 0) { set_capacity(capacity); }
  void set_capacity(std::uint64_t capacity);

  // The level changes to `level` at `now_ps`. A time before the last change counts as the last
  // change (a block may account a change at an earlier cycle than one it already accounted).
  void set(std::uint64_t level, std::uint64_t now_ps) {
    if (now_ps > since_ps_) {
      const std::uint64_t dt = now_ps - since_ps_;
      integral_ += level_ * dt;
      time_ps_[bucket(level_)] += dt;
      since_ps_ = now_ps;
      if (level_ > max_) max_ = level_;
    }
    level_ = level;
  }

  std::uint64_t level() const { return level_; }
  // When the level last changed (or a block last accounted it).
  std::uint64_t last_change() const { return since_ps_; }
  // The time integral of the level (level x ps) up to `end_ps`, or up to the last change when
  // that came later.
  std::uint64_t integral_to(std::uint64_t end_ps) const {
    return integral_ + level_ * (end_ps - (end_ps < since_ps_ ? end_ps : since_ps_));
  }
  std::uint64_t capacity() const { return capacity_; }
  // The highest level the pool held: its level after all the changes of one instant, so that a
  // message arriving and another leaving at the same time count the same in either order (the
  // order of same-time events is the simulator's, not the hardware's).
  std::uint64_t max() const { return level_ > max_ ? level_ : max_; }
  // Mean level over the window (the current level is carried to the window's end). A block may
  // have accounted changes past the window's end (a DRAM queue draining posted writes after the
  // run's last answer): the mean and the time fractions then run to the last change instead, so
  // that they cover the time the integral holds (covered()).
  double mean(const ReportWindow& window) const;
  // Mean level over the capacity, 0..1 (0 for an unbounded pool).
  double mean_fraction(const ReportWindow& window) const;
  // {capacity, mean, max, bucket_width, time_fraction: [...]}: time_fraction[i] is the fraction of
  // the window spent at levels [i * bucket_width, (i + 1) * bucket_width).
  nlohmann::json to_json(const ReportWindow& window) const;

 private:
  unsigned bucket(std::uint64_t level) const {
    const std::uint64_t b = level >> shift_;
    return b < kBuckets ? static_cast<unsigned>(b) : kBuckets - 1;
  }
  // `window` extended to the last change when that came after its end.
  ReportWindow covered(const ReportWindow& window) const;

  std::uint64_t capacity_ = 0;
  unsigned shift_ = 0;  // bucket width = 1 << shift_
  std::uint64_t level_ = 0;
  std::uint64_t since_ps_ = 0;
  std::uint64_t max_ = 0;
  std::uint64_t integral_ = 0;  // level x ps
  std::array<std::uint64_t, kBuckets> time_ps_{};
};

// A pool tracked by `g` as a slot resource for the bottleneck analysis (stats.h ResourceUse):
// utilisation = mean level over capacity, its occupancy histogram; the caller sets where it sits
// on the round trip and the time it held back its upstream.
ResourceUse slot_pool(std::string name, const OccupancyGauge& g, const ReportWindow& window);
// The same pool as a probe of its running work for the per-phase analysis (stats.h
// ResourceProbe): the gauge's time integral, its clock ticking every `tick_fs` (a DRAM
// controller's gauges count time in DRAM cycles); the caller sets where it sits. `g` must
// outlive the probe.
ResourceProbe pool_probe(std::string name, const OccupancyGauge& g, std::uint64_t tick_fs = 1000);

}  // namespace famsim
