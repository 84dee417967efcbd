// Controller policies, each a plain class behind a small interface so it is tested alone and
// chosen by configuration (controller.scheduler, controller.page_policy).
//
// Scheduler: decides, per bank, which queued burst the bank works for next, and, over the
// channel, which of the banks' ready commands issues.
//   fcfs     strictly oldest first: only the oldest burst of the current direction (read or
//            write) gets commands; nothing overtakes it.
//   frfcfs   first-ready FR-FCFS (Rixner et al., ISCA 2000): a column command to an open row
//            (a row hit) goes before ACT/PRE, then the oldest; hits may overtake an older burst
//            of the same bank at most `starvation_cap` times in a row, after which the oldest
//            burst is served. (Across banks the controller core bounds it the same way: see
//            ControllerCore::Guard.)
// Page policy: what happens to a row after a column command.
//   open     the row stays open until a conflicting burst needs the bank
//   closed   auto-precharge (RDA/WRA) unless another queued burst hits the same row
//   timeout  open, but a row with no queued hit is closed after `timeout_cycles` idle clocks
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>

namespace famsim::dram {

// What a bank offers the channel-level choice.
struct Candidate {
  std::uint64_t earliest = 0;  // cycle the command is legal
  std::uint64_t arrival = 0;   // arrival order of the burst it serves (smaller = older)
  bool row_hit = false;        // a column command to an open row
};

// The two schedulers differ only in what they allow, which each states at construction: the
// questions the controller core asks of every bank decision (may_overtake, priority), about once
// per DRAM command, are then answered inline rather than through a virtual call.
class SchedulerPolicy {
 public:
  virtual ~SchedulerPolicy() = default;
  virtual const char* name() const = 0;
  // Whether a bank may serve a younger row hit before its oldest burst, given how many hits have
  // overtaken that oldest burst already.
  bool may_overtake(unsigned overtaken_so_far) const { return overtaken_so_far < overtake_cap_; }
  // Only the oldest burst of the channel (in the current direction) may get commands.
  bool in_order() const { return in_order_; }
  // The order among ready candidates as one number, smaller issuing first; worked out once per
  // bank decision, so the channel-wide choice compares integers. `arrival` stays below 2^63.
  std::uint64_t priority(const Candidate& c) const {
    return (c.row_hit ? 0 : row_miss_rank_) | c.arrival;
  }
  // True if candidate `a` should issue before `b` when both are ready.
  bool before(const Candidate& a, const Candidate& b) const { return priority(a) < priority(b); }

 protected:
  // `overtake_cap`: the row hits that may overtake a bank's oldest burst in a row;
  // `row_hits_first`: a row hit ranks before every other candidate (else the oldest goes first).
  SchedulerPolicy(bool in_order, unsigned overtake_cap, bool row_hits_first)
      : in_order_(in_order),
        overtake_cap_(overtake_cap),
        row_miss_rank_(row_hits_first ? std::uint64_t{1} << 63 : 0) {}

 private:
  bool in_order_;
  unsigned overtake_cap_;
  std::uint64_t row_miss_rank_;  // added to the priority of a candidate that is no row hit
};

class FcfsScheduler final : public SchedulerPolicy {
 public:
  FcfsScheduler() : SchedulerPolicy(true, 0, false) {}
  const char* name() const override { return "fcfs"; }
};

// Row hits first (top bit of the priority clear), then the oldest.
class FrFcfsScheduler final : public SchedulerPolicy {
 public:
  explicit FrFcfsScheduler(unsigned starvation_cap)
      : SchedulerPolicy(false, starvation_cap, true) {}
  const char* name() const override { return "frfcfs"; }
};

class PagePolicy {
 public:
  static constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();
  virtual ~PagePolicy() = default;
  virtual const char* name() const = 0;
  // Close the row with the column command itself (RDA/WRA)?
  virtual bool auto_precharge(bool another_hit_queued) const = 0;
  // The cycle at which an open row with nothing queued for it should be closed, given the cycle
  // of its last column command; kNever to keep it open.
  virtual std::uint64_t idle_close_cycle(std::uint64_t last_column_cycle) const = 0;
};

class OpenPagePolicy final : public PagePolicy {
 public:
  const char* name() const override { return "open"; }
  bool auto_precharge(bool) const override { return false; }
  std::uint64_t idle_close_cycle(std::uint64_t) const override { return kNever; }
};

class ClosedPagePolicy final : public PagePolicy {
 public:
  const char* name() const override { return "closed"; }
  bool auto_precharge(bool another_hit_queued) const override { return !another_hit_queued; }
  std::uint64_t idle_close_cycle(std::uint64_t) const override { return kNever; }
};

class TimeoutPagePolicy final : public PagePolicy {
 public:
  explicit TimeoutPagePolicy(std::uint64_t timeout_cycles) : timeout_(timeout_cycles) {}
  const char* name() const override { return "timeout"; }
  bool auto_precharge(bool) const override { return false; }
  std::uint64_t idle_close_cycle(std::uint64_t last) const override { return last + timeout_; }

 private:
  std::uint64_t timeout_;
};

// Factories from configuration names; std::invalid_argument for an unknown name.
std::unique_ptr<SchedulerPolicy> make_scheduler(const std::string& name, unsigned starvation_cap);
std::unique_ptr<PagePolicy> make_page_policy(const std::string& name, std::uint64_t timeout_cycles);

}  // namespace famsim::dram
