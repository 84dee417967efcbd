// AI workload generators (traffic/ai): the bytes each moves, checked against formulas worked out
// by hand from the model's published dimensions, and the phase pipeline's timing. No simulation:
// each source is drained directly, every access completing when it is issued.
#include "tests/support/test_support.h"
#include "traffic/ai/generators.h"
#include "traffic/ai/llm_common.h"
#include "traffic/ai/model_config.h"
#include "traffic/source.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace famsim {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Where the test pretends each region was mapped: far apart, so an address names its region.
constexpr std::uint64_t kRegionBase = 1ULL << 44;
constexpr std::uint64_t kRegionStride = 1ULL << 40;

struct Drained {
  std::uint64_t read = 0;
  std::uint64_t written = 0;
  std::map<unsigned, std::uint64_t> read_by_region;
  std::map<unsigned, std::uint64_t> written_by_region;
  std::uint64_t end_ps = 0;
  std::uint64_t accesses = 0;
  std::uint64_t phases = 0;  // phases ended at the end
  nlohmann::json report;
  // Every access: region, offset in it, bytes, write.
  struct Span {
    unsigned region;
    std::uint64_t offset, bytes;
    bool write;
  };
  std::vector<Span> spans;
};

// Parses `generator_yaml` as the only stream of a workload on nvl8_fam (8 GPUs with HBM, device
// fam0) and returns its spec.
std::shared_ptr<const GeneratorSpec> spec_of(const std::string& stream_yaml) {
  const ConfigDoc doc = test::make_doc(test::source_file("platforms/nvl8_fam.yaml"),
                                       "name: t\nstreams:\n  - " + stream_yaml);
  const ResolvedConfig rc = parse_config(doc);
  return rc.workload.streams.at(0).generator;
}

// The ConfigError spec_of gives for `stream_yaml`: its message, or "no error".
std::string spec_error(const std::string& stream_yaml) {
  try {
    spec_of(stream_yaml);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

// Drains the source of the GPU at `rank`: every access completes `fetch_ps` after it is issued
// (0: at once), the clock jumping to whatever time the source waits for.
Drained drain(const GeneratorSpec& spec, unsigned rank = 0, std::uint64_t fetch_ps = 0) {
  SourceContext c;
  c.rank = rank;
  c.gpu = rank;
  for (std::size_t i = 0; i < spec.regions().size(); ++i) {
    c.region_va.push_back(kRegionBase + i * kRegionStride);
  }
  std::unique_ptr<AccessSource> src = spec.make_source(c);
  const std::vector<RegionSpec> regions = spec.regions();
  Drained d;
  std::uint64_t now = 0;
  for (;;) {
    Access a;
    std::uint64_t wake = AccessSource::kNever;
    const AccessSource::State st = src->next(now, a, wake);
    if (st == AccessSource::State::kDone) break;
    if (st == AccessSource::State::kWait) {
      if (wake == AccessSource::kNever) {
        ADD_FAILURE() << "source waits for a completion with nothing outstanding";
        break;
      }
      now = wake;
      continue;
    }
    ++d.accesses;
    const unsigned region = static_cast<unsigned>((a.va - kRegionBase) / kRegionStride);
    (a.write ? d.written : d.read) += a.bytes;
    (a.write ? d.written_by_region : d.read_by_region)[region] += a.bytes;
    const std::uint64_t offset = a.va - kRegionBase - region * kRegionStride;
    // Every access moves bytes and lies inside one of the regions the spec asked for (a GPU may
    // not touch a page it did not map).
    EXPECT_GT(a.bytes, 0u) << "region " << region << " offset " << offset;
    EXPECT_TRUE(region < regions.size() && offset + a.bytes <= regions[region].bytes)
        << "region " << region << " offset " << offset << " bytes " << a.bytes;
    d.spans.push_back({region, offset, a.bytes, a.write});
    now += fetch_ps;
    src->completed(a.phase, a.bytes, now);
  }
  d.end_ps = now;
  d.phases = src->phases_ended(now);
  d.report = src->report();
  return d;
}

// The spec of the only generator stream of a shipped workload file, on nvl8_fam.
std::shared_ptr<const GeneratorSpec> shipped_spec(const std::string& workload_file) {
  const ConfigDoc doc = test::make_doc(test::source_file("platforms/nvl8_fam.yaml"),
                                       test::source_file(workload_file));
  const ResolvedConfig rc = parse_config(doc);
  return rc.workload.streams.at(0).generator;
}

// The stream's result (GeneratorSpec::combine) over `gpus` GPUs, each drained alone, the GPU at
// rank r with its accesses taking fetch_ps[r] (0 beyond the list).
nlohmann::json combined(const GeneratorSpec& spec, unsigned gpus,
                        const std::vector<std::uint64_t>& fetch_ps = {}) {
  std::vector<nlohmann::json> reports;
  for (unsigned r = 0; r < gpus; ++r) {
    reports.push_back(drain(spec, r, r < fetch_ps.size() ? fetch_ps[r] : 0).report);
  }
  return spec.combine(reports);
}

// The phases each shipped generator workload runs, by hand from its file (GPUs x steps x layers;
// prefill: prompts x tensor_parallel x layers), as the progress line's total, and as its sources
// run them on the 8 GPUs. (A trace's prompts are not known up front: cli.workloads checks that
// such a run gives no share.)
TEST(GeneratorSpec, PhasesTotalByHandAndAsTheSourcesRunThem) {
  const std::pair<const char*, std::uint64_t> cases[] = {
      {"traffic/kv_decode_llama70b.yaml", 8 * 2 * 2},     // steps 2, layers 2
      {"traffic/kv_decode_qwen3_next.yaml", 8 * 1 * 4},   // steps 1, layers 4
      {"traffic/moe_deepseek_v3.yaml", 8 * 2 * 1},        // steps 2, layers 1
      {"traffic/moe_gpt_oss_ep.yaml", 8 * 2 * 1},         // steps 2, layers 1
      {"traffic/weight_stream.yaml", 8 * 1 * 3},          // steps 1, layers 3
      {"traffic/prefill_prefix_reuse.yaml", 16 * 1 * 2},  // 16 prompts, tp 1, layers 2
  };
  for (const auto& [file, phases] : cases) {
    SCOPED_TRACE(file);
    const auto spec = shipped_spec(file);
    EXPECT_EQ(spec->phases_total(8), phases);
    std::uint64_t ran = 0;
    for (unsigned r = 0; r < 8; ++r) ran += drain(*spec, r).phases;
    EXPECT_EQ(ran, phases);
  }
}

// --- kv_decode ------------------------------------------------------------------------------

// Llama-3-70B KV per token per layer on one GPU of a tensor-parallel group of 8: K and V of
// 8/8 = 1 head x 128 values x 2 B = 2 x 1 x 128 x 2 = 512 B (the whole model: 2 x 80 x 8 x 128 x
// 2 = 327,680 B per token).
TEST(KvDecode, Llama70bTp8BytesPerStepByHand) {
  const auto spec = spec_of(R"(gpus: all
    kv_decode:
      model: {preset: llama3_70b}
      batch: 3
      context_tokens: 1000
      steps: 2
      tensor_parallel: 8
      kv_location: device/fam0)");
  const Drained d = drain(*spec, 5);
  // Step 1 reads 3 x 1000 tokens, step 2 3 x 1001 (the token step 1 appended), each token
  // 512 B x 80 layers = 40,960 B.
  EXPECT_EQ(d.read, (3u * 1000 + 3u * 1001) * 40960ULL);
  // Each step writes one token per sequence: 3 x 40,960 B.
  EXPECT_EQ(d.written, 2 * 3 * 40960ULL);
  EXPECT_EQ(d.report["steps_done"].get<std::uint64_t>(), 2u);
  EXPECT_EQ(spec->summary()["kv_bytes_per_token_model"].get<std::uint64_t>(), 327680u);
  // Per GPU: 512 B a layer, over all 80 simulated layers 40,960 B.
  EXPECT_EQ(spec->summary()["kv_bytes_per_token_per_gpu_per_layer"].get<std::uint64_t>(), 512u);
  EXPECT_EQ(spec->summary()["kv_bytes_per_token_per_gpu"].get<std::uint64_t>(), 40960u);
}

// Steps partition the stream's time: with prefetch_layers 1 a step's first fetch starts inside the
// previous step (while its last layer computes), and each step is timed from the previous one's
// end, so the steps add up to the time from the first fetch to the last compute's end. Every
// access takes 100 ns and a layer computes for 50 us, so each next layer's fetch (16 accesses of
// 1.6 us in all) hides under compute and the first one starts before the previous step ends.
// (Timing each step from its first fetch counted that overlap twice: 3 steps added up to more
// than the stream took.)
TEST(KvDecode, PrefetchedStepsAddUpToTheStreamsTime) {
  const Drained d = drain(*spec_of(R"(gpus: [0]
    kv_decode:
      model: {preset: llama3_70b}
      batch: 1
      context_tokens: 100
      steps: 3
      layers: 2
      prefetch_layers: 1
      compute: {layer_ns: 50000}
      kv_location: device/fam0)"),
                          0, 100000);
  const nlohmann::json& steps = d.report["step_ns"];
  ASSERT_EQ(steps.size(), 3u);
  double sum = 0;
  for (const auto& s : steps) sum += s.get<double>();
  EXPECT_DOUBLE_EQ(sum, static_cast<double>(d.end_ps) * 1e-3);
  // Steps after the first are compute-bound: their two layers' compute, 100 us.
  EXPECT_DOUBLE_EQ(steps[1].get<double>(), 100000.0);
  EXPECT_DOUBLE_EQ(steps[2].get<double>(), 100000.0);
}

// DeepSeek-V3 (MLA): one latent of 512 + 64 = 576 values x 2 B = 1,152 B per token per layer on
// every GPU whatever the tensor parallelism.
TEST(KvDecode, DeepSeekV3LatentIsNotSplit) {
  const auto spec = spec_of(R"(gpus: all
    kv_decode:
      model: {preset: deepseek_v3}
      batch: 2
      context_tokens: 50
      tensor_parallel: 8
      layers: 4
      kv_location: device/fam0)");
  const Drained d = drain(*spec);
  EXPECT_EQ(d.read, 2u * 50 * 1152 * 4);
  EXPECT_EQ(d.written, 2u * 1152 * 4);
}

// An NVFP4 KV cache given next to a preset that says kv_dtype_bytes: 2 (the user's key replaces
// the preset's): Llama-3-8B's head of 128 values is 8 blocks of 16 x 4 bits and an 8-bit scale,
// 72 B; K and V of 8 heads, 1,152 B per token per layer (BF16: 4,096). 3 sequences of 40
// tokens, 2 layers: 3 x 40 x 1,152 x 2 read, 3 x 1,152 x 2 written.
TEST(KvDecode, AQuantizedKvFormatNextToAPresetSetsTheBytesMoved) {
  const auto spec = spec_of(R"(gpus: [0]
    kv_decode:
      model: {preset: llama3_8b, kv_format: nvfp4}
      batch: 3
      context_tokens: 40
      layers: 2
      kv_location: device/fam0)");
  const Drained d = drain(*spec);
  EXPECT_EQ(d.read, 3u * 40 * 1152 * 2);
  EXPECT_EQ(d.written, 3u * 1152 * 2);
}

// Tiers: Llama-3-8B, tp 1: K and V of 8 heads x 128 x 2 B = 2,048 B each, 4,096 B per token
// per layer. Context 111 tokens in blocks of 16 (blocks 0..6, block 6 holding tokens 96..110),
// the newest 32 tokens in HBM: a block is in HBM when it holds a token >= 111 - 32 = 79, so blocks
// 4 (64..79), 5 and 6: 16 + 16 + 15 = 47 tokens read from HBM, 64 from the device. The new token
// (111) goes to HBM. After the step the window starts at 112 - 32 = 80: block 4 (64..79) leaves,
// so its 16 tokens are read from HBM and written to the device.
TEST(KvDecode, HbmWindowSplitsReadsAndMovesTheBlockThatLeaves) {
  const auto spec = spec_of(R"(gpus: [0]
    kv_decode:
      model: {preset: llama3_8b}
      batch: 1
      context_tokens: 111
      layers: 2
      hbm_tokens: 32
      kv_location: device/fam0)");
  ASSERT_EQ(spec->regions().size(), 2u);
  const Drained d = drain(*spec);
  const std::uint64_t tok = 4096 * 2;                  // per token, both layers
  EXPECT_EQ(d.read_by_region.at(0), 64 * tok);         // device
  EXPECT_EQ(d.read_by_region.at(1), (47 + 16) * tok);  // HBM: attention + the block moving
  EXPECT_EQ(d.written_by_region.at(1), 1 * tok);       // the new token
  EXPECT_EQ(d.written_by_region.at(0), 16 * tok);      // the block moved down
  EXPECT_EQ(d.report["blocks_moved_to_kv_location"].get<std::uint64_t>(), 1u);
}

// gpt-oss-20b's first two layers (layer 0: sliding window of 128, layer 1: full), KV 2 x 8 x 64
// x 2 B = 2,048 B per token per layer. 143 cached tokens, blocks of 16, the newest 128 in HBM: HBM
// holds the blocks with a token >= 15, so all 9 (block 0 holds 0..15). Layer 0 reads the newest
// 127 tokens (16..142), layer 1 all 143, both from HBM. After the step the HBM window starts at
// 144 - 128 = 16: block 0 leaves. Layer 1 moves it down (16 tokens read from HBM, written to the
// device); layer 0 drops it, as its next step reads from 144 - 127 = 17 on.
TEST(KvDecode, ASlidingLayersBlockBehindTheWindowIsDroppedNotMoved) {
  const auto spec = spec_of(R"(gpus: [0]
    kv_decode:
      model: {preset: gpt_oss_20b}
      batch: 1
      context_tokens: 143
      layers: 2
      hbm_tokens: 128
      kv_location: device/fam0)");
  const Drained d = drain(*spec);
  const std::uint64_t tok = 2048;  // per token and layer
  EXPECT_EQ(d.read_by_region.count(0), 0u) << "nothing read from the device";
  EXPECT_EQ(d.read_by_region.at(1), (127 + 143 + 16) * tok);
  EXPECT_EQ(d.written_by_region.at(1), 2 * tok);   // the new token, both layers
  EXPECT_EQ(d.written_by_region.at(0), 16 * tok);  // block 0 of layer 1 only
  EXPECT_EQ(d.report["blocks_moved_to_kv_location"].get<std::uint64_t>(), 1u);
  EXPECT_EQ(d.report["sliding_blocks_dropped"].get<std::uint64_t>(), 1u);
}

// The same two layers with the newest 128 tokens in HBM: layer 0 reads at most 127 cached tokens,
// all in HBM, writes its new token there, and drops each block leaving HBM (the test above), so
// the device keeps no ring for it. The device's region holds layer 1 alone: 2 vectors x (143 + 1
// + 15) / 16 = 9 blocks x 16 x 1024 B = 294,912 B. With 126 tokens in HBM, a step's oldest read
// token may be on the device: layer 0's ring of min(9, ceil(127 / 16) + 1) = 9 blocks a vector is
// back, 294,912 B more.
TEST(KvDecode, ASlidingLayerKeepsNoRingWhenTheHbmTierHoldsItsWindow) {
  const std::string yaml = R"(gpus: [0]
    kv_decode:
      model: {preset: gpt_oss_20b}
      batch: 1
      context_tokens: 143
      layers: 2
      kv_location: device/fam0
      hbm_tokens: )";
  const auto held = spec_of(yaml + "128");
  EXPECT_EQ(held->regions().at(0).bytes, 294912u);
  EXPECT_THAT(held->regions().at(0).how, HasSubstr("none for the 1 sliding layer"));
  const Drained d = drain(*held);
  EXPECT_EQ(d.read_by_region.count(0), 0u);
  EXPECT_EQ(d.written_by_region.at(0), 16u * 2048u);  // layer 1's block 0 moved down
  EXPECT_EQ(spec_of(yaml + "126")->regions().at(0).bytes, 2u * 294912u);
  // At 127 = W - 1 tokens in HBM the window is still held: no ring. Over 40 steps (blocks leaving
  // HBM every 16) every device access is layer 1's, inside its region.
  const auto edge = spec_of(yaml + "127\n      steps: 40");
  // Layer 1 alone: 2 vectors x (143 + 40 + 15) / 16 = 12 blocks x 16,384 B.
  ASSERT_EQ(edge->regions().at(0).bytes, 2u * 12u * 16384u);
  const Drained e = drain(*edge);
  EXPECT_GT(e.read_by_region.at(0), 0u);
  for (const Drained::Span& a : e.spans) {
    if (a.region == 0) {
      EXPECT_LE(a.offset + a.bytes, edge->regions().at(0).bytes);
    }
  }
  EXPECT_GT(e.report["sliding_blocks_dropped"].get<std::uint64_t>(), 0u);
}

// gpt-oss-20b's first two layers again (layer 0: sliding window of 128, layer 1: full; one K or V
// vector 1024 B a token, blocks of 16 tokens: 16,384 B). Batch 2 at 1000 cached tokens, 10 steps:
// a sequence needs (1000 + 10 + 15) / 16 = 64 blocks, but a step of layer 0 reads at most the
// newest 127 tokens and writes one, at most 127 / 16 + 2 = 9 blocks, which is all its ring keeps
// (vLLM frees the blocks behind the window). The device's region: 2 vectors x 2 sequences x (9 +
// 64) blocks x 16,384 B = 4,784,128 B (before: 2 x 2 x 2 x 64 x 16,384 = 8,388,608 B); layer 0's
// part is the first 2 x 2 x 9 x 16,384 = 589,824 B. Step 0 reads tokens 873..999 of each
// sequence, blocks 54..62: 9 blocks of each vector and sequence, 36 distinct slots filling layer
// 0's part. Block 63 takes block 54's slot (63 mod 9 = 54 mod 9): the step at 1008 cached tokens
// (step 8) writes its token 0 there, when the window starts at 881, past block 54.
TEST(KvDecode, ASlidingLayerKeepsARingOfTheBlocksItCanStillRead) {
  const auto spec = spec_of(R"(gpus: [0]
    kv_decode:
      model: {preset: gpt_oss_20b}
      batch: 2
      context_tokens: 1000
      steps: 10
      layers: 2
      kv_location: device/fam0)");
  ASSERT_EQ(spec->regions().size(), 1u);
  EXPECT_EQ(spec->regions()[0].bytes, 4784128u);
  EXPECT_THAT(spec->regions()[0].how,
              HasSubstr("batch 2 x (1 layer x 64 blocks + 1 sliding layer x 9 blocks (a ring for "
                        "the 128 tokens a step reads or writes)) a sequence"));
  const std::uint64_t block = 16384, layer0 = 589824;
  const Drained d = drain(*spec);
  std::vector<Drained::Span> reads0, appends0;
  for (const Drained::Span& sp : d.spans) {
    if (sp.offset < layer0) (sp.write ? appends0 : reads0).push_back(sp);
    // Every access of layer 1 lies after layer 0's part, within the region.
    EXPECT_LE(sp.offset + sp.bytes, 4784128u);
  }
  // Step 0's reads of layer 0: the first 36 read spans, one per slot.
  ASSERT_GE(reads0.size(), 36u);
  std::set<std::uint64_t> slots;
  for (std::size_t i = 0; i < 36; ++i) slots.insert(reads0[i].offset / block);
  EXPECT_EQ(slots.size(), 36u);
  // Reads of each sequence go K then V per block: the first is sequence 0's K of block 54, from
  // token 873 (9 tokens into the block). Appends go K, V of sequence 0, then of sequence 1, 4 a
  // step: step 8's first is sequence 0's K at token 1008, block 63's first place.
  ASSERT_EQ(appends0.size(), 40u);
  EXPECT_EQ(reads0[0].offset % block, 9u * 1024);
  EXPECT_EQ(appends0[4 * 8].offset, reads0[0].offset - 9 * 1024);
}

// A chunked layer's ring: Llama 4 Scout's chunks of 8192 tokens in layers 0-2 need at most
// ceil(8191 / 16) + 1 = 513 blocks of 16 tokens, its full layer 3 at 100,000 cached tokens and one
// step (100,000 + 1 + 15) / 16 = 6251. K or V of 8 heads x 128 x 2 B = 2048 B a token, 32,768 B a
// block: 2 vectors x (3 x 513 + 6251) x 32,768 B = 510,525,440 B.
TEST(KvDecode, AChunkedLayerKeepsARingOfItsChunksBlocks) {
  const auto spec = spec_of(R"(gpus: [0]
    kv_decode: {model: {preset: llama4_scout}, batch: 1, context_tokens: 100000, layers: 4,
                kv_location: device/fam0})");
  ASSERT_EQ(spec->regions().size(), 1u);
  EXPECT_EQ(spec->regions()[0].bytes, 510525440u);
}

// The stream's result counts a tensor-parallel group's step once and times it on the group's
// critical path. GPUs 0 and 1 form one group (tp 2) decoding 1 sequence of 16 tokens, 1 layer, 2
// steps, compute 100 ns, prefetch 0; every access takes 1000 ns on GPU 0 and 2000 ns on GPU 1,
// one at a time. Step 1 (16 tokens, 1 block): K and V read, 2 accesses, then the new token's K
// and V written into block 1, 2 accesses: 4 accesses; step 2 (17 tokens, 2 blocks): 4 + 2 = 6.
// GPU 0: 4100 and 6100 ns; GPU 1: 8100 and 12100 ns, the group's critical path. (Before,
// steps_done was summed over the GPUs, 4, and mean_step_ns was the mean of the GPUs' means,
// 7600 ns.)
TEST(KvDecode, ResultCountsAGroupsStepOnceOnItsCriticalPath) {
  const auto spec = spec_of(R"(gpus: [0, 1]
    kv_decode:
      model: {preset: llama3_8b}
      batch: 1
      context_tokens: 16
      steps: 2
      tensor_parallel: 2
      layers: 1
      kv_location: device/fam0
      compute: {layer_ns: 100})");
  const nlohmann::json r = combined(*spec, 2, {1000000, 2000000});
  EXPECT_EQ(r["tensor_parallel_groups"].get<unsigned>(), 1u);
  EXPECT_EQ(r["steps_done"].get<std::uint64_t>(), 2u);  // as configured
  EXPECT_DOUBLE_EQ(r["mean_step_ns"].get<double>(), (8100.0 + 12100.0) / 2);
  // 1 token per step, 2 steps in 20,200 ns.
  EXPECT_NEAR(r["tokens_per_second_per_group"].get<double>(), 2 / 20200e-9, 1e-6);
  // Totals over both GPUs: each reads its 4 of the 8 KV heads, 4 x 128 x 2 B = 1,024 B per token
  // and vector: 16 then 17 tokens, K and V.
  EXPECT_EQ(r["read_bytes_kv_location"].get<std::uint64_t>(), 2ULL * (16 + 17) * 2 * 1024);
}

// The HBM window of HbmWindowSplitsReadsAndMovesTheBlockThatLeaves on a group of 2 GPUs: each
// moves its half of block 4 to the device, one block for the group (before: 2, one per GPU).
TEST(KvDecode, ResultCountsAGroupsBlockMoveOnce) {
  const auto spec = spec_of(R"(gpus: [0, 1]
    kv_decode:
      model: {preset: llama3_8b}
      batch: 1
      context_tokens: 111
      tensor_parallel: 2
      layers: 2
      hbm_tokens: 32
      kv_location: device/fam0)");
  const nlohmann::json r = combined(*spec, 2);
  EXPECT_EQ(r["blocks_moved_to_kv_location"].get<std::uint64_t>(), 1u);
  EXPECT_EQ(r["steps_done"].get<std::uint64_t>(), 1u);
  // Bytes are totals over the GPUs: 64 device tokens x 2,048 B (4 KV heads) x 2 layers, on 2 GPUs.
  EXPECT_EQ(r["read_bytes_kv_location"].get<std::uint64_t>(), 2ULL * 64 * 2048 * 2);
}

// The shipped traffic/kv_decode_llama70b.yaml: one group of 8 GPUs, batch 8, 2 steps, 2 of
// Llama-3-70B's 80 layers. A layer multiplies q 8192x8192 + k 8192x1024 + v 8192x1024 + o
// 8192x8192 = 150,994,944 and FFN 3 x 8192 x 28672 = 704,643,072 weights plus 2 x 8192 norm
// weights: 855,654,400; per GPU 2 x 855,654,400 x 8 / 8 = 1,711,308,800 FLOPs at 700 TFLOP/s =
// 2,444.727 ns (to the ps). But each GPU also reads its shard of the layer's weights from its HBM:
// 855,638,016 linear weights / 8 x 2 B + 16,384 norm weights x 2 B = 213,942,272 B, at
// nvl8_fam's 5 HBM3-6400 stacks (160 channels x 25.6 GB/s = 4096 GB/s) 52,232 ns: decode at
// batch 8 is bound by its weights, 21 times its FLOPs. With memory that answers at once a step is
// its 2 layers' compute, 104,464 ns: 8 / 104,464 ns tokens per second for the 2 layers. The whole
// model (80 layers, all alike) is estimated at 40 x the step time. (Before: steps_done 16, one per
// GPU and step; and before the weights were counted, 2 x 2,444.727 ns a step.)
TEST(KvDecode, ShippedWorkloadResultIsPerGroupAndSaysWhichLayers) {
  const auto spec = shipped_spec("traffic/kv_decode_llama70b.yaml");
  const nlohmann::json r = combined(*spec, 8);
  EXPECT_EQ(r["steps_done"].get<std::uint64_t>(), 2u);
  EXPECT_EQ(r["layers_simulated"].get<unsigned>(), 2u);
  EXPECT_EQ(r["model_layers"].get<unsigned>(), 80u);
  const double flops_ns = std::llround(2.0 * 855654400 * 8 / 8 / 700e12 * 1e12) * 1e-3;
  EXPECT_NEAR(flops_ns, 2444.727, 1e-9);
  const double weights_ns = (855638016.0 / 8 * 2 + 16384 * 2) / 4096.0;
  EXPECT_NEAR(weights_ns, 52232.0, 1e-9);
  const nlohmann::json sum = spec->summary();
  EXPECT_EQ(sum["weight_bytes_first_layer_per_gpu"].get<double>(), 213942272.0);
  EXPECT_EQ(sum["weights_read_ns_first_layer"].get<double>(), weights_ns);
  EXPECT_EQ(sum["compute_ns_first_layer"].get<double>(), weights_ns);
  EXPECT_EQ(sum["compute"]["weights_gbps"].get<double>(), 4096.0);
  const double layer_ns = weights_ns;
  EXPECT_NEAR(r["mean_step_ns"].get<double>(), 2 * layer_ns, 1e-6);
  EXPECT_NEAR(r["tokens_per_second_per_group"].get<double>(), 8 / (2 * layer_ns * 1e-9), 1e-3);
  // The LM head, once a step after the 80th layer: 128,256 / 8 = 16,032 vocabulary rows of 8192
  // BF16 weights = 262,668,288 B per GPU, 64,128 ns at 4096 GB/s (its FLOPs for 8 tokens,
  // 2 x 16,032 x 8192 x 8 at 700 TFLOP/s, 3,001.9 ns). The simulated layers do not reach it; the
  // estimate adds it once.
  const double lm_head_ns = 16032.0 * 8192 * 2 / 4096;
  EXPECT_EQ(lm_head_ns, 64128.0);
  EXPECT_EQ(sum["lm_head_bytes_per_gpu"].get<std::uint64_t>(), 262668288u);
  EXPECT_EQ(r["lm_head_ns_per_step"].get<double>(), lm_head_ns);
  EXPECT_NEAR(r["mean_step_ns_whole_model_estimate"].get<double>(), 80 * layer_ns + lm_head_ns,
              1e-6);
  EXPECT_NEAR(r["tokens_per_second_per_group_whole_model_estimate"].get<double>(),
              8 / ((80 * layer_ns + lm_head_ns) * 1e-9), 1e-3);
  EXPECT_FALSE(r.contains("note"));
}

// A run of every layer ends each step with the LM head. Llama-3.2-1B on one GPU, batch 1, memory
// that answers at once: a layer reads 60,817,408 matrix weights + 4,096 norm weights x 2 B =
// 121,643,008 B at 4096 GB/s, 29,698 ns (its FLOPs, 2 x 60.8 M at 700 TFLOP/s, 0.17 us); the head
// (tied to the embeddings, still read) 128,256 x 2048 x 2 B = 525,336,576 B, 128,256 ns. A step:
// 16 x 29,698 + 128,256 = 603,424 ns. With layer_ns compute no LM head is modelled.
TEST(KvDecode, LmHeadEndsAStepOnTheModelsLastLayer) {
  const std::string yaml = R"(gpus: [0]
    kv_decode: {model: {preset: llama3_2_1b}, batch: 1, context_tokens: 16,
                kv_location: device/fam0, compute: )";
  nlohmann::json r = combined(*spec_of(yaml + "{tflops: 700}}"), 1);
  EXPECT_EQ(r["lm_head_ns_per_step"].get<double>(), 128256.0);
  EXPECT_NEAR(r["mean_step_ns"].get<double>(), 16 * 29698.0 + 128256.0, 1e-6);
  EXPECT_FALSE(r.contains("mean_step_ns_whole_model_estimate"));
  r = combined(*spec_of(yaml + "{layer_ns: 1000}}"), 1);
  EXPECT_EQ(r["lm_head_ns_per_step"].get<double>(), 0.0);
  EXPECT_NEAR(r["mean_step_ns"].get<double>(), 16 * 1000.0, 1e-6);
}

// weights_gbps: 0 leaves the weights out, the layer then computes for its FLOPs alone; a given
// rate replaces the platform's (1000 GB/s: 213,942,272 B in 213,942.272 ns).
TEST(KvDecode, WeightsGbpsZeroLeavesTheWeightsOutAndAGivenRateIsUsed) {
  const std::string head = R"(gpus: all
    kv_decode: {model: {preset: llama3_70b}, batch: 8, context_tokens: 16, tensor_parallel: 8,
                layers: 1, compute: {tflops: 700, weights_gbps: )";
  const auto none = spec_of(head + "0}}");
  EXPECT_EQ(none->summary()["compute_ns_first_layer"].get<double>(), 2444.727);
  EXPECT_EQ(none->summary()["weights_read_ns_first_layer"].get<double>(), 0.0);
  const auto slow = spec_of(head + "1000}}");
  EXPECT_EQ(slow->summary()["compute_ns_first_layer"].get<double>(), 213942.272);
}

// An MoE layer also reads the routed experts its tokens pick, expected under uniform routing:
// one token picks top_k; two tokens 2 x top_k less the expected overlap, E(1 - (1 - k/E)^2) =
// 2k - k^2/E: 16 - 64/256 = 15.75 of DeepSeek-V3's 256 experts (top 8). Layer 3 is its first MoE
// layer (3 dense ones first), layer 0 dense: no routed experts.
TEST(ComputeModel, MoeLayerReadsTheExpectedDistinctExperts) {
  const std::string path = std::string(FAMSIM_SOURCE_DIR) + "/traffic/models/deepseek_v3.yaml";
  const ModelConfig m =
      parse_model(ConfigNode(load_yaml_file(path), "", std::make_shared<ConfigSources>(path)));
  ASSERT_EQ(m.experts, 256u);
  ASSERT_EQ(m.top_k, 8u);
  ASSERT_TRUE(m.is_moe_layer(3));
  ASSERT_FALSE(m.is_moe_layer(0));
  const double expert = static_cast<double>(m.expert_weight_bytes(1));
  EXPECT_EQ(ComputeModel::layer_read_weight_bytes(m, 0, 2, 1),
            static_cast<double>(m.layer_weight_bytes(0, 1)));
  EXPECT_NEAR(ComputeModel::layer_read_weight_bytes(m, 3, 1, 1),
              static_cast<double>(m.layer_weight_bytes(3, 1)) + 8 * expert, 1e-3);
  EXPECT_NEAR(ComputeModel::layer_read_weight_bytes(m, 3, 2, 1),
              static_cast<double>(m.layer_weight_bytes(3, 1)) + 15.75 * expert, 1e-3);
}

// weights_gbps where it cannot apply is refused, naming the key: beside layer_ns (the layer's
// whole time), and on weight_stream, which reads its weights as simulated requests.
TEST(ComputeModel, WeightsGbpsRefusedWhereItCannotApply) {
  auto refused = [](const std::string& stream, const std::string& what) {
    try {
      spec_of(stream);
      ADD_FAILURE() << "no error for " << stream;
    } catch (const ConfigError& e) {
      EXPECT_THAT(e.what(), HasSubstr("compute.weights_gbps: " + what));
    }
  };
  refused(R"(gpus: [0]
    kv_decode: {model: {preset: llama3_8b}, batch: 1, context_tokens: 16,
                compute: {layer_ns: 100, weights_gbps: 10}})",
          "applies with tflops");
  refused(R"(gpus: all
    weight_stream: {model: {preset: llama3_8b}, location: device/fam0, layers: 2,
                    compute: {tflops: 100, weights_gbps: 10}})",
          "this generator reads its weights as simulated requests");
  refused(R"(gpus: [0]
    kv_decode: {model: {preset: llama3_8b}, batch: 1, context_tokens: 16,
                compute: {tflops: 100, weights_gbps: 1e-9}})",
          "expected 0 (weights not counted) or at least 0.001 GB/s");
}

