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
  // The tag of every access of a side lane (AccessSource::side_lane), and of no other: the GPU
  // hands such a completion to the lane.
  static constexpr std::uint32_t kSideLaneTag = 0x80000000u;
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
  // A second source of the same stream whose accesses the GPU issues apart, taking turns with
  // this one's: their own split into requests and their own window of the stream's
  // max_outstanding (both within the GPU's), so that neither waits behind the other's requests.
  // The GPU reports their completions to it. PhasedSource: the rounds of a group's collectives,
  // which a GPU runs on channels of their own (NCCL's kernels on SMs of their own) beside the
  // fetches of the layers ahead. nullptr (the default): none. Asked once, when the GPU takes the
  // source; it lives as long as the source.
  virtual AccessSource* side_lane() { return nullptr; }

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
// latest of their own ends (fetch done, then compute). With the collectives simulated
// (CollectivePlan) every round of them is gathered alike: a round ends on every member when the
// last member's writes of it have completed. The barrier gathers one event at a time, in the
// order every member meets them (phase 0's compute, its rounds, phase 1's compute, ...): no
// member can end event k + 1 before every member has taken event k's end. A member sees the end
// from its first clock edge after the last member arrived, so that the result does not depend on
// the order in which same-time events run; the barrier wakes every member then.
class GroupBarrier {
 public:
  explicit GroupBarrier(unsigned members) : members_(members) {}
  void join(PhasedSource* member) { joined_.push_back(member); }
  // A member's event `event` (its phase's compute, or a round of its collectives) would end at
  // `end_ps` (known at now_ps).
  void arrive(std::uint64_t event, std::uint64_t end_ps, std::uint64_t now_ps);
  // A member stops before its last phase (its stream's duration ran out) at now_ps, having
  // arrived at event `arrived_at` and not taken its end (kNone: at none): the others no longer
  // wait for it.
  static constexpr std::uint64_t kNone = ~std::uint64_t{0};
  void leave(std::uint64_t arrived_at, std::uint64_t now_ps);
  // The group's end of `event`, once every member has arrived, from a time after the last did.
  bool released(std::uint64_t event, std::uint64_t now_ps, std::uint64_t& end_ps) const {
    if (gathering_ <= event || now_ps <= released_at_ps_) return false;
    end_ps = released_end_ps_;
    return true;
  }

 private:
  void release(std::uint64_t now_ps);

  unsigned members_;
  std::vector<PhasedSource*> joined_;
  std::uint64_t gathering_ = 0;  // the event whose ends are being gathered
  unsigned arrived_ = 0;
  std::uint64_t latest_end_ps_ = 0;
  std::uint64_t released_end_ps_ = 0;  // event gathering_ - 1's end
  std::uint64_t released_at_ps_ = 0;
};

// The collectives a synchronised group's GPUs run over the fabric after a phase's compute (a
// tensor-parallel layer's all-reduces of its output), as rounds of writes into receive buffers in
// the peers' memory; each round starts on every member when the group's previous round (or the
// phase's compute) has ended on all of them (GroupBarrier), as a GPU can send a round's data only
// once it has received, or computed, what it sends. For one all-reduce of a message of S bytes
// over n GPUs:
//   ring      2(n - 1) rounds (reduce-scatter, then all-gather), in each S/n bytes to the next
//             rank (NCCL's ring algorithm: each GPU sends 2(n - 1)/n x S in all)
//   one_shot  1 round, all S bytes to each of the n - 1 others, each then reducing locally
//             (vLLM's and TensorRT-LLM's one-shot custom all-reduce, for small messages)
//   two_shot  2 rounds, S/n bytes to each of the n - 1 others in each (reduce-scatter, then
//             all-gather of the reduced shards: TensorRT-LLM's two-shot)
// An expert-parallel layer's all-to-all instead (all_to_all): 2 rounds, dispatch then combine,
// in each a number of bytes to each of the n - 1 others that the phase gives
// (PhaseStart::dest_bytes: the tokens routed between each pair of ranks), S unused.
// S/n is rounded up to whole bytes. The writes take the fabric and the peers' memory like any
// other request; the local reads and adds of the reduction, and the flags by which a GPU learns
// that a round's data has arrived, are not simulated (the barrier stands for them).
struct CollectivePlan {
  enum class Algorithm { kRing, kOneShot, kTwoShot, kAllToAll };
  Algorithm algorithm = Algorithm::kRing;
  unsigned members = 1;  // the group's GPUs
  // Where this GPU writes: its mapping of a receive buffer in each destination's memory, the
  // next rank's (ring) or ranks +1 .. +(n - 1) modulo the group's (one_shot, two_shot).
  std::vector<std::uint64_t> peer_va;
  // Each receive buffer's size: the writes run through it as a ring, each round from where the
  // last ended, so a message larger than the buffer passes through it in turn.
  std::uint64_t buffer_bytes = 0;
  std::uint32_t access_bytes = 0;  // the writes in accesses of at most this

