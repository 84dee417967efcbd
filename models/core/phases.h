// Per-phase bottleneck analysis: which resource limits the run in each part of it.
//
// The whole-run analysis (bottleneck.h) ranks resources by their utilisation over the whole run,
// which hides a limiter that holds only part of the time: a prefill burst that saturates the
// device links for a tenth of the run averages 10 % busy. Here every resource's running total of
// work (busy time of a server, level x time of a pool) is sampled at the boundaries of fixed
// windows of simulated time; each window's utilisations are the differences over its width, its
// limiter is picked by the same rule as the whole run's (find_limiter), and runs of windows with
// one limiter become phases, each then analysed in full over its own span; neighbouring phases
// whose limiters are of one class merge when their span together still has a limiter of it.
//
// Memory is bounded as in the time series: at most kMaxWindows windows of per-resource work are
// kept; when a run outgrows them, neighbouring windows merge pairwise and the width doubles.
//
// A sample at boundary B holds the state after every event before B and none at B, in both
// kernels (wakeup.h), so that stats.json stays identical between them: the famsim kernel samples
// in Scheduler::run before the first wake-up at or after B; the systemc kernel's sampling method
// waits until nothing is pending at the current time and samples every boundary up to the next
// pending activity. Either samples only boundaries before the last event or, in a run cut off by
// sim.max_time_ns, before the end; the analysis samples the rest of the run itself.
#pragma once

#include "models/core/occupancy.h"
#include "models/core/request.h"
#include "models/core/stats.h"