// Llama 4 Maverick: 4 layers are whole cycles of its dense/MoE (2) and chunked/full (4) layers: a
// whole-model estimate (48 / 4 = 12 x the step, + the LM head); 2 layers are both chunked, against
// 36 of 48: a note. Its summary counts the simulated layers with experts.
TEST(KvDecode, InterleavedMoeWholeModelEstimateOnlyForWholeCycles) {
  const std::string yaml = R"(gpus: [0]
    kv_decode: {model: {preset: llama4_maverick}, batch: 1, context_tokens: 16,
                compute: {tflops: 700}, layers: )";
  const auto four = spec_of(yaml + "4}");
  EXPECT_EQ(four->summary()["moe_layers_simulated"].get<unsigned>(), 2u);
  const nlohmann::json r = combined(*four, 1);
  EXPECT_DOUBLE_EQ(r["mean_step_ns_whole_model_estimate"].get<double>(),
                   r["mean_step_ns"].get<double>() * 12 + r["lm_head_ns_per_step"].get<double>());
  const nlohmann::json two = combined(*spec_of(yaml + "2}"), 1);
  EXPECT_FALSE(two.contains("mean_step_ns_whole_model_estimate"));
  EXPECT_THAT(two["note"].get<std::string>(), HasSubstr("2 of them have chunked attention"));
}

// No estimate when every layer ran; a note instead of one when the model's layers differ
// (DeepSeek-V3: 3 dense-FFN layers, then MoE layers with other active parameters).
TEST(KvDecode, WholeModelEstimateOnlyWhenLayersWereLeftOutAndAlike) {
  const auto all = spec_of(R"(gpus: [0]
    kv_decode: {model: {preset: llama3_2_1b}, batch: 1, context_tokens: 16,
                compute: {tflops: 100}})");
  const nlohmann::json a = combined(*all, 1);
  EXPECT_EQ(a["layers_simulated"].get<unsigned>(), 16u);
  EXPECT_EQ(a["model_layers"].get<unsigned>(), 16u);
  EXPECT_FALSE(a.contains("tokens_per_second_per_group_whole_model_estimate"));
  EXPECT_FALSE(a.contains("note"));
  const auto mixed = spec_of(R"(gpus: [0]
    kv_decode: {model: {preset: deepseek_v3}, batch: 1, context_tokens: 16, layers: 4,
                compute: {tflops: 700}})");
  const nlohmann::json m = combined(*mixed, 1);
  // Of the 4 simulated layers, layer 3 has experts (moe.dense_layers 3); a dense model, and one
  // with experts in every layer (Mixtral), say nothing of it.
  EXPECT_EQ(mixed->summary()["moe_layers_simulated"].get<unsigned>(), 1u);
  EXPECT_FALSE(all->summary().contains("moe_layers_simulated"));
  EXPECT_FALSE(spec_of(R"(gpus: [0]
    kv_decode: {model: {preset: mixtral_8x7b}, batch: 1, context_tokens: 16, layers: 4})")
                   ->summary()
                   .contains("moe_layers_simulated"));
  EXPECT_FALSE(m.contains("tokens_per_second_per_group_whole_model_estimate"));
  EXPECT_THAT(m["note"].get<std::string>(), HasSubstr("first 4 of DeepSeek-V3's 61 layers"));
}

