#include "tests/support/crossbar_harness.h"

#include "tests/support/noc_message.h"

#include <random>
#include <string>

namespace famsim::test {

// Not in an anonymous namespace: Parts holds them (GCC's -Wsubobject-linkage in a unity build).
namespace crossbar_parts {

class Sources : public sc_core::sc_module {
 public:
  Sources(sc_core::sc_module_name name, SimContext& ctx, unsigned inputs, unsigned outputs)
      : sc_core::sc_module(name),
        ctx_(ctx),
        outputs_(outputs),
        held_(inputs, false),
        scripts_(inputs),
        next_(inputs, 0),
        wake_("wake", ctx.scheduler(), this, &Wakeup::call_behaviour<Sources>) {
    for (unsigned i = 0; i < inputs; ++i) {
      ports_.push_back(
          std::make_unique<InitiatorPort<Sources>>(("out" + std::to_string(i)).c_str(), *this, i));
    }
    // Runs once at the start of simulation (no dont_initialize), as a GPU does.
    SC_HAS_PROCESS(Sources);
    SC_METHOD(behaviour);
    sensitive << wake_.event();
  }

  InitiatorPort<Sources>& port(unsigned i) { return *ports_[i]; }
  void saturate(std::uint64_t seed) {
    saturating_ = true;
    rng_.seed(seed);
  }
  void set_offering(bool on) {
    offering_ = on;
    if (on) wake_.asap();
  }
  void script(unsigned input, std::vector<ScriptedMessage> m) { scripts_[input] = std::move(m); }

  Sync bw(unsigned i, Payload&, Phase& phase, sc_core::sc_time&) {
    if (phase != tlm::END_REQ) protocol_error(name(), phase, "a test source");
    held_[i] = false;
    wake_.asap();
    return tlm::TLM_ACCEPTED;
  }

  void behaviour() {
    wake_.fired();
    const std::uint64_t now = now_ps();
    std::uint64_t next = Wakeup::kNever;
    for (unsigned i = 0; offering_ && i < ports_.size(); ++i) {
      while (!held_[i]) {
        ScriptedMessage m;
        if (saturating_) {
          m.output = static_cast<unsigned>(rng_() % outputs_);
        } else {
          if (next_[i] >= scripts_[i].size()) break;
          m = scripts_[i][next_[i]];
          if (m.at_ps > now) {
            next = std::min(next, m.at_ps);
            break;
          }
          ++next_[i];
        }
        held_[i] = !send(i, m);
      }
    }
    wake_.at(next, now);
  }

 private:
  bool send(unsigned input, const ScriptedMessage& m) {
    Payload& p = noc_message(ctx_, input, m.output, m.data_bytes);
    const bool taken = ports_[input]->send_req(p);
    p.release();  // the crossbar holds its own reference either way
    return taken;
  }

