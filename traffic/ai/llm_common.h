// Pieces the AI generators share: compute time per layer, token-count ranges, the paged KV block
// geometry and a small LRU cache of fixed-size slots.
#pragma once

#include "models/core/config.h"
#include "traffic/ai/model_config.h"
#include "traffic/source.h"
#include "traffic/workload_config.h"

#include <boost/random/mersenne_twister.hpp>

#include <algorithm>
#include <functional>
#include <cstdint>
#include <list>
#include <string>
#include <unordered_map>
#include <vector>

namespace famsim {

// Compute time of one layer on one GPU, given either directly or from the GPU's throughput:
//   compute: {layer_ns: T}      every layer computes for T ns
//   compute: {tflops: F}        2 x (parameters the layer multiplies per token) x tokens / tp
//                               FLOPs at F x 10^12 FLOP/s (ModelConfig::layer_active_parameters;
//                               attention-score FLOPs, which grow with context, are not counted),
//                               and no less than the time to read the layer's weights from the
//                               GPU's own memory while it computes (a roofline):
//     weights_gbps: B           that memory's bandwidth, GB/s. Default: the platform's GPU memory
//                               peak (channels x channel peak), so the figure is a lower bound on
//                               the time; 0 leaves the weights out. The weights are not simulated
//                               as requests: they take no bandwidth from the simulated HBM traffic.
//                               Per layer and GPU: ModelConfig::layer_weight_bytes(layer, tp),
//                               plus on an MoE layer the routed experts the tokens pick, expected
//                               under uniform routing: experts x (1 - (1 - top_k/experts)^tokens).
//                               Decode at small batch is bound by this, not by its FLOPs (a
//                               Llama-3-70B layer's 214 MB shard at 4096 GB/s: 52 us; its FLOPs
//                               for 8 tokens at 700 TFLOP/s: 2.4 us).
//   (no compute key)            0: only memory time
struct ComputeModel {
  double layer_ns = 0;
  double tflops = 0;
  double weights_gbps = 0;  // with tflops; 0: weights not counted
  std::uint64_t layer_ps(const ModelConfig& m, unsigned layer, std::uint64_t tokens,
                         unsigned tp) const;
  // The part of layer_ps that reading the layer's weights takes alone (0 without weights_gbps).
  std::uint64_t weights_ps(const ModelConfig& m, unsigned layer, std::uint64_t tokens,
                           unsigned tp) const;
  // The LM head after the last layer (logits of `tokens` tokens): 2 x vocab/tp x hidden x tokens
  // FLOPs, no less than reading its shard (ModelConfig::lm_head_weight_bytes) at weights_gbps.
  // 0 with layer_ns compute (a layer's whole time, as configured: no LM head is modelled).
  std::uint64_t lm_head_ps(const ModelConfig& m, std::uint64_t tokens, unsigned tp) const;
  // The weight bytes weights_ps reads: the layer's shard, with the expected routed experts.
  static double layer_read_weight_bytes(const ModelConfig& m, unsigned layer, std::uint64_t tokens,
                                        unsigned tp);
  nlohmann::json to_json() const;
};
// `gpu_memory_gbps`: the default weights_gbps (the platform's GPU memory peak; 0 with no GPU
// memory). A generator that reads its weights as simulated requests (weight_stream) passes
// `weights_are_traffic`, which refuses weights_gbps and leaves the weights out of compute.
ComputeModel parse_compute(ConfigNode& parent, double gpu_memory_gbps,
                           bool weights_are_traffic = false);

// The all-reduces that end a tensor-parallel layer, simulated over the fabric (CollectivePlan in
// traffic/source.h), from `all_reduce:` of a generator with tensor_parallel > 1:
//   all_reduce: ring | one_shot | two_shot | none          (none: the default)
//   all_reduce: {algorithm: ring, dtype_bytes: 2}
//     algorithm    as CollectivePlan says; none: the group's GPUs end each layer together, the
//                  all-reduces taking no time and no bandwidth
//     dtype_bytes  bytes per activation value, 1, 2 or 4, default 2 (BF16: vLLM and TensorRT-LLM
//                  all-reduce in the model's activation dtype)
// A layer all-reduces once after its mixer (attention or linear attention: the output projection
// is split by rows) and once after its FFN (dense or experts: the down projection), Megatron-LM's
// split of a transformer layer (Shoeybi et al., "Megatron-LM", 2019, section 3); each message is
// tokens x hidden_size x dtype_bytes. The LM head's gather of the logits is not simulated.
struct AllReduceConfig {
  bool on = false;
  CollectivePlan::Algorithm algorithm = CollectivePlan::Algorithm::kRing;
  unsigned dtype_bytes = 2;
  std::uint64_t message_bytes(const ModelConfig& m, std::uint64_t tokens) const {
    return tokens * m.hidden * dtype_bytes;
  }
  const char* algorithm_name() const;
  nlohmann::json to_json() const;
  // The GeneratorSpec::Collectives for messages of at most `max_message_bytes`.
  GeneratorSpec::Collectives collectives(std::uint64_t max_message_bytes) const {
    return on ? GeneratorSpec::Collectives{true, algorithm, max_message_bytes}
              : GeneratorSpec::Collectives{};
  }
  // A phase's all-reduces when on: those ending `layer`, each of `tokens` tokens' activations.
  void set_phase(PhasedSource::PhaseStart& start, const ModelConfig& m, unsigned layer,
                 std::uint64_t tokens) const;
  // The algorithm over `tp` GPUs (its rounds and bytes; no receive buffers).
  CollectivePlan plan(unsigned tp) const {
    CollectivePlan p;
    p.algorithm = algorithm;
    p.members = tp;
    return p;
  }
};
// Reads `all_reduce` (default none). With tensor_parallel 1 there is nothing to reduce: no rounds.
// Refused on a platform whose GPUs cannot write into each other's memory
// (check_collective_platform).
AllReduceConfig parse_all_reduce(ConfigNode& parent, unsigned tp, const PlatformFacts& facts);
// Refuses collective `key` of `node` (all_reduce, all_to_all) on a platform whose GPUs cannot write
// into each other's memory: no switch between them, or no memory of their own for the receive
// buffers.
void check_collective_platform(ConfigNode& node, const std::string& key,
                               const PlatformFacts& facts);
// All-reduces ending layer `layer` under tensor parallelism: one after a mixer, one after an FFN.
inline unsigned all_reduces_in_layer(const ModelConfig& m, unsigned layer) {
  const bool mixer = m.is_attention_layer(layer) || m.is_linear_layer(layer);
  return (mixer ? 1u : 0u) + (m.has_ffn(layer) ? 1u : 0u);
}
// A summary's all-reduce keys for `layers` simulated layers (the model's first, or its layers
// model_layer(0 .. layers - 1)), `tokens` tokens a layer on each of `tp` GPUs: all_reduce (the
// configuration), and when on all_reduce_message_bytes (one message), all_reduces_per_<unit>
// (over the simulated layers; unit "step" or "pass") and
// all_reduce_bytes_written_per_<unit>_per_gpu (CollectivePlan::bytes_written of each).
void add_all_reduce_summary(nlohmann::json& summary, const AllReduceConfig& c, const ModelConfig& m,
                            unsigned layers, std::uint64_t tokens, unsigned tp, const char* unit,
                            const std::function<unsigned(unsigned)>& model_layer = {});

// The steps (or passes) a whole-model estimate may take, as a GPU's report lists them: each
// finished one's scaled time (StepTimes::scaled_ns over `layers` of the model's `model_layers`:
// whole_model_steps), or its time as it ran (steady_steps). With all-reduces simulated and layers
// fetched ahead (`collectives_ahead`), the run's last step is no steady state: a layer's
// all-reduce shares the fabric with the next layer's fetch and ends behind it, but the run's last
// layers have no next fetch, so that step ends early (traffic/kv_decode_llama70b.yaml at
// prefetch_layers 1: 5.4 ms a token from its 2 layers' last step, 36.4 from the first, 38.2 in a
// run of all 80 layers). So it is left out once it ran (`steps`: the steps configured), and a
// run of one step has none.
std::vector<double> whole_model_steps(const StepTimes& st, unsigned layers, unsigned model_layers,
                                      bool collectives_ahead, std::uint64_t steps);
std::vector<double> steady_steps(const StepTimes& st, bool collectives_ahead, std::uint64_t steps);
// The note of a run of one step (`unit` "step" or "pass") with collectives ahead, which gives no
// whole-model estimate: `what` ("step time ... are", "pass time is") is for the first `layers` of
// `m` only.
std::string one_step_note(const char* what, const char* unit, unsigned layers, const ModelConfig& m,
                          unsigned prefetch);

// A GPU's report keys for its simulated collectives, `name` all_reduce or all_to_all: <name>_ns,
// per step (`unit`: "step", a decode step, or "pass") the time its layers spent in them after
// their compute; mean_<name>_ns_per_<unit>, its mean; <name>_bytes_written, this GPU's writes for
// them.
void add_collective_report(nlohmann::json& report, const char* name, const StepTimes& steps,
                           std::uint64_t bytes_written, const char* unit);

// A token count: N, or {min: A, max: B} drawn uniformly per sequence.
struct TokenRange {
  std::uint64_t min = 0;
  std::uint64_t max = 0;
  std::uint64_t draw(boost::random::mt19937_64& rng) const;
  double mean() const { return (static_cast<double>(min) + static_cast<double>(max)) / 2.0; }
  // The mean of min(tokens, cap) over the range (every count in it alike likely): what a sliding
  // window of cap cached tokens leaves of the mean.
  double mean_capped(std::uint64_t cap) const {
    if (cap >= max) return mean();
    if (cap <= min) return static_cast<double>(cap);
    const double lo = static_cast<double>(min), c = static_cast<double>(cap);
    const double hi = static_cast<double>(max);
    // Counts min..cap give themselves, the (max - cap) above cap give cap.
    return ((lo + c) * (c - lo + 1) / 2 + (hi - c) * c) / (hi - lo + 1);
  }
  // The mean of tokens mod m over the range (every count alike likely): what chunked attention
  // with chunks of m leaves of it (the cached tokens of the new token's own chunk).
  double mean_mod(std::uint64_t m) const {
    // sum_{t=0}^{n-1} (t mod m): n / m whole cycles of m (m - 1) / 2, and the rest's 0..r-1.
    const auto below = [m](std::uint64_t n) {
      const double q = static_cast<double>(n / m), r = static_cast<double>(n % m);
      const double md = static_cast<double>(m);
      return q * md * (md - 1) / 2 + r * (r - 1) / 2;
    };
    return (below(max + 1) - below(min)) / (static_cast<double>(max - min) + 1);
  }
};
TokenRange parse_tokens(ConfigNode& parent, const std::string& key, std::uint64_t min_allowed);

// Reads `model:` of a generator node.
ModelConfig parse_model_key(ConfigNode& parent);

// Checks that `n` GPUs, each running a share of every layer (tensor parallelism; the compute
// model under expert parallelism), split the model's heads: n divides the attention heads, splits
// the linear-attention layers (ModelConfig::linear_heads_split: the key heads, heads or inner
// width by kind), and divides the KV heads or is a multiple of them (each GPU then holds one,
// replicated). ConfigError naming `key` otherwise.
void check_heads_split(const ConfigNode& node, const std::string& key, const ModelConfig& m,
                       unsigned n);

// Reads `tensor_parallel` (default 1) and checks it against the stream's GPUs and the model's
// heads (check_heads_split).
unsigned parse_tp(ConfigNode& parent, const ModelConfig& m, std::size_t gpus);

// Reads `block_tokens` (tokens per KV block): default 16 (vLLM's), and for a hybrid model
// (linear_attention) the smallest multiple of 16 (64 with MLA) whose block of one layer's KV on a
// GPU of tp holds at least one layer's state, as vLLM sizes its attention blocks so that a page of
// KV is at least a page of state (its log for Qwen3.5-4B: "Setting attention block size to 528
// tokens"; 4096 B of KV a token against a 2,146,304 B state: 524, rounded up to 528). vLLM's
// HybridAttentionMambaModelConfig aligns to 64 tokens for MLA kernels other than CUTLASS MLA's
// (128; give block_tokens for that one). A block's KV vector of
// one layer on one GPU is one access: ConfigError naming block_tokens when it is above 1 GiB
// (StateWalk::kMaxAccess; an access's size is 32 bits).
unsigned parse_block_tokens(ConfigNode& parent, const ModelConfig& m, unsigned tp);

// Reads `layers` (simulated layers, default all) for a model; the first `layers` layers run.
unsigned parse_layers(ConfigNode& parent, const ModelConfig& m);

// The accesses of one state of a linear-attention layer (ModelConfig::state_bytes_per_layer at
// tp, laid out as its recurrent state, then its convolution's): a part at a time, each in
// accesses of at most kMaxAccess bytes (an Access's size is 32 bits).
class StateWalk {
 public:
  static constexpr std::uint64_t kMaxAccess = std::uint64_t{1} << 30;
  // Sets a.va and a.bytes to the next access of the state at `base`; true when it was the
  // state's last (the walk then starts over). A model without a convolution state (lightning
  // attention) has the recurrent state's accesses only.
  bool next(const ModelConfig& m, unsigned tp, std::uint64_t base, Access& a) {
    const std::uint64_t recurrent = m.recurrent_state_bytes(tp);
    const std::uint64_t conv = m.conv_state_bytes(tp);
    const std::uint64_t part_bytes = part_ == 0 ? recurrent : conv;
    a.va = base + (part_ == 0 ? 0 : recurrent) + offset_;
    a.bytes = static_cast<std::uint32_t>(std::min(part_bytes - offset_, kMaxAccess));
    offset_ += a.bytes;
    if (offset_ < part_bytes) return false;
    offset_ = 0;
    part_ = part_ == 0 && conv > 0 ? 1 : 0;
    return part_ == 0;
  }
  void reset() {
    part_ = 0;
    offset_ = 0;
  }