// A hybrid model (Qwen3-Next-80B-A3B: linear-attention layers 0-2, full attention in layer 3) on
// one GPU of tensor_parallel 2. Per sequence and linear layer the state is 16 value heads x 128 x
// 128 x 4 B = 1,048,576 B plus the convolution's 3 x (2 x 8 x 128 + 16 x 128) x 2 B = 24,576 B:
// 1,073,152 B. The full layer's KV: K and V of 1 head x 256 x 2 B = 1024 B a token.
// Batch 3, 100 cached tokens, 2 steps, 4 layers: state reads 2 x 3 x 3 x 1,073,152 = 19,316,736
// B, written back the same; KV reads 3 x (100 + 101) x 1024 = 617,472 B, writes 2 x 3 x 1024 =
// 6,144 B. The KV region holds only the full layer: 1 layer x 2 vectors x (3 x ceil(102 / 16) = 21
// slots) x 16 x 512 B = 344,064 B; the state region 3 layers x 3 sequences x 1,073,152 B =
// 9,658,368 B.
TEST(KvDecode, HybridModelsLinearLayersReadAndWriteTheirStatesByHand) {
  const auto spec = spec_of(R"(gpus: [0, 1]
    kv_decode: {model: {preset: qwen3_next_80b_a3b}, batch: 3, context_tokens: 100, steps: 2,
                layers: 4, tensor_parallel: 2, kv_location: device/fam0, block_tokens: 16})");
  const std::vector<RegionSpec> regions = spec->regions();
  ASSERT_EQ(regions.size(), 2u);
  EXPECT_EQ(regions[0].role, "kv_cache");
  EXPECT_EQ(regions[0].bytes, 344064u);
  EXPECT_EQ(regions[1].role, "recurrent_state");
  EXPECT_EQ(regions[1].bytes, 9658368u);
  EXPECT_EQ(regions[1].where.text, "device/fam0");  // state_location defaults to kv_location
  const Drained d = drain(*spec);
  EXPECT_EQ(d.read_by_region.at(0), 617472u);
  EXPECT_EQ(d.written_by_region.at(0), 6144u);
  EXPECT_EQ(d.read_by_region.at(1), 19316736u);
  EXPECT_EQ(d.written_by_region.at(1), 19316736u);
  EXPECT_EQ(d.report["read_bytes_state"].get<std::uint64_t>(), 19316736u);
  EXPECT_EQ(d.report["read_bytes_kv_location"].get<std::uint64_t>(), 617472u);
  // Each step's state writes cover the state region exactly once: no two sequences or layers
  // share a byte, and none lies outside it.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> writes;
  for (const Drained::Span& a : d.spans) {
    if (a.region == 1 && a.write) writes.emplace_back(a.offset, a.bytes);
  }
  writes.resize(writes.size() / 2);  // the first step's
  std::sort(writes.begin(), writes.end());
  std::uint64_t end = 0;
  for (const auto& [offset, bytes] : writes) {
    EXPECT_EQ(offset, end);
    end = offset + bytes;
  }
  EXPECT_EQ(end, 9658368u);
  // The summary's per-step figures: reads 3 x 100 x 1024 + 3 x 3 x 1,073,152 = 9,965,568 B.
  const nlohmann::json s = spec->summary();
  EXPECT_DOUBLE_EQ(s["mean_read_bytes_per_step_per_gpu"].get<double>(), 9965568.0);
  EXPECT_EQ(s["write_bytes_per_step_per_gpu"].get<std::uint64_t>(), 3u * 1024u + 9658368u);
  EXPECT_EQ(s["kv_layers_simulated"].get<unsigned>(), 1u);
  EXPECT_EQ(s["linear_layers_simulated"].get<unsigned>(), 3u);
}

// A Mamba-2 hybrid (model_config_test's Mamba2StatesAndWeightsByHand: layers 0-2 Mamba-2 with a
// state of 16,384 + 1920 = 18,304 B a sequence, layer 3 full attention with K and V of 2 heads x
// 32 x 2 B = 256 B a token). Batch 2 at 100 cached tokens, 1 step: states read and written 2 x 3
// x 18,304 = 109,824 B; KV read 2 x 100 x 256 = 51,200 B, written 2 x 256 = 512 B. tp 4 would
// split its 2 groups 4 ways: refused, naming the key.
TEST(KvDecode, Mamba2HybridReadsAndWritesItsStatesByHand) {
  const std::string yaml = R"(gpus: all
    kv_decode:
      model: {name: m2, source: test, layers: 4, hidden_size: 256, attention_heads: 8,
              kv_heads: 2, intermediate_size: 512, vocab_size: 1000,
              linear_attention: {kind: mamba2, heads: 8, head_dim: 32, state_size: 16, groups: 2,
                                 conv_kernel: 4, layer_types: [linear, linear, linear, full]}}
      batch: 2
      context_tokens: 100
      kv_location: device/fam0)";
  const auto spec = spec_of(yaml);
  const Drained d = drain(*spec);
  EXPECT_EQ(d.read_by_region.at(1), 109824u);
  EXPECT_EQ(d.written_by_region.at(1), 109824u);
  EXPECT_EQ(d.read_by_region.at(0), 51200u);
  EXPECT_EQ(d.written_by_region.at(0), 512u);
  EXPECT_EQ(spec->summary()["linear_attention_kind"].get<std::string>(), "mamba2");
  EXPECT_THAT(spec_error(yaml + "\n      tensor_parallel: 4"),
              HasSubstr("tensor_parallel: 8 Mamba-2 heads in 2 groups of m2 do not split over 4 "
                        "GPUs"));
}

// Kimi-Linear-48B-A3B's first 4 layers (KDA in 0-2, MLA in 3) at tp 2, batch 2 at 100 cached
// tokens, 1 step, on GPU 0: a KDA layer's state on a GPU is 16 heads x 128 x 128 x 4 B = 1,048,576
// B and 3 x 3 x 2048 x 2 B = 36,864 B, 1,085,440 B; read and written 2 x 3 x 1,085,440 = 6,512,640
// B. MLA's latent, 576 x 2 B = 1152 B a token on every GPU: read 2 x 100 x 1152 = 230,400 B,
// written 2 x 1152 = 2304 B. A model whose 6 KDA heads tp 4 does not split is refused, naming the
// key.
TEST(KvDecode, KdaHybridWithMlaReadsAndWritesItsStatesByHand) {
  const auto spec = spec_of(R"(gpus: [0, 1]
    kv_decode: {model: {preset: kimi_linear_48b_a3b}, batch: 2, context_tokens: 100, steps: 1,
                layers: 4, tensor_parallel: 2, kv_location: device/fam0, block_tokens: 16})");
  const Drained d = drain(*spec);
  EXPECT_EQ(d.read_by_region.at(1), 6512640u);
  EXPECT_EQ(d.written_by_region.at(1), 6512640u);
  EXPECT_EQ(d.read_by_region.at(0), 230400u);
  EXPECT_EQ(d.written_by_region.at(0), 2304u);
  EXPECT_EQ(spec->summary()["linear_attention_kind"].get<std::string>(), "kda");
  EXPECT_THAT(spec_error(R"(gpus: all
    kv_decode:
      model: {name: k, source: test, layers: 4, hidden_size: 256, attention_heads: 8,
              kv_heads: 2, intermediate_size: 512, vocab_size: 1000,
              linear_attention: {kind: kda, heads: 6, head_dim: 32, conv_kernel: 4,
                                 layer_types: [linear, full]}}
      batch: 2
      context_tokens: 100
      kv_location: device/fam0
      tensor_parallel: 4)"),
              HasSubstr("tensor_parallel: 6 KDA heads of k do not split over 4 GPUs"));
}

// MiniMax-Text-01's first 8 layers (lightning attention in 0-6, softmax in 7) at tp 8, batch 2 at
// 100 cached tokens, 1 step, on GPU 0: a lightning layer's state on a GPU is 8 heads x 128 x 128 x
// 4 B = 524,288 B, no convolution's; read and written 2 x 7 x 524,288 = 7,340,032 B. KV: one of
// the 8 KV heads a GPU, K and V of 128 x 2 B, 512 B a token: read 2 x 100 x 512 = 102,400 B,
// written 2 x 512 = 1024 B. A model whose 6 heads tp 4 does not split is refused, naming the key.
TEST(KvDecode, LightningHybridReadsAndWritesItsStatesByHand) {
  const auto spec = spec_of(R"(gpus: all
    kv_decode: {model: {preset: minimax_text_01}, batch: 2, context_tokens: 100, steps: 1,
                layers: 8, tensor_parallel: 8, kv_location: device/fam0, block_tokens: 16})");
  const Drained d = drain(*spec);
  EXPECT_EQ(d.read_by_region.at(1), 7340032u);
  EXPECT_EQ(d.written_by_region.at(1), 7340032u);
  EXPECT_EQ(d.read_by_region.at(0), 102400u);
  EXPECT_EQ(d.written_by_region.at(0), 1024u);
  EXPECT_EQ(spec->summary()["linear_attention_kind"].get<std::string>(), "lightning");
  // Its prefill of one 32-token prompt in blocks of 16 on GPU 0 writes each new block's state in
  // every lightning layer, 2 x 7 x 524,288 = 7,340,032 B, and reads none (no reuse); the softmax
  // layer's KV 32 x 512 B = 16,384 B. (Before the state walk knew a model without a convolution
  // state, every state ended with an access of 0 bytes past its end: drain() fails on one.)
  const auto pre = spec_of(R"(gpus: all
    prefill: {model: {preset: minimax_text_01}, location: device/fam0, prompts: 1,
              input_tokens: 32, layers: 8, tensor_parallel: 8, block_tokens: 16})");
  const Drained p = drain(*pre);
  ASSERT_EQ(pre->regions().size(), 2u);
  EXPECT_EQ(p.written_by_region.at(1), 7340032u);
  EXPECT_EQ(p.read_by_region.count(1), 0u);
  EXPECT_EQ(p.written_by_region.at(0), 16384u);
  EXPECT_THAT(spec_error(R"(gpus: all
    kv_decode:
      model: {name: l, source: test, layers: 4, hidden_size: 256, attention_heads: 8,
              kv_heads: 2, intermediate_size: 512, vocab_size: 1000,
              linear_attention: {kind: lightning, heads: 6, head_dim: 32,
                                 layer_types: [linear, full]}}
      batch: 2
      context_tokens: 100
      kv_location: device/fam0
      tensor_parallel: 4)"),
              HasSubstr("tensor_parallel: 6 lightning-attention heads of l do not split over 4 "
                        "GPUs"));
}

// Sparse attention on a small MLA model: a latent of 64 + 16 values in BF16, 160 B a token and
// layer; an index key of 128 FP8 values and a 32-bit scale, 132 B; top_k 16. Two layers, batch
// 1, one step, blocks of 16 on the device. The model, as a stream's `model` key (kv_decode's and
// prefill's tests share it).
constexpr const char* kSparseMlaModel = R"(
      model: {name: s, source: test, layers: 2, hidden_size: 256, attention: mla,
              attention_heads: 4, intermediate_size: 512, vocab_size: 1000,
              mla: {kv_lora_rank: 64, qk_rope_head_dim: 16, q_lora_rank: 32,
                    qk_nope_head_dim: 16, v_head_dim: 16},
              sparse_attention: {top_k: 16, index_heads: 2, index_head_dim: 128}}
)";
std::string sparse_decode(const std::string& rest) {
  return std::string("gpus: [0]\n    kv_decode:") + kSparseMlaModel + R"(      batch: 1
      steps: 1
      layers: 2
      block_tokens: 16
      kv_location: device/fam0
)" + rest;
}

// At 100 cached tokens each layer reads the 100 index keys (13,200 B) and the latents of 16
// distinct tokens (2,560 B), and writes the new token's latent and key (292 B): 31,520 B read and
// 584 B written over the two layers, no two latent reads overlapping. At 10 cached tokens (no
// more than top_k) every latent is read: 2 x 10 x (132 + 160) = 5,840 B.
TEST(KvDecode, SparseAttentionReadsEveryIndexKeyAndTopKLatentsByHand) {
  const Drained d = drain(*spec_of(sparse_decode("      context_tokens: 100\n")));
  EXPECT_EQ(d.read, 31520u);
  EXPECT_EQ(d.written, 584u);
  EXPECT_EQ(d.report["read_bytes_index_keys"].get<std::uint64_t>(), 26400u);
  EXPECT_EQ(d.report["write_bytes_index_keys"].get<std::uint64_t>(), 264u);
  EXPECT_EQ(d.report["selected_tokens_read"].get<std::uint64_t>(), 32u);
  // The latent reads: multiples of 160 B (the index keys' reads, 16 or 4 keys, are not), disjoint.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> latents;
  std::uint64_t latent_bytes = 0;
  for (const Drained::Span& sp : d.spans) {
    if (sp.write || sp.bytes % 160 != 0) continue;
    latents.emplace_back(sp.offset, sp.offset + sp.bytes);
    latent_bytes += sp.bytes;
  }
  EXPECT_EQ(latent_bytes, 2u * 16u * 160u);
  // In one step nothing is read twice: no two reads overlap, latents or index keys (a block's keys
  // have a place of their own, apart from every latent and from other blocks' keys), and no write
  // lands on anything read.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> reads;
  for (const Drained::Span& sp : d.spans) {
    if (!sp.write) reads.emplace_back(sp.offset, sp.offset + sp.bytes);
  }
  std::sort(reads.begin(), reads.end());
  for (std::size_t i = 1; i < reads.size(); ++i) {
    EXPECT_LE(reads[i - 1].second, reads[i].first) << "reads overlap at " << reads[i].first;
  }
  for (const Drained::Span& sp : d.spans) {
    if (!sp.write) continue;
    for (const auto& r : reads) {
      EXPECT_TRUE(sp.offset + sp.bytes <= r.first || r.second <= sp.offset)
          << "a write at " << sp.offset << " lands on a read";
    }
  }
  const Drained few = drain(*spec_of(sparse_decode("      context_tokens: 10\n")));
  EXPECT_EQ(few.read, 5840u);
  EXPECT_EQ(few.report["selected_tokens_read"].get<std::uint64_t>(), 20u);
}

// Prefill of the same model, two prompts of 64 tokens sharing a 32-token prefix, blocks of 16, on
// GPU 0: the first writes its 4 blocks' latents and index keys, 64 x (160 + 132) = 18,688 B a
// layer; the second reads the 2 reused blocks' latents and keys (32 x 292 = 9,344 B: the whole
// prefix, as dense attention) and writes its other 2 (9,344 B). Over the two layers: 18,688 B read
// (8,448 of them index keys) and 56,064 written (25,344 index keys).
TEST(Prefill, SparseAttentionReadsAReusedPrefixAndItsIndexKeysByHand) {
  const auto spec = spec_of(std::string("gpus: [0]\n    prefill:") + kSparseMlaModel +
                            R"(      location: device/fam0
      prompts: 2
      input_tokens: 64
      shared_prefix_tokens: 32
      block_tokens: 16
      layers: 2)");
  const Drained d = drain(*spec);
  EXPECT_EQ(d.read, 18688u);
  EXPECT_EQ(d.written, 56064u);
  EXPECT_EQ(d.report["read_bytes_index_keys"].get<std::uint64_t>(), 8448u);
  EXPECT_EQ(d.report["write_bytes_index_keys"].get<std::uint64_t>(), 25344u);
}

// With hbm_tokens 32 at 111 cached tokens, blocks 4-6 (tokens 64-110) are in HBM: the index keys
// of tokens 0-63 are read on the device (8,448 B a layer), of 64-110 in HBM (6,204 B). After the
// step block 4 leaves HBM (112 - 32 = 80 = 5 x 16) with its index keys: 16 x (160 + 132) = 4,672
// B a layer read from HBM and written to the device.
TEST(KvDecode, SparseAttentionsIndexKeysMoveWithTheirBlocks) {
  const Drained d =
      drain(*spec_of(sparse_decode("      context_tokens: 111\n      hbm_tokens: 32\n")));
  const nlohmann::json& r = d.report;
  EXPECT_EQ(r["read_bytes_index_keys"].get<std::uint64_t>(), 2u * (8448u + 6204u + 2112u));
  EXPECT_EQ(r["write_bytes_index_keys"].get<std::uint64_t>(), 2u * (132u + 2112u));
  EXPECT_EQ(r["write_bytes_kv_location"].get<std::uint64_t>(), 2u * 4672u);
  // The new token's latent and key go to HBM.
  EXPECT_EQ(r["write_bytes_hbm"].get<std::uint64_t>(), 2u * 292u);
  // Reads: index keys and 16 latents a layer, split between the tiers, and the moved block.
  EXPECT_EQ(
      r["read_bytes_kv_location"].get<std::uint64_t>() + r["read_bytes_hbm"].get<std::uint64_t>(),
      2u * (8448u + 6204u + 16u * 160u + 4672u));
  EXPECT_EQ(r["blocks_moved_to_kv_location"].get<std::uint64_t>(), 1u);
}

// A Mamba-1 hybrid (model_config_test's Mamba1StatesAndWeightsByHand: inner width 512, layers 0 and
// 2 Mamba with a state of 32,768 + 3072 = 35,840 B a sequence, 1 and 3 full attention with 256 B
// of K and V a token). Batch 2 at 100 cached tokens, 1 step: states read and written 2 x 2 x
// 35,840 = 143,360 B; KV read 2 x 2 x 100 x 256 = 102,400 B, written 2 x 2 x 256 = 1024 B. tp 4
// does not split an inner width of 514: refused, naming the key.
TEST(KvDecode, Mamba1HybridReadsAndWritesItsStatesByHand) {
  const std::string yaml = R"(gpus: all
    kv_decode:
      model: {name: m1, source: test, layers: 4, hidden_size: 256, attention_heads: 8,
              kv_heads: 2, intermediate_size: 512, vocab_size: 1000,
              linear_attention: {kind: mamba1, inner_size: 512, state_size: 16, dt_rank: 16,
                                 conv_kernel: 4, layer_types: [linear, full]}}
      batch: 2
      context_tokens: 100
      kv_location: device/fam0)";
  const auto spec = spec_of(yaml);
  const Drained d = drain(*spec);
  EXPECT_EQ(d.read_by_region.at(1), 143360u);
  EXPECT_EQ(d.written_by_region.at(1), 143360u);
  EXPECT_EQ(d.read_by_region.at(0), 102400u);
  EXPECT_EQ(d.written_by_region.at(0), 1024u);
  EXPECT_EQ(spec->summary()["linear_attention_kind"].get<std::string>(), "mamba1");
  std::string odd = yaml;
  odd.replace(odd.find("inner_size: 512"), 15, "inner_size: 514");
  EXPECT_THAT(spec_error(odd + "\n      tensor_parallel: 4"),
              HasSubstr("tensor_parallel: the Mamba mixers' inner width of m1, 514, does not split "
                        "over 4 GPUs"));
}