  // Rounds of one collective, and the bytes each round writes to each destination (all_to_all:
  // the most, S; the phase gives each).
  unsigned rounds() const;
  std::uint64_t round_bytes(std::uint64_t message_bytes) const;
  // Bytes one GPU writes for one collective of `message_bytes`.
  std::uint64_t bytes_written(std::uint64_t message_bytes) const;
  // The destinations a GPU writes to: 1 (ring) or n - 1.
  unsigned destinations() const;
};

// A pipeline of phases. Phase i fetches its accesses, then computes for its compute time:
//   compute_i starts at max(fetch_i done, compute_{i-1} end) and lasts compute_ps(i);
//   fetch_i starts no earlier than its not_before time and once compute_{i-1-depth} has ended,
// where depth is the number of phases fetched ahead (0: a phase's data is fetched after the
// previous phase's compute; 1: double buffering, the next fetch overlaps this compute). A phase
// with no accesses is fetched the moment it starts. With a group's collectives (set_collective),
// phase i then runs its collectives after its compute, and its end (what the phases after it wait
// for in place of its compute end) is their end. The collectives' writes come from side_lane(),
// apart from the fetches, so that with fetch-ahead (depth >= 1) a round does not wait behind the
// next phases' fetches in the stream's window (a GPU runs its collectives on channels of their
// own). The source is done when the last phase has ended.
class PhasedSource : public AccessSource {
 public:
  struct PhaseStart {
    std::uint64_t compute_ps = 0;     // compute after the fetch
    std::uint64_t not_before_ps = 0;  // the fetch starts no earlier (e.g. a request's arrival)
    // Collectives after the compute (with set_collective): how many, each of a message of
    // collective_bytes per GPU (an all-reduce's S).
    unsigned collectives = 0;
    std::uint64_t collective_bytes = 0;
    // all_to_all: per round (collectives x rounds) and destination (as CollectivePlan::peer_va),
    // the bytes to write; copied when the phase opens.
    const std::vector<std::uint64_t>* dest_bytes = nullptr;
  };
  struct PhaseTimes {
    std::uint64_t index = 0;
    std::uint64_t fetch_start_ps = 0;
    std::uint64_t fetch_end_ps = 0;
    std::uint64_t compute_end_ps = 0;
    std::uint64_t bytes = 0;
    std::uint64_t end_ps = 0;  // after its collectives (compute_end_ps without any)
  };

  explicit PhasedSource(unsigned depth);

  State next(std::uint64_t now_ps, Access& a, std::uint64_t& wake_ps) final;
  using AccessSource::completed;
  void completed(std::uint32_t phase, std::uint32_t bytes, std::uint64_t now_ps,
                 std::uint64_t seen_ps) final;
  // A member of a group leaves it, so that the others do not wait for it.
  void stopped(std::uint64_t now_ps) final;
  // The collectives' rounds (set_collective in a group), or nullptr.
  AccessSource* side_lane() final {
    return group_ && !collective_.peer_va.empty() ? &lane_ : nullptr;
  }

