// Crossbar (switch) speed: host time per message through an N x N crossbar under saturated
// uniform traffic (every input always has a one-beat message waiting for a random output), for
// FIFO inputs + round-robin (the default, on every request's path several times) and VOQ inputs
// with iSLIP, round-robin and oldest-first matching, at radix 8, 32 and 64. Equal buffering:
// 32 messages per input in every configuration. Measures, never asserts (STYLE.md).
// Built on demand, not by default:
//   cmake --build build --target switch_bench
//   build/tests/switch_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
// SystemC elaborates once per process, so every configuration is built up front and only the
// one being measured offers traffic; each benchmark iteration simulates 2000 cycles (2 us).
#include "tests/support/crossbar_harness.h"

#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>
#include <tuple>

namespace {

using famsim::CrossbarArbiter;
using famsim::InputQueues;

struct Bench {
  famsim::SimContext ctx{4096, 1};
  std::map<std::tuple<unsigned, int, int>, std::unique_ptr<famsim::test::CrossbarHarness>> h;
};

Bench& bench() {
  static Bench* b = [] {
    auto* b = new Bench;
    for (unsigned n : {8u, 32u, 64u}) {
      for (int q = 0; q < 2; ++q) {
        for (int a = 0; a < 3; ++a) {
          if (q == 0 && a != 0) continue;  // FIFO: round-robin only (the default path)
          famsim::CrossbarParams p;
          p.clock_mhz = 1000;
          p.pipeline_cycles = 4;
          p.width_bytes = 64;
          p.input_buffer = 32;
          p.output_buffer = 8;
          p.input_queues = q ? InputQueues::kVoq : InputQueues::kFifo;
          p.arbiter = static_cast<CrossbarArbiter>(a);
          const std::string name = "n" + std::to_string(n) + "_" +
                                   famsim::to_string(p.input_queues) + "_" +
                                   famsim::to_string(p.arbiter);
          auto x = std::make_unique<famsim::test::CrossbarHarness>(b->ctx, name, p, n, n);
          x->saturate_uniform(n);
          x->set_offering(false);
          b->h[{n, q, a}] = std::move(x);
        }
      }
    }
    return b;
  }();
  return *b;
}

void run_case(benchmark::State& state, unsigned n, InputQueues q, CrossbarArbiter a) {
  Bench& b = bench();
  auto& x = *b.h.at({n, static_cast<int>(q), static_cast<int>(a)});
  x.set_offering(true);
  sc_core::sc_start(sc_core::sc_time(2, sc_core::SC_US));  // warm up: fill the buffers
  std::uint64_t messages = 0;
  for (auto _ : state) {
    const std::size_t before = x.deliveries().size();
    sc_core::sc_start(sc_core::sc_time(2, sc_core::SC_US));
    messages += x.deliveries().size() - before;
  }
  x.set_offering(false);
  sc_core::sc_start(sc_core::sc_time(2, sc_core::SC_US));  // drain
  state.counters["messages_per_s"] =
      benchmark::Counter(static_cast<double>(messages), benchmark::Counter::kIsRate);
  // Host seconds per message, printed with an SI prefix (250n = 250 ns).
  state.counters["seconds_per_message"] = benchmark::Counter(
      static_cast<double>(messages), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["throughput_per_port"] =
      static_cast<double>(messages) / (static_cast<double>(state.iterations()) * 2000.0 * n);
}

void register_all() {
  for (unsigned n : {8u, 32u, 64u}) {
    benchmark::RegisterBenchmark(("fifo_round_robin/" + std::to_string(n)).c_str(), run_case, n,
                                 InputQueues::kFifo, CrossbarArbiter::kRoundRobin);
    benchmark::RegisterBenchmark(("voq_islip/" + std::to_string(n)).c_str(), run_case, n,
                                 InputQueues::kVoq, CrossbarArbiter::kIslip);
    benchmark::RegisterBenchmark(("voq_round_robin/" + std::to_string(n)).c_str(), run_case, n,
                                 InputQueues::kVoq, CrossbarArbiter::kRoundRobin);
    benchmark::RegisterBenchmark(("voq_oldest_first/" + std::to_string(n)).c_str(), run_case, n,
                                 InputQueues::kVoq, CrossbarArbiter::kOldestFirst);
  }
}

}  // namespace

int sc_main(int argc, char** argv) {
  bench();  // elaborate before the first sc_start
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