// Only linear layers simulated: no KV region at all; the states may live elsewhere.
TEST(KvDecode, HybridModelsStatesAloneAndElsewhere) {
  const auto spec = spec_of(R"(gpus: [0]
    kv_decode: {model: {preset: qwen3_next_80b_a3b}, batch: 2, context_tokens: 100, layers: 1,
                kv_location: device/fam0, state_location: gpu_local})");
  const std::vector<RegionSpec> regions = spec->regions();
  ASSERT_EQ(regions.size(), 1u);
  EXPECT_EQ(regions[0].role, "recurrent_state");
  EXPECT_EQ(regions[0].where.text, "gpu_local");
  // tp 1: 2,097,152 + 49,152 = 2,146,304 B a sequence; 2 sequences, read and written.
  const Drained d = drain(*spec);
  EXPECT_EQ(d.read, 2u * 2146304u);
  EXPECT_EQ(d.written, 2u * 2146304u);
}

// A block pattern's layers (model_config_test's BlockPatternOfEachPartByHand): layer 0 a Mamba-2
// mixer (a state of 16,384 + 1920 = 18,304 B a sequence), 1 attention (K and V of 2 heads x 32 x
// 2 B = 256 B a token), 2 a dense FFN and 3 experts, which keep neither. Batch 2 at 100 cached
// tokens, 1 step: states read and written 2 x 18,304 = 36,608 B; KV read 2 x 100 x 256 = 51,200
// B, written 2 x 256 = 512 B; the FFN layers move no KV or state. The KV region holds the one
// attention layer: 2 vectors x (2 x ceil(101 / 16) = 14 slots) x 16 x 128 B = 57,344 B.
constexpr const char* kBlockPatternModel =
    "{name: parts, source: test, layers: 4, hidden_size: 256, attention_heads: 8, kv_heads: 2, "
    "intermediate_size: 512, vocab_size: 1000, block_pattern: \"M*-E\", ffn_activation: relu2, "
    "moe: {experts: 4, top_k: 2, expert_intermediate_size: 128}, "
    "linear_attention: {kind: mamba2, heads: 8, head_dim: 32, state_size: 16, groups: 2, "
    "conv_kernel: 4}}";

TEST(KvDecode, BlockPatternLayersMoveOnlyWhatTheirPartKeepsByHand) {
  const auto spec = spec_of(std::string(R"(gpus: [0]
    kv_decode: {model: )") + kBlockPatternModel +
                            R"(, batch: 2, context_tokens: 100, block_tokens: 16,
                kv_location: device/fam0})");
  const std::vector<RegionSpec> regions = spec->regions();
  ASSERT_EQ(regions.size(), 2u);
  EXPECT_EQ(regions[0].role, "kv_cache");
  EXPECT_EQ(regions[0].bytes, 57344u);
  EXPECT_EQ(regions[1].role, "recurrent_state");
  EXPECT_EQ(regions[1].bytes, 36608u);
  const Drained d = drain(*spec);
  EXPECT_EQ(d.read_by_region.at(0), 51200u);
  EXPECT_EQ(d.written_by_region.at(0), 512u);
  EXPECT_EQ(d.read_by_region.at(1), 36608u);
  EXPECT_EQ(d.written_by_region.at(1), 36608u);
  EXPECT_EQ(d.read + d.written, 51200u + 512u + 2 * 36608u);
  EXPECT_EQ(d.phases, 4u);  // one a layer, the FFN layers' without accesses
  const nlohmann::json s = spec->summary();
  EXPECT_DOUBLE_EQ(s["mean_read_bytes_per_step_per_gpu"].get<double>(), 51200.0 + 36608.0);
  EXPECT_EQ(s["block_pattern_simulated"].get<std::string>(), "M*-E");
  EXPECT_EQ(s["kv_layers_simulated"].get<unsigned>(), 1u);
  EXPECT_EQ(s["linear_layers_simulated"].get<unsigned>(), 1u);
  EXPECT_EQ(s["moe_layers_simulated"].get<unsigned>(), 1u);
}

// Nemotron-H-8B's first 8 layers (M-M-M-M*): 4 Mamba-2 layers of 4,194,304 + 61,440 = 4,255,744
// B of state, and attention in layer 7 only, 4096 B of KV a token. One sequence at 100 tokens:
// state 4 x 4,255,744 = 17,022,976 B read and written; KV read 100 x 4096 = 409,600 B. The 8
// layers do not have the model's shares of parts (4, 1 and 3 of 8 against 24, 4 and 24 of 52):
// no whole-model estimate.
TEST(KvDecode, NemotronHFirstLayersByHand) {
  const auto spec = spec_of(R"(gpus: [0]
    kv_decode: {model: {preset: nemotron_h_8b}, batch: 1, context_tokens: 100, layers: 8,
                block_tokens: 16, kv_location: device/fam0, compute: {tflops: 700}})");
  const Drained d = drain(*spec);
  EXPECT_EQ(d.read_by_region.at(0), 409600u);
  EXPECT_EQ(d.read_by_region.at(1), 17022976u);
  EXPECT_EQ(d.written_by_region.at(1), 17022976u);
  const nlohmann::json c = combined(*spec, 1);
  EXPECT_FALSE(c.contains("mean_step_ns_whole_model_estimate"));
  EXPECT_THAT(c["note"].get<std::string>(),
              HasSubstr("4 of them have linear attention and 1 full attention against 24 and 4 of "
                        "the model's, so they are not scaled to the whole model (simulate first "
                        "layers with the model's shares"));
  // 2 layers (M-): 1 linear layer in 2 where the model has 24 in 52, and no attention. Averaging
  // the kinds coded 0, 1 and 2 took them as alike (a mean of 1, as the model's (24 x 2 + 4 x 1) /
  // 52); with the same compute in every layer (layer_ns) no other check catches it. No estimate.
  const auto two = spec_of(R"(gpus: [0]
    kv_decode: {model: {preset: nemotron_h_8b}, batch: 1, context_tokens: 100, layers: 2,
                block_tokens: 16, kv_location: device/fam0, compute: {layer_ns: 1000}})");
  const nlohmann::json t = combined(*two, 1);
  EXPECT_FALSE(t.contains("mean_step_ns_whole_model_estimate"));
  EXPECT_THAT(t["note"].get<std::string>(),
              HasSubstr("1 of them have linear attention and 0 full attention against 24 and 4"));
}

// A hybrid model's KV blocks default to the smallest multiple of 16 tokens whose KV (one layer,
// one GPU) holds a state, as vLLM sizes them. Qwen3.5-4B's numbers (4 KV heads of 256: 4096 B a
// token; Gated DeltaNet 16/32 heads of 128, FP32 state: 2,146,304 B): 524 tokens, 528 as vLLM's
// log says. Qwen3-Next-80B-A3B at tp 2: 1,073,152 B / 1024 B = 1048, 1056. With MLA vLLM aligns to
// 64 tokens: Kimi-Linear-48B-A3B (a KDA state of 2,170,880 B at tp 1, 1,085,440 B at tp 2; 1152 B
// of latent a token) 1885 tokens, 1920; at tp 2 943, 960.
TEST(KvDecode, HybridModelsBlocksHoldAState) {
  const auto qwen35 = spec_of(R"(gpus: [0]
    kv_decode:
      model: {name: q35, source: test, layers: 4, hidden_size: 2560, attention_heads: 16,
              kv_heads: 4, head_dim: 256, intermediate_size: 9216, vocab_size: 248320,
              linear_attention: {kind: gated_deltanet, key_heads: 16, value_heads: 32,
                                 key_head_dim: 128, value_head_dim: 128, conv_kernel: 4,
                                 layer_types: [linear, linear, linear, full]}}
      batch: 1
      context_tokens: 10
      kv_location: device/fam0)");
  EXPECT_EQ(qwen35->summary()["block_bytes"].get<std::uint64_t>(), 528u * 2048u);  // K or V
  const auto next = spec_of(R"(gpus: [0, 1]
    prefill: {model: {preset: qwen3_next_80b_a3b}, location: device/fam0, prompts: 1,
              input_tokens: 32, tensor_parallel: 2})");
  EXPECT_EQ(next->summary()["block_tokens"].get<unsigned>(), 1056u);
  for (const auto& [tp, tokens] : {std::pair{1u, 1920u}, std::pair{2u, 960u}}) {
    const auto kimi = spec_of(fmt::format(R"(gpus: [0, 1]
    prefill: {{model: {{preset: kimi_linear_48b_a3b}}, location: device/fam0, prompts: 1,
              input_tokens: 32, tensor_parallel: {}}})",
                                          tp));
    EXPECT_EQ(kimi->summary()["block_tokens"].get<unsigned>(), tokens) << tp;
  }
  const auto dense = spec_of(R"(gpus: [0]
    kv_decode: {model: {preset: llama3_8b}, batch: 1, context_tokens: 10})");
  EXPECT_EQ(dense->summary()["block_bytes"].get<std::uint64_t>(), 16u * 2048u);
}

// A hybrid model's step time scales to the whole model only when the simulated layers are whole
// cycles of its layer kinds (4 of Qwen3-Next's [linear, linear, linear, full]).
TEST(KvDecode, HybridWholeModelEstimateOnlyForWholeCycles) {
  const auto cycle = spec_of(R"(gpus: [0]
    kv_decode: {model: {preset: qwen3_next_80b_a3b}, batch: 1, context_tokens: 16, layers: 4,
                kv_location: device/fam0, compute: {tflops: 700}})");
  const nlohmann::json c = combined(*cycle, 1);
  EXPECT_TRUE(c.contains("mean_step_ns_whole_model_estimate"));
  EXPECT_FALSE(c.contains("note"));
  const auto part = spec_of(R"(gpus: [0]
    kv_decode: {model: {preset: qwen3_next_80b_a3b}, batch: 1, context_tokens: 16, layers: 2,
                kv_location: device/fam0, compute: {tflops: 700}})");
  const nlohmann::json p = combined(*part, 1);
  EXPECT_FALSE(p.contains("mean_step_ns_whole_model_estimate"));
  EXPECT_THAT(p["note"].get<std::string>(),
              HasSubstr("2 of them have linear attention and 0 full attention against 36 and 12 "
                        "of the model's"));
}

TEST(KvDecode, HybridModelErrorsNameTheKey) {
  EXPECT_THAT(spec_error(R"(gpus: [0]
    kv_decode: {model: {preset: llama3_8b}, batch: 1, context_tokens: 10,
                state_location: gpu_local})"),
              HasSubstr("kv_decode.state_location: only applies to a model with linear-attention "
                        "layers"));
  // Layer 0 only: no linear layer among the simulated ones of a model with them.
  EXPECT_THAT(spec_error(R"(gpus: [0]
    kv_decode: {model: {preset: qwen3_next_80b_a3b, linear_attention: {kind: gated_deltanet,
                key_heads: 3, value_heads: 3, key_head_dim: 8, value_head_dim: 8, conv_kernel: 4,
                layer_types: [full, linear]}}, batch: 1, context_tokens: 10, layers: 1,
                state_location: gpu_local})"),
              HasSubstr("none among them"));
  // 3 key heads do not split over 2 GPUs (the 2 KV heads do).
  EXPECT_THAT(spec_error(R"(gpus: [0, 1]
    kv_decode: {model: {preset: qwen3_next_80b_a3b, linear_attention: {kind: gated_deltanet,
                key_heads: 3, value_heads: 3, key_head_dim: 8, value_head_dim: 8, conv_kernel: 4,
                layer_types: [linear, full]}}, batch: 1, context_tokens: 10,
                tensor_parallel: 2})"),
              HasSubstr("3 linear-attention key heads of Qwen3-Next-80B-A3B do not split over 2"));
}

// Chunked attention (Llama 4 Scout: chunks of 8192 in layers 0-2, layer 3 full), tp 8: K and V of
// 1 head x 128 x 2 B = 512 B a token per layer and GPU. A sequence of 8200 cached tokens: the new
// token (position 8200) reads the 8 cached tokens of its chunk in each chunked layer and all 8200
// in the full one: (3 x 8 + 8200) x 512 = 4,210,688 B; at 8192 a chunk begins: 8192 x 512 =
// 4,194,304 B (the full layer only). One token written a layer: 4 x 512 = 2048 B.
TEST(KvDecode, ChunkedLayersReadTheirOwnChunkOnly) {
  for (const auto& [context, read] : {std::pair<std::uint64_t, std::uint64_t>{8200, 4210688},
                                      std::pair<std::uint64_t, std::uint64_t>{8192, 4194304}}) {
    SCOPED_TRACE(context);
    const auto spec = spec_of(fmt::format(R"(gpus: all
    kv_decode: {{model: {{preset: llama4_scout}}, batch: 1, context_tokens: {}, layers: 4,
                tensor_parallel: 8, kv_location: device/fam0}})",
                                          context));
    const Drained d = drain(*spec);
    EXPECT_EQ(d.read, read);
    EXPECT_EQ(d.written, 2048u);
    EXPECT_EQ(spec->summary()["chunked_layers_simulated"].get<unsigned>(), 3u);
    EXPECT_EQ(spec->summary()["attention_chunk_tokens"].get<std::uint64_t>(), 8192u);
    EXPECT_EQ(spec->summary()["sliding_window_tokens"].get<std::uint64_t>(), 0u);
  }
  // Contexts 8190..8194 give the chunked layers 8190, 8191, 0, 1, 2 cached tokens, a mean of
  // 3276.8: the summary's mean read (3 x 3276.8 + 8192) x 512 = 9,227,468.8 B. The lower bound
  // on the bytes a run moves counts none in the chunked layers (a chunk may begin), the full one
  // 8190 and the new token in each of the four: (3 x 1 + 8191) x 512 = 4,195,328 B.
  const auto range = spec_of(R"(gpus: all
    kv_decode: {model: {preset: llama4_scout}, batch: 1, context_tokens: {min: 8190, max: 8194},
                layers: 4, tensor_parallel: 8, kv_location: device/fam0})");
  EXPECT_DOUBLE_EQ(range->summary()["mean_read_bytes_per_step_per_gpu"].get<double>(), 9227468.8);
  EXPECT_DOUBLE_EQ(range->bytes_moved_at_least(1).at(0).bytes, 4195328.0);
  // Chunks of 100 tokens, blocks of 16: at position 200 a chunk begins inside block 12; nothing
  // is read (no access of 0 bytes), the new token written (Llama-3-8B: 4096 B a token).
  const auto odd = spec_of(R"(gpus: [0]
    kv_decode: {model: {preset: llama3_8b, attention_chunk: 100}, batch: 1, context_tokens: 200,
                layers: 1, kv_location: device/fam0})");
  const Drained o = drain(*odd);
  EXPECT_EQ(o.read, 0u);
  EXPECT_EQ(o.written, 4096u);
  EXPECT_EQ(o.accesses, 2u);  // K and V of the new token
}

// With an HBM tier of 32 tokens, the block of tokens 8176-8191 leaves HBM as a sequence of 8223
// tokens takes its next one (8224 - 32 = 8192). The next step's chunk starts at 8192, so the
// chunked layers 0-2 drop it; the full layer 3 moves it (read from HBM, written to the device).
TEST(KvDecode, AChunkedLayersBlockOfAFinishedChunkIsDroppedNotMoved) {
  const auto spec = spec_of(R"(gpus: all
    kv_decode: {model: {preset: llama4_scout}, batch: 1, context_tokens: 8223, layers: 4,
                tensor_parallel: 8, kv_location: device/fam0, hbm_tokens: 32})");
  const Drained d = drain(*spec);
  EXPECT_EQ(d.report["chunked_blocks_dropped"].get<std::uint64_t>(), 3u);
  EXPECT_FALSE(d.report.contains("sliding_blocks_dropped"));
  EXPECT_EQ(d.report["blocks_moved_to_kv_location"].get<std::uint64_t>(), 1u);
  // The move: one block of 16 tokens x 512 B, K and V, written to the device.
  EXPECT_EQ(d.report["write_bytes_kv_location"].get<std::uint64_t>(), 2u * 16u * 256u);
}

TEST(KvDecode, TensorParallelMustSplitTheHeads) {
  try {
    spec_of(R"(gpus: [0, 1, 2]
    kv_decode: {model: {preset: llama3_70b}, batch: 1, context_tokens: 10, tensor_parallel: 3})");
    FAIL() << "expected an error";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr("tensor_parallel"));
    EXPECT_THAT(e.what(), HasSubstr("8 KV heads"));
  }
}

// tensor_parallel may be a multiple of the KV heads (each GPU one head, replicated) but must
// divide the attention heads. Qwen3-Next at 8: 2 KV heads, each on 4 GPUs: K and V of one head
// of 256 x 2 B = 1024 B a token per layer and GPU.
TEST(KvDecode, TensorParallelMayReplicateKvHeadsButMustSplitTheHeads) {
  const auto spec = spec_of(R"(gpus: all
    kv_decode: {model: {preset: qwen3_next_80b_a3b}, batch: 1, context_tokens: 10,
                tensor_parallel: 8, kv_location: device/fam0})");
  EXPECT_EQ(spec->summary()["kv_bytes_per_token_per_gpu_per_layer"].get<std::uint64_t>(), 1024u);
  EXPECT_THAT(spec_error(R"(gpus: all
    kv_decode: {model: {name: m, source: test, layers: 2, hidden_size: 768, attention_heads: 12,
                kv_heads: 4, intermediate_size: 1024, vocab_size: 100}, batch: 1,
                context_tokens: 10, tensor_parallel: 8})"),
              HasSubstr("tensor_parallel: 12 attention heads of m do not split over 8"));
}

