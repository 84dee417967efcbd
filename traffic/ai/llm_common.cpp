#include "traffic/ai/llm_common.h"

#include "traffic/trace/request_trace.h"  // kMaxTokens

#include <fmt/format.h>

#include <boost/random/uniform_int_distribution.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace famsim {

namespace {

// ps from a double, saturating rather than overflowing: the caller's check of the run's length
// then refuses it.
std::uint64_t to_ps(double ps) {
  return ps < 0x1p62 ? static_cast<std::uint64_t>(std::llround(ps)) : std::uint64_t{1} << 62;
}

}  // namespace

double ComputeModel::layer_read_weight_bytes(const ModelConfig& m, unsigned layer,
                                             std::uint64_t tokens, unsigned tp) {
  double bytes = static_cast<double>(m.layer_weight_bytes(layer, tp));
  if (m.is_moe_layer(layer)) {
    const double e = m.experts;
    const double picked = e * (1.0 - std::pow(1.0 - m.top_k / e, static_cast<double>(tokens)));
    bytes += picked * static_cast<double>(m.expert_weight_bytes(tp));
  }
  return bytes;
}

std::uint64_t ComputeModel::weights_ps(const ModelConfig& m, unsigned layer, std::uint64_t tokens,
                                       unsigned tp) const {
  if (tflops <= 0 || weights_gbps <= 0) return 0;
  // bytes / (GB/s) is ns; x 1000 for ps.
  return to_ps(layer_read_weight_bytes(m, layer, tokens, tp) / weights_gbps * 1000.0);
}

std::uint64_t ComputeModel::layer_ps(const ModelConfig& m, unsigned layer, std::uint64_t tokens,
                                     unsigned tp) const {
  if (tflops > 0) {
    const double flops = 2.0 * static_cast<double>(m.layer_active_parameters(layer)) *
                         static_cast<double>(tokens) / static_cast<double>(tp);
    return std::max(to_ps(flops / (tflops * 1e12) * 1e12), weights_ps(m, layer, tokens, tp));
  }
  return static_cast<std::uint64_t>(std::llround(layer_ns * 1000.0));
}

std::uint64_t ComputeModel::lm_head_ps(const ModelConfig& m, std::uint64_t tokens,
                                       unsigned tp) const {
  if (tflops <= 0) return 0;
  // The head's shard: vocab/tp rows (rounded up, as lm_head_weight_bytes) of `hidden` weights.
  const double rows = std::ceil(static_cast<double>(m.vocab) / static_cast<double>(tp));
  const double flops = 2.0 * rows * static_cast<double>(m.hidden) * static_cast<double>(tokens);
  const std::uint64_t read =
      weights_gbps > 0
          ? to_ps(static_cast<double>(m.lm_head_weight_bytes(tp)) / weights_gbps * 1000.0)
          : 0;
  return std::max(to_ps(flops / (tflops * 1e12) * 1e12), read);
}

nlohmann::json ComputeModel::to_json() const {
  if (tflops > 0) return {{"tflops", tflops}, {"weights_gbps", weights_gbps}};
  return {{"layer_ns", layer_ns}};
}

const char* AllReduceConfig::algorithm_name() const {
  if (!on) return "none";
  switch (algorithm) {
    case CollectivePlan::Algorithm::kRing:
      return "ring";
    case CollectivePlan::Algorithm::kOneShot:
      return "one_shot";
    case CollectivePlan::Algorithm::kTwoShot:
      return "two_shot";
    case CollectivePlan::Algorithm::kAllToAll:
      break;  // not an all-reduce
  }
  return "none";
}

nlohmann::json AllReduceConfig::to_json() const {
  nlohmann::json j = {{"algorithm", algorithm_name()}};
  if (on) j["dtype_bytes"] = dtype_bytes;
  return j;
}

void AllReduceConfig::set_phase(PhasedSource::PhaseStart& start, const ModelConfig& m,
                                unsigned layer, std::uint64_t tokens) const {
  if (!on) return;
  start.collectives = all_reduces_in_layer(m, layer);
  start.collective_bytes = message_bytes(m, tokens);
}

void check_collective_platform(ConfigNode& node, const std::string& key,
                               const PlatformFacts& facts) {
  if (!facts.peer_access) {
    node.fail(key,
              "the GPUs write into each other's memory for it, but this platform has no switch "
              "between them (no peer access)");
  }
  if (!facts.gpu_has_local_memory) {
    node.fail(key,
              "its receive buffers are in the GPUs' own memory, and this platform's GPUs have "
              "none");
  }
}