 private:
  unsigned part_ = 0;         // 0: the recurrent state, 1: the convolution's
  std::uint64_t offset_ = 0;  // bytes of the part done
};

// True when the first `simulated` of a model's `layers` layers have, on average, the model's mean
// of per_layer(l), an integer per layer (1 for a kind of layer and 0 otherwise; picoseconds of
// compute; bytes): what a whole-model estimate that scales the simulated layers assumes.
template <class PerLayer>
bool first_layers_average_the_models(unsigned layers, unsigned simulated, PerLayer&& per_layer) {
  std::uint64_t first = 0, all = 0;  // far inside 64 bits for any model
  for (unsigned l = 0; l < layers; ++l) {
    const std::uint64_t v = per_layer(l);
    all += v;
    if (l < simulated) first += v;
  }
  return first * layers == all * simulated;
}

// True when every one of the model's `layers` layers gives what the first does.
template <class PerLayer>
bool every_layer_alike(unsigned layers, PerLayer&& per_layer) {
  for (unsigned l = 1; l < layers; ++l) {
    if (per_layer(l) != per_layer(0)) return false;
  }
  return true;
}

// True when every layer of the model computes as long (for `tokens` tokens on each of `tp` GPUs)
// and has the same mixer (linear or full attention, or none): with the generator's own per-layer
// bytes alike too, a whole pass or step is its first layer as it ran and the others at the later
// simulated layers' pace (StepTimes::scaled_ns).
inline bool every_layer_computes_and_mixes_alike(const ModelConfig& m, const ComputeModel& c,
                                                 std::uint64_t tokens, unsigned tp) {
  return every_layer_alike(m.layers, [&](unsigned l) { return c.layer_ps(m, l, tokens, tp); }) &&
         every_layer_alike(m.layers, [&](unsigned l) { return m.is_linear_layer(l); }) &&
         every_layer_alike(m.layers, [&](unsigned l) { return m.is_attention_layer(l); });
}

// True when the first `simulated` of the model's layers have linear-attention layers, and
// full-attention layers, each in the model's share (without a block pattern the one share gives
// the other; with one, layers of an FFN alone have neither): the mix of mixers a whole-model
// estimate that scales the simulated layers assumes.
inline bool mixers_alike(const ModelConfig& m, unsigned simulated) {
  return first_layers_average_the_models(
             m.layers, simulated, [&](unsigned l) { return m.is_linear_layer(l) ? 1u : 0u; }) &&
         first_layers_average_the_models(
             m.layers, simulated, [&](unsigned l) { return m.is_attention_layer(l) ? 1u : 0u; });
}

// A summary's keys for the kinds of the first `layers` layers: with chunked attention
// attention_chunk_tokens and chunked_layers_simulated; for a hybrid model kv_layers_simulated,
// linear_layers_simulated and linear_attention_kind; with a block pattern block_pattern_simulated
// (its first `layers` characters) and kv_layers_simulated; for a model with experts in some layers
// only (dense_layers, a moe.layer_types cycle, or E in a block pattern) moe_layers_simulated.
void add_layer_kinds(nlohmann::json& summary, const ModelConfig& m, unsigned layers);

// How a layer's KV blocks lie in a region of `slots` block slots, in kv_decode and prefill alike:
// each KV vector's blocks in turn (vector v's block in slot s at (v x slots + s) x block_bytes),
// then, with sparse attention, the slots' index keys (slot s's at vectors x slots x block_bytes +
// s x index_block_bytes); a layer takes slots x slot_bytes().
struct KvBlockLayout {
  KvBlockLayout(const ModelConfig& m, unsigned block_tokens, unsigned tp)
      : vectors(m.kv_vectors()),
        block_bytes(block_tokens * m.kv_vector_bytes(tp)),
        index_block_bytes(block_tokens * m.index_key_bytes()) {}
  unsigned vectors;
  std::uint64_t block_bytes;        // one KV vector of a block's tokens on one GPU
  std::uint64_t index_block_bytes;  // a block's index keys (0 without sparse attention)
  std::uint64_t slot_bytes() const { return vectors * block_bytes + index_block_bytes; }
  std::uint64_t kv_offset(unsigned vec, std::uint64_t slot, std::uint64_t slots) const {
    return (std::uint64_t{vec} * slots + slot) * block_bytes;
  }
  std::uint64_t index_offset(std::uint64_t slot, std::uint64_t slots) const {
    return vectors * slots * block_bytes + slot * index_block_bytes;
  }
  // A region description's words for the index keys: ", and N B of each block's index keys", or
  // nothing without sparse attention.
  std::string index_keys_text() const;
};

// Seeded random permutation of 0..n-1 (setup time only): scatters blocks over a pool, as a
// paged allocator's free list does after a while.
std::vector<std::uint32_t> shuffled_slots(std::uint64_t n, std::uint64_t seed);

// Least-recently-used map from keys to slots 0..capacity-1.
class LruSlots {
 public:
  explicit LruSlots(std::uint64_t capacity) : capacity_(capacity) {}
  // The key's slot if present (and makes it most recent).
  bool find(std::uint64_t key, std::uint64_t& slot);
  // Inserts a key that is not present; returns its slot, evicting the least recent key if full.
  // capacity 0: never holds anything (returns false).
  bool insert(std::uint64_t key, std::uint64_t& slot);
  std::uint64_t size() const { return index_.size(); }
  std::uint64_t evictions() const { return evictions_; }

