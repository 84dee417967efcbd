// What a GPU stream asks for its next access: the interface between the GPU initiator and every
// traffic generator (access patterns, AI workload generators, trace replay). Pure C++, no SystemC.
//
// A source is pulled: the GPU asks for the next access when it has room to issue one. The source
// may answer with an access, with "not before time T" (pacing, compute time, trace timestamps),
// with "not until something completes" (a phase waiting for its data), or with "done". The GPU
// reports every completed request back with the access's phase tag, so a source can model
// dependencies: a layer's compute starting when its data has arrived, a prefetch running ahead.
//
// PhasedSource is the common shape of the AI generators: a pipeline of phases, each a batch of
// accesses (fetch) followed by a compute time.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

namespace famsim {

struct Access {
  static constexpr std::uint64_t kUntimed = ~std::uint64_t{0};
  std::uint64_t va = 0;
  std::uint32_t bytes = 0;
  bool write = false;
  std::uint32_t phase = 0;  // tag the GPU hands back on completion (PhasedSource: phase index)
  // The time a trace asked for this access (open-loop replay), from which the GPU measures its
  // issue lag (IssueLag); kUntimed for accesses no timestamp asked for.
  std::uint64_t due_ps = kUntimed;
};

class AccessSource {
 public:
  static constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();
  enum class State { kReady, kWait, kDone };

  virtual ~AccessSource() = default;

  // The next access the GPU may issue at now_ps. kReady: `a` is filled. kWait: nothing before
  // wake_ps (kNever: nothing until a completion is reported). kDone: the source has nothing more;
  // it stays done.
  virtual State next(std::uint64_t now_ps, Access& a, std::uint64_t& wake_ps) = 0;
  // `bytes` of an access tagged `phase` have completed at the GPU at now_ps (their arrival),
  // which the GPU takes at seen_ps (its clock edge after the arrival).
  virtual void completed(std::uint32_t /*phase*/, std::uint32_t /*bytes*/, std::uint64_t /*now_ps*/,
                         std::uint64_t /*seen_ps*/) {}
  void completed(std::uint32_t phase, std::uint32_t bytes, std::uint64_t now_ps) {
    completed(phase, bytes, now_ps, now_ps);
  }
  // The GPU stopped asking at now_ps (the stream's duration ran out) before the source was done.
  virtual void stopped(std::uint64_t /*now_ps*/) {}
  // Generator-specific results for stats.json (steps, step times, hit rates).
  virtual nlohmann::json report() const { return nlohmann::json::object(); }
  // Phases whose compute has ended by now_ps (PhasedSource), for the progress line; 0 for other
  // sources.
  virtual std::uint64_t phases_ended(std::uint64_t /*now_ps*/) const { return 0; }
  // When the source's own work after its last access ends (PhasedSource: the last phase's
  // compute), asked once it is done; 0 for sources that do nothing after their last access.
  virtual std::uint64_t work_end_ps() const { return 0; }

  // How something outside the GPU's own completions (a tensor-parallel group's barrier, released
  // by another GPU) asks the GPU to ask this source again: at its first clock edge after `t_ps`.
  // The GPU sets it when it takes the source.
  void set_waker(std::function<void(std::uint64_t t_ps)> w) { waker_ = std::move(w); }

 protected:
  void wake_after(std::uint64_t t_ps) const {
    if (waker_) waker_(t_ps);
  }