  SimContext& ctx_;
  unsigned outputs_;
  std::vector<std::unique_ptr<InitiatorPort<Sources>>> ports_;
  std::vector<bool> held_;
  std::vector<std::vector<ScriptedMessage>> scripts_;
  std::vector<std::size_t> next_;
  bool saturating_ = false;
  bool offering_ = true;
  std::mt19937_64 rng_;
  Wakeup wake_;
};

class Sinks : public sc_core::sc_module {
 public:
  Sinks(sc_core::sc_module_name name, SimContext& ctx, unsigned outputs)
      : sc_core::sc_module(name),
        wake_("wake", ctx.scheduler(), this, &Wakeup::call_behaviour<Sinks>) {
    for (unsigned o = 0; o < outputs; ++o) {
      ports_.push_back(
          std::make_unique<TargetPort<Sinks>>(("in" + std::to_string(o)).c_str(), *this, o));
    }
    SC_HAS_PROCESS(Sinks);
    SC_METHOD(behaviour);
    sensitive << wake_.event();
    dont_initialize();
  }
  TargetPort<Sinks>& port(unsigned o) { return *ports_[o]; }
  void stall_first(unsigned output, std::uint64_t at_ps, bool before_crossbar) {
    stall_ = Stall{output, at_ps, before_crossbar, true, nullptr};
  }
  Sync fw(unsigned o, Payload& p, Phase& phase, sc_core::sc_time&) {
    if (phase != tlm::BEGIN_REQ) protocol_error(name(), phase, "a test sink");
    log.push_back({now_ps(), ext_of(p).stream, o});
    if (stall_.armed && o == stall_.output) {
      // Taken without END_REQ: the crossbar may send nothing more on this output until at_ps.
      stall_.armed = false;
      stall_.held = &p;
      p.acquire();
      wake_.at(stall_.at_ps);
      return tlm::TLM_ACCEPTED;
    }
    phase = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  void behaviour() {
    wake_.fired();
    if (!stall_.before_crossbar && !stall_.deferred) {
      // Asked again for the same instant, this wake-up now runs after every wake-up already due
      // then (the famsim kernel runs equal times in request order), the crossbar's included.
      stall_.deferred = true;
      wake_.asap();
      return;
    }
    Payload& p = *stall_.held;
    stall_.held = nullptr;
    ports_[stall_.output]->send_end_req(p);
    p.release();
  }
  std::vector<Delivery> log;

 private:
  struct Stall {
    unsigned output = 0;
    std::uint64_t at_ps = 0;
    bool before_crossbar = true;
    bool armed = false;
    Payload* held = nullptr;
    bool deferred = false;
  };
  std::vector<std::unique_ptr<TargetPort<Sinks>>> ports_;
  Stall stall_;
  Wakeup wake_;
};
}  // namespace crossbar_parts

using crossbar_parts::Sinks;
using crossbar_parts::Sources;

struct CrossbarHarness::Parts {
  Parts(SimContext& ctx, const std::string& name, const CrossbarParams& params, unsigned inputs,
        unsigned outputs)
      : xbar((name + "_xbar").c_str(), ctx, BlockKind::kSwitch, params, inputs, outputs,
             std::make_unique<ChannelRouting>()),
        sources((name + "_sources").c_str(), ctx, inputs, outputs),
        sinks((name + "_sinks").c_str(), ctx, outputs) {
    for (unsigned i = 0; i < inputs; ++i) sources.port(i).bind(xbar.up(i));
    for (unsigned o = 0; o < outputs; ++o) xbar.down(o).bind(sinks.port(o));
  }
  Crossbar xbar;
  Sources sources;
  Sinks sinks;
};

CrossbarHarness::CrossbarHarness(SimContext& ctx, const std::string& name,
                                 const CrossbarParams& params, unsigned inputs, unsigned outputs)
    : parts_(std::make_unique<Parts>(ctx, name, params, inputs, outputs)) {}

CrossbarHarness::~CrossbarHarness() = default;

void CrossbarHarness::saturate_uniform(std::uint64_t seed) { parts_->sources.saturate(seed); }

void CrossbarHarness::set_offering(bool on) { parts_->sources.set_offering(on); }

void CrossbarHarness::script(unsigned input, std::vector<ScriptedMessage> messages) {
  parts_->sources.script(input, std::move(messages));
}

void run_until(SimContext& ctx, std::uint64_t end_ps) {
  ctx.scheduler()->set_end_ps(end_ps);
  sc_core::sc_start();
}

void CrossbarHarness::stall_first(unsigned output, std::uint64_t at_ps, bool before_crossbar) {
  parts_->sinks.stall_first(output, at_ps, before_crossbar);
}
const std::vector<Delivery>& CrossbarHarness::deliveries() const { return parts_->sinks.log; }

std::uint64_t CrossbarHarness::delivered_since(std::uint64_t from_ps) const {
  std::uint64_t n = 0;
  for (const Delivery& d : parts_->sinks.log) n += d.at_ps >= from_ps ? 1 : 0;
  return n;
}

Crossbar& CrossbarHarness::crossbar() { return parts_->xbar; }

nlohmann::json CrossbarHarness::report(std::uint64_t end_ps) const {
  ComponentReport r;
  parts_->xbar.report(r, ReportWindow{0, end_ps});
  nlohmann::json j = r.extra;
  j["bytes"] = r.bytes;
  j["utilization"] = r.utilization;
  j["backpressure_ns"] = r.backpressure_ns;
  return j;
}

}  // namespace famsim::test