TEST(KvDecode, UnknownKeyAndMissingModelNamed) {
  try {
    spec_of(
        "gpus: [0]\n    kv_decode: {model: {preset: llama3_8b}, batch: 1, context_tokens: 10, "
        "blocks: 3}");
    FAIL() << "expected an error";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr("workload.streams.0.kv_decode.blocks"));
  }
  try {
    spec_of("gpus: [0]\n    kv_decode: {model: {preset: llama9}, batch: 1, context_tokens: 10}");
    FAIL() << "expected an error";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no model preset named 'llama9'"));
  }
}

// --- weight_stream --------------------------------------------------------------------------

// Llama-3-8B layer weights on one GPU of tp 8: attention q 4096x4096 + k 4096x1024 + v 4096x1024 +
// o 4096x4096 = 41,943,040 and FFN 3 x 4096 x 14336 = 176,160,768 values, split 8 ways =
// 27,262,976 values = 54,525,952 B, plus the two RMSNorm vectors replicated: 2 x 4096 x 2 B =
// 16,384 B: 54,542,336 B per layer.
TEST(WeightStream, Llama8bTp8BytesPerLayerByHand) {
  const auto spec = spec_of(R"(gpus: all
    weight_stream:
      model: {preset: llama3_8b}
      location: device/fam0
      tensor_parallel: 8
      layers: 3
      steps: 2)");
  const Drained d = drain(*spec);
  EXPECT_EQ(d.read, 2 * 3 * 54542336ULL);
  EXPECT_EQ(d.written, 0u);
  EXPECT_EQ(d.report["passes_done"].get<std::uint64_t>(), 2u);
}

// Compute per layer from TFLOP/s: 2 x (active parameters of a layer) x tokens / tp FLOPs. A
// Llama-3-8B layer has 41,943,040 + 176,160,768 matrix weights and 2 x 4,096 norm weights:
// 218,112,000 per token; batch 1000 on tp 8 at 100 TFLOP/s:
// 2 x 218,112,000 x 1000 / 8 / 1e14 s = 545.28 us per layer.
TEST(WeightStream, ComputeFromTflopsByHand) {
  const auto spec = spec_of(R"(gpus: all
    weight_stream:
      model: {preset: llama3_8b}
      location: device/fam0
      tensor_parallel: 8
      layers: 2
      batch: 1000
      compute: {tflops: 100})");
  EXPECT_NEAR(spec->summary()["compute_ns_per_pass"].get<double>(), 2 * 545280.0, 0.01);
}

// A GPU below 1 GFLOP/s is a typo: 1e-300 made a layer's time overflow 64 bits of ps, and the run
// length check reported a meaningless 9.2e6 s against the stream instead of the key.
TEST(WeightStream, TflopsBelowOneGflopRefused) {
  try {
    spec_of(R"(gpus: all
    weight_stream:
      model: {preset: llama3_8b}
      location: device/fam0
      layers: 2
      compute: {tflops: 1e-300})");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr("compute.tflops: expected at least 0.001 (1 GFLOP/s)"));
  }
}

// The pipeline: fetches take 1000 ns each (one access per layer: access_bytes >= layer), compute
// 400 ns per layer. With prefetch 1, fetch i+1 starts when compute i-1 has ended; fetch-bound, so a
// pass of 3 layers ends when the last fetch ends (3 x 1000) plus the last compute (400): 3400 ns.
// With prefetch 0 every fetch waits for the previous compute: 3 x (1000 + 400) = 4200 ns.
TEST(WeightStream, PrefetchOverlapsFetchWithCompute) {
  const std::string base = R"(gpus: [0]
    weight_stream:
      model: {preset: llama3_8b}
      location: device/fam0
      layers: 3
      access_bytes: 1GiB
      compute: {layer_ns: 400})";
  const Drained ahead = drain(*spec_of(base + "\n      prefetch_layers: 1"), 0, 1000000);
  EXPECT_DOUBLE_EQ(ahead.report["pass_ns"][0].get<double>(), 3400.0);
  EXPECT_DOUBLE_EQ(ahead.report["exposed_transfer_ns"].get<double>(), 3400.0 - 1200.0);
  const Drained serial = drain(*spec_of(base + "\n      prefetch_layers: 0"), 0, 1000000);
  EXPECT_DOUBLE_EQ(serial.report["pass_ns"][0].get<double>(), 4200.0);
}

// Two passes of the same pipeline with prefetch 1: fetch k takes [1000k, 1000(k+1)] (each waits
// for the one before and for compute k-2, which has ended), compute k [1000(k+1), 1000(k+1) + 400].
// Pass 0 ends with compute 2 at 3400; pass 1's first fetch starts at 3000, inside pass 0, and its
// last compute ends at 6400: pass 1 takes 6400 - 3400 = 3000 ns, so the passes add up to the
// 6400 ns the stream took (timing pass 1 from its first fetch gave 3400, 6800 in all), and the
// transfers compute did not hide are 6400 - 2 x 1200 = 4000 ns.
TEST(WeightStream, PrefetchedPassesAddUpToTheStreamsTime) {
  const Drained d = drain(*spec_of(R"(gpus: [0]
    weight_stream:
      model: {preset: llama3_8b}
      location: device/fam0
      layers: 3
      steps: 2
      prefetch_layers: 1
      access_bytes: 1GiB
      compute: {layer_ns: 400})"),
                          0, 1000000);
  ASSERT_EQ(d.report["pass_ns"].size(), 2u);
  EXPECT_DOUBLE_EQ(d.report["pass_ns"][0].get<double>(), 3400.0);
  EXPECT_DOUBLE_EQ(d.report["pass_ns"][1].get<double>(), 3000.0);
  EXPECT_DOUBLE_EQ(d.report["exposed_transfer_ns"].get<double>(), 6400.0 - 2 * 1200.0);
}

// The stream's result counts a tensor-parallel group's pass once and times it on the group's
// critical path. 4 GPUs in groups of 2, llama3_8b, 3 layers of one access each (access_bytes >=
// layer), compute 400 ns per layer, prefetch 0 (each fetch waits for the previous compute), 2
// passes. A pass takes 3 x (fetch + 400): GPU 1 fetches in 2000 ns, 7200 ns; the others in 1000
// ns, 4200 ns. Group 0 (GPUs 0, 1) is as slow as GPU 1: 7200 ns per pass; group 1: 4200 ns.
// (Before, passes_done was summed over GPUs, 8, compute_ns_per_pass too, 4 x 1200 = 4800 ns, and
// mean_pass_ns was the mean of the GPUs' means, 4950 ns.)
TEST(WeightStream, ResultCountsAGroupsPassOnceOnItsCriticalPath) {
  const auto spec = spec_of(R"(gpus: [0, 1, 2, 3]
    weight_stream:
      model: {preset: llama3_8b}
      location: device/fam0
      tensor_parallel: 2
      layers: 3
      steps: 2
      prefetch_layers: 0
      access_bytes: 1GiB
      compute: {layer_ns: 400})");
  const nlohmann::json r = combined(*spec, 4, {1000000, 2000000, 1000000, 1000000});
  EXPECT_EQ(r["tensor_parallel_groups"].get<unsigned>(), 2u);
  EXPECT_EQ(r["passes_done"].get<std::uint64_t>(), 2u);  // as configured
  EXPECT_DOUBLE_EQ(r["compute_ns_per_pass"].get<double>(), 3 * 400.0);
  // Mean over the 2 passes of 2 groups: (2 x 7200 + 2 x 4200) / 4.
  EXPECT_DOUBLE_EQ(r["mean_pass_ns"].get<double>(), 5700.0);
  // Over both passes, beyond 2 x 1200 ns of compute: group 0 12000 ns, group 1 6000 ns; mean 9000.
  EXPECT_DOUBLE_EQ(r["exposed_transfer_ns"].get<double>(), 9000.0);
  EXPECT_DOUBLE_EQ(r["exposed_transfer_ns_per_pass"].get<double>(), 5700.0 - 1200.0);
  // A total: each GPU reads its half of each layer, 218,103,808 / 2 = 109,051,904 matrix values
  // x 2 B + 16,384 B of norms = 218,120,192 B, per layer and pass, on 4 GPUs.
  EXPECT_EQ(r["bytes_read"].get<std::uint64_t>(), 4ULL * 2 * 3 * 218120192);
  // Llama-3-8B's 32 layers are alike (same bytes, the same 400 ns): the pass scales by 32 / 3.
  EXPECT_EQ(r["layers_simulated"].get<unsigned>(), 3u);
  EXPECT_EQ(r["model_layers"].get<unsigned>(), 32u);
  EXPECT_DOUBLE_EQ(r["mean_pass_ns_whole_model_estimate"].get<double>(), 5700.0 * 32 / 3);
  EXPECT_FALSE(r.contains("note"));
}

// DeepSeek-V3's first 3 layers are dense and the rest MoE: they read different bytes, so a pass
// over its first layer is not scaled to the model; the note says why. All its layers: nothing to
// estimate.
TEST(WeightStream, WholeModelEstimateOnlyWhenLayersWereLeftOutAndAlike) {
  const std::string yaml = R"(gpus: [0]
    weight_stream:
      model: {preset: deepseek_v3}
      location: device/fam0
      compute: {layer_ns: 400})";
  nlohmann::json r = combined(*spec_of(yaml + "\n      layers: 1"), 1);
  EXPECT_FALSE(r.contains("mean_pass_ns_whole_model_estimate"));
  EXPECT_THAT(r["note"].get<std::string>(),
              HasSubstr("first 1 of DeepSeek-V3's 61 layers only; its layers differ"));
  r = combined(*spec_of(R"(gpus: [0]
    weight_stream:
      model: {preset: llama3_2_1b}
      location: device/fam0
      compute: {layer_ns: 400})"),
               1);
  EXPECT_EQ(r["layers_simulated"].get<unsigned>(), 16u);
  EXPECT_FALSE(r.contains("mean_pass_ns_whole_model_estimate"));
  EXPECT_FALSE(r.contains("note"));
}

// A hybrid model's pass scales to the whole model when the simulated layers are whole cycles of
// its layer kinds (Qwen3-Next: 4 of 48, x 12); 2 layers are all linear (2 of 2 against 36 of 48):
// a note instead.
TEST(WeightStream, HybridWholeModelEstimateOnlyForWholeCycles) {
  const std::string yaml = R"(gpus: [0]
    weight_stream:
      model: {preset: qwen3_next_80b_a3b}
      location: device/fam0
      compute: {layer_ns: 400})";
  nlohmann::json r = combined(*spec_of(yaml + "\n      layers: 4"), 1);
  EXPECT_DOUBLE_EQ(r["mean_pass_ns_whole_model_estimate"].get<double>(),
                   r["mean_pass_ns"].get<double>() * 12);
  r = combined(*spec_of(yaml + "\n      layers: 2"), 1);
  EXPECT_FALSE(r.contains("mean_pass_ns_whole_model_estimate"));
  EXPECT_TRUE(r.contains("note"));
}

// Llama 4 Maverick alternates dense and MoE layers: one simulated layer (dense) is not the
// model's mean, two are (24 of each), and scale by 24.
TEST(WeightStream, InterleavedMoeWholeModelEstimateOnlyForWholeCycles) {
  const std::string yaml = R"(gpus: [0]
    weight_stream:
      model: {preset: llama4_maverick}
      location: device/fam0
      compute: {layer_ns: 400})";
  const auto two = spec_of(yaml + "\n      layers: 2");
  EXPECT_EQ(two->summary()["moe_layers_simulated"].get<unsigned>(), 1u);
  nlohmann::json r = combined(*two, 1);
  EXPECT_DOUBLE_EQ(r["mean_pass_ns_whole_model_estimate"].get<double>(),
                   r["mean_pass_ns"].get<double>() * 24);
  r = combined(*spec_of(yaml + "\n      layers: 1"), 1);
  EXPECT_FALSE(r.contains("mean_pass_ns_whole_model_estimate"));
  EXPECT_THAT(r["note"].get<std::string>(), HasSubstr("its layers differ"));
}

// The shipped traffic/weight_stream.yaml: Llama-3.2-1B (hidden 2048, 32 heads of 64, 8 KV heads,
// FFN 8192): a layer multiplies q 2048x2048 + k 2048x512 + v 2048x512 + o 2048x2048 = 10,485,760
// and FFN 3 x 2048 x 8192 = 50,331,648 weights, plus 2 x 2048 norm weights: 60,821,504. On one GPU
// of tp 8 at batch 32768: 2 x 60,821,504 x 32768 / 8 = 498,249,760,768 FLOPs at 700 TFLOP/s =
// 711,785.373 ns (to the ps); 3 layers: 2,135,356.119 ns per pass. One pass configured: one pass
// done, not 8 (one per GPU), and compute per pass is one GPU's, not 8 x 2.135 ms. Memory that
// answers at once leaves the pass all compute.
TEST(WeightStream, ShippedWorkloadResultIsPerPassAndPerGroup) {
  const auto spec = shipped_spec("traffic/weight_stream.yaml");
  const nlohmann::json r = combined(*spec, 8);
  EXPECT_EQ(r["passes_done"].get<std::uint64_t>(), 1u);
  EXPECT_EQ(r["tensor_parallel_groups"].get<unsigned>(), 1u);
  const double layer_ns = std::llround(2.0 * 60821504 * 32768 / 8 / 700e12 * 1e12) * 1e-3;
  EXPECT_NEAR(layer_ns, 711785.373, 1e-6);
  EXPECT_NEAR(r["compute_ns_per_pass"].get<double>(), 3 * layer_ns, 1e-6);
  EXPECT_NEAR(r["mean_pass_ns"].get<double>(), 3 * layer_ns, 1e-6);
  EXPECT_DOUBLE_EQ(r["exposed_transfer_ns"].get<double>(), 0.0);
  // 121,643,008 B per layer: matrices split 8 ways (15,204,352 B) + norms (8,192 B) per GPU.
  EXPECT_EQ(r["bytes_read"].get<std::uint64_t>(), 8ULL * 3 * (15204352 + 8192));
  // 3 of Llama-3.2-1B's 16 alike layers: the whole model's pass, 16 layers of compute.
  EXPECT_NEAR(r["mean_pass_ns_whole_model_estimate"].get<double>(), 16 * layer_ns, 1e-6);
}

// --- prefill --------------------------------------------------------------------------------

// Llama-3-8B, 4,096 B per token per layer, 2 layers. Three prompts of 64 tokens in one group whose
// first 40 tokens are shared: whole blocks of 16 inside the prefix are shared (blocks 0 and 1, 32
// tokens). Prompt 0 writes all 64 tokens; prompts 1 and 2 read the 32 shared tokens and write 32.
TEST(Prefill, PrefixReuseBytesByHand) {
  const auto spec = spec_of(R"(gpus: [0]
    prefill:
      model: {preset: llama3_8b}
      location: device/fam0
      prompts: 3
      input_tokens: 64
      shared_prefix_tokens: 40
      layers: 2)");
  const Drained d = drain(*spec);
  const std::uint64_t tok = 4096 * 2;
  EXPECT_EQ(d.read, 2 * 32 * tok);
  EXPECT_EQ(d.written, (64 + 32 + 32) * tok);
  // A dense model's summary counts no MoE layers; DeepSeek-V3's first 4 have one (layer 3).
  EXPECT_FALSE(spec->summary().contains("moe_layers_simulated"));
  EXPECT_EQ(spec_of(R"(gpus: [0]
    prefill: {model: {preset: deepseek_v3}, location: device/fam0, prompts: 1, input_tokens: 16,
              layers: 4})")
                ->summary()["moe_layers_simulated"]
                .get<unsigned>(),
            1u);
  EXPECT_EQ(d.report["reused_tokens"].get<std::uint64_t>(), 64u);
  EXPECT_EQ(d.report["prompts_done"].get<std::uint64_t>(), 3u);
}

// A hybrid model's prefill (Qwen3-Next-80B-A3B, tp 1: layers 0-2 linear, layer 3 full; a state
// of 2,146,304 B per layer, KV 2048 B a token). Two prompts of 40 tokens sharing their first 32
// (blocks 0 and 1; block 2 is each prompt's own). Prompt 0 reuses nothing: the full layer writes
// 40 x 2048 = 81,920 B; each linear layer writes the state after each of its 3 blocks: 3 x 3 x
// 2,146,304 = 19,316,736 B. Prompt 1 reuses blocks 0-1: the full layer reads 32 x 2048 = 65,536
// B and writes 8 x 2048 = 16,384 B; each linear layer reads block 1's state and writes block 2's:
// 3 x 2,146,304 = 6,438,912 B each way.
TEST(Prefill, HybridModelsLinearLayersKeepAStatePerBlock) {
  const auto spec = spec_of(R"(gpus: [0]
    prefill:
      model: {preset: qwen3_next_80b_a3b}
      location: device/fam0
      block_tokens: 16
      prompts: 2
      input_tokens: 40
      shared_prefix_tokens: 32
      layers: 4)");
  const std::vector<RegionSpec> regions = spec->regions();
  ASSERT_EQ(regions.size(), 2u);
  EXPECT_EQ(regions[1].role, "state_snapshots");
  // Per cache slot: the full layer's K and V of 16 tokens (2 x 16 x 1024 B), 3 states.
  const std::uint64_t slots = regions[0].bytes / (2 * 16 * 1024);
  EXPECT_EQ(regions[1].bytes, slots * 3 * 2146304u);
  const Drained d = drain(*spec);
  EXPECT_EQ(d.read_by_region.at(0), 65536u);
  EXPECT_EQ(d.written_by_region.at(0), 81920u + 16384u);
  EXPECT_EQ(d.read_by_region.at(1), 6438912u);
  EXPECT_EQ(d.written_by_region.at(1), 19316736u + 6438912u);
  EXPECT_EQ(d.report["read_bytes_state"].get<std::uint64_t>(), 6438912u);
  EXPECT_EQ(d.report["write_bytes"].get<std::uint64_t>(), 98304u + 25755648u);
  EXPECT_EQ(d.report["reused_tokens"].get<std::uint64_t>(), 32u);
  // The state read is the one prompt 0 wrote after block 1: the same bytes of the region.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> read, written;
  for (const Drained::Span& a : d.spans) {
    if (a.region == 1) (a.write ? written : read).emplace_back(a.offset, a.bytes);
  }
  for (const auto& r : read) {
    EXPECT_NE(std::find(written.begin(), written.end(), r), written.end()) << r.first;
  }
}

