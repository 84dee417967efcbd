// Wake-ups: how a block's behaviour gets run at the time it next has something to do. Blocks ask
// to be woken at a time; asking for a later time than one already pending costs nothing. There is
// no free-running clock: a block with nothing to do is never woken.
//
// Two interchangeable kernels run the wake-ups (configuration key sim.kernel):
//   famsim   (default) one SystemC method, the Scheduler, keeps every block's next wake-up in a
//            timing wheel and calls the blocks' behaviour in global time order. It runs
//            temporally decoupled (IEEE 1666-2011 section 12, as LT models do with a quantum
//            keeper, but with every event still in exact order): one SystemC activation executes
//            all famsim events up to min(one quantum ahead, the next activity of any other SystemC
//            process), then yields. Blocks read the exact local time from now_ps(); nb_transport
//            calls carry the offset of that local time from sc_time_stamp() as their annotated
//            delay, so a foreign TLM module sees correct timing.
//   systemc  every block's behaviour is its own SC_METHOD with its own sc_event, the textbook
//            form without decoupling. Kept as the reference: both kernels must give identical
//            results, which the test suite checks.
// The famsim kernel exists for speed: per timestamp, SystemC's event queue and process dispatch
// cost more than the model's own work (profile in the skeleton issue note).
#pragma once

#include "models/core/clock.h"

#include <systemc>

#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace famsim {

class Wakeup;
class PhaseSampler;

class Scheduler : public sc_core::sc_module {
 public:
  explicit Scheduler(sc_core::sc_module_name name);
  ~Scheduler() override;

  // Moves `w` to (or inserts it at) `at_ps`, earlier than any time it was queued for.
  void schedule(std::uint64_t at_ps, std::uint64_t now_ps, Wakeup* w);
  std::uint64_t wakeups_run() const { return runs_; }

  // Decoupling quantum: how far famsim's local time may run ahead of sc_time_stamp().
  void set_quantum_ps(std::uint64_t q) { quantum_ps_ = q; }
  // Nothing at or after this time is executed (sim.max_time_ns).
  void set_end_ps(std::uint64_t e) { end_ps_ = e; }
  // Samples `sampler`'s window boundaries before the first wake-up at or after each (phases.h).
  void set_sampler(PhaseSampler* sampler);
  // Called with famsim's local time after every run-ahead (at most a quantum of simulated time
  // with work in it; an idle stretch is one step): a progress report's hook. It must not touch
  // the model.
  void set_after_run_ahead(std::function<void(std::uint64_t now_ps)> f) {
    after_run_ahead_ = std::move(f);
  }
  // Stops executing events (after an input error found mid-run); sc_stop() ends SystemC.
  void stop() {
    stopped_ = true;
    halt_ = true;
  }
  bool stopped() const { return stopped_; }

  // Co-simulation with SystemC processes outside famsim (a foreign TLM initiator behind
  // models/cosim/tlm_bridge.h). A block that has just called into such a process from a
  // wake-up (a response, an END_REQ, a notified event, each annotated with local_time_offset())
  // asks the run-ahead to stop after that wake-up: the process can then act at that time before
  // famsim goes further. Does nothing outside a run-ahead.
  void yield() {
    if (running_) halt_ = true;
  }
  // Called when such a process calls into famsim from its own activation: famsim's local time
  // becomes its sc_time_stamp() (famsim never ran ahead past another process's next activity,
  // so it is at most that, apart from a process acting earlier than a call's annotated delay
  // said, which famsim then takes at its own local time). Does nothing inside a run-ahead (a
  // call made back while famsim called out).
  void sync_to_systemc();

 private:
  // A timing wheel: slot = time / kSlotPs modulo kSlots, each slot an intrusive list of wake-ups
  // in request order, a bitmap of non-empty slots to find the next one. Wake-ups further out than
  // the wheel's span wait in an overflow heap. Every operation is O(1) apart from the bitmap
  // scan, and a wake-up sits in the wheel at most once (an earlier request moves it).
  // 1024 slots of 64 ps: a span of 65.5 ns. Measured on nvl8_fam under saturating reads
  // (famsim bench), all but 0.04 % of wake-ups are asked for less than 32 ns ahead, most less
  // than 4 ns (clock edges, pipeline stages, flit times); the rest (refresh, long DRAM or link
  // latencies, compute gaps) go to the overflow heap. A wheel this small stays in the L1 cache
  // (16 KiB), and slots this narrow seldom hold wake-ups at different times, so finding a new
  // one's place rarely walks through others (each a read of another block's memory).
  static constexpr std::uint64_t kSlotPs = 64;
  static constexpr std::size_t kSlots = 1 << 10;
  struct Overflow {
    std::uint64_t at_ps;
    std::uint64_t seq;
    Wakeup* wakeup;
    bool operator>(const Overflow& o) const {
      return at_ps != o.at_ps ? at_ps > o.at_ps : seq > o.seq;
    }
  };

