// Mesh NoC speed: host time per message through a k x k mesh (k = 4, 8) under saturated uniform
// random traffic, a port and a memory controller at every node, every port always offering a
// message for a random controller: a 1-flit read, or in the `write` cases a 128 B write (1 + 2
// flits at 64 B links); sinks always ready. Default buffering (4 VCs x 8 flits), 1000 MHz, 2 router
// cycles, 1 link cycle. Measures, never asserts (STYLE.md). Built on demand, not by default:
//   cmake --build build --target mesh_bench
//   build/tests/mesh_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
// SystemC elaborates once per process, so every configuration is built up front and only the one
// being measured offers traffic; each benchmark iteration simulates 2 us (2000 cycles).
#include "tests/support/mesh_harness.h"

#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using famsim::MeshCoord;
using famsim::MeshParams;
using famsim::test::MeshHarness;

struct Bench {
  famsim::SimContext ctx{4096, 1};
  std::map<std::pair<unsigned, bool>, std::unique_ptr<MeshHarness>> h;
};

std::vector<MeshCoord> every_node(unsigned k) {
  std::vector<MeshCoord> v;
  for (unsigned y = 0; y < k; ++y) {
    for (unsigned x = 0; x < k; ++x) v.push_back({x, y});
  }
  return v;
}

Bench& bench() {
  static Bench* b = [] {
    auto* b = new Bench;
    for (unsigned k : {4u, 8u}) {
      for (bool writes : {false, true}) {
        MeshParams p;
        p.cols = p.rows = k;
        p.clock_mhz = 1000;
        p.router_cycles = 2;
        p.link_cycles = 1;
        p.link_bytes = 64;
        p.port_nodes = every_node(k);
        p.controller_nodes = every_node(k);
        const std::string name = "k" + std::to_string(k) + (writes ? "_write" : "_read");
        auto h = std::make_unique<MeshHarness>(b->ctx, name, p, k * k, k * k);
        h->saturate_uniform(k, 0, writes ? 128 : 0);
        h->set_offering(false);
        b->h[{k, writes}] = std::move(h);
      }
    }
    return b;
  }();
  return *b;
}

void run_case(benchmark::State& state, unsigned k, bool writes) {
  MeshHarness& h = *bench().h.at({k, writes});
  h.set_offering(true);
  sc_core::sc_start(sc_core::sc_time(2, sc_core::SC_US));  // warm up: fill the buffers
  std::uint64_t messages = 0;
  for (auto _ : state) {
    const std::size_t before = h.deliveries().size();
    sc_core::sc_start(sc_core::sc_time(2, sc_core::SC_US));
    messages += h.deliveries().size() - before;
  }
  h.set_offering(false);
  sc_core::sc_start(sc_core::sc_time(5, sc_core::SC_US));  // drain
  state.counters["messages_per_s"] =
      benchmark::Counter(static_cast<double>(messages), benchmark::Counter::kIsRate);
  // Host seconds per message, printed with an SI prefix (250n = 250 ns).
  state.counters["seconds_per_message"] = benchmark::Counter(
      static_cast<double>(messages), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["messages_per_node_cycle"] =
      static_cast<double>(messages) / (static_cast<double>(state.iterations()) * 2000.0 * k * k);
}

}  // namespace

int sc_main(int argc, char** argv) {
  bench();  // elaborate before the first sc_start
  for (unsigned k : {4u, 8u}) {
    benchmark::RegisterBenchmark(("mesh_read/" + std::to_string(k)).c_str(), run_case, k, false);
    benchmark::RegisterBenchmark(("mesh_write/" + std::to_string(k)).c_str(), run_case, k, true);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