// A block's KV vector of one layer is one access, at most 1 GiB (an access's size is 32 bits):
// with 1024 KV heads of 1024 values in BF16, a token's K vector of one layer is 1024 x 1024 x 2 B
// = 2 MiB on one GPU, so 512 tokens make exactly 1 GiB and 513 tokens 1,075,838,976 B, too many;
// on 2 GPUs (tensor_parallel 2, 512 heads each) 1 MiB a token, 1024 tokens at most.
TEST(KvDecode, ABlockOfOneKvVectorIsAtMostOneGibibyte) {
  const std::string model =
      "model: {preset: llama3_8b, attention_heads: 1024, kv_heads: 1024, head_dim: 1024}, batch: "
      "1, "
      "context_tokens: 2048, layers: 1, kv_location: device/fam0";
  EXPECT_EQ(spec_error("gpus: [0]\n    kv_decode: {" + model + ", block_tokens: 512}"), "no error");
  EXPECT_THAT(spec_error("gpus: [0]\n    kv_decode: {" + model + ", block_tokens: 513}"),
              HasSubstr("kv_decode.block_tokens: 513 tokens x 2097152 B (one KV vector of a token "
                        "of one layer, on a GPU of tensor_parallel 1) = 1075838976 B in one "
                        "access, above 1 GiB; at most 512 tokens"));
  EXPECT_THAT(spec_error("gpus: [0, 1]\n    kv_decode: {" + model +
                         ", tensor_parallel: 2, block_tokens: 1025}"),
              HasSubstr("1025 tokens x 1048576 B (one KV vector of a token of one layer, on a GPU "
                        "of tensor_parallel 2) = 1074790400 B in one access, above 1 GiB; at most "
                        "1024 tokens"));
  EXPECT_THAT(spec_error("gpus: [0]\n    prefill: {" + model.substr(0, model.find(", batch")) +
                         ", location: device/fam0, prompts: 1, input_tokens: 600, "
                         "block_tokens: 600}"),
              HasSubstr("prefill.block_tokens: 600 tokens x 2097152 B"));
}

// A block pattern's layers in prefill (kBlockPatternModel): one prompt of 40 new tokens in blocks
// of 16 writes the attention layer's K and V, 40 x 2 x 128 = 10,240 B, and the Mamba-2 layer's
// state after each of its 3 blocks, 3 x 18,304 = 54,912 B; the FFN layers nothing.
TEST(Prefill, BlockPatternLayersWriteOnlyWhatTheirPartKeepsByHand) {
  const auto spec = spec_of(std::string(R"(gpus: [0]
    prefill: {model: )") + kBlockPatternModel +
                            R"(, location: device/fam0, block_tokens: 16, prompts: 1,
              input_tokens: 40})");
  const Drained d = drain(*spec);
  EXPECT_EQ(d.read, 0u);
  EXPECT_EQ(d.written_by_region.at(0), 10240u);
  EXPECT_EQ(d.written_by_region.at(1), 54912u);
  EXPECT_EQ(d.written, 10240u + 54912u);
}

// With a trace, a hybrid model's default block (1056 tokens for Qwen3-Next) does not divide the
// trace's 512-token hashes: an error naming block_tokens, not the trace's key the user wrote.
TEST(Prefill, HybridModelsDefaultBlockAgainstATraceNamesBlockTokens) {
  EXPECT_THAT(spec_error(R"(gpus: [0]
    prefill:
      model: {preset: qwen3_next_80b_a3b}
      location: device/fam0
      trace: {file: traffic/traces/mooncake_sample.jsonl})"),
              HasSubstr("prefill.block_tokens: missing, and its default for "
                        "Qwen3-Next-80B-A3B's linear-attention layers, 1056 tokens"));
}

// PrefixReuseBytesByHand's prompts with a sliding window of 11 tokens on layer 0 ([sliding,
// full]): a prompt's first new token (token 32) attends to the 10 tokens before it, 22..31, the
// last 10 of block 1, so layer 0 reads 10 of the 32 reused tokens and layer 1 all 32: 2 prompts x
// (10 + 32) x 4,096 B. Every new token is still written on both layers.
TEST(Prefill, SlidingWindowLayerReadsOnlyTheReusedTokensItAttendsTo) {
  const auto spec = spec_of(R"(gpus: [0]
    prefill:
      model: {preset: llama3_8b, sliding_window: {tokens: 11, layer_types: [sliding, full]}}
      location: device/fam0
      prompts: 3
      input_tokens: 64
      shared_prefix_tokens: 40
      layers: 2)");
  const Drained d = drain(*spec);
  EXPECT_EQ(d.read, 2u * (10 + 32) * 4096);
  EXPECT_EQ(d.written, (64u + 32 + 32) * 4096 * 2);
  EXPECT_EQ(d.report["reused_tokens"].get<std::uint64_t>(), 64u);
}

// Prefill of Llama-3-8B (4,096 B per token per layer, 1 layer, a cache of 100,000 tokens) over a
// Mooncake trace of `lines` (one JSON object each), written to a file named `name`.
Drained drain_mooncake(const std::string& name, const std::vector<std::string>& lines) {
  const std::string path = testing::TempDir() + "/" + name;
  {
    std::ofstream f(path);
    for (const std::string& l : lines) f << l << "\n";
  }
  const auto spec = spec_of(R"(gpus: [0]
    prefill:
      model: {preset: llama3_8b}
      location: device/fam0
      layers: 1
      cache_tokens: 100000
      trace: {file: )" + path +
                            "}");
  return drain(*spec);
}

// A Mooncake trace: hash ids name 512-token blocks, KV blocks are 16 tokens (32 per hash block).
// Request 1 (1000 tokens, ids 7 8): 62 full KV blocks (992 tokens) and a last one of 8 tokens,
// all written. Request 2 (1536 tokens, ids 7 8 9): its KV blocks 0..61 match request 1's full
// blocks (hash 7: 0..31, hash 8: 32..61) and are read: 992 tokens; block 62 was only partly
// filled by request 1, so it is not shared: request 2 writes 1536 - 992 = 544 tokens.
TEST(Prefill, MooncakeTraceHashIdsGiveReuse) {
  const Drained d = drain_mooncake(
      "mooncake_test.jsonl",
      {R"({"timestamp": 0, "input_length": 1000, "output_length": 5, "hash_ids": [7, 8]})",
       R"({"timestamp": 2, "input_length": 1536, "output_length": 5, "hash_ids": [7, 8, 9]})"});
  EXPECT_EQ(d.read, 992 * 4096ULL);
  EXPECT_EQ(d.written, (1000 + 544) * 4096ULL);
  // Request 2 arrives at 2 ms: its fetch does not start earlier.
  EXPECT_GE(d.end_ps, 2'000'000'000ULL);
}

// Hash ids are 64-bit: 2^63 + 1 is not 1. Each request is one 512-token hash block (32 KV blocks
// of 16). Request 1 (id 1) and request 2 (id 2^63 + 1) share nothing: both write 512 tokens (the
// keys once wrapped, and request 2 read request 1's blocks). Request 3 repeats id 2^63 + 1 and
// reads request 2's 512 tokens.
TEST(Prefill, LargeHashIdsDoNotAlias) {
  const std::string big =
      R"("input_length": 512, "output_length": 1, "hash_ids": [9223372036854775809]})";
  const Drained d = drain_mooncake(
      "mooncake_big_ids.jsonl",
      {R"({"timestamp": 0, "input_length": 512, "output_length": 1, "hash_ids": [1]})",
       R"({"timestamp": 1, )" + big, R"({"timestamp": 2, )" + big});
  EXPECT_EQ(d.read, 512 * 4096ULL);
  EXPECT_EQ(d.written, 2 * 512 * 4096ULL);
  EXPECT_EQ(d.report["reused_tokens"].get<std::uint64_t>(), 512u);
}

// A prompt of more than 2^24 KV blocks is refused (its blocks' keys would run into the next
// prompt's): input_tokens 2^24 + 1 in blocks of 1 token.
TEST(Prefill, PromptOfTooManyBlocksRefused) {
  try {
    spec_of(R"(gpus: [0]
    prefill:
      model: {preset: llama3_8b}
      location: device/fam0
      prompts: 1
      block_tokens: 1
      input_tokens: 16777217)");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr("input_tokens: a prompt of 16777217 tokens is more than "
                                    "16777216 KV blocks of block_tokens 1"));
  }
}

// --- moe_experts ----------------------------------------------------------------------------

// A small MoE model where every token needs every expert (top_k = experts = 4), so the traffic
// is known exactly. Expert: 3 x 64 x 128 values x 2 B = 49,152 B. Two MoE layers, 2 steps.
const char* kTinyMoe = R"(gpus: [0]
    moe_experts:
      model: {name: tiny, source: test, layers: 2, hidden_size: 64, attention_heads: 4,
              kv_heads: 4, vocab_size: 100,
              moe: {experts: 4, top_k: 4, expert_intermediate_size: 128}}
      location: device/fam0
      batch: 2
      steps: 2)";

// Cache of 8 experts holds both layers' 4: step 1 misses all 8, step 2 hits all 8. Each miss
// reads the expert from the device and writes it into its cache slot.
TEST(MoeExperts, CacheHoldingEveryExpertMissesOnlyOnce) {
  const Drained d = drain(*spec_of(std::string(kTinyMoe) + "\n      cache_experts: 8"));
  EXPECT_EQ(d.report["cache_misses"].get<std::uint64_t>(), 8u);
  EXPECT_EQ(d.report["cache_hits"].get<std::uint64_t>(), 8u);
  EXPECT_EQ(d.read, 8 * 49152ULL);
  EXPECT_EQ(d.written, 8 * 49152ULL);
}

// Cache of 4 (LRU): layer 1 evicts layer 0's experts and the other way round: all 16 lookups
// miss.
TEST(MoeExperts, LruCacheSmallerThanTheWorkingSetThrashes) {
  const Drained d = drain(*spec_of(std::string(kTinyMoe) + "\n      cache_experts: 4"));
  EXPECT_EQ(d.report["cache_misses"].get<std::uint64_t>(), 16u);
  EXPECT_EQ(d.report["evictions"].get<std::uint64_t>(), 12u);
  EXPECT_EQ(d.read, 16 * 49152ULL);
}