AllReduceConfig parse_all_reduce(ConfigNode& parent, unsigned tp, const PlatformFacts& facts) {
  AllReduceConfig c;
  if (!parent.has("all_reduce")) {
    parent.ignore("all_reduce");  // a known key all the same: a misspelling of it is named
    return c;
  }
  static const std::vector<std::string> kAlgorithms = {"none", "ring", "one_shot", "two_shot"};
  std::string algorithm;
  if (parent.is_map("all_reduce")) {
    ConfigNode n = parent.child("all_reduce");
    algorithm = n.get_choice("algorithm", std::nullopt, kAlgorithms);
    c.dtype_bytes = get_dtype_bytes(n, "dtype_bytes", 2);
    n.finish();
  } else {
    algorithm = parent.get_choice("all_reduce", std::nullopt, kAlgorithms);
  }
  if (algorithm == "none") return c;
  c.algorithm = algorithm == "ring"       ? CollectivePlan::Algorithm::kRing
                : algorithm == "one_shot" ? CollectivePlan::Algorithm::kOneShot
                                          : CollectivePlan::Algorithm::kTwoShot;
  c.on = true;
  // One GPU has nothing to reduce with: no rounds (a sweep over tensor_parallel may reach 1).
  if (tp < 2) return c;
  check_collective_platform(parent, "all_reduce", facts);
  return c;
}

void add_all_reduce_summary(nlohmann::json& summary, const AllReduceConfig& c, const ModelConfig& m,
                            unsigned layers, std::uint64_t tokens, unsigned tp, const char* unit,
                            const std::function<unsigned(unsigned)>& model_layer) {
  summary["all_reduce"] = c.to_json();
  if (!c.on) return;
  const CollectivePlan plan = c.plan(tp);
  std::uint64_t count = 0;
  for (unsigned l = 0; l < layers; ++l)
    count += all_reduces_in_layer(m, model_layer ? model_layer(l) : l);
  const std::uint64_t message = c.message_bytes(m, tokens);
  summary["all_reduce_message_bytes"] = message;
  summary["all_reduce_rounds_each"] = plan.rounds();
  summary[fmt::format("all_reduces_per_{}", unit)] = count;
  summary[fmt::format("all_reduce_bytes_written_per_{}_per_gpu", unit)] =
      count * plan.bytes_written(message);
}

std::vector<double> whole_model_steps(const StepTimes& st, unsigned layers, unsigned model_layers,
                                      bool collectives_ahead, std::uint64_t steps) {
  std::vector<double> out = st.scaled_ns(layers, model_layers);
  if (collectives_ahead && st.ns().size() == steps && !out.empty()) out.pop_back();
  return out;
}

std::string one_step_note(const char* what, const char* unit, unsigned layers, const ModelConfig& m,
                          unsigned prefetch) {
  return fmt::format(
      "{} for the first {} of {}'s {} layers only: with all_reduce and prefetch_layers {} a run's "
      "last {} ends early (its last layers' all-reduces meet no next layer's fetch, which in a "
      "whole model they share the fabric with), and this run has no other {}; give steps: 2 or "
      "more for a whole-model estimate",
      what, layers, m.name, m.layers, prefetch, unit, unit);
}

std::vector<double> steady_steps(const StepTimes& st, bool collectives_ahead, std::uint64_t steps) {
  std::vector<double> out = st.ns();
  if (collectives_ahead && out.size() == steps && !out.empty()) out.pop_back();
  return out;
}

void add_collective_report(nlohmann::json& report, const char* name, const StepTimes& steps,
                           std::uint64_t bytes_written, const char* unit) {
  const std::vector<double>& ns = steps.collective_ns();
  double sum = 0;
  for (double v : ns) sum += v;
  report[fmt::format("{}_ns", name)] = ns;
  report[fmt::format("mean_{}_ns_per_{}", name, unit)] =
      ns.empty() ? 0.0 : sum / static_cast<double>(ns.size());
  report[fmt::format("{}_bytes_written", name)] = bytes_written;
}

