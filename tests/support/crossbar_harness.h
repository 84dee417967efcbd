// A crossbar alone between test sources and sinks, for the switch tests: the conditions of the
// input-queued switch theory (Karol, Hluchyj and Morgan 1987) and hand-worked small cases.
//
//   sources  one initiator per crossbar input. Saturating mode: every input always has a
//            message waiting (a new one is offered as soon as the crossbar takes the last), each
//            for an output drawn uniformly from a seeded generator. Scripted mode: each input
//            offers a list of messages, each no earlier than its time.
//   sinks    one target per crossbar output, always ready (END_REQ at once), recording every
//            delivery (time, input, output); stall_first() makes one output's sink hold back
//            the END_REQ of its first message until a given instant (a backpressuring far end).
//   routing  the output is the request's `channel` field, which the source sets (ChannelRouting).
//
// Requests only (a sink never responds). Messages are reads (no data forward: one beat) unless a
// scripted message carries data bytes (a write: ceil(bytes / width) beats). Several harnesses may
// share one simulation (one SimContext, famsim kernel), so one test can compare radices; SystemC
// elaborates once per process.
#pragma once

#include "models/noc/crossbar.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace famsim::test {

struct ScriptedMessage {
  std::uint64_t at_ps = 0;  // offered no earlier than this
  unsigned output = 0;
  unsigned data_bytes = 0;  // 0: a read request (one beat)
};

struct Delivery {
  std::uint64_t at_ps = 0;
  unsigned input = 0;
  unsigned output = 0;
};

class CrossbarHarness {
 public:
  // `name` prefixes the blocks' names (unique per simulation).
  CrossbarHarness(SimContext& ctx, const std::string& name, const CrossbarParams& params,
                  unsigned inputs, unsigned outputs);
  ~CrossbarHarness();

  // Every input always has a message waiting, for a uniformly random output.
  void saturate_uniform(std::uint64_t seed);
  void script(unsigned input, std::vector<ScriptedMessage> messages);
  // Output `output`'s sink takes its first message without END_REQ and sends END_REQ at `at_ps`,
  // before the crossbar's own wake-up at that instant (`before_crossbar`, provided the crossbar
  // asked for that wake-up after the message reached the sink) or after it. Famsim kernel only.
  void stall_first(unsigned output, std::uint64_t at_ps, bool before_crossbar);
  // Stops (false) or resumes offering messages; between sc_start calls (benchmarks).
  void set_offering(bool on);

  const std::vector<Delivery>& deliveries() const;
  // Deliveries at or after `from_ps` (all outputs).
  std::uint64_t delivered_since(std::uint64_t from_ps) const;
  Crossbar& crossbar();
  // The crossbar's statistics over [0, end_ps).
  nlohmann::json report(std::uint64_t end_ps) const;

 private:
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

// Runs the simulation of `ctx` until `end_ps` (nothing at or after it happens).
void run_until(SimContext& ctx, std::uint64_t end_ps);

}  // namespace famsim::test