// A warm cache of 8 starts with both layers' 4 experts: nothing is fetched.
TEST(MoeExperts, WarmCacheStartsWithThePopularExperts) {
  const Drained d =
      drain(*spec_of(std::string(kTinyMoe) + "\n      cache_experts: 8\n      warm_cache: true"));
  EXPECT_EQ(d.report["cache_misses"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(d.read + d.written, 0u);
}

// The stream's result counts a tensor-parallel group's lookup once: kTinyMoe with a cache of 8 on
// a group of 2 GPUs (tp 2), which route the same tokens. The group looks up 2 steps x 2 layers x
// 4 experts = 16 experts (before: 32, once per GPU), misses the first 8 and hits the second 8.
// Bytes are totals over the GPUs: each reads its half of an expert, 24,576 B, per miss.
TEST(MoeExperts, ResultCountsAGroupsLookupOnce) {
  std::string yaml = std::string(kTinyMoe) + "\n      cache_experts: 8\n      tensor_parallel: 2";
  yaml.replace(yaml.find("gpus: [0]"), 9, "gpus: [0, 1]");
  const auto spec = spec_of(yaml);
  const nlohmann::json r = combined(*spec, 2);
  EXPECT_EQ(r["steps_done"].get<std::uint64_t>(), 2u);
  EXPECT_EQ(r["expert_lookups"].get<std::uint64_t>(), 16u);
  EXPECT_EQ(r["cache_hits"].get<std::uint64_t>(), 8u);
  EXPECT_EQ(r["cache_misses"].get<std::uint64_t>(), 8u);
  EXPECT_DOUBLE_EQ(r["hit_rate"].get<double>(), 0.5);
  EXPECT_EQ(r["evictions"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(r["bytes_fetched"].get<std::uint64_t>(), 8ULL * 2 * (49152 / 2));
  EXPECT_DOUBLE_EQ(r["mean_distinct_experts_per_layer"].get<double>(), 4.0);
}

// Expert parallelism: kTinyMoe on 2 GPUs with expert_parallel 2, a cache of 4 on each. GPU 0
// holds experts 0 and 1 of each layer, GPU 1 experts 2 and 3; every token needs all 4, so each
// GPU looks up its 2 a layer: step 1 misses them (2 layers x 2 = 4 per GPU), step 2 hits them.
// The group: 16 lookups, 8 misses, 8 hits, 4 distinct experts a layer. Each miss reads a whole
// expert, 49,152 B (not half, as under tensor_parallel 2): 4 x 49,152 B on each GPU, evenly.
TEST(MoeExperts, ExpertParallelRanksFetchTheirOwnWholeExperts) {
  std::string yaml = std::string(kTinyMoe) + "\n      cache_experts: 4\n      expert_parallel: 2";
  yaml.replace(yaml.find("gpus: [0]"), 9, "gpus: [0, 1]");
  const auto spec = spec_of(yaml);
  for (unsigned rank = 0; rank < 2; ++rank) {
    const Drained d = drain(*spec, rank);
    EXPECT_EQ(d.read, 4 * 49152ULL) << rank;
    EXPECT_EQ(d.written, 4 * 49152ULL) << rank;  // into its cache
    EXPECT_EQ(d.report["cache_misses"].get<std::uint64_t>(), 4u) << rank;
  }
  const nlohmann::json r = combined(*spec, 2);
  EXPECT_EQ(r["expert_lookups"].get<std::uint64_t>(), 16u);
  EXPECT_EQ(r["cache_misses"].get<std::uint64_t>(), 8u);
  EXPECT_EQ(r["cache_hits"].get<std::uint64_t>(), 8u);
  EXPECT_EQ(r["bytes_fetched"].get<std::uint64_t>(), 8 * 49152ULL);
  EXPECT_DOUBLE_EQ(r["mean_distinct_experts_per_layer"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(r["fetch_imbalance"].get<double>(), 1.0);
  EXPECT_EQ(r["expert_parallel"].get<unsigned>(), 2u);
  // Warm, each GPU's cache starts with its own experts: nothing is fetched.
  const auto warm = spec_of(yaml + "\n      warm_cache: true");
  EXPECT_EQ(drain(*warm, 0).read + drain(*warm, 1).read, 0u);
}

// One token routed to 1 expert of 1 layer: only its owner fetches it, whichever it is. 49,152 B
// on one GPU, none on the other: the most is twice the mean.
TEST(MoeExperts, ExpertParallelLoadFallsOnTheHotExpertsRank) {
  std::string yaml = std::string(kTinyMoe) + "\n      expert_parallel: 2\n      layers: 1";
  yaml.replace(yaml.find("gpus: [0]"), 9, "gpus: [0, 1]");
  yaml.replace(yaml.find("top_k: 4"), 8, "top_k: 1");
  yaml.replace(yaml.find("batch: 2"), 8, "batch: 1");
  yaml.replace(yaml.find("steps: 2"), 8, "steps: 1");
  const auto spec = spec_of(yaml);
  const std::uint64_t gpu0 = drain(*spec, 0).read, gpu1 = drain(*spec, 1).read;
  EXPECT_EQ(gpu0 + gpu1, 49152u);
  EXPECT_EQ(gpu0 * gpu1, 0u) << "both GPUs fetched";
  const nlohmann::json r = combined(*spec, 2);
  EXPECT_DOUBLE_EQ(r["bytes_fetched_max_gpu"].get<double>(), 49152.0);
  EXPECT_DOUBLE_EQ(r["fetch_imbalance"].get<double>(), 2.0);
  EXPECT_EQ(r["expert_lookups"].get<std::uint64_t>(), 1u);
}

TEST(MoeExperts, ExpertParallelErrorsNameTheKey) {
  std::string two = std::string(kTinyMoe);
  two.replace(two.find("gpus: [0]"), 9, "gpus: [0, 1]");
  EXPECT_THAT(spec_error(two + "\n      expert_parallel: 2\n      tensor_parallel: 2"),
              HasSubstr("expert_parallel and tensor_parallel both split the experts"));
  // 4 experts do not split over 3 GPUs (nor 2 GPUs into groups of 3).
  std::string three = std::string(kTinyMoe);
  three.replace(three.find("gpus: [0]"), 9, "gpus: [0, 1, 2]");
  EXPECT_THAT(spec_error(three + "\n      expert_parallel: 3"),
              HasSubstr("expert_parallel: 3 does not divide tiny's 4 experts per layer"));
  // Each GPU holds 2 experts of each of the 2 layers: a cache of 5 is one too many.
  EXPECT_THAT(spec_error(two + "\n      expert_parallel: 2\n      cache_experts: 5"),
              HasSubstr("cache_experts: 5 is more than the 4 experts of the 2 simulated MoE "
                        "layers (2 x 2, each GPU's share under expert_parallel 2)"));
  // The compute model splits each layer's heads over the group: 8 neither divides 3 KV heads nor
  // is a multiple of them.
  const std::string odd_heads = R"(gpus: all
    moe_experts:
      model: {preset: llama4_scout, attention_heads: 24, kv_heads: 3}
      location: device/fam0
      batch: 2
      compute: {tflops: 100})";
  EXPECT_THAT(spec_error(odd_heads + "\n      expert_parallel: 8"),
              HasSubstr("expert_parallel: 3 KV heads of Llama-4-Scout-17B-16E do not split over "
                        "8 GPUs"));
  EXPECT_THAT(spec_error(odd_heads + "\n      tensor_parallel: 8"),
              HasSubstr("tensor_parallel: 3 KV heads of Llama-4-Scout-17B-16E do not split over "
                        "8 GPUs"));
}

// The shipped traffic/moe_deepseek_v3.yaml: one group of 8 GPUs, 1 token per step routed to 8
// distinct experts, 2 steps over 1 MoE layer: 16 lookups for the group (before: 128, 16 per
// GPU). The cache starts full (64 warm experts), so every miss evicts; each miss reads a whole
// expert over the 8 GPUs: 3 x 7168 x 2048 FP8 weights = 44,040,192 B. Which experts hit depends
// on the seeded routing, so hits and misses are checked against each other.
TEST(MoeExperts, ShippedWorkloadResultCountsEachGroupLookupOnce) {
  const auto spec = shipped_spec("traffic/moe_deepseek_v3.yaml");
  const nlohmann::json r = combined(*spec, 8);
  EXPECT_EQ(r["steps_done"].get<std::uint64_t>(), 2u);
  EXPECT_EQ(r["expert_lookups"].get<std::uint64_t>(), 16u);
  const std::uint64_t hits = r["cache_hits"].get<std::uint64_t>();
  const std::uint64_t misses = r["cache_misses"].get<std::uint64_t>();
  EXPECT_EQ(hits + misses, 16u);
  EXPECT_DOUBLE_EQ(r["hit_rate"].get<double>(), hits / 16.0);
  EXPECT_EQ(r["evictions"].get<std::uint64_t>(), misses);
  EXPECT_EQ(r["bytes_fetched"].get<std::uint64_t>(), misses * 3 * 7168 * 2048);
  EXPECT_DOUBLE_EQ(r["mean_distinct_experts_per_layer"].get<double>(), 8.0);
}

// A step's time and what compute did not hide, by hand. kTinyMoe routes every token to all 4
// experts of each of its 2 layers; an expert is 3 x 64 x 128 x 2 B = 49,152 B, one access (64 KiB
// by default). Each access takes 1000 ns and they go one after another; compute 400 ns a layer;
// prefetch 0, so a layer's fetches wait for the previous layer's compute.
//   No cache: a layer is 4 x 1000 + 400 ns, a step 2 x 4400 = 8800 ns, compute 800 ns of it.
//   A cache of 8: step 1 reads each expert and writes it into its slot, 8 accesses a layer:
//   2 x (8000 + 400) = 16,800 ns; step 2 hits all 8: 2 x 400 = 800 ns; mean 8800 ns again.
// tokens_per_second_per_group: batch 2 x 2 steps / 17,600 ns = 227,272.72... tokens/s.
TEST(MoeExperts, StepTimeAndExposedFetchByHand) {
  const std::string yaml = std::string(kTinyMoe) + "\n      compute: {layer_ns: 400}";
  for (const std::string& cache : {std::string(), std::string("\n      cache_experts: 8")}) {
    SCOPED_TRACE(cache.empty() ? "no cache" : "cache of 8");
    const auto spec = spec_of(yaml + cache);
    const nlohmann::json r = combined(*spec, 1, {1000000});
    EXPECT_EQ(r["steps_done"].get<std::uint64_t>(), 2u);
    EXPECT_DOUBLE_EQ(r["mean_step_ns"].get<double>(), 8800.0);
    EXPECT_DOUBLE_EQ(r["compute_ns_per_step"].get<double>(), 800.0);
    EXPECT_DOUBLE_EQ(r["exposed_fetch_ns_per_step"].get<double>(), 8000.0);
    EXPECT_NEAR(r["tokens_per_second_per_group"].get<double>(), 2.0 * 2 / 17600e-9, 1e-6);
    EXPECT_EQ(r["moe_layers_simulated"].get<unsigned>(), 2u);
    EXPECT_THAT(r["note"].get<std::string>(), HasSubstr("2 of tiny's 2 MoE layers only;"));
  }
  // Memory that answers at once leaves the step all compute: nothing exposed.
  const nlohmann::json r = combined(*spec_of(yaml), 1);
  EXPECT_DOUBLE_EQ(r["mean_step_ns"].get<double>(), 800.0);
  EXPECT_DOUBLE_EQ(r["exposed_fetch_ns_per_step"].get<double>(), 0.0);
}

// Llama 4 Maverick has experts in layers 1, 3, ..., 47 only: moe_experts simulates those 24 by
// default, and its first simulated MoE layer is model layer 1. With batch 1, tp 1 and 100 TFLOP/s
// (weights' reads left out), that layer's compute is 2 x its active parameters (attention
// 62,914,560 + norms 10,240 + the routed and the shared expert 2 x 125,829,120 + router 655,360 =
// 315,238,400) / 1e14 s = 6,304.768 ns; model layer 0 (dense FFN: 314,583,040) would give 6,291.661
// (to the ps).
TEST(MoeExperts, InterleavedExpertLayersAreTheModelsMoeLayers) {
  const std::string yaml = R"(gpus: [0]
    moe_experts:
      model: {preset: llama4_maverick}
      location: device/fam0
      batch: 1
      compute: {tflops: 100, weights_gbps: 0})";
  const nlohmann::json all = spec_of(yaml)->summary();
  EXPECT_EQ(all["moe_layers_simulated"].get<unsigned>(), 24u);
  EXPECT_EQ(all["model_moe_layers"].get<unsigned>(), 24u);
  const auto one = spec_of(yaml + "\n      layers: 1");
  EXPECT_NEAR(one->summary()["compute_ns_per_step"].get<double>(), 6304.768, 1e-6);
  EXPECT_THAT(spec_error(yaml + "\n      layers: 25"),
              HasSubstr("layers: expected an integer in [1, 24]"));
  const nlohmann::json r = combined(*one, 1);
  EXPECT_THAT(r["note"].get<std::string>(),
              HasSubstr("1 of Llama-4-Maverick-17B-128E's 24 MoE layers only, not its 24 dense "
                        "layers;"));
}

// A block pattern's expert layer (kBlockPatternModel's layer 3, E) is its one MoE layer. With batch
// 1, tp 1 and 100 TFLOP/s (weights' reads left out), its compute is 2 x its active parameters (2
// experts of 2 x 256 x 128 = 65,536 without a gate, the router 4 x 256 = 1024 and the norm 256:
// 132,352) / 1e14 s = 2.64704 ns, 2.647 to the ps: no attention in that layer.
TEST(MoeExperts, BlockPatternExpertLayersAlone) {
  const auto spec = spec_of(std::string(R"(gpus: [0]
    moe_experts: {model: )") +
                            kBlockPatternModel +
                            R"(, location: device/fam0, batch: 1,
                  compute: {tflops: 100, weights_gbps: 0}})");
  const nlohmann::json s = spec->summary();
  EXPECT_EQ(s["model_moe_layers"].get<unsigned>(), 1u);
  EXPECT_NEAR(s["compute_ns_per_step"].get<double>(), 2.647, 1e-9);
  EXPECT_THAT(combined(*spec, 1)["note"].get<std::string>(),
              HasSubstr("1 of parts's 1 MoE layers only, not its 3 other layers;"));
}

// kTinyMoe's 2 MoE layers have 4 experts each: a cache of 8 holds them all (the tests above), one
// of 9 has a slot nothing can fill, a mistake named with the most that is useful.
TEST(MoeExperts, CacheLargerThanEveryExpertRefused) {
  try {
    spec_of(std::string(kTinyMoe) + "\n      cache_experts: 9");
    FAIL() << "expected an error";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cache_experts: 9 is more than the 8 experts of the 2 "
                                    "simulated MoE layers (4 x 2); expected at most 8"));
  }
}

TEST(MoeExperts, DenseModelRefused) {
  try {
    spec_of(
        "gpus: [0]\n    moe_experts: {model: {preset: llama3_8b}, location: device/fam0, "
        "batch: 1}");
    FAIL() << "expected an error";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr("has no experts"));
  }
}

// --- the phase pipeline ---------------------------------------------------------------------

// A pipeline of 3 phases with given compute times and one 1-byte access each.
class ToyPhases : public PhasedSource {
 public:
  ToyPhases(unsigned depth, std::vector<std::uint64_t> compute)
      : PhasedSource(depth), compute_(std::move(compute)) {}
  std::vector<PhaseTimes> times;
  // Each phase's collectives (with set_collective), each of a `message` bytes.
  unsigned collectives = 0;
  std::uint64_t message = 0;

 protected:
  bool open_phase(std::uint64_t i, PhaseStart& s) override {
    if (i >= compute_.size()) return false;
    s.compute_ps = compute_[i];
    s.collectives = collectives;
    s.collective_bytes = message;
    left_ = 1;
    return true;
  }
  bool phase_access(Access& a) override {
    if (left_ == 0) return false;
    --left_;
    a.bytes = 1;
    return true;
  }
  void phase_finished(const PhaseTimes& t) override { times.push_back(t); }

 private:
  std::vector<std::uint64_t> compute_;
  unsigned left_ = 0;
};

// Fetches complete when the test says. depth 1, compute 50/500/50, fetches of 100 each issued as
// early as allowed: fetch 0 [0, 100], compute 0 [100, 150]; fetch 1 starts at 0 (nothing to wait
// for), ends 200 -> compute 1 [200, 700]; fetch 2 may start once compute 0 ended (150) -> ends
// 250, compute 2 starts after compute 1: [700, 750].
TEST(PhasedSource, ComputeWaitsForDataAndForThePreviousCompute) {
  ToyPhases p(1, {50, 500, 50});
  std::uint64_t now = 0;
  Access a;
  std::uint64_t wake = 0;
  ASSERT_EQ(p.next(now, a, wake), AccessSource::State::kReady);  // fetch 0 at 0
  const std::uint32_t f0 = a.phase;
  ASSERT_EQ(p.next(now, a, wake), AccessSource::State::kReady);  // fetch 1 at 0
  const std::uint32_t f1 = a.phase;
  ASSERT_EQ(p.next(now, a, wake), AccessSource::State::kWait);  // fetch 2 needs compute 0's end
  EXPECT_EQ(wake, AccessSource::kNever);
  p.completed(f0, 1, 100);
  ASSERT_EQ(p.next(100, a, wake), AccessSource::State::kWait);
  EXPECT_EQ(wake, 150u);
  p.completed(f1, 1, 200);
  ASSERT_EQ(p.next(150, a, wake), AccessSource::State::kReady);
  p.completed(a.phase, 1, 250);
  ASSERT_EQ(p.next(250, a, wake), AccessSource::State::kWait);  // the last compute runs
  EXPECT_EQ(wake, 750u);
  EXPECT_EQ(p.next(750, a, wake), AccessSource::State::kDone);
  ASSERT_EQ(p.times.size(), 3u);
  EXPECT_EQ(p.times[0].compute_end_ps, 150u);
  EXPECT_EQ(p.times[1].compute_end_ps, 700u);
  EXPECT_EQ(p.times[2].fetch_start_ps, 150u);
  EXPECT_EQ(p.times[2].compute_end_ps, 750u);
}

// The progress line counts the phases whose compute has ended, not those whose end is only known:
// the same pipeline, compute ends 150, 700 and 750 (worked out above).
TEST(PhasedSource, PhasesEndedCountsComputeThatHasEnded) {
  ToyPhases p(1, {50, 500, 50});
  Access a;
  std::uint64_t wake = 0;
  ASSERT_EQ(p.next(0, a, wake), AccessSource::State::kReady);
  const std::uint32_t f0 = a.phase;
  ASSERT_EQ(p.next(0, a, wake), AccessSource::State::kReady);
  const std::uint32_t f1 = a.phase;
  EXPECT_EQ(p.phases_ended(100), 0u);
  p.completed(f0, 1, 100);  // phase 0's compute now ends at 150
  EXPECT_EQ(p.phases_done(), 1u);
  EXPECT_EQ(p.phases_ended(149), 0u);
  EXPECT_EQ(p.phases_ended(150), 1u);
  p.completed(f1, 1, 200);
  ASSERT_EQ(p.next(150, a, wake), AccessSource::State::kReady);
  p.completed(a.phase, 1, 250);
  ASSERT_EQ(p.next(250, a, wake), AccessSource::State::kWait);  // all known: 150, 700, 750
  EXPECT_EQ(p.phases_done(), 3u);
  EXPECT_EQ(p.phases_ended(250), 1u);
  EXPECT_EQ(p.phases_ended(699), 1u);
  EXPECT_EQ(p.phases_ended(700), 2u);
  EXPECT_EQ(p.phases_ended(749), 2u);
  EXPECT_EQ(p.phases_ended(750), 3u);
}

// A tensor-parallel group of two ends each phase together, at the later of the members' own ends.
// depth 0, compute 50 a phase. Phase 0: A's fetch done at 100 (own end 150), B's at 300 (own end
// 350): both end at 350, seen from an edge after 300, when the barrier wakes both. Phase 1 starts
// at 350: A's fetch done at 400 (450), B's at 380 (430): both end at 450. Alone, A's phase 0 would
// end at 150.
TEST(PhasedSource, AGroupEndsEachPhaseWhenItsSlowestMemberDoes) {
  auto group = std::make_shared<GroupBarrier>(2);
  ToyPhases a(0, {50, 50});
  ToyPhases b(0, {50, 50});
  std::vector<std::uint64_t> woken_a, woken_b;
  a.set_waker([&woken_a](std::uint64_t t) { woken_a.push_back(t); });
  b.set_waker([&woken_b](std::uint64_t t) { woken_b.push_back(t); });
  a.join_group(group);
  b.join_group(group);
  Access acc;
  std::uint64_t wake = 0;
  ASSERT_EQ(a.next(0, acc, wake), AccessSource::State::kReady);
  const std::uint32_t fa = acc.phase;
  ASSERT_EQ(b.next(0, acc, wake), AccessSource::State::kReady);
  const std::uint32_t fb = acc.phase;
  ASSERT_EQ(a.next(0, acc, wake), AccessSource::State::kWait);  // phase 0 all issued
  ASSERT_EQ(b.next(0, acc, wake), AccessSource::State::kWait);
  a.completed(fa, 1, 100);
  ASSERT_EQ(a.next(100, acc, wake), AccessSource::State::kWait);  // at the barrier
  EXPECT_EQ(wake, AccessSource::kNever);
  EXPECT_TRUE(a.times.empty());
  b.completed(fb, 1, 300);
  EXPECT_EQ(woken_a, std::vector<std::uint64_t>{300});
  EXPECT_EQ(woken_b, std::vector<std::uint64_t>{300});
  ASSERT_EQ(a.next(300, acc, wake), AccessSource::State::kWait);  // not before an edge after 300
  EXPECT_EQ(wake, AccessSource::kNever);
  ASSERT_EQ(a.next(301, acc, wake), AccessSource::State::kWait);  // phase 1 from 350
  EXPECT_EQ(wake, 350u);
  ASSERT_EQ(b.next(301, acc, wake), AccessSource::State::kWait);
  EXPECT_EQ(wake, 350u);
  ASSERT_EQ(a.times.size(), 1u);
  ASSERT_EQ(b.times.size(), 1u);
  EXPECT_EQ(a.times[0].fetch_end_ps, 100u);
  EXPECT_EQ(a.times[0].compute_end_ps, 350u);
  EXPECT_EQ(b.times[0].compute_end_ps, 350u);
  ASSERT_EQ(a.next(350, acc, wake), AccessSource::State::kReady);
  const std::uint32_t ga = acc.phase;
  ASSERT_EQ(b.next(350, acc, wake), AccessSource::State::kReady);
  const std::uint32_t gb = acc.phase;
  ASSERT_EQ(a.next(350, acc, wake), AccessSource::State::kWait);
  ASSERT_EQ(b.next(350, acc, wake), AccessSource::State::kWait);
  b.completed(gb, 1, 380);
  a.completed(ga, 1, 400);
  ASSERT_EQ(a.next(401, acc, wake), AccessSource::State::kWait);
  EXPECT_EQ(wake, 450u);
  ASSERT_EQ(b.next(401, acc, wake), AccessSource::State::kWait);
  EXPECT_EQ(wake, 450u);
  EXPECT_EQ(a.next(450, acc, wake), AccessSource::State::kDone);
  EXPECT_EQ(b.next(450, acc, wake), AccessSource::State::kDone);
  ASSERT_EQ(b.times.size(), 2u);
  EXPECT_EQ(a.times[1].compute_end_ps, 450u);
  EXPECT_EQ(b.times[1].compute_end_ps, 450u);
  EXPECT_EQ(woken_a, (std::vector<std::uint64_t>{300, 400}));
}

// A member whose stream stops (its duration ran out) leaves the group, so that the others do not
// wait for it for ever: B's fetch is done at 100, taken at the edge at 101 (own end 150); A stops
// at 120 without arriving: B's phase 0 ends at its own 150, seen after 120. A member sees a release
// only after the time the last arrival was taken, not after its response arrived: B's release,
// taken at 120, is not seen at 120.
TEST(PhasedSource, AMemberThatStopsLeavesItsGroup) {
  auto group = std::make_shared<GroupBarrier>(2);
  ToyPhases a(0, {50, 50});
  ToyPhases b(0, {50, 50});
  a.join_group(group);
  b.join_group(group);
  Access acc;
  std::uint64_t wake = 0;
  ASSERT_EQ(a.next(0, acc, wake), AccessSource::State::kReady);
  ASSERT_EQ(b.next(0, acc, wake), AccessSource::State::kReady);
  const std::uint32_t fb = acc.phase;
  ASSERT_EQ(b.next(0, acc, wake), AccessSource::State::kWait);
  b.completed(fb, 1, 100, 101);
  ASSERT_EQ(b.next(110, acc, wake), AccessSource::State::kWait);  // A has not arrived
  EXPECT_EQ(wake, AccessSource::kNever);
  a.stopped(120);
  ASSERT_EQ(b.next(120, acc, wake), AccessSource::State::kWait);
  EXPECT_EQ(wake, AccessSource::kNever);
  ASSERT_EQ(b.next(121, acc, wake), AccessSource::State::kWait);  // phase 1 from 150
  EXPECT_EQ(wake, 150u);
  ASSERT_EQ(b.times.size(), 1u);
  EXPECT_EQ(b.times[0].compute_end_ps, 150u);
  // The group is B alone now: phase 1 ends with its own fetch and compute, seen after 201.
  ASSERT_EQ(b.next(150, acc, wake), AccessSource::State::kReady);
  const std::uint32_t gb = acc.phase;
  ASSERT_EQ(b.next(150, acc, wake), AccessSource::State::kWait);
  b.completed(gb, 1, 200, 201);
  ASSERT_EQ(b.next(202, acc, wake), AccessSource::State::kWait);
  EXPECT_EQ(wake, 250u);
  ASSERT_EQ(b.times.size(), 2u);
  EXPECT_EQ(b.times[1].compute_end_ps, 250u);
}

// A toy member issues its first phase's one access at 0, then has none left (the phase all
// issued); the access's phase tag.
std::uint32_t issue_first_phase(ToyPhases& m) {
  Access acc;
  std::uint64_t wake = 0;
  EXPECT_EQ(m.next(0, acc, wake), AccessSource::State::kReady);
  const std::uint32_t tag = acc.phase;
  EXPECT_EQ(m.next(0, acc, wake), AccessSource::State::kWait);
  return tag;
}

// One all-reduce of S bytes over n GPUs, by algorithm: ring 2(n - 1) rounds of S/n to the next
// rank, 2(n - 1)/n x S in all (Patarasuk and Yuan, "Bandwidth optimal all-reduce algorithms for
// clusters of workstations", 2009); one_shot S to each of the n - 1 others; two_shot two rounds of
// S/n to each of the n - 1 others. S = 131072 B (batch 8 x hidden 8192 x 2 B), n = 8.
TEST(CollectivePlan, RoundsAndBytesOfEachAlgorithm) {
  CollectivePlan p;
  p.members = 8;
  p.algorithm = CollectivePlan::Algorithm::kRing;
  EXPECT_EQ(p.rounds(), 14u);
  EXPECT_EQ(p.round_bytes(131072), 16384u);
  EXPECT_EQ(p.destinations(), 1u);
  EXPECT_EQ(p.bytes_written(131072), 229376u);  // 1.75 x 131072
  p.algorithm = CollectivePlan::Algorithm::kOneShot;
  EXPECT_EQ(p.rounds(), 1u);
  EXPECT_EQ(p.destinations(), 7u);
  EXPECT_EQ(p.bytes_written(131072), 917504u);  // 7 x 131072
  p.algorithm = CollectivePlan::Algorithm::kTwoShot;
  EXPECT_EQ(p.rounds(), 2u);
  EXPECT_EQ(p.bytes_written(131072), 229376u);
  // S/n rounds up: 100 B over 8 GPUs is 13 B a round.
  EXPECT_EQ(p.round_bytes(100), 13u);
}

// A group of two runs a ring all-reduce of 100 B after its one phase: 2 rounds of 50 B, each
// GPU writing to the other's receive buffer. depth 0, compute 50. A's fetch is done at 100 (own
// end 150), B's at 300 (350): the compute ends at 350 on both (seen after 300). Round 0 starts at
// 350: A's write completes at 400, B's at 420, so the round ends at 420 (seen after 420); round 1
// writes the buffer's other half from 421 and ends when the later of A's (500) and B's (470)
// completes: the phase ends at 500, 150 ns of it in the all-reduce.
TEST(PhasedSource, AGroupsRingAllReduceRunsItsRoundsAfterTheCompute) {
  auto group = std::make_shared<GroupBarrier>(2);
  ToyPhases a(0, {50});
  ToyPhases b(0, {50});
  for (ToyPhases* m : {&a, &b}) {
    m->collectives = 1;
    m->message = 100;
    m->join_group(group);
  }
  CollectivePlan plan;
  plan.members = 2;
  plan.buffer_bytes = 100;
  plan.access_bytes = 64;
  plan.peer_va = {0x1000};
  a.set_collective(plan);
  plan.peer_va = {0x2000};
  b.set_collective(plan);
  Access acc;
  std::uint64_t wake = 0;
  const std::uint32_t fa = issue_first_phase(a);
  const std::uint32_t fb = issue_first_phase(b);
  // The rounds come from the side lane, apart from the fetches.
  AccessSource& la = *a.side_lane();
  AccessSource& lb = *b.side_lane();
  ASSERT_EQ(la.next(0, acc, wake), AccessSource::State::kWait);  // no round yet
  EXPECT_EQ(wake, AccessSource::kNever);
  a.completed(fa, 1, 100);
  b.completed(fb, 1, 300);
  ASSERT_EQ(la.next(301, acc, wake), AccessSource::State::kWait);  // round 0 from the compute end
  EXPECT_EQ(wake, 350u);
  ASSERT_EQ(a.next(301, acc, wake), AccessSource::State::kWait);  // the stream: no more fetches
  EXPECT_EQ(wake, AccessSource::kNever);
  ASSERT_EQ(la.next(350, acc, wake), AccessSource::State::kReady);
  EXPECT_EQ(acc.va, 0x1000u);
  EXPECT_EQ(acc.bytes, 50u);
  EXPECT_TRUE(acc.write);
  EXPECT_EQ(acc.phase, PhasedSource::kCollectiveTag);
  ASSERT_EQ(la.next(350, acc, wake), AccessSource::State::kWait);  // its round is all issued
  EXPECT_EQ(wake, AccessSource::kNever);
  ASSERT_EQ(lb.next(350, acc, wake), AccessSource::State::kReady);
  EXPECT_EQ(acc.va, 0x2000u);
  la.completed(PhasedSource::kCollectiveTag, 50, 400);
  ASSERT_EQ(la.next(410, acc, wake), AccessSource::State::kWait);  // B's write is not done
  EXPECT_EQ(wake, AccessSource::kNever);
  lb.completed(PhasedSource::kCollectiveTag, 50, 420);
  ASSERT_EQ(la.next(421, acc, wake), AccessSource::State::kReady);  // round 1: the other half
  EXPECT_EQ(acc.va, 0x1000u + 50);
  ASSERT_EQ(lb.next(421, acc, wake), AccessSource::State::kReady);
  EXPECT_EQ(acc.va, 0x2000u + 50);
  lb.completed(PhasedSource::kCollectiveTag, 50, 470);
  la.completed(PhasedSource::kCollectiveTag, 50, 500);
  EXPECT_TRUE(a.times.empty());  // not before an edge after the last arrival
  ASSERT_EQ(a.next(501, acc, wake), AccessSource::State::kDone);
  ASSERT_EQ(b.next(501, acc, wake), AccessSource::State::kDone);
  ASSERT_EQ(la.next(501, acc, wake), AccessSource::State::kDone);  // done with its stream
  ASSERT_EQ(lb.next(501, acc, wake), AccessSource::State::kDone);
  ASSERT_EQ(a.times.size(), 1u);
  EXPECT_EQ(a.times[0].compute_end_ps, 350u);
  EXPECT_EQ(a.times[0].end_ps, 500u);
  EXPECT_EQ(b.times[0].end_ps, 500u);
  EXPECT_EQ(a.collective_bytes_written(), 100u);
  // A step of this one phase: 500 ps from the fetch's start at 0, 150 of them all-reducing.
  StepTimes st;
  st.phase_finished(a.times[0], 1);
  ASSERT_EQ(st.ns().size(), 1u);
  EXPECT_DOUBLE_EQ(st.ns()[0], 0.5);
  EXPECT_DOUBLE_EQ(st.collective_ns()[0], 0.15);
}

// Makes toy members a and b a group of two running one ring all-reduce of 100 B after each phase,
// each writing into a receive buffer of `buffer_bytes` at 0x1000, in accesses of at most 64 B.
void ring_pair(ToyPhases& a, ToyPhases& b, std::uint64_t buffer_bytes) {
  auto group = std::make_shared<GroupBarrier>(2);
  CollectivePlan plan;
  plan.members = 2;
  plan.buffer_bytes = buffer_bytes;
  plan.access_bytes = 64;
  plan.peer_va = {0x1000};
  for (ToyPhases* m : {&a, &b}) {
    m->collectives = 1;
    m->message = 100;
    m->join_group(group);
    m->set_collective(plan);
  }
}

// A member that stops (its stream's duration ran out) leaves its group; without it its phases'
// collectives cannot run, so none of its phases ends any more: A's fetch completing after it
// stopped does not end A's phase (it would have counted a step without its all-reduce), while B,
// alone in the group now, runs its rounds and ends its phase.
TEST(PhasedSource, AMemberThatLeftItsGroupEndsNoPhaseWithoutItsCollectives) {
  ToyPhases a(0, {50});
  ToyPhases b(0, {50});
  ring_pair(a, b, 100);
  const std::uint32_t fa = issue_first_phase(a);
  const std::uint32_t fb = issue_first_phase(b);
  a.stopped(60);
  a.completed(fa, 1, 100);
  EXPECT_TRUE(a.times.empty());
  EXPECT_EQ(a.phases_done(), 0u);
  b.completed(fb, 1, 100);
  Access acc;
  std::uint64_t wake = 0;
  AccessSource& lb = *b.side_lane();
  ASSERT_EQ(lb.next(150, acc, wake), AccessSource::State::kReady);  // round 0 at the compute end
  lb.completed(PhasedSource::kCollectiveTag, 50, 200);
  ASSERT_EQ(lb.next(201, acc, wake), AccessSource::State::kReady);  // round 1
  lb.completed(PhasedSource::kCollectiveTag, 50, 250);
  ASSERT_EQ(b.next(251, acc, wake), AccessSource::State::kDone);
  ASSERT_EQ(b.times.size(), 1u);
  EXPECT_EQ(b.times[0].end_ps, 250u);
  EXPECT_TRUE(a.times.empty());
}

// The receive buffer is a ring: with a 64 B buffer, the ring all-reduce of 100 B above writes round
// 0's 50 B at 0..49, and round 1's from 50: 14 B to the buffer's end, then 36 B from its start.
// The bytes written count as they complete.
TEST(PhasedSource, CollectiveWritesRunThroughTheReceiveBufferAsARing) {
  ToyPhases a(0, {0});
  ToyPhases b(0, {0});
  ring_pair(a, b, 64);
  Access acc;
  std::uint64_t wake = 0;
  for (ToyPhases* m : {&a, &b}) m->completed(issue_first_phase(*m), 1, 10);
  for (ToyPhases* m : {&a, &b}) {
    ASSERT_EQ(m->side_lane()->next(11, acc, wake), AccessSource::State::kReady);
    EXPECT_EQ(acc.va, 0x1000u);
    EXPECT_EQ(acc.bytes, 50u);
  }
  EXPECT_EQ(a.collective_bytes_written(), 0u);
  a.completed(PhasedSource::kCollectiveTag, 50, 20);
  b.completed(PhasedSource::kCollectiveTag, 50, 20);
  EXPECT_EQ(a.collective_bytes_written(), 50u);
  AccessSource& la = *a.side_lane();
  ASSERT_EQ(la.next(21, acc, wake), AccessSource::State::kReady);
  EXPECT_EQ(acc.va, 0x1000u + 50);
  EXPECT_EQ(acc.bytes, 14u);
  ASSERT_EQ(la.next(21, acc, wake), AccessSource::State::kReady);
  EXPECT_EQ(acc.va, 0x1000u);
  EXPECT_EQ(acc.bytes, 36u);
  ASSERT_EQ(la.next(21, acc, wake), AccessSource::State::kWait);
}

// Whole-model estimates: two steps of 2 phases (layers) of a 10-layer model, phase ends at 100,
// 150, 200 and 230 ns (the first fetch at 0). Step 0: 150 ns, its first layer 100, the other 50;
// step 1: 80 ns, 50 and 30. Scaled, the first layer as it ran and 9 more at the other's pace:
// 100 + 9 x 50 = 550 and 50 + 9 x 30 = 320. With all-reduces and layers fetched ahead, the run's
// last step (when it is the last configured) is left out; a run of one such step has none.
TEST(WholeModelSteps, LastStepLeftOutWithCollectivesFetchedAhead) {
  StepTimes st;
  const std::uint64_t ends[] = {100000, 150000, 200000, 230000};
  for (std::uint64_t i = 0; i < 4; ++i) {
    PhasedSource::PhaseTimes t;
    t.index = i;
    t.end_ps = t.compute_end_ps = ends[i];
    st.phase_finished(t, 2);
  }
  EXPECT_THAT(whole_model_steps(st, 2, 10, false, 2), ElementsAre(550.0, 320.0));
  EXPECT_THAT(whole_model_steps(st, 2, 10, true, 2), ElementsAre(550.0));
  // A run cut short before its last configured step: the steps it finished had a next one.
  EXPECT_THAT(whole_model_steps(st, 2, 10, true, 3), ElementsAre(550.0, 320.0));
  StepTimes one;
  for (std::uint64_t i = 0; i < 2; ++i) {
    PhasedSource::PhaseTimes t;
    t.index = i;
    t.end_ps = t.compute_end_ps = ends[i];
    one.phase_finished(t, 2);
  }
  EXPECT_TRUE(whole_model_steps(one, 2, 10, true, 1).empty());
}

// The estimate that scales the step time (one simulated layer) follows the same rule as the one
// from identical layers: with all_reduce and prefetch_layers, the run's last step is left out (the
// mean of the steps before it x 80 / 1, plus the LM head), and one step gives a note instead.
TEST(WholeModelSteps, ScaledEstimateLeavesTheLastStepOutToo) {
  const std::string base = R"(gpus: all
    kv_decode: {model: {preset: llama3_70b}, batch: 8, context_tokens: 1024, tensor_parallel: 8,
                layers: 1, prefetch_layers: 1, kv_location: device/fam0, compute: {layer_ns: 1000},
                all_reduce: ring, )";
  const auto spec = spec_of(base + "steps: 3}");
  std::vector<nlohmann::json> reports;
  for (unsigned r = 0; r < 8; ++r) reports.push_back(drain(*spec, r, 1000 + 10 * r).report);
  // The group's step is its slowest GPU's: rank 7's, whose fetches take longest.
  const std::vector<double> ns = reports[7]["step_ns"].get<std::vector<double>>();
  ASSERT_EQ(ns.size(), 3u);
  EXPECT_EQ(reports[7]["step_ns_for_estimate"].size(), 2u);
  const nlohmann::json res = spec->combine(reports);
  EXPECT_DOUBLE_EQ(res["mean_step_ns_whole_model_estimate"].get<double>(),
                   (ns[0] + ns[1]) / 2 * 80 + res["lm_head_ns_per_step"].get<double>());
  const auto one = spec_of(base + "steps: 1}");
  std::vector<nlohmann::json> one_reports;
  for (unsigned r = 0; r < 8; ++r) one_reports.push_back(drain(*one, r, 1000).report);
  const nlohmann::json res1 = one->combine(one_reports);
  EXPECT_FALSE(res1.contains("mean_step_ns_whole_model_estimate"));
  EXPECT_THAT(res1["note"].get<std::string>(), HasSubstr("give steps: 2 or more"));
}

// moe_experts all-reduces under tensor parallelism: DeepSeek-V3's first MoE layer (its 4th
// layer) over 8 GPUs at batch 4: 2 all-reduces (attention, experts) of 4 x 7168 x 2 = 57,344 B, the
// ring's 14 rounds of 7,168 B: 2 x 14 x 7,168 = 200,704 B a GPU a step. Refused with
// expert_parallel, whose layers move their tokens by all_to_all.
TEST(AllReduce, MoeExpertsUnderTensorParallelism) {
  const nlohmann::json s = spec_of(R"(gpus: all
    moe_experts: {model: {preset: deepseek_v3}, location: device/fam0, batch: 4,
                  tensor_parallel: 8, all_reduce: ring})")
                               ->summary();
  EXPECT_EQ(s["all_reduce"]["algorithm"], "ring");
  EXPECT_EQ(s["all_reduce_message_bytes"], 57344);
  EXPECT_EQ(s["all_reduce_rounds_each"], 14);
  EXPECT_EQ(s["all_reduces_per_step"], 2 * 58);
  EXPECT_EQ(s["all_reduce_bytes_written_per_step_per_gpu"], 58 * 200704);
  EXPECT_THAT(spec_error(R"(gpus: all
    moe_experts: {model: {preset: gpt_oss_120b}, location: device/fam0, batch: 4,
                  expert_parallel: 8, all_reduce: ring})"),
              HasSubstr("moe_experts.all_reduce: is tensor_parallel's"));
}

// all_to_all: a dtype of 3 bytes refused; with expert_parallel 1 nothing to send (accepted, no
// rounds).
TEST(AllToAll, OddDtypeRefusedAndEmptyWithoutExpertParallelism) {
  EXPECT_THAT(spec_error(R"(gpus: all
    moe_experts: {model: {preset: gpt_oss_120b}, location: device/fam0, batch: 4,
                  expert_parallel: 8, all_to_all: {algorithm: direct, combine_dtype_bytes: 3}})"),
              HasSubstr("combine_dtype_bytes: expected 1, 2 or 4"));
  // A known key even where absent, so its misspelling is named.
  EXPECT_THAT(spec_error(R"(gpus: all
    moe_experts: {model: {preset: gpt_oss_120b}, location: device/fam0, batch: 4,
                  expert_parallel: 8, all_to_al: direct})"),
              HasSubstr("(did you mean 'all_to_all'?)"));
  const auto spec = spec_of(R"(gpus: [0]
    moe_experts: {model: {preset: gpt_oss_120b}, location: device/fam0, batch: 4,
                  all_to_all: direct})");
  EXPECT_FALSE(spec->collectives().on);
  EXPECT_EQ(spec->summary()["all_to_all"], "direct");
}

// all_reduce needs GPUs that can write into each other's memory; with tensor_parallel 1 (a sweep
// over it may reach 1) it is accepted and has no rounds: 0 bytes written, whatever the platform.
TEST(AllReduce, RefusedWithoutPeerAccessAndEmptyWithoutAGroup) {
  const nlohmann::json one = spec_of(R"(gpus: [0]
    kv_decode: {model: {preset: llama3_8b}, batch: 1, context_tokens: 16, layers: 2,
                all_reduce: ring})")
                                 ->summary();
  EXPECT_EQ(one["all_reduce"]["algorithm"], "ring");
  EXPECT_EQ(one["all_reduce_rounds_each"], 0);
  EXPECT_EQ(one["all_reduces_per_step"], 4);
  EXPECT_EQ(one["all_reduce_bytes_written_per_step_per_gpu"], 0);
  PlatformFacts facts;
  facts.gpu_count = 2;
  facts.peer_access = false;
  ConfigNode n(YAML::Load("all_reduce: {algorithm: ring}"), "s",
               std::make_shared<ConfigSources>("w.yaml"));
  EXPECT_NO_THROW(parse_all_reduce(n, 1, facts));  // no peer needed for no rounds
  try {
    parse_all_reduce(n, 2, facts);
    FAIL() << "expected an error";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no switch between them"));
    EXPECT_THAT(e.what(), HasSubstr("s.all_reduce"));
  }
  facts.peer_access = true;
  ConfigNode bad(YAML::Load("all_reduce: {algorithm: ring, dtype_bytes: 3}"), "s",
                 std::make_shared<ConfigSources>("w.yaml"));
  EXPECT_THROW(parse_all_reduce(bad, 2, facts), ConfigError);
  ConfigNode odd(YAML::Load("all_reduce: tree"), "s", std::make_shared<ConfigSources>("w.yaml"));
  EXPECT_THROW(parse_all_reduce(odd, 2, facts), ConfigError);
}

}  // namespace
}  // namespace famsim