 private:
  std::function<void(std::uint64_t)> waker_;
};

class PhasedSource;

// The GPUs of a tensor-parallel group synchronise at the end of every phase (a layer): each
// layer ends with all-reduces of its activations over the group, which no GPU can pass before the
// slowest has computed its shard. Each member's phase i ends when the last member's would, the
// latest of their own ends (fetch done, then compute). The barrier gathers one phase at a time:
// no member can end phase i + 1 before every member has taken phase i's end. A member sees the end
// from its first clock edge after the last member arrived, so that the result does not depend on
// the order in which same-time events run; the barrier wakes every member then.
class GroupBarrier {
 public:
  explicit GroupBarrier(unsigned members) : members_(members) {}
  void join(PhasedSource* member) { joined_.push_back(member); }
  unsigned members() const { return members_; }
  // A member's phase `phase` would end at `end_ps` (known at now_ps).
  void arrive(std::uint64_t phase, std::uint64_t end_ps, std::uint64_t now_ps);
  // A member stops before its last phase (its stream's duration ran out) at now_ps, having
  // arrived at phase `arrived_at` and not taken its end (kNone: at none): the others no longer
  // wait for it.
  static constexpr std::uint64_t kNone = ~std::uint64_t{0};
  void leave(std::uint64_t arrived_at, std::uint64_t now_ps);
  // The group's end of `phase`, once every member has arrived, from a time after the last did.
  bool released(std::uint64_t phase, std::uint64_t now_ps, std::uint64_t& end_ps) const {
    if (gathering_ <= phase || now_ps <= released_at_ps_) return false;
    end_ps = released_end_ps_;
    return true;
  }

 private:
  void release(std::uint64_t now_ps);

  unsigned members_;
  std::vector<PhasedSource*> joined_;
  std::uint64_t gathering_ = 0;  // the phase whose ends are being gathered
  unsigned arrived_ = 0;
  std::uint64_t latest_end_ps_ = 0;
  std::uint64_t released_end_ps_ = 0;  // phase gathering_ - 1's end
  std::uint64_t released_at_ps_ = 0;
};

// A pipeline of phases. Phase i fetches its accesses, then computes for its compute time:
//   compute_i starts at max(fetch_i done, compute_{i-1} end) and lasts compute_ps(i);
//   fetch_i starts no earlier than its not_before time and once compute_{i-1-depth} has ended,
// where depth is the number of phases fetched ahead (0: a phase's data is fetched after the
// previous phase's compute; 1: double buffering, the next fetch overlaps this compute). A phase
// with no accesses is fetched the moment it starts. The source is done when the last compute
// has ended.
class PhasedSource : public AccessSource {
 public:
  struct PhaseStart {
    std::uint64_t compute_ps = 0;     // compute after the fetch
    std::uint64_t not_before_ps = 0;  // the fetch starts no earlier (e.g. a request's arrival)
  };
  struct PhaseTimes {
    std::uint64_t index = 0;
    std::uint64_t fetch_start_ps = 0;
    std::uint64_t fetch_end_ps = 0;
    std::uint64_t compute_end_ps = 0;
    std::uint64_t bytes = 0;
  };

  explicit PhasedSource(unsigned depth);

  State next(std::uint64_t now_ps, Access& a, std::uint64_t& wake_ps) final;
  using AccessSource::completed;
  void completed(std::uint32_t phase, std::uint32_t bytes, std::uint64_t now_ps,
                 std::uint64_t seen_ps) final;
  // A member of a group leaves it, so that the others do not wait for it.
  void stopped(std::uint64_t now_ps) final;

  unsigned depth() const { return depth_; }
  std::uint64_t phases_done() const { return finalized_; }
  std::uint64_t phases_ended(std::uint64_t now_ps) const final;
  // When the last finished phase's compute ended.
  std::uint64_t last_compute_end_ps() const { return last_compute_end_; }
  std::uint64_t work_end_ps() const override { return last_compute_end_; }
  // Ends each phase with the other members of `group` (GroupBarrier). Before the run starts.
  void join_group(std::shared_ptr<GroupBarrier> group) {
    group_ = std::move(group);
    group_->join(this);
  }

 protected:
  // Opens phase i (0, 1, ...); false when there are no more phases. Called once per phase, in
  // order, when the pipeline is ready to start it.
  virtual bool open_phase(std::uint64_t i, PhaseStart& start) = 0;
  // The next access of the open phase; false when the phase has issued everything.
  virtual bool phase_access(Access& a) = 0;
  // Phase i's compute has ended (in phase order).
  virtual void phase_finished(const PhaseTimes& /*times*/) {}