void add_collective_combined(nlohmann::json& result, const char* name, const TpGroups& g,
                             const char* unit) {
  const std::string mean = fmt::format("mean_{}_ns_per_{}", name, unit);
  result[mean] = g.gpu_mean(mean);
  const std::string bytes = fmt::format("{}_bytes_written", name);
  result[bytes] = g.gpu_sum(bytes);
}

ComputeModel parse_compute(ConfigNode& parent, double gpu_memory_gbps, bool weights_are_traffic) {
  ComputeModel c;
  if (!parent.has("compute")) return c;
  ConfigNode n = parent.child("compute");
  if (n.has("layer_ns") == n.has("tflops")) {
    n.fail(n.has("tflops") ? "tflops" : "layer_ns",
           "give one of layer_ns (ns per layer) or tflops (the GPU's effective TFLOP/s)");
  }
  c.layer_ns = n.get_double("layer_ns", 0.0, 0.0, 1e12);
  c.tflops = n.get_double("tflops", 0.0, 0.0, 1e6);
  // 1 GFLOP/s: a million times below a GPU's, far enough to model a starved one, and a floor
  // under typos (1e-300) whose layers would take longer than famsim can simulate.
  if (n.has("tflops") && c.tflops < 1e-3) {
    n.fail("tflops", fmt::format("expected at least 0.001 (1 GFLOP/s), got {}", c.tflops));
  }
  if (n.has("weights_gbps")) {
    if (weights_are_traffic) {
      n.fail("weights_gbps",
             "this generator reads its weights as simulated requests from its location; their "
             "time is in the run, not in compute");
    }
    if (!n.has("tflops")) {
      n.fail("weights_gbps", "applies with tflops (layer_ns is the layer's whole time)");
    }
    c.weights_gbps = n.get_double("weights_gbps", std::nullopt, 0.0, 1e9);
    // Below 1 MB/s a layer's read would outlast what famsim simulates: a typo, as for tflops.
    if (c.weights_gbps != 0 && c.weights_gbps < 1e-3) {
      n.fail("weights_gbps",
             fmt::format("expected 0 (weights not counted) or at least 0.001 GB/s, got {}",
                         c.weights_gbps));
    }
  } else if (c.tflops > 0 && !weights_are_traffic) {
    c.weights_gbps = gpu_memory_gbps;
  }
  n.finish();
  return c;
}

std::uint64_t TokenRange::draw(boost::random::mt19937_64& rng) const {
  if (min == max) return min;
  boost::random::uniform_int_distribution<std::uint64_t> d(min, max);
  return d(rng);
}

TokenRange parse_tokens(ConfigNode& parent, const std::string& key, std::uint64_t min_allowed) {
  TokenRange r;
  if (parent.is_map(key)) {
    ConfigNode n = parent.child(key);
    r.min = n.get_uint("min", std::nullopt, min_allowed, kMaxTokens);
    r.max = n.get_uint("max", std::nullopt, min_allowed, kMaxTokens);
    if (r.max < r.min) n.fail("max", fmt::format("is below min ({})", r.min));
    n.finish();
  } else {
    r.min = r.max = parent.get_uint(key, std::nullopt, min_allowed, kMaxTokens);
  }
  return r;
}

ModelConfig parse_model_key(ConfigNode& parent) {
  ConfigNode m = parent.child("model", true);
  m.ignore("preset");  // the preset name; its keys were merged in (platforms/presets.h)
  m.ignore("file");    // likewise a model file named with keys beside it
  return parse_model(m);
}

void check_heads_split(const ConfigNode& node, const std::string& key, const ModelConfig& m,
                       unsigned n) {
  // GQA key/value heads: n divides them, or is a multiple of them (each GPU then holds one head,
  // replicated on n / kv_heads GPUs), as ModelConfig (and vLLM) split them.
  if (m.attention == AttentionKind::kGqa && m.kv_heads % n != 0 && n % m.kv_heads != 0) {
    node.fail(key, fmt::format("{} KV heads of {} do not split over {} GPUs ({} neither divides "
                               "them nor is a multiple of them)",
                               m.kv_heads, m.name, n, n));
  }
  if (m.heads % n != 0) {
    node.fail(
        key, fmt::format("{} attention heads of {} do not split over {} GPUs", m.heads, m.name, n));
  }
  // A linear-attention layer's weights and states are split by its heads (vLLM's Gated DeltaNet
  // requires n to divide the key heads; its MambaMixer2 n to divide the heads, and the groups
  // unless there is one; its MambaMixer n to divide the inner width; its KimiDeltaAttention and
  // MiniMaxText01LinearAttention n to divide the heads).
  if (m.has_linear_attention() && !m.linear_heads_split(n)) {
    node.fail(key, m.linear_split_failure(n));
  }
}