#include <nlohmann/json.hpp>
#include <systemc>

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace famsim {

class Initiator;

class PhaseSampler {
 public:
  static constexpr std::size_t kMaxWindows = 32;

  // window_ps 0: switched off.
  void set_window_ps(std::uint64_t w) { window_ps_ = w; }
  // No boundary at or after this time is sampled (sim.max_time_ns: no event runs then), in
  // either kernel.
  void set_end_ps(std::uint64_t e) { end_ps_ = e; }
  bool enabled() const { return window_ps_ > 0; }
  // Collects every component's probes (Component::probes) and the initiators whose completed
  // bytes make each window's achieved bandwidth; called once the platform is built.
  void attach(const ComponentRegistry& registry, std::vector<const Initiator*> initiators);

  // A block whose statistics may run behind the simulated time (DramController sleeps through
  // commands nobody sees yet) gives the function that brings them up to the state just before a
  // time; every sample calls it with its boundary before reading the probes.
  void add_catch_up(std::function<void(std::uint64_t before_ps)> f) {
    catch_ups_.push_back(std::move(f));
  }

  // The next boundary not yet sampled (kNever when off).
  std::uint64_t next_boundary() const { return next_ps_; }
  // Every boundary before the end has been sampled (a run cut off by sim.max_time_ns).
  bool done() const { return next_ps_ >= end_ps_; }
  // Samples every boundary at or before `t_ps`, the time of the next event to run; returns the
  // next boundary.
  std::uint64_t before(std::uint64_t t_ps) {
    if (t_ps >= end_ps_) t_ps = end_ps_ - 1;
    while (next_ps_ <= t_ps) sample();
    return next_ps_;
  }

  // `bottlenecks.phases` of stats.json over the report window: {window_ns, windows, phases: [{
  // start_ns, end_ns, achieved_gbps, by_target_gbps, limiter (class, resource, component,
  // utilization, reason; null when nothing saturates), sentence}]}. The end of the run is
  // sampled here. `threshold`: the saturation threshold. `amend`, when given, is told each
  // resource before the analysis, as the whole run's resources were (a pool that more slots would
  // not relieve, say: ResourceUse::more_slots_help and its advice).
  nlohmann::json analyze(const ReportWindow& window, double threshold,
                         const std::function<void(ResourceRecord&)>& amend = {}) const;

  static constexpr std::uint64_t kNever = ~std::uint64_t{0};

  // The work (resource x ps) the resource named `resource` of component `c` did in each window
  // sampled so far, oldest first, each window_ps() wide (they widen as the run outgrows them);
  // empty when `c` has no such probe. For checks against an independent record of the work.
  std::vector<double> windows_of(const Component& c, const std::string& resource) const;
  std::uint64_t window_ps() const { return window_ps_; }

 private:
  void sample();
  void coarsen();

  std::uint64_t window_ps_ = 0;
  std::uint64_t next_ps_ = kNever;
  std::uint64_t end_ps_ = kNever;
  // Probe i's work counter at time t (ResourceProbe: times its scale, resource x ps).
  std::uint64_t raw(std::size_t i, std::uint64_t t_ps) const {
    const Hot& h = hot_[i];
    if (h.counter) return *h.counter;
    if (h.gauge) return h.gauge->integral_to(h.tick_fs == 1000 ? t_ps : t_ps * 1000 / h.tick_fs);
    return functions_[h.function](t_ps);
  }

  // The work (resource x ps) of probe i since the last boundary sampled, its counter now at r (a
  // link wire's counter, busy time less padding, can step back).
  float delta(std::size_t i, std::uint64_t r) const {
    return static_cast<float>(static_cast<double>(static_cast<std::int64_t>(r - last_[i])) *
                              hot_[i].scale);
  }

  using Row = std::vector<std::pair<std::uint32_t, float>>;
  // The probes whose counters moved since the last boundary sampled, as of t, with their work
  // since then; `seen(i, r)` is told each one's counter r.
  template <class Seen>
  Row moved_since_last(std::uint64_t t_ps, Seen&& seen) const {
    Row row;
    row.reserve(rows_.empty() ? 0 : rows_.back().size());
    for (std::size_t i = 0; i < hot_.size(); ++i) {
      const std::uint64_t r = raw(i, t_ps);
      if (r == last_[i]) continue;
      row.emplace_back(static_cast<std::uint32_t>(i), delta(i, r));
      seen(i, r);
    }
    return row;
  }
  // Bytes completed by target since the last boundary sampled, the initiators' totals now `now`.
  std::array<std::uint64_t, kTargetClasses> bytes_since_last(
      const std::array<std::uint64_t, kTargetClasses>& now) const {
    std::array<std::uint64_t, kTargetClasses> bytes{};
    for (unsigned t = 0; t < kTargetClasses; ++t) bytes[t] = now[t] - completed_last_[t];
    return bytes;
  }

  // What sampling reads of a probe. Its name, capacity and place are asked of its component
  // again by the analysis, and only for the probes that did any work: a platform has thousands
  // of resources that never do (every idle HBM pseudo-channel), and keeping their descriptions
  // for the whole run cost megabytes.
  struct Hot {
    const std::uint64_t* counter;
    const OccupancyGauge* gauge;
    std::uint64_t tick_fs;
    std::uint32_t function;  // into functions_, when neither counter nor gauge
    float scale;
  };
  std::vector<Hot> hot_;
  std::vector<std::function<std::uint64_t(std::uint64_t)>> functions_;
  std::vector<const Component*> owners_;  // each probe's component
  std::vector<std::function<void(std::uint64_t)>> catch_ups_;  // add_catch_up()
  std::vector<std::uint64_t> last_;       // each probe's raw() at the last boundary sampled
  std::uint64_t last_ps_ = 0;
  std::vector<const Initiator*> initiators_;
  // Payload bytes the initiators had completed by the last boundary sampled, by target.
  std::array<std::uint64_t, kTargetClasses> completed_last_{};
  std::array<std::uint64_t, kTargetClasses> completed() const;
  // Per window: the work of every probe that did any in it, by probe (in probe order; float: a
  // window's work fits its 24-bit mantissa to 6e-8), and the bytes completed in it by target.
  std::vector<Row> rows_;
  std::vector<std::array<std::uint64_t, kTargetClasses>> bytes_;
};

// The phases of stats.json's `bottlenecks` (bottlenecks.phases.phases) when the analysis found
// more than one, else an empty array.
const nlohmann::json& changed_phases(const nlohmann::json& bottlenecks);

// The systemc kernel's sampling: a method that runs once nothing is pending at the current time
// and samples every boundary up to the next pending activity, then waits until just before the
// next boundary (or that activity, if later). With nothing pending it stops, so that it never
// keeps the simulation alive; the report samples the end.
class PhaseSamplerProcess : public sc_core::sc_module {
 public:
  PhaseSamplerProcess(sc_core::sc_module_name name, PhaseSampler& sampler);

 private:
  void step();
  PhaseSampler& sampler_;
};

}  // namespace famsim