 private:
  struct Slot {
    std::uint64_t index = 0;
    std::uint64_t issued = 0;
    std::uint64_t completed = 0;
    std::uint64_t compute_ps = 0;
    std::uint64_t fetch_start_ps = 0;
    std::uint64_t fetch_end_ps = 0;
    std::uint64_t last_completion_ps = 0;
    bool began = false;
    bool all_issued = false;
    bool fetched = false;
    bool arrived = false;  // at the group's barrier
  };
  Slot& slot(std::uint64_t i) { return slots_[i % slots_.size()]; }
  // Ends, in phase order, every phase whose fetch is done: its compute end becomes known (with a
  // group, once the group's barrier has every member's).
  void finalize(std::uint64_t now_ps);
  friend class GroupBarrier;

  unsigned depth_;
  std::vector<Slot> slots_;                 // phases [finalized_, next_) : depth + 2 at most
  std::vector<std::uint64_t> compute_end_;  // by phase index modulo depth + 2
  std::uint64_t next_ = 0;                  // the next phase to open
  std::uint64_t finalized_ = 0;             // phases whose compute end is known
  bool open_ = false;                       // phase next_ - 1 is issuing
  bool no_more_ = false;                    // open_phase said there are no more
  std::uint64_t last_compute_end_ = 0;
  std::shared_ptr<GroupBarrier> group_;
};

// The times of a PhasedSource's steps of consecutive phases (a decode step or a pass over the
// model: one phase per layer). A step runs from the end of the previous step's last compute to the
// end of its own, the first from its first fetch: with fetch-ahead (depth >= 1) a step's first
// fetch starts inside the previous step, and timing it from there would count the overlap twice.
// So the steps add up to the source's time.
class StepTimes {
 public:
  // Called with every finished phase, `phases_per_step` to a step.
  void phase_finished(const PhasedSource::PhaseTimes& t, unsigned phases_per_step) {
    if (t.index == 0) start_ps_ = t.fetch_start_ps;
    if (t.index % phases_per_step == 0) first_end_ps_ = t.compute_end_ps;
    if (t.index % phases_per_step == phases_per_step - 1) {
      ns_.push_back(static_cast<double>(t.compute_end_ps - start_ps_) * 1e-3);
      first_ns_.push_back(static_cast<double>(first_end_ps_ - start_ps_) * 1e-3);
      start_ps_ = t.compute_end_ps;
    }
  }
  // Each finished step's time, ns.
  const std::vector<double>& ns() const { return ns_; }
  // Each finished step's time had it `model_phases` phases like its own (a whole model's layers
  // where the first `phases_per_step` ran, all alike): its first phase as it ran, to that
  // phase's compute end (the pipeline's fill: in a first step the first fetch, which nothing
  // hid), and every further phase at the mean of this step's others, each from the previous
  // phase's compute end to its own (the steady state, fetch and compute overlapped). Scaling the
  // whole step instead would count the fill once per simulated share of the model. Needs at
  // least 2 phases a step.
  std::vector<double> scaled_ns(unsigned phases_per_step, unsigned model_phases) const {
    std::vector<double> out;
    if (phases_per_step < 2) return out;
    const double later = static_cast<double>(model_phases - 1) / (phases_per_step - 1);
    for (std::size_t k = 0; k < ns_.size(); ++k)
      out.push_back(first_ns_[k] + (ns_[k] - first_ns_[k]) * later);
    return out;
  }

 private:
  std::uint64_t start_ps_ = 0;
  std::uint64_t first_end_ps_ = 0;
  std::vector<double> ns_;
  std::vector<double> first_ns_;  // per step: from its start to its first phase's compute end
};

}  // namespace famsim