unsigned parse_tp(ConfigNode& parent, const ModelConfig& m, std::size_t gpus) {
  const unsigned tp = static_cast<unsigned>(parent.get_uint("tensor_parallel", 1, 1, 1024));
  if (gpus % tp != 0) {
    parent.fail("tensor_parallel",
                fmt::format("the stream's {} GPUs do not split into groups of {}", gpus, tp));
  }
  check_heads_split(parent, "tensor_parallel", m, tp);
  return tp;
}

unsigned parse_block_tokens(ConfigNode& parent, const ModelConfig& m, unsigned tp) {
  constexpr std::uint64_t kDefault = 16, kMax = 1u << 16;
  std::uint64_t def = kDefault;
  if (m.has_linear_attention()) {
    const std::uint64_t align = m.attention == AttentionKind::kMla ? 64 : 16;
    const std::uint64_t kv = m.kv_bytes_per_token_layer(tp);
    const std::uint64_t tokens = (m.state_bytes_per_layer(tp) + kv - 1) / kv;
    def = std::min(kMax, (tokens + align - 1) / align * align);
  }
  const bool given = parent.has("block_tokens");
  const std::uint64_t tokens = parent.get_uint("block_tokens", def, 1, kMax);
  // A block's KV vector of one layer is one access, whose size is 32 bits; the KV generators
  // cap accesses at 1 GiB as the state walks do.
  const std::uint64_t vector = m.kv_vector_bytes(tp);
  if (tokens * vector > StateWalk::kMaxAccess) {
    parent.fail(
        "block_tokens",
        fmt::format("{}{} tokens x {} B (one KV vector of a token of one layer, on a GPU of "
                    "tensor_parallel {}) = {} B in one access, above 1 GiB; at most {} "
                    "tokens",
                    given ? "" : "its default, sized to hold a linear-attention state, ", tokens,
                    vector, tp, tokens * vector, StateWalk::kMaxAccess / vector));
  }
  return static_cast<unsigned>(tokens);
}

void add_layer_kinds(nlohmann::json& summary, const ModelConfig& m, unsigned layers) {
  if (m.window_chunked) {
    summary["attention_chunk_tokens"] = m.window_tokens;
    summary["chunked_layers_simulated"] = m.chunked_layers(layers);
  }
  if (m.has_block_pattern()) summary["block_pattern_simulated"] = m.blocks.substr(0, layers);
  if (m.has_linear_attention() || m.has_block_pattern()) {
    summary["kv_layers_simulated"] = m.kv_layers(layers);
  }
  if (m.has_linear_attention()) {
    summary["linear_layers_simulated"] = m.linear_layers(layers);
    summary["linear_attention_kind"] = m.linear.kind_name();
  }
  if (m.is_moe() && m.moe_layers(m.layers) < m.layers) {
    summary["moe_layers_simulated"] = m.moe_layers(layers);
  }
}

unsigned parse_layers(ConfigNode& parent, const ModelConfig& m) {
  return static_cast<unsigned>(parent.get_uint("layers", m.layers, 1, m.layers));
}

std::string KvBlockLayout::index_keys_text() const {
  if (index_block_bytes == 0) return std::string();
  return fmt::format(", and {} B of each block's index keys", index_block_bytes);
}

std::vector<std::uint32_t> shuffled_slots(std::uint64_t n, std::uint64_t seed) {
  std::vector<std::uint32_t> v(n);
  std::iota(v.begin(), v.end(), 0u);
  boost::random::mt19937_64 rng(seed);
  // Fisher-Yates with Boost's distribution: the same on every standard library.
  for (std::uint64_t i = n; i > 1; --i) {
    boost::random::uniform_int_distribution<std::uint64_t> pick(0, i - 1);
    std::swap(v[i - 1], v[pick(rng)]);
  }
  return v;
}

bool LruSlots::find(std::uint64_t key, std::uint64_t& slot) {
  const auto it = index_.find(key);
  if (it == index_.end()) return false;
  order_.splice(order_.begin(), order_, it->second);
  slot = it->second->slot;
  return true;
}