  unsigned depth() const { return depth_; }
  std::uint64_t phases_done() const { return finalized_; }
  std::uint64_t phases_ended(std::uint64_t now_ps) const final;
  // When the last finished phase ended (its compute, and its collectives).
  std::uint64_t last_compute_end_ps() const { return last_compute_end_; }
  std::uint64_t work_end_ps() const override { return last_compute_end_; }
  // Ends each phase with the other members of `group` (GroupBarrier). Before the run starts.
  void join_group(std::shared_ptr<GroupBarrier> group) {
    group_ = std::move(group);
    group_->join(this);
  }
  // Runs each phase's collectives (PhaseStart::collectives) with the group's other members as
  // `plan` says, after join_group and before the run starts.
  void set_collective(CollectivePlan plan) { collective_ = std::move(plan); }
  // Bytes this GPU's collectives wrote (completed).
  std::uint64_t collective_bytes_written() const { return collective_written_; }
  // Accesses of the collectives (the side lane's) carry this phase tag.
  static constexpr std::uint32_t kCollectiveTag = Access::kSideLaneTag;

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
    unsigned collectives = 0;
    std::uint64_t collective_bytes = 0;
    std::vector<std::uint64_t> dest_bytes;  // PhaseStart::dest_bytes (capacity kept: no allocation)
    std::uint64_t compute_end_ps = 0;
    bool began = false;
    bool all_issued = false;
    bool fetched = false;
    bool computed = false;  // compute_end_ps known (with a group: the group's)
  };
  // The collectives' round in progress: phase finalized_'s, after its compute.
  struct Round {
    unsigned left = 0;           // rounds of the phase not yet ended, this one's included
    unsigned index = 0;          // of the phase's rounds
    const std::vector<std::uint64_t>* dest_bytes = nullptr;  // the phase's, or none: `bytes` each
    std::uint64_t start_ps = 0;  // the group's end of the previous round, or of the compute
    std::uint64_t bytes = 0;     // to each destination (without dest_bytes)
    unsigned dest = 0;           // the destination being written
    std::uint64_t offset = 0;    // bytes of it issued
    std::uint64_t issued = 0;    // bytes, all destinations
    std::uint64_t completed = 0;
    std::uint64_t last_completion_ps = 0;
  };
  Slot& slot(std::uint64_t i) { return slots_[i % slots_.size()]; }
  // Ends, in phase order, every phase whose fetch is done: its compute end becomes known (with a
  // group, once the group's barrier has every member's), then its collectives' rounds run.
  void finalize(std::uint64_t now_ps);
  // The pipeline's fetches.
  State next_fetch(std::uint64_t now_ps, Access& a, std::uint64_t& wake_ps);
  // The side lane's next(): the current round's writes, from its start; done with the source.
  State next_round(std::uint64_t now_ps, Access& a, std::uint64_t& wake_ps);
  // side_lane(): the rounds' accesses as a source of their own, their completions back here.
  class CollectiveLane : public AccessSource {
   public:
    explicit CollectiveLane(PhasedSource& owner) : owner_(owner) {}
    State next(std::uint64_t now_ps, Access& a, std::uint64_t& wake_ps) override {
      return owner_.next_round(now_ps, a, wake_ps);
    }
    void completed(std::uint32_t phase, std::uint32_t bytes, std::uint64_t now_ps,
                   std::uint64_t seen_ps) override {
      owner_.completed(phase, bytes, now_ps, seen_ps);
    }

   private:
    PhasedSource& owner_;
  };
  // This member's `end_ps` of its next barrier event becomes the group's (true), or the group has
  // not released it yet (false). Without a group, true at once.
  bool synchronise(std::uint64_t& end_ps, std::uint64_t now_ps);
  void begin_round(std::uint64_t start_ps);
  void round_access(Access& a);
  bool round_issuing() const { return round_.left > 0 && round_.dest < collective_.peer_va.size(); }
  // The bytes the current round writes to destination d.
  std::uint64_t round_dest_bytes(unsigned d) const {
    return round_.dest_bytes
               ? (*round_.dest_bytes)[std::size_t{round_.index} * collective_.peer_va.size() + d]
               : round_.bytes;
  }
  // The most the current round writes to one destination.
  std::uint64_t round_most_bytes() const {
    std::uint64_t most = 0;
    for (unsigned d = 0; d < collective_.peer_va.size(); ++d)
      most = std::max(most, round_dest_bytes(d));
    return most;
  }
  // Moves round_.dest to the next destination with bytes to write (from `d`).
  void skip_empty_destinations(unsigned d);
  friend class GroupBarrier;

  unsigned depth_;
  std::vector<Slot> slots_;                 // phases [finalized_, next_) : depth + 2 at most
  std::vector<std::uint64_t> compute_end_;  // by phase index modulo depth + 2
  std::uint64_t next_ = 0;                  // the next phase to open
  std::uint64_t finalized_ = 0;             // phases whose compute end is known
  bool open_ = false;                       // phase next_ - 1 is issuing
  bool no_more_ = false;                    // open_phase said there are no more
  std::uint64_t last_compute_end_ = 0;      // the last finalized phase's end
  std::shared_ptr<GroupBarrier> group_;
  std::uint64_t event_ = 0;  // the group barrier's event this member is at, or next meets
  bool at_barrier_ = false;  // it has arrived at event_ and not taken its end
  bool left_collectives_ = false;  // it left a group whose collectives it ran (stopped())
  CollectivePlan collective_;
  Round round_;
  CollectiveLane lane_{*this};
  std::uint64_t ring_pos_ = 0;  // where the current round's writes start in each receive buffer
  std::uint64_t collective_written_ = 0;
};

// The times of a PhasedSource's steps of consecutive phases (a decode step or a pass over the
// model: one phase per layer). A step runs from the end of the previous step's last phase to the
// end of its own (a phase's end: its compute's, or its collectives'), the first from its first
// fetch: with fetch-ahead (depth >= 1) a step's first
// fetch starts inside the previous step, and timing it from there would count the overlap twice.
// So the steps add up to the source's time.
class StepTimes {
 public:
  // Called with every finished phase, `phases_per_step` to a step.
  void phase_finished(const PhasedSource::PhaseTimes& t, unsigned phases_per_step) {
    if (t.index == 0) start_ps_ = t.fetch_start_ps;
    if (t.index % phases_per_step == 0) {
      first_end_ps_ = t.end_ps;
      collective_ps_ = 0;
    }
    collective_ps_ += t.end_ps - t.compute_end_ps;
    if (t.index % phases_per_step == phases_per_step - 1) {
      ns_.push_back(static_cast<double>(t.end_ps - start_ps_) * 1e-3);
      first_ns_.push_back(static_cast<double>(first_end_ps_ - start_ps_) * 1e-3);
      collective_ns_.push_back(static_cast<double>(collective_ps_) * 1e-3);
      start_ps_ = t.end_ps;
    }
  }
  // Of each finished step's time, the time its phases spent in collectives after their compute.
  const std::vector<double>& collective_ns() const { return collective_ns_; }
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
  std::vector<double> first_ns_;  // per step: from its start to its first phase's end
  std::uint64_t collective_ps_ = 0;
  std::vector<double> collective_ns_;
};

}  // namespace famsim