 private:
  struct Entry {
    std::uint64_t key;
    std::uint64_t slot;
  };
  std::uint64_t capacity_;
  std::list<Entry> order_;  // most recent first
  std::unordered_map<std::uint64_t, std::list<Entry>::iterator> index_;
  std::uint64_t evictions_ = 0;
};

// The GPUs of a stream whose consecutive GPUs form tensor-parallel groups of `tp` that do each
// unit of work (a decode step, a weight pass, an expert lookup) together, each GPU on its shard.
// Reads the GPUs' reports (AccessSource::report, in the stream's GPU order) for a generator's
// combine(), so that the stream's result counts a unit the group did once, not once per GPU.
class TpGroups {
 public:
  TpGroups(const std::vector<nlohmann::json>& per_gpu, unsigned tp);
  unsigned groups() const { return groups_; }
  // Units every group completed (steps, passes): the least any GPU completed, as a group's unit
  // is done when its last GPU is done. Groups run the configured units side by side, so with every
  // unit done this is the configured count, whatever the number of GPUs.
  std::uint64_t completed(const std::string& key) const;
  // Events each group has once for all its GPUs (an expert lookup: the group's GPUs route the same
  // tokens): per group the most any of its GPUs counted (they count the same), summed over groups.
  std::uint64_t group_sum(const std::string& key) const;
  // Summed over every GPU of the stream: a total (bytes moved by all the GPUs' shards together).
  std::uint64_t gpu_sum(const std::string& key) const;
  // The greatest value any GPU reported.
  double gpu_max(const std::string& key) const;
  // The mean over GPUs that reported a value > 0.
  double gpu_mean(const std::string& key) const;
  // Per group, the time of each unit the whole group completed (list `key`, one entry per unit on
  // each GPU): the slowest of the group's GPUs for that unit, i.e. the group's critical path, as a
  // tensor-parallel layer cannot finish before its last shard does.
  std::vector<std::vector<double>> critical_path_ns(const std::string& key) const;
  // Decode steps on the critical path (list `key` of step times): `mean_step_ns`, over every step
  // of every group; `tokens_per_second`, `batch` x steps over each group's time, mean over the
  // groups that completed a step.
  struct Steps {
    double mean_step_ns = 0;
    double tokens_per_second = 0;
  };
  Steps steps(const std::string& key, std::uint64_t batch) const;

 private:
  const std::vector<nlohmann::json>& per_gpu_;
  unsigned tp_;
  unsigned groups_;
};

// The stream's: mean_<name>_ns_per_<unit> (the group's GPUs end every round together, so each
// GPU's mean is its group's: mean over the GPUs) and <name>_bytes_written (summed over GPUs).
void add_collective_combined(nlohmann::json& result, const char* name, const TpGroups& g,
                             const char* unit);

// Splits a byte range into accesses of at most `chunk` bytes.
struct ChunkCursor {
  std::uint64_t va = 0;
  std::uint64_t left = 0;
  bool write = false;
  bool take(std::uint64_t chunk, std::uint64_t& va_out, std::uint32_t& bytes_out, bool& write_out) {
    if (left == 0) return false;
    const std::uint64_t n = left < chunk ? left : chunk;
    va_out = va;
    bytes_out = static_cast<std::uint32_t>(n);
    write_out = write;
    va += n;
    left -= n;
    return true;
  }
};

}  // namespace famsim
