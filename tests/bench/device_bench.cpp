// Device speed: host time per simulated request through one expansion device (port logic, NoC,
// memory channels), every fabric port driven by a saturating source (tests/support/link_harness.h,
// so the figure includes the sources). Printed, never asserted. Not built by default:
//   cmake --build build --target device_bench
//   build/tests/device_bench [ideal|ddr5] [granule bytes] [request bytes] [requests per port]
// A granule below the request size makes the port logic split every request. One case per
// process (SystemC elaborates once).
#include "platforms/builder.h"
#include "platforms/platform_config.h"
#include "tests/support/link_harness.h"
#include "tests/support/test_support.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

int sc_main(int argc, char** argv) {
  using namespace famsim;
  const std::string memory = argc > 1 ? argv[1] : "ideal";
  const std::string granule = argc > 2 ? argv[2] : "256";
  const unsigned bytes = argc > 3 ? static_cast<unsigned>(std::atoi(argv[3])) : 128;
  const std::uint64_t count = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 200000;
  constexpr unsigned kPorts = 8;
  // The nvl8_fam device (8 ports, 16 channels, xor interleave) with ideal memory or its DDR5.
  const std::string mem_yaml =
      memory == "ideal"
          ? "{model: ideal, standard: TEST, data_rate_mtps: 4800, channel_width_bits: 32, "
            "clock_mhz: 2400, access_latency_cycles: 40, channels: 16, "
          : "{preset: ddr5_4800_x4, channels: 16, organization: {ranks: 2}, ";
  const std::string yaml = R"(
name: device_bench
gpus: {count: 1, clock_mhz: 1000, request_bytes: 128}
links:
  gpu_device: {preset: nvlink4, per_gpu: 8}
devices:
  - name: fam0
    capacity_gib: 64
    fabric_ports: 8
    port_logic: {clock_mhz: 1000, ingress_cycles: 8, egress_cycles: 8, tags_per_port: 256}
    noc: {kind: crossbar, clock_mhz: 1500, pipeline_cycles: 4, width_bytes: 64, input_buffer: 16, output_buffer: 8}
    memory: )" + mem_yaml +
                           "interleave: {granule_bytes: " + granule + ", channel_select: xor}}\n";
  const ConfigDoc doc = test::make_doc(yaml, "name: none\nstreams: []\n");
  ConfigNode root(doc.root, "", doc.sources);
  root.ignore("workload");
  const DeviceConfig cfg = parse_platform(root).devices.at(0);

  // Payload data sized to the request: the DRAM queues must hold the largest payload's bursts.
  SimContext ctx(std::max(bytes, 256u), 1);
  ExpansionDevice dev("fam0", ctx, cfg, 0);
  std::vector<std::unique_ptr<test::LinkSource>> sources;
  for (unsigned p = 0; p < kPorts; ++p) {
    // Reads at a 4 KiB stride from each port (the xor interleave spreads them over channels).
    sources.push_back(std::make_unique<test::LinkSource>(
        ("src" + std::to_string(p)).c_str(), ctx, false, bytes, count, std::uint64_t{p} << 40));
    sources.back()->out.bind(dev.port_logic().fabric(p));
    sources.back()->start(0);
  }
  const auto t0 = std::chrono::steady_clock::now();
  sc_core::sc_start();
  const double host_ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  const double requests = static_cast<double>(count) * kPorts;
  bool ok = ctx.pool.in_use() == 0;
  for (const auto& s : sources) ok = ok && s->all_completed_once();
  dev.finish(now_ps());
  const nlohmann::json rep = ctx.registry.report_all(ReportWindow{0, now_ps()});
  fmt::print(
      "{{\"memory\": \"{}\", \"granule_bytes\": {}, \"request_bytes\": {}, \"requests\": {}, "
      "\"parts\": {}, \"host_s\": {:.3f}, \"host_ns_per_request\": {:.1f}, "
      "\"requests_per_host_second\": {:.0f}, \"simulated_us\": {:.1f}, \"ok\": {}}}\n",
      memory, granule, bytes, requests, rep["fam0.port_logic"]["parts"].get<double>(),
      host_ns * 1e-9, host_ns / requests, requests / (host_ns * 1e-9), now_ps() * 1e-6,
      ok ? "true" : "false");
  return ok ? 0 : 1;
}
