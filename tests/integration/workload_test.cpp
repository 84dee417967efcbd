// Workloads end to end: AI generators through the whole platform, faults (stop or count), timed
// VMM events (unmap, set_access, remap), trace replay through the GPUs, and the compute gap
// between dependent streams. Expected values are worked out by hand from the configuration.
#include "tests/support/test_support.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>

namespace famsim {
namespace {

using ::testing::HasSubstr;

// 1 GPU at 1000 MHz with 2 ideal HBM channels, one link straight to device fam0 (2 ideal
// channels). Small and fast; timing is not under test here.
const char* kPlatform = R"(
name: wl
gpus: {count: 1, clock_mhz: 1000, request_bytes: 128, max_outstanding: 64, issue_width: 2,
       local_memory: {model: ideal, standard: TEST, data_rate_mtps: 2000, channel_width_bits: 64,
                      clock_mhz: 1000, access_latency_cycles: 20, channels: 2, capacity_gib: 1,
                      controller: {read_queue: 64, write_queue: 64},
                      interleave: {granule_bytes: 256, channel_select: modulo}}}
links:
  gpu_device: {lanes: 8, lane_gbps: 32, encoding_efficiency: 1.0, latency_ns: 10, clock_mhz: 1000,
               flit_bytes: 16, request_vc_credits: 64, response_vc_credits: 64, per_gpu: 1}
devices:
  - name: fam0
    capacity_gib: 1
    fabric_ports: 1
    port_logic: {clock_mhz: 1000, ingress_cycles: 3, egress_cycles: 2, tags_per_port: 64}
    noc: {kind: crossbar, clock_mhz: 1000, pipeline_cycles: 4, width_bytes: 32}
    memory: {model: ideal, standard: TEST, data_rate_mtps: 2000, channel_width_bits: 64,
             clock_mhz: 1000, access_latency_cycles: 20, channels: 2,
             interleave: {granule_bytes: 256, channel_select: modulo}}
)";

// Bytes the GPU's local HBM controllers and the device's controllers served.
std::uint64_t served_by(const nlohmann::json& r, const std::string& prefix) {
  double b = 0;
  for (const auto& [name, c] : r["components"].items()) {
    if (name.rfind(prefix, 0) == 0 && name.find(".ch") != std::string::npos) {
      b += c["bytes"].get<double>();
    }
  }
  return static_cast<std::uint64_t>(b);
}

// Llama-3-8B, tp 1: 4,096 B per token per layer. Two sequences of 100 cached tokens, 2 layers, one
// step on the device: reads 2 x 100 x 4,096 x 2 = 1,638,400 B, writes the new token of each:
// 2 x 4,096 x 2 = 16,384 B.
TEST(Workload, DecodeMovesTheBytesWorkedOutByHand) {
  const nlohmann::json r = test::run_sim(kPlatform, R"(
name: decode
streams:
  - name: decode
    gpus: [0]
    kv_decode: {model: {preset: llama3_8b}, batch: 2, context_tokens: 100, layers: 2,
                kv_location: device/fam0}
)");
  EXPECT_EQ(r["summary"]["read_bytes"].get<std::uint64_t>(), 1638400u);
  EXPECT_EQ(r["summary"]["write_bytes"].get<std::uint64_t>(), 16384u);
  EXPECT_TRUE(r["conservation"]["ok"].get<bool>());
  EXPECT_EQ(r["workload"]["streams"]["decode"]["result"]["steps_done"].get<double>(), 1.0);
  EXPECT_EQ(served_by(r, "gpu0_hbm"), 0u);
}

// A hybrid model end to end (Qwen3-Next-80B-A3B, tp 1: layers 0-2 linear attention, layer 3
// full). Its states in HBM, its KV cache on the device. One sequence of 100 cached tokens, one
// step over 4 layers: the device serves the full layer's KV, 100 x 2048 B (K and V of 2 heads x
// 256 x 2 B) read and 2048 B written; HBM the 3 linear layers' states, (2,097,152 + 49,152) x 3 =
// 6,438,912 B read and as many written.
TEST(Workload, HybridDecodeStatesAndKvGoWhereConfigured) {
  const nlohmann::json r = test::run_sim(kPlatform, R"(
name: decode
streams:
  - name: decode
    gpus: [0]
    kv_decode: {model: {preset: qwen3_next_80b_a3b}, batch: 1, context_tokens: 100, layers: 4,
                kv_location: device/fam0, state_location: gpu_local}
)");
  EXPECT_TRUE(r["conservation"]["ok"].get<bool>());
  EXPECT_EQ(served_by(r, "fam0"), 100u * 2048u + 2048u);
  EXPECT_EQ(served_by(r, "gpu0_hbm"), 2u * 6438912u);
  EXPECT_EQ(r["summary"]["read_bytes"].get<std::uint64_t>(), 100u * 2048u + 6438912u);
  EXPECT_EQ(r["summary"]["write_bytes"].get<std::uint64_t>(), 2048u + 6438912u);
}

// Sliding-window attention (Llama-3-8B given a window for the test: 4,096 B per token per layer,
// 16-token blocks): a decode step of 2 sequences with 100 cached tokens on `layers` layers.
nlohmann::json sliding_decode(const std::string& window, unsigned layers) {
  return test::run_sim(kPlatform, R"(
name: decode
streams:
  - name: decode
    gpus: [0]
    kv_decode: {model: {preset: llama3_8b, sliding_window: )" +
                                      window + R"(}, batch: 2, context_tokens: 100,
                layers: )" + std::to_string(layers) +
                                      R"(, kv_location: device/fam0}
)");
}

// Window 33: a sliding layer attends to the newest 32 of the 100 cached tokens, tokens 68-99: 12
// of block 4 (from its 5th token), all 16 of block 5, 4 of block 6. Alternating layers (layer 0
// sliding, layer 1 full): 2 sequences x (32 + 100) tokens x 4,096 B = 1,081,344 B read. The new
// token is written to both layers: 2 x 4,096 x 2 = 16,384 B.
TEST(Workload, SlidingWindowLayersReadTheNewestTokensOnly) {
  const nlohmann::json r = sliding_decode("{tokens: 33, layer_types: [sliding, full]}", 2);
  EXPECT_EQ(r["summary"]["read_bytes"].get<std::uint64_t>(), 1081344u);
  EXPECT_EQ(r["summary"]["write_bytes"].get<std::uint64_t>(), 16384u);
  EXPECT_TRUE(r["conservation"]["ok"].get<bool>());
  const auto& s = r["workload"]["streams"]["decode"]["summary"];
  EXPECT_EQ(s["sliding_window_tokens"].get<std::uint64_t>(), 33u);
  EXPECT_EQ(s["sliding_layers_simulated"].get<std::uint64_t>(), 1u);
  EXPECT_DOUBLE_EQ(s["mean_read_bytes_per_step_per_gpu"].get<double>(), 1081344.0);
  // 2 of Llama-3-8B's 32 layers, 1 of them sliding as 16 of the model's are: scaled.
  EXPECT_TRUE(
      r["workload"]["streams"]["decode"]["result"].contains("mean_step_ns_whole_model_estimate"));
}

// A window alone applies to every layer: 2 x 2 x 32 x 4,096 = 524,288 B.
TEST(Workload, SlidingWindowWithoutLayerTypesIsEveryLayer) {
  const nlohmann::json r = sliding_decode("33", 2);
  EXPECT_EQ(r["summary"]["read_bytes"].get<std::uint64_t>(), 524288u);
  EXPECT_EQ(r["summary"]["write_bytes"].get<std::uint64_t>(), 16384u);
}

// A step time is scaled to the whole model only when the simulated layers have sliding windows in
// the model's share: 1 simulated layer of [sliding, full] is all sliding (1 of 1 against 16 of
// 32): no estimate, a note.
TEST(Workload, SlidingWindowShareUnlikeTheModelsIsNotScaled) {
  const nlohmann::json r = sliding_decode("{tokens: 33, layer_types: [sliding, full]}", 1);
  EXPECT_EQ(r["summary"]["read_bytes"].get<std::uint64_t>(), 2u * 32u * 4096u);
  const auto& result = r["workload"]["streams"]["decode"]["result"];
  EXPECT_FALSE(result.contains("mean_step_ns_whole_model_estimate"));
  EXPECT_THAT(result["note"].get<std::string>(),
              HasSubstr("1 of them have a sliding window against 16 of the model's"));
}

// The run lasts until the workload's last compute has ended, not until its last access completed:
// the same decode with 100 us of compute per layer (prefetch_layers 0: layer 1 is fetched after
// layer 0's compute, and computes after its own fetch). Each layer reads 2 x 100 x 4,096 =
// 819,200 B, at least 25.6 us over the 32 GB/s link (8 lanes x 32 Gb/s; the device's 2 ideal
// channels move 2 x 2000 MT/s x 8 B, as much): the run takes at least 2 x (25.6 + 100) us. It
// ended at the last completion, one compute short, before. The stream finishes on the GPU's edge
// (1000 MHz) after its source is done; the compute ends on a whole ns here.
TEST(Workload, RunEndsWhenTheLastLayerHasComputed) {
  const nlohmann::json r = test::run_sim(kPlatform, R"(
name: decode_compute
streams:
  - name: decode
    gpus: [0]
    kv_decode: {model: {preset: llama3_8b}, batch: 2, context_tokens: 100, layers: 2,
                kv_location: device/fam0, compute: {layer_ns: 100000}}
)");
  EXPECT_TRUE(r["conservation"]["ok"].get<bool>());
  const double end = r["sim"]["simulated_time_ns"].get<double>();
  EXPECT_GE(end, 2 * (819200 / 32.0 + 100000));
  EXPECT_DOUBLE_EQ(end, r["components"]["gpu0"]["streams"]["decode"]["finish_ns"].get<double>());
}

// A 4 MiB buffer on fam0 read sequentially in 128 B requests: 32,768 requests.
std::string reader(const std::string& extra) {
  return R"(
name: faults
streams:
  - name: reader
    gpus: [0]
    buffer: {bytes: 4MiB, location: device/fam0}
    pattern: sequential
    max_outstanding: 16
)" + extra;
}