  // link(), unlink() and earliest() are inline (defined in wakeup.cpp, their only user): they run
  // at nearly every wake-up.
  inline void unlink(Wakeup* w);
  inline void link(Wakeup* w);
  // schedule()'s rare paths, kept out of line: a wake-up beyond the wheel's span, and (outside
  // run()) arming the SystemC event for an earlier time than it was armed for.
  [[gnu::noinline]] void push_overflow(std::uint64_t at_ps, Wakeup* w);
  [[gnu::noinline]] void notify(std::uint64_t at_ps);
  // The wake-up due first (earliest time, then request order), or null.
  inline Wakeup* earliest(std::uint64_t now_ps);
  void arm(std::uint64_t now_ps);
  void run();

  // The tail's time is kept beside it: a new wake-up is compared with the slot's latest before
  // it is appended, and reading that from the tail wake-up itself, another block's memory, was a
  // cache miss at most schedule() calls (perf record -e cpu-clock on famsim bench).
  struct Slot {
    Wakeup* head = nullptr;
    Wakeup* tail = nullptr;
    std::uint64_t tail_ps = 0;  // tail->pending_ps_ while tail is set
  };
  std::vector<Slot> slots_;
  std::vector<std::uint64_t> occupied_;  // bitmap over slots
  std::vector<Overflow> overflow_;       // min-heap, stale entries skipped
  std::uint64_t seq_ = 0;
  std::uint64_t notified_ps_ = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t runs_ = 0;
  std::uint64_t quantum_ps_ = 1000000;  // 1 us
  std::uint64_t end_ps_ = std::numeric_limits<std::uint64_t>::max();
  PhaseSampler* sampler_ = nullptr;
  std::function<void(std::uint64_t)> after_run_ahead_;
  std::uint64_t sample_at_ps_ = std::numeric_limits<std::uint64_t>::max();
  bool running_ = false;
  bool stopped_ = false;
  bool halt_ = false;  // stop() or yield(): the run-ahead ends after the current wake-up
  sc_core::sc_event event_;
};

class alignas(64) Wakeup {
 public:
  static constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();

  // `scheduler` null: the systemc kernel (the owner makes an SC_METHOD sensitive to event()).
  // `behaviour(owner)` runs the owning block's behaviour: a plain function pointer, so the famsim
  // kernel dispatches with one indirect call.
  using Behaviour = void (*)(void* owner);
  Wakeup(const char* name, Scheduler* scheduler, void* owner, Behaviour behaviour)
      : scheduler_(scheduler), owner_(owner), behaviour_(behaviour), event_(name) {}

  // The bound behaviour, for a block that registers Owner::behaviour().
  template <class Owner>
  static void call_behaviour(void* owner) {
    static_cast<Owner*>(owner)->behaviour();
  }

  const sc_core::sc_event& event() const { return event_; }

  // Wake at absolute time `at_ps` (>= now). Blocks compute their earliest next time first and
  // call this once.
  void at(std::uint64_t at_ps) {
    if (at_ps >= pending_ps_) return;
    at(at_ps, now_ps());
  }
  void at(std::uint64_t at_ps, std::uint64_t now_ps) {
    if (at_ps >= pending_ps_) return;
    if (at_ps > kMaxSimTimePs) {
      beyond_max_time();
      return;
    }
    pending_ps_ = at_ps;
    if (scheduler_) {
      scheduler_->schedule(at_ps, now_ps, this);
    } else if (at_ps <= now_ps) {
      event_.notify(sc_core::SC_ZERO_TIME);
    } else {
      event_.notify(sc_core::sc_time::from_value(at_ps - now_ps));
    }
  }
  void asap() {
    const std::uint64_t now = now_ps();
    at(now, now);
  }

  // Call first thing in the behaviour this wake-up runs.
  void fired() { pending_ps_ = kNever; }

 private:
  friend class Scheduler;
  // Records that the run asked for a time famsim cannot represent and stops the simulation;
  // Simulation reports it as an input error (the workload or the clocks are out of scale).
  void beyond_max_time();
  enum class Where : std::uint8_t { kNone, kWheel, kOverflow };
  // What the famsim kernel touches on every wake-up comes first, in one cache line (the class is
  // aligned to it); the SystemC event, used only by the systemc kernel, after it.
  Scheduler* scheduler_;
  void* owner_;
  Behaviour behaviour_;
  std::uint64_t pending_ps_ = kNever;
  Wakeup* prev_ = nullptr;
  Wakeup* next_ = nullptr;
  std::uint64_t seq_ = 0;
  std::uint32_t slot_ = 0;
  Where where_ = Where::kNone;
  sc_core::sc_event event_;
};

}  // namespace famsim
