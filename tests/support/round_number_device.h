// The expansion device with round numbers that the zero-load and TLM bridge tests attach, and
// its round trip worked out by hand from its configuration and the blocks' documented timing.
#pragma once

#include "tests/support/test_support.h"

#include <cstdint>
#include <string>

namespace famsim::test {

// Port logic 500 MHz (2000 ps), ingress 3, egress 2 cycles; crossbar 1000 MHz, 4 pipeline cycles,
// 32 B wide; ideal memory 2000 MT/s x 64 bit at 1000 MHz = 16 B per clock, 20 cycles of access;
// 1 GiB over 2 channels interleaved at 256 B. A platform file's `devices:` section.
inline const std::string kRoundNumberDevice = R"(
devices:
  - name: fam0
    capacity_gib: 1
    fabric_ports: 1
    port_logic: {clock_mhz: 500, ingress_cycles: 3, egress_cycles: 2, tags_per_port: 8}
    noc: {kind: crossbar, clock_mhz: 1000, pipeline_cycles: 4, width_bytes: 32, input_buffer: 4,
          output_buffer: 4}
    memory: {model: ideal, standard: TEST, data_rate_mtps: 2000, channel_width_bits: 64, clock_mhz: 1000,
             access_latency_cycles: 20, channels: 2,
             interleave: {granule_bytes: 256, channel_select: modulo}}
)";

// The links' clock in the platforms below and in the tests' direct platforms: 1000 MHz, in ps.
inline constexpr std::uint64_t kRoundNumberLinkClock = 1000;

// One GPU (1000 MHz) reaching the device through a switch: GPU link 4 lanes x 32 Gb/s = 16 GB/s,
// 10 ns; device link 8 lanes x 32 Gb/s = 32 GB/s, 5 ns; links at 1000 MHz with 16 B flits;
// switch 1000 MHz, 10 pipeline cycles, 64 B per cycle.
inline const std::string kRoundNumberSwitched = R"(
name: zero_load_switched
gpus: {count: 1, clock_mhz: 1000, request_bytes: 128, max_outstanding: 16, issue_width: 1}
links:
  gpu_switch: {lanes: 4, lane_gbps: 32, encoding_efficiency: 1.0, latency_ns: 10, clock_mhz: 1000,
               flit_bytes: 16, request_vc_credits: 32, response_vc_credits: 32, per_gpu: 1}
  switch_device: {lanes: 8, lane_gbps: 32, encoding_efficiency: 1.0, latency_ns: 5, clock_mhz: 1000,
                  flit_bytes: 16, request_vc_credits: 32, response_vc_credits: 32}
switch: {radix: 8, clock_mhz: 1000, pipeline_cycles: 10, port_bytes: 64, input_buffer: 4,
         output_buffer: 4}
)" + kRoundNumberDevice;

// A workload of one 128 B read or write by every GPU to a buffer at `location`.
inline std::string one_request_workload(const std::string& location, bool write) {
  return std::string("name: one\nstreams:\n  - gpus: all\n    buffer: {bytes: 2MiB, location: ") +
         location + "}\n    pattern: sequential\n    read_fraction: " + (write ? "0.0" : "1.0") +
         "\n    access_bytes: 128\n    total_bytes: 128\n";
}

// A 128 B request reaching the device's fabric port at `arrive` ps: when its answer leaves the
// port logic. `data_forward`: the request carries the data (a write), else the answer does.
inline std::uint64_t round_number_device_trip(std::uint64_t arrive, bool data_forward) {
  const std::uint64_t port = 2000, noc = 1000, mem = 1000;
  // Port logic ingress: first edge, then 3 cycles.
  std::uint64_t t = edge(arrive, port) + 3 * port;
  // Crossbar towards memory: beats = max(1, data / 32 B); leaves after pipeline + beats.
  const std::uint64_t beats_fwd = data_forward ? 128 / 32 : 1;
  t = edge_after(t, noc) + (4 + beats_fwd) * noc;
  // Memory controller: service at the first edge, burst 128 B / 16 B per clock = 8 cycles,
  // response ready after access latency + burst.
  t = edge(t, mem) + (20 + 128 / 16) * mem;
  // Crossbar back: reads carry the data.
  const std::uint64_t beats_back = data_forward ? 1 : 128 / 32;
  t = edge_after(t, noc) + (4 + beats_back) * noc;
  // Port logic egress: first edge, then 2 cycles.
  return edge(t, port) + 2 * port;
}

}  // namespace famsim::test