TEST(Workload, AccessToAnUnmappedPageStopsTheRunNamingGpuAddressAndTime) {
  try {
    test::run_sim(kPlatform, reader(R"(
vmm_events:
  - {op: unmap, stream: reader, at_ns: 2000})"));
    FAIL() << "expected a fault";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("gpu0"));
    EXPECT_THAT(e.what(), HasSubstr("stream 'reader' reads virtual address 0x"));
    EXPECT_THAT(e.what(), HasSubstr("the page is not mapped"));
    // The fault is at or after the unmap.
    const std::string m = e.what();
    const auto at = m.find(" at ");
    ASSERT_NE(at, std::string::npos);
    EXPECT_GE(std::stod(m.substr(at + 4)), 2000.0);
  }
}

// Counted faults drop the request: the bytes read plus 128 B per fault are the whole buffer.
TEST(Workload, CountedFaultsDropTheirRequests) {
  const nlohmann::json r = test::run_sim(kPlatform, reader(R"(on_fault: count
vmm_events:
  - {op: unmap, stream: reader, at_ns: 2000, offset_bytes: 2MiB, bytes: 2MiB})"));
  const auto& g = r["components"]["gpu0"];
  const std::uint64_t faults = g["faults_unmapped"].get<std::uint64_t>();
  EXPECT_GT(faults, 0u);
  EXPECT_EQ(g["faults_permission"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(r["summary"]["read_bytes"].get<std::uint64_t>() + faults * 128, 4u << 20);
  EXPECT_TRUE(r["conservation"]["ok"].get<bool>());
  EXPECT_TRUE(g["streams"]["reader"]["finished"].get<bool>());
}

TEST(Workload, AccessRevokedBySetAccessIsAPermissionFault) {
  const nlohmann::json r = test::run_sim(kPlatform, reader(R"(on_fault: count
vmm_events:
  - {op: set_access, stream: reader, gpus: [0], access: none, at_ns: 1000, cost_ns: 1000})"));
  const auto& g = r["components"]["gpu0"];
  EXPECT_GT(g["faults_permission"].get<std::uint64_t>(), 0u);
  EXPECT_THAT(g["first_fault"].get<std::string>(), HasSubstr("no permission"));
}

// Remap to the GPU's HBM: unmapped at 1000 ns (accesses fault), mapped on gpu_local at 3000 ns;
// the reads after that are served by the GPU's HBM.
TEST(Workload, RemapMovesTheRangeToAnotherLocation) {
  const nlohmann::json r = test::run_sim(kPlatform, reader(R"(on_fault: count
vmm_events:
  - {op: remap, stream: reader, at_ns: 1000, cost_ns: 2000, location: gpu_local})"));
  const auto& g = r["components"]["gpu0"];
  const std::uint64_t faults = g["faults_unmapped"].get<std::uint64_t>();
  EXPECT_GT(faults, 0u);
  const std::uint64_t hbm = served_by(r, "gpu0_hbm");
  const std::uint64_t fam = served_by(r, "fam0");
  EXPECT_GT(hbm, 0u);
  EXPECT_GT(fam, 0u);
  EXPECT_EQ(hbm + fam + faults * 128, 4u << 20);
  const auto& actions = r["components"]["vmm_events"]["actions"];
  ASSERT_EQ(actions.size(), 2u);
  EXPECT_DOUBLE_EQ(actions[1]["at_ns"].get<double>(), 3000.0);
}

TEST(Workload, VmmEventNamingAnUnknownStreamIsAnError) {
  try {
    test::run_sim(kPlatform, reader("vmm_events:\n  - {op: unmap, stream: nobody, at_ns: 5}"));
    FAIL() << "expected an error";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr("workload.vmm_events.0.stream"));
    EXPECT_THAT(e.what(), HasSubstr("'nobody' is not the name of a stream"));
  }
}

std::string write_trace(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// Three accesses for GPU 0 (one for GPU 3, skipped): the first is due at 1000 ns, when the GPU
// (1000 MHz) issues it; 256 + 128 B read, 128 B written.
// kPlatform with a second GPU, linked straight to the device like the first.
std::string two_gpu_platform() {
  std::string p = kPlatform;
  p.replace(p.find("count: 1"), 8, "count: 2");
  p.replace(p.find("fabric_ports: 1"), 15, "fabric_ports: 2");
  return p;
}

// The decode of DecodeMovesTheBytesWorkedOutByHand on a tensor-parallel pair: each GPU reads its 4
// of the 8 KV heads, so the bytes are the same in total (result bytes are totals over the GPUs);
// the pair did 1 step (before: 2, one per GPU), and its step took as long as its slower GPU's.
// The pair ends each layer together (its all-reduces), so both GPUs' steps end at the same time.
// Each layer's KV is fetched a layer ahead (prefetch_layers 1), so that the first layer's fetch is
// the pipeline's fill, which the later layers' fetches, started earlier, do not wait out again.
TEST(Workload, DecodeOnATensorParallelPairCountsItsStepOnce) {
  const nlohmann::json r = test::run_sim(two_gpu_platform(), R"(
name: decode
streams:
  - name: decode
    gpus: [0, 1]
    kv_decode: {model: {preset: llama3_8b}, batch: 2, context_tokens: 100, layers: 2,
                tensor_parallel: 2, kv_location: device/fam0, prefetch_layers: 1}
)");
  EXPECT_EQ(r["summary"]["read_bytes"].get<std::uint64_t>(), 1638400u);
  EXPECT_TRUE(r["conservation"]["ok"].get<bool>());
  const auto& d = r["workload"]["streams"]["decode"];
  const auto& res = d["result"];
  EXPECT_EQ(res["steps_done"].get<std::uint64_t>(), 1u);
  EXPECT_EQ(res["read_bytes_kv_location"].get<std::uint64_t>(), 1638400u);
  EXPECT_EQ(res["write_bytes_kv_location"].get<std::uint64_t>(), 16384u);
  const double slower = std::max(d["gpus"]["gpu0"]["step_ns"][0].get<double>(),
                                 d["gpus"]["gpu1"]["step_ns"][0].get<double>());
  EXPECT_DOUBLE_EQ(res["mean_step_ns"].get<double>(), slower);
  EXPECT_DOUBLE_EQ(d["gpus"]["gpu0"]["step_ns"][0].get<double>(),
                   d["gpus"]["gpu1"]["step_ns"][0].get<double>());
  // 2 tokens (one per sequence) in one step.
  EXPECT_DOUBLE_EQ(res["tokens_per_second_per_group"].get<double>(), 2 / (slower * 1e-9));
  // 2 of Llama-3-8B's 32 identical layers: each GPU's step scaled to the whole model (its first
  // layer as it ran, the other 31 at its second layer's pace), the pair's estimate its slower
  // GPU's, plus the LM head once. With the fill counted once rather than 16 times, the estimate
  // is below 16 x the step (and above the step itself).
  EXPECT_EQ(res["layers_simulated"].get<unsigned>(), 2u);
  EXPECT_EQ(res["model_layers"].get<unsigned>(), 32u);
  const double whole = std::max(d["gpus"]["gpu0"]["step_whole_model_ns"][0].get<double>(),
                                d["gpus"]["gpu1"]["step_whole_model_ns"][0].get<double>());
  const double lm_head = res["lm_head_ns_per_step"].get<double>();
  EXPECT_DOUBLE_EQ(res["mean_step_ns_whole_model_estimate"].get<double>(), whole + lm_head);
  EXPECT_LT(whole, 16 * slower);
  EXPECT_GT(whole, slower);
}

// Llama-3-8B: 8 KV heads x 128 x 2 (K, V) x 2 B = 4,096 B per token per layer, 2,048 B on each GPU
// of a tensor-parallel pair. Three prompts of 64 tokens sharing a 40-token prefix (whole 16-token
// blocks: 32 tokens): prompt 0 writes 64 tokens, prompts 1 and 2 read 32 and write 32, over 2
// layers, and both GPUs of the pair do every prompt on their half of the heads.
TEST(Workload, PrefillOnATensorParallelPairRunsEachPromptOnBothGpus) {
  const nlohmann::json r = test::run_sim(two_gpu_platform(), R"(
name: prefill
streams:
  - name: prefill
    gpus: [0, 1]
    prefill: {model: {preset: llama3_8b}, location: device/fam0, prompts: 3, input_tokens: 64,
              shared_prefix_tokens: 40, layers: 2, tensor_parallel: 2}
)");
  EXPECT_TRUE(r["conservation"]["ok"].get<bool>());
  const std::uint64_t per_token = 2 * 2048 * 2;  // 2 GPUs x 2,048 B x 2 layers
  EXPECT_EQ(r["summary"]["write_bytes"].get<std::uint64_t>(), (64 + 32 + 32) * per_token);
  EXPECT_EQ(r["summary"]["read_bytes"].get<std::uint64_t>(), (32 + 32) * per_token);
  const auto& d = r["workload"]["streams"]["prefill"];
  const auto& res = d["result"];
  EXPECT_EQ(res["tensor_parallel_groups"].get<unsigned>(), 1u);
  EXPECT_EQ(res["prompts_done"].get<std::uint64_t>(), 3u);
  EXPECT_EQ(res["input_tokens"].get<std::uint64_t>(), 3u * 64);
  EXPECT_EQ(res["reused_tokens"].get<std::uint64_t>(), 2u * 32);
  EXPECT_EQ(res["write_bytes"].get<std::uint64_t>(), (64 + 32 + 32) * per_token);
  for (const char* gpu : {"gpu0", "gpu1"}) {
    EXPECT_EQ(d["gpus"][gpu]["prompts_done"].get<std::uint64_t>(), 3u) << gpu;
  }
}

TEST(Workload, ReplayIssuesEachAccessAtItsTime) {
  // The GPU 1 line is the platform's but not the stream's: skipped.
  const std::string trace = write_trace("replay.trace",
                                        "# time gpu op address size\n"
                                        "1000 0 R 0x0 256\n"
                                        "1000 1 R 0x0 256\n"
                                        "1000.5 0 W 0x1000 128\n"
                                        "5000 0 R 0x2000 128\n");
  const nlohmann::json r = test::run_sim(two_gpu_platform(), R"(
name: replay
streams:
  - name: replay
    gpus: [0]
    replay: {file: )" + trace + R"(, bytes: 2MiB, location: device/fam0}
)");
  EXPECT_EQ(r["summary"]["read_bytes"].get<std::uint64_t>(), 384u);
  EXPECT_EQ(r["summary"]["write_bytes"].get<std::uint64_t>(), 128u);
  EXPECT_DOUBLE_EQ(r["sim"]["active_from_ns"].get<double>(), 1000.0);
  EXPECT_GT(r["sim"]["simulated_time_ns"].get<double>(), 5000.0);
}

// One GPU (1000 MHz, one request per cycle on its one port) over a slow link to an ideal
// device: 1 lane x 8 Gb/s = 1 GB/s, 16 B flits, so a 128 B write (a 16 B header slot + 8 data
// slots, link_framing.h) is 9 flits = 144 ns on the request wire; a transmit queue of 4. Credits
// (64 flits = 7 writes against a round trip of some 180 ns), tags and the outstanding window never
// bind: the wire does.
const char* kSlowLinkPlatform = R"(
name: slow_link
gpus: {count: 1, clock_mhz: 1000, request_bytes: 128, max_outstanding: 64, issue_width: 1}
links:
  gpu_device: {lanes: 1, lane_gbps: 8, encoding_efficiency: 1.0, latency_ns: 10, clock_mhz: 1000,
               flit_bytes: 16, tx_queue_entries: 4, request_vc_credits: 64,
               response_vc_credits: 64, per_gpu: 1}
devices:
  - name: fam0
    capacity_gib: 1
    fabric_ports: 1
    port_logic: {clock_mhz: 1000, ingress_cycles: 3, egress_cycles: 2, tags_per_port: 64}
    noc: {kind: crossbar, clock_mhz: 1000, pipeline_cycles: 4, width_bytes: 32}
    memory: {model: ideal, standard: TEST, data_rate_mtps: 2000, channel_width_bits: 64,
             clock_mhz: 1000, access_latency_cycles: 20, channels: 2,
             interleave: {granule_bytes: 256, channel_select: modulo}}
)";

std::string replay_workload(const std::string& trace) {
  return "name: replay\nstreams:\n  - name: replay\n    replay: {file: " + trace +
         ", bytes: 2MiB, location: device/fam0}\n";
}

TEST(Workload, ReplayFasterThanTheLinkReportsTheIssueLagWorkedOutFromItsBandwidth) {
  // 40 writes of 128 B all stamped at 0: the trace asks for 5,120 B at once; the link moves
  // 128 B per 144 ns. Write j leaves the transmit queue (4 entries) when it is committed to the
  // wire, just before its flits start at about j x 144 ns. The GPU issues one request per cycle
  // while the link takes them: writes 0-5 go out at 0-5 ns (0 is committed at 1 ns, 1-4 fill
  // the queue, 5 is held there). From then write k waits for the END_REQ of write k - 1, which
  // comes when write k - 5 is committed: k is issued at (k - 5) x 144 ns + d, d a few clock
  // edges (commit edge, END_REQ, the GPU's next edge; 0 <= d <= 5 ns).
  //   lag(k) = k ns for k <= 5, (k - 5) x 144 ns + d for 6 <= k <= 39
  //   max  = lag(39) = 34 x 144 = 4,896 ns (+ d)
  //   mean = (0 + 1 + ... + 5 + 144 x (1 + ... + 34) + 34 d) / 40 = (15 + 85,680) / 40
  //        = 2,142.375 ns (+ 0.85 d)
  //   late = 39 (every write but the first waited)
  std::string text;
  for (int k = 0; k < 40; ++k) text += "0 0 W 0x" + fmt::format("{:x}", k * 128) + " 128\n";
  const nlohmann::json r =
      test::run_sim(kSlowLinkPlatform, replay_workload(write_trace("burst.trace", text)));
  ASSERT_TRUE(r.contains("issue_lag")) << r.dump(2);
  const nlohmann::json& lag = r["issue_lag"];
  EXPECT_EQ(lag["requests"].get<std::uint64_t>(), 40u);
  EXPECT_EQ(lag["late"].get<std::uint64_t>(), 39u);
  EXPECT_GE(lag["max_ns"].get<double>(), 4896.0);
  EXPECT_LE(lag["max_ns"].get<double>(), 4896.0 + 5.0);
  EXPECT_GE(lag["mean_ns"].get<double>(), 2142.375);
  EXPECT_LE(lag["mean_ns"].get<double>(), 2142.375 + 0.85 * 5.0);
  EXPECT_DOUBLE_EQ(lag["last_timestamp_ns"].get<double>(), 0.0);
  EXPECT_TRUE(lag["behind"].get<bool>());
  EXPECT_THAT(lag["sentence"].get<std::string>(),
              HasSubstr("latencies are from issue, not from the trace timestamp"));
  EXPECT_THAT(lag["sentence"].get<std::string>(), HasSubstr("39 of 40 requests issued late"));
  // The GPU's own figure and its stream's are the run's (one GPU, one stream).
  EXPECT_EQ(r["components"]["gpu0"]["issue_lag"],
            r["components"]["gpu0"]["streams"]["replay"]["issue_lag"]);
  EXPECT_DOUBLE_EQ(r["components"]["gpu0"]["issue_lag"]["max_ns"].get<double>(),
                   lag["max_ns"].get<double>());
}

TEST(Workload, ReplaySlowerThanTheLinkIssuesEveryAccessOnTime) {
  // One write per microsecond, each 144 ns on the wire: nothing waits. A timestamp between two
  // GPU clock edges (1000.5 ns) waits for the next edge, which is the clock, not lag.
  std::string text;
  for (int k = 0; k < 10; ++k) {
    text +=
        fmt::format("{} 0 W 0x{:x} 128\n", k == 1 ? "1000.5" : std::to_string(k * 1000), k * 128);
  }
  const nlohmann::json r =
      test::run_sim(kSlowLinkPlatform, replay_workload(write_trace("paced.trace", text)));
  ASSERT_TRUE(r.contains("issue_lag")) << r.dump(2);
  const nlohmann::json& lag = r["issue_lag"];
  EXPECT_EQ(lag["requests"].get<std::uint64_t>(), 10u);
  EXPECT_EQ(lag["late"].get<std::uint64_t>(), 0u);
  EXPECT_DOUBLE_EQ(lag["max_ns"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(lag["mean_ns"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(lag["last_timestamp_ns"].get<double>(), 9000.0);
  EXPECT_FALSE(lag["behind"].get<bool>());
  EXPECT_FALSE(lag.contains("sentence"));
}

TEST(Workload, PatternStreamsHaveNoIssueLag) {
  // No trace timestamps, nothing to lag behind: no issue_lag anywhere.
  const nlohmann::json r = test::run_sim(kSlowLinkPlatform, R"(
name: plain
streams:
  - buffer: {bytes: 2MiB, location: device/fam0}
    total_bytes: 4KiB
)");
  EXPECT_FALSE(r.contains("issue_lag"));
  EXPECT_FALSE(r["components"]["gpu0"].contains("issue_lag"));
}

// request_trace.h: the GPU index is checked against the platform's GPU count. kPlatform has
// one GPU, so GPU 3 cannot be skipped as another GPU's line: it is an error naming the line.
TEST(Workload, ReplayLineForAMissingGpuNamesTheLine) {
  const std::string trace = write_trace("gpu3.trace", "10 0 R 0x0 128\n20 3 R 0x80 128\n");
  try {
    test::run_sim(kPlatform, R"(
name: replay
streams:
  - name: replay
    replay: {file: )" + trace + R"(, bytes: 2MiB, location: device/fam0}
)");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("gpu3.trace:2: no GPU 3 on this platform (1 GPU, 0..0)"));
  }
}

TEST(Workload, ReplayAccessPastTheBufferNamesTheLine) {
  const std::string trace = write_trace("past.trace", "10 0 R 0x0 128\n20 0 R 0x200000 128\n");
  try {
    test::run_sim(kPlatform, R"(
name: replay
streams:
  - name: replay
    gpus: [0]
    replay: {file: )" + trace + R"(, bytes: 2MiB, location: device/fam0}
)");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("past.trace:2:"));
    EXPECT_THAT(e.what(), HasSubstr("past the end"));
  }
}

// B starts gap_ns after A finished (on the GPU's next clock edge: within 1 ns at 1000 MHz).
TEST(Workload, GapSeparatesDependentStreams) {
  const nlohmann::json r = test::run_sim(kPlatform, R"(
name: gap
streams:
  - name: a
    gpus: [0]
    buffer: {bytes: 2MiB, location: device/fam0}
    total_bytes: 64KiB
  - name: b
    gpus: [0]
    buffer: {from_stream: a}
    total_bytes: 64KiB
    start_after: [a]
    gap_ns: 5000
)");
  const auto& s = r["components"]["gpu0"]["streams"];
  const double gap = s["b"]["start_ns"].get<double>() - s["a"]["finish_ns"].get<double>();
  EXPECT_GE(gap, 5000.0);
  EXPECT_LE(gap, 5001.0);
}

// A paced stream with a duration: 128 B every 10 us (128 B / 0.0128 GB/s = 10,000 ns) for 25 us
// issues at 0, 10 and 20 us; the next would be at 30 us, past the 25 us, so the request at 20 us
// is its last and the stream finishes when that request completes, on the GPU's next edge after
// its response (1000 MHz: within 1 ns), not after waiting out the gap to 30 us. The stream after
// it starts on the edge after that and reads 128 B, which ends the run. Requests 10 us apart meet
// an idle platform: each has the same zero-load latency L (the GPU's own figure, read back).
TEST(Workload, PacedStreamWithADurationFinishesAtItsLastRequest) {
  const nlohmann::json r = test::run_sim(kPlatform, R"(
name: paced
streams:
  - name: a
    gpus: [0]
    buffer: {bytes: 2MiB, location: device/fam0}
    issue_rate_gbps: 0.0128
    duration_ns: 25000
  - name: b
    gpus: [0]
    buffer: {from_stream: a}
    total_bytes: 128
    start_after: [a]
)");
  EXPECT_TRUE(r["conservation"]["ok"].get<bool>());
  const auto& g = r["components"]["gpu0"];
  const auto& s = g["streams"];
  EXPECT_EQ(s["a"]["requests"].get<std::uint64_t>(), 3u);
  EXPECT_EQ(s["b"]["requests"].get<std::uint64_t>(), 1u);
  const double l = g["read_latency_ns"]["max"].get<double>();
  ASSERT_DOUBLE_EQ(g["read_latency_ns"]["min"].get<double>(), l);  // every request at zero load
  ASSERT_LT(l, 1000.0);
  const double a_finish = s["a"]["finish_ns"].get<double>();
  EXPECT_GT(a_finish, 20000.0 + l);  // the GPU takes a response on the edge after it arrives
  EXPECT_LE(a_finish, 20000.0 + l + 1.0);
  EXPECT_DOUBLE_EQ(s["b"]["start_ns"].get<double>(), a_finish + 1.0);
  EXPECT_NEAR(r["sim"]["simulated_time_ns"].get<double>(), a_finish + 1.0 + l, 1e-6);
}

// Two devices alike (tests/cli/data/two_devices.yaml) but for fam1's ingress pipeline,
// `fam1_ingress` cycles at 1000 MHz.
std::string two_devices(unsigned fam1_ingress) {
  std::string p = test::source_file("tests/cli/data/two_devices.yaml");
  const std::string ingress = "ingress_cycles: 3";
  const std::size_t fam1 = p.find(ingress, p.find("name: fam1"));
  if (fam1 == std::string::npos) throw std::runtime_error("two_devices.yaml: no fam1 ingress");
  return p.replace(fam1, ingress.size(), "ingress_cycles: " + std::to_string(fam1_ingress));
}

// A 4 MiB buffer striped over both devices, read sequentially.
const char* const kStripedRead = R"(
name: striped
streams:
  - name: reader
    gpus: [0]
    buffer: {bytes: 4MiB, location: [device/fam0, device/fam1]}
    pattern: sequential
)";

// A buffer striped over two devices, granule (2 MiB) by granule: a sequential read of 4 MiB
// reads page 0 from fam0 and page 1 from fam1, 2 MiB from each. The split by memory says so:
// half the bytes each, 16,384 requests of 128 B each, and the devices evenly loaded.
TEST(Workload, StripedBufferSpreadsPagesOverDevices) {
  const nlohmann::json r = test::run_sim(two_devices(3), kStripedRead);
  EXPECT_EQ(served_by(r, "fam0"), 2u << 20);
  EXPECT_EQ(served_by(r, "fam1"), 2u << 20);
  const auto& by = r["summary"]["by_memory"];
  ASSERT_EQ(by.size(), 2u);
  for (const char* d : {"fam0", "fam1"}) {
    EXPECT_EQ(by[d]["kind"], "device");
    EXPECT_EQ(by[d]["read_bytes"].get<std::uint64_t>(), 2u << 20) << d;
    EXPECT_EQ(by[d]["write_bytes"].get<std::uint64_t>(), 0u) << d;
    EXPECT_EQ(by[d]["read_latency_ns"]["count"].get<std::uint64_t>(), (2u << 20) / 128) << d;
    EXPECT_DOUBLE_EQ(by[d]["share_of_bytes"].get<double>(), 0.5) << d;
  }
  const auto& bal = r["summary"]["device_balance"];
  EXPECT_EQ(bal["devices"].get<unsigned>(), 2u);
  EXPECT_EQ(bal["devices_used"].get<unsigned>(), 2u);
  EXPECT_DOUBLE_EQ(bal["max_over_mean"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(bal["min_over_mean"].get<double>(), 1.0);
  EXPECT_TRUE(r["conservation"]["ok"].get<bool>());
}

// Llama-3-8B decode whose KV takes one 2 MiB page a layer on `kv_location`: 2 sequences of 255
// cached tokens + 1 step, 16 blocks of 16 tokens each, 2 x 256 x 4,096 B; 1 of 32 layers run.
std::string one_page_a_layer(const std::string& kv_location) {
  return R"(
name: one_page
streams:
  - name: decode
    gpus: [0]
    kv_decode: {model: {preset: llama3_8b}, batch: 2, context_tokens: 255, steps: 1, layers: 1,
                kv_location: )" +
         kv_location + "}\n";
}

// A whole-model estimate for a KV cache striped over two devices is withheld only when a device's
// share of the whole model's region does not fit. Llama-3-8B (4,096 B per token per layer), 2
// sequences of 255 cached tokens + 1 step: 16 blocks of 16 tokens each, 2 x 256 x 4,096 B = 2 MiB,
// one page a layer. 1 of 32 layers simulated: page 0 on fam0; all 32: pages 0, 2, ..., 30 on fam0
// and 1, 3, ..., 31 on fam1, 16 each, so fam0 needs 15 pages more and fam1 16. Each device holds
// `pages` 2 MiB pages.
nlohmann::json striped_kv(unsigned pages) {
  const std::string gib = fmt::format("{}", pages / 512.0);
  std::string p = two_devices(3);
  for (std::size_t at = p.find("capacity_gib: 1"); at != std::string::npos;
       at = p.find("capacity_gib: 1", at + 1)) {
    p.replace(at, std::string("capacity_gib: 1").size(), "capacity_gib: " + gib);
  }
  return test::run_sim(p, one_page_a_layer("[device/fam0, device/fam1]"));
}

// 16 pages a device: fam0 has 15 free for its 15, fam1 16 for its 16. (Sharing the 31 pages of
// growth out from fam0 on would ask 16 of fam0.)
TEST(Workload, AStripedKvCacheWhoseDevicesEachHaveRoomForTheirShareGetsAnEstimate) {
  const nlohmann::json r = striped_kv(16);
  const auto& fits = r["workload"]["streams"]["decode"]["result"];
  EXPECT_TRUE(fits.contains("mean_step_ns_whole_model_estimate")) << fits.dump();
  EXPECT_FALSE(fits.contains("note")) << fits["note"];
}

// 15 pages a device: fam0, the first short, has 14 free for its 15.
TEST(Workload, AStripedKvCacheNamesTheDeviceShortOfRoomForItsShare) {
  const nlohmann::json r = striped_kv(15);
  const auto& unfit = r["workload"]["streams"]["decode"]["result"];
  EXPECT_FALSE(unfit.contains("mean_step_ns_whole_model_estimate"));
  EXPECT_THAT(unfit["note"].get<std::string>(),
              HasSubstr(fmt::format("would take {} B (0.03 GiB) more on fam0 than with the "
                                    "simulated layers, and fam0 has {} B (0.03 GiB) free:",
                                    15u << 21, 14u << 21)));
}

// A GPU's HBM holds the model's weights, which the compute model reads unmapped, beside its KV:
// the whole model's KV must fit beside both. Llama-3-8B: 32 layers of attention (2 x 4096^2 +
// 2 x 4096 x 1024), FFN (3 x 4096 x 14336) and 2 norms of 4096, an embedding and an LM head of
// 128256 x 4096, a final norm: 8,030,261,248 parameters (its model card's 8.03 B), 2 B each. The
// KV as above, one 2 MiB page a layer, in a 15 GiB HBM: weights and 1 page fit, 31 pages more do
// not (they would without the weights).
TEST(Workload, TheWholeModelsKvMustFitInHbmBesideTheWeights) {
  std::string p = kPlatform;
  p.replace(p.find("capacity_gib: 1,"), std::string("capacity_gib: 1,").size(),
            "capacity_gib: 15,");
  const nlohmann::json r = test::run_sim(p, one_page_a_layer("gpu_local"));
  const std::uint64_t params =
      32ull * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336 + 2 * 4096) +
      2ull * 128256 * 4096 + 4096;
  const std::uint64_t weights = 2 * params, page = 2u << 20;
  const std::uint64_t free = (15ull << 30) - page - weights;
  const auto& res = r["workload"]["streams"]["decode"]["result"];
  EXPECT_FALSE(res.contains("mean_step_ns_whole_model_estimate"));
  EXPECT_THAT(res["note"].get<std::string>(),
              HasSubstr(fmt::format("would take {} B (0.06 GiB) more on gpu0_hbm than with the "
                                    "simulated layers, and gpu0_hbm has {} B (0.04 GiB) free "
                                    "beside the model weights the compute model reads there ({} B)",
                                    31 * page, free, weights)));
}

// The same decode with its KV on the device, in a GPU whose HBM has `hbm_gib` GiB: the whole
// model's KV, 32 pages of 2 MiB = 67,108,864 B, and the weights, 16,060,522,496 B, need
// 16,127,631,360 B: more than 15 GiB (16,106,127,360 B), less than 16 GiB (17,179,869,184 B).
nlohmann::json kv_on_device(unsigned hbm_gib) {
  std::string p = kPlatform;
  p.replace(p.find("capacity_gib: 1,"), std::string("capacity_gib: 1,").size(),
            fmt::format("capacity_gib: {},", hbm_gib));
  return test::run_sim(p, one_page_a_layer("device/fam0"));
}

// In 16 GiB the run times the device where HBM alone would do, and says so with the bytes.
TEST(Workload, DataTheGpusHbmWouldHoldIsNotedAsSuch) {
  const nlohmann::json r = kv_on_device(16);
  const auto& res = r["workload"]["streams"]["decode"]["result"];
  ASSERT_TRUE(res.contains("note"));
  EXPECT_THAT(
      res["note"].get<std::string>(),
      HasSubstr("its regions at every layer of the model take 67108864 B (0.06 GiB) a GPU, "
                "16127631360 B (15.02 GiB) with the weights its streams' compute reads there "
                "(16060522496 B), "
                "against 17179869184 B (16.00 GiB) free"));
  EXPECT_THAT(res["note"].get<std::string>(), HasSubstr("the kv_cache region in gpu_local gives"));
}

// In 15 GiB it would not fit: no such note.
TEST(Workload, DataTheGpusHbmWouldNotHoldHasNoSuchNote) {
  const nlohmann::json r = kv_on_device(15);
  const auto& res = r["workload"]["streams"]["decode"]["result"];
  EXPECT_FALSE(res.contains("note") &&
               res["note"].get<std::string>().find("would hold") != std::string::npos)
      << res["note"];
}

// Two GPUs, each reading its own 4 MiB buffer striped over both devices, in step (the same path
// length to each device). With every buffer starting on fam0 (stripe_start: first) both GPUs read
// fam0 then fam1: the devices take turns, each window's busiest device carrying about twice the
// mean. With stripe_start: by_gpu, GPU 1's buffer starts on fam1: while GPU 0 reads fam0, GPU 1
// reads fam1, every window about even. Over the whole run both layouts put 4 MiB on each device.
std::string two_readers(const std::string& stripe_start) {
  return R"(
name: two_readers
streams:
  - name: reader
    gpus: [0, 1]
    buffer: {bytes: 4MiB, location: [device/fam0, device/fam1], stripe_start: )" +
         stripe_start + R"(}
    pattern: sequential
)";
}

// Runs two_readers(stripe_start); each device serves 4 MiB whatever the start.
nlohmann::json run_two_readers(const std::string& stripe_start) {
  const nlohmann::json r =
      test::run_sim(two_devices(3), two_readers(stripe_start), {"gpus.count=2"});
  EXPECT_EQ(served_by(r, "fam0"), 4u << 20);
  EXPECT_EQ(served_by(r, "fam1"), 4u << 20);
  EXPECT_DOUBLE_EQ(r["timeseries"]["device_balance_by_window"]["run_max_over_mean"].get<double>(),
                   1.0);
  return r["timeseries"]["device_balance_by_window"];
}

TEST(Workload, StripesStartingOnOneDeviceTakeTurns) {
  const nlohmann::json w = run_two_readers("first");
  EXPECT_GT(w["mean_max_over_mean"].get<double>(), 1.9);
  EXPECT_TRUE(w["took_turns"].get<bool>());
}

TEST(Workload, StripesStartingByGpuSpreadOverTheDevices) {
  const nlohmann::json w = run_two_readers("by_gpu");
  EXPECT_LT(w["mean_max_over_mean"].get<double>(), 1.1);
  EXPECT_FALSE(w["took_turns"].get<bool>());
}

// The same for a generator's region (stream-level stripe_start): two GPUs replay a trace reading
// their own 4 MiB region from offset 0 up, all lines at time 0 (as fast as they can), the region
// striped over both devices. Every region starting on fam0 makes the devices take turns; by_gpu
// starts GPU 1's on fam1.
nlohmann::json run_two_replayers(const std::string& stripe_start) {
  std::string lines;
  for (unsigned gpu = 0; gpu < 2; ++gpu) {
    for (std::uint64_t a = 0; a < (4u << 20); a += 256) {
      lines += fmt::format("0 {} R 0x{:x} 256\n", gpu, a);
    }
  }
  const std::string trace = write_trace("striped_" + stripe_start + ".trace", lines);
  const nlohmann::json r = test::run_sim(two_devices(3), R"(
name: two_replayers
streams:
  - name: replay
    gpus: [0, 1]
    stripe_start: )" + stripe_start + R"(
    replay: {file: )" + trace + R"(, bytes: 4MiB, location: [device/fam0, device/fam1]}
)",
                                         {"gpus.count=2"});
  EXPECT_EQ(served_by(r, "fam0"), 4u << 20);
  EXPECT_EQ(served_by(r, "fam1"), 4u << 20);
  return r["timeseries"]["device_balance_by_window"];
}

TEST(Workload, GeneratorRegionsStartingOnOneDeviceTakeTurns) {
  const nlohmann::json w = run_two_replayers("first");
  EXPECT_GT(w["mean_max_over_mean"].get<double>(), 1.9);
  EXPECT_TRUE(w["took_turns"].get<bool>());
}

TEST(Workload, GeneratorRegionsStartingByGpuSpreadOverTheDevices) {
  const nlohmann::json w = run_two_replayers("by_gpu");
  EXPECT_LT(w["mean_max_over_mean"].get<double>(), 1.1);
  EXPECT_FALSE(w["took_turns"].get<bool>());
}

// One request at a time (no queueing anywhere, every clock 1000 MHz and every latency whole ns):
// every request to a device takes the same time, and fam1's ingress pipeline, 10 cycles longer
// than fam0's, makes each of its requests exactly 10 ns slower. The device total is their mix,
// half and half.
TEST(Workload, LatencyByMemorySeparatesDevicesAtZeroLoad) {
  const nlohmann::json r = test::run_sim(two_devices(13), kStripedRead, {"gpus.max_outstanding=1"});
  const auto& f0 = r["summary"]["by_memory"]["fam0"]["read_latency_ns"];
  const auto& f1 = r["summary"]["by_memory"]["fam1"]["read_latency_ns"];
  EXPECT_DOUBLE_EQ(f0["min"].get<double>(), f0["max"].get<double>());
  EXPECT_DOUBLE_EQ(f1["min"].get<double>(), f1["max"].get<double>());
  EXPECT_DOUBLE_EQ(f1["min"].get<double>() - f0["min"].get<double>(), 10.0);
  const auto& all = r["summary"]["by_target"]["device"]["read_latency_ns"];
  EXPECT_EQ(all["count"].get<std::uint64_t>(),
            f0["count"].get<std::uint64_t>() + f1["count"].get<std::uint64_t>());
  EXPECT_NEAR(all["mean"].get<double>(), f0["min"].get<double>() + 5.0, 1e-6);
}

}  // namespace
}  // namespace famsim