bool LruSlots::insert(std::uint64_t key, std::uint64_t& slot) {
  if (capacity_ == 0) return false;
  if (index_.size() < capacity_) {
    slot = index_.size();
  } else {
    const Entry victim = order_.back();
    order_.pop_back();
    index_.erase(victim.key);
    slot = victim.slot;
    ++evictions_;
  }
  order_.push_front(Entry{key, slot});
  index_[key] = order_.begin();
  return true;
}

TpGroups::TpGroups(const std::vector<nlohmann::json>& per_gpu, unsigned tp)
    : per_gpu_(per_gpu),
      tp_(std::max(1u, tp)),
      groups_(static_cast<unsigned>((per_gpu.size() + tp_ - 1) / tp_)) {}

namespace {

std::uint64_t count_of(const nlohmann::json& r, const std::string& key) {
  return r.is_object() && r.contains(key) && r[key].is_number() ? r[key].get<std::uint64_t>() : 0;
}

}  // namespace

std::uint64_t TpGroups::completed(const std::string& key) const {
  if (per_gpu_.empty()) return 0;
  std::uint64_t least = ~std::uint64_t{0};
  for (const nlohmann::json& r : per_gpu_) least = std::min(least, count_of(r, key));
  return least;
}

std::uint64_t TpGroups::group_sum(const std::string& key) const {
  std::uint64_t sum = 0;
  for (unsigned g = 0; g < groups_; ++g) {
    std::uint64_t most = 0;
    for (std::size_t i = std::size_t{g} * tp_; i < per_gpu_.size() && i < std::size_t{g + 1} * tp_;
         ++i) {
      most = std::max(most, count_of(per_gpu_[i], key));
    }
    sum += most;
  }
  return sum;
}

std::uint64_t TpGroups::gpu_sum(const std::string& key) const {
  std::uint64_t sum = 0;
  for (const nlohmann::json& r : per_gpu_) sum += count_of(r, key);
  return sum;
}

double TpGroups::gpu_max(const std::string& key) const {
  double most = 0;
  for (const nlohmann::json& r : per_gpu_) {
    if (r.is_object() && r.contains(key) && r[key].is_number())
      most = std::max(most, r[key].get<double>());
  }
  return most;
}

double TpGroups::gpu_mean(const std::string& key) const {
  double sum = 0;
  unsigned n = 0;
  for (const nlohmann::json& r : per_gpu_) {
    if (r.is_object() && r.contains(key) && r[key].is_number() && r[key].get<double>() > 0) {
      sum += r[key].get<double>();
      ++n;
    }
  }
  return n ? sum / n : 0.0;
}

TpGroups::Steps TpGroups::steps(const std::string& key, std::uint64_t batch) const {
  double step_sum = 0, tps_sum = 0;
  std::size_t steps = 0;
  unsigned groups_with_steps = 0;
  for (const std::vector<double>& path : critical_path_ns(key)) {
    double group_ns = 0;
    for (double s : path) group_ns += s;
    if (group_ns <= 0) continue;
    step_sum += group_ns;
    steps += path.size();
    tps_sum += static_cast<double>(batch) * static_cast<double>(path.size()) / (group_ns * 1e-9);
    ++groups_with_steps;
  }
  return {steps ? step_sum / static_cast<double>(steps) : 0.0,
          groups_with_steps ? tps_sum / groups_with_steps : 0.0};
}

std::vector<std::vector<double>> TpGroups::critical_path_ns(const std::string& key) const {
  std::vector<std::vector<double>> out(groups_);
  for (unsigned g = 0; g < groups_; ++g) {
    const std::size_t first = std::size_t{g} * tp_;
    const std::size_t last = std::min(per_gpu_.size(), first + tp_);
    // Units the whole group completed: the shortest list among its GPUs.
    std::size_t units = first < last ? ~std::size_t{0} : 0;
    for (std::size_t i = first; i < last; ++i) {
      const nlohmann::json& r = per_gpu_[i];
      const bool listed = r.is_object() && r.contains(key) && r[key].is_array();
      units = std::min(units, listed ? r[key].size() : std::size_t{0});
    }
    out[g].assign(units, 0.0);
    for (std::size_t i = first; i < last; ++i) {
      for (std::size_t u = 0; u < units; ++u) {
        out[g][u] = std::max(out[g][u], per_gpu_[i][key][u].get<double>());
      }
    }
  }
  return out;
}

}  // namespace famsim
