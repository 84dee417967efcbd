// Link speed: host time per simulated transfer and per flit through one saturated Link (source
// and sink of tests/support/link_harness.h on both sides, so the figure includes them). Printed,
// never asserted. Not built by default:
//   cmake --build build --target link_bench
//   build/tests/link_bench [preset] [read|write] [bytes] [transfers per side] [flit_error_rate]
// One case per process (SystemC elaborates once); tests/bench/run_bench.sh style loops call it.
#include "models/fabric/link.h"
#include "tests/support/link_harness.h"
#include "tests/support/test_support.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <string>

int sc_main(int argc, char** argv) {
  using namespace famsim;
  const std::string preset = argc > 1 ? argv[1] : "nvlink4";
  const bool write = argc > 2 && std::string(argv[2]) == "write";
  const unsigned bytes = argc > 3 ? static_cast<unsigned>(std::atoi(argv[3])) : 128;
  const std::uint64_t count = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 1000000;
  const std::string rate = argc > 5 ? argv[5] : "0";
  const LinkParams p = test::preset_link_params(preset, ", flit_error_rate: " + rate);
  SimContext ctx(4096, 1);
  // Requests both ways, so both wires and all four VCs work.
  test::LinkSource src_a("src_a", ctx, write, bytes, count);
  test::LinkSource src_b("src_b", ctx, write, bytes, count, 1ull << 40);
  Link link("link", ctx, p, true);
  test::LinkSink sink_b("sink_b", ctx, count);
  test::LinkSink sink_a("sink_a", ctx, count, 1ull << 40);
  src_a.out.bind(link.up);
  link.down.bind(sink_b.in);
  src_b.out.bind(link.reverse_up());
  link.reverse_down().bind(sink_a.in);
  src_a.start(0);
  src_b.start(0);
  const auto t0 = std::chrono::steady_clock::now();
  sc_core::sc_start();
  const double host_ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  ComponentReport r;
  link.report(r, ReportWindow{0, now_ps()});
  const double flits = r.extra["request_direction"]["flits"].get<double>() +
                       r.extra["response_direction"]["flits"].get<double>();
  const double transfers = 4.0 * static_cast<double>(count);  // 2 requests + 2 responses
  const bool ok =
      src_a.all_completed_once() && src_b.all_completed_once() && ctx.pool.in_use() == 0;
  fmt::print(
      "{{\"preset\": \"{}\", \"op\": \"{}\", \"bytes\": {}, \"flit_error_rate\": {}, "
      "\"transfers\": {}, \"flits\": {}, \"host_s\": {:.3f}, \"host_ns_per_transfer\": {:.1f}, "
      "\"host_ns_per_flit\": {:.2f}, \"simulated_us\": {:.1f}, \"wire_efficiency\": {:.4f}, "
      "\"ok\": {}}}\n",
      preset, write ? "write" : "read", bytes, rate, transfers, flits, host_ns * 1e-9,
      host_ns / transfers, host_ns / flits, now_ps() * 1e-6,
      r.extra["wire_efficiency"].get<double>(), ok ? "true" : "false");
  return ok ? 0 : 1;
}
