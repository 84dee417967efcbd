#include "traffic/ai/model_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <stdexcept>

namespace famsim {

// Declared in the header (the collectives' dtype keys use it too).
unsigned get_dtype_bytes(ConfigNode& n, const std::string& key, unsigned def) {
  const auto v = static_cast<unsigned>(n.get_uint(key, def, 1, 4));
  if (v == 3) n.fail(key, "expected 1, 2 or 4 bytes per value, got 3");
  return v;
}

namespace {

using u64 = std::uint64_t;

u64 ceil_div(u64 a, u64 b) { return (a + b - 1) / b; }

void check_tp(unsigned tp) {
  if (tp == 0) throw std::invalid_argument("tensor-parallel degree must be at least 1, got 0");
}

// Query heads one GPU runs: vLLM requires tp to divide the head count.
u64 heads_per_gpu(const ModelConfig& m, unsigned tp) {
  check_tp(tp);
  if (m.heads % tp != 0) {
    throw std::invalid_argument(
        fmt::format("{}: tensor-parallel degree {} does not divide the {} attention heads", m.name,
                    tp, m.heads));
  }
  return m.heads / tp;
}

// GQA key/value heads one GPU holds: kv_heads / tp, or one replicated head when tp is a multiple
// of kv_heads (vLLM QKVParallelLinear).
u64 kv_heads_per_gpu(const ModelConfig& m, unsigned tp) {
  check_tp(tp);
  if (tp <= m.kv_heads) {
    if (m.kv_heads % tp == 0) return m.kv_heads / tp;
  } else if (tp % m.kv_heads == 0) {
    return 1;
  }
  throw std::invalid_argument(
      fmt::format("{}: tensor-parallel degree {} neither divides the {} KV heads nor is a multiple "
                  "of them",
                  m.name, tp, m.kv_heads));
}

void check_layer(const ModelConfig& m, unsigned layer) {
  if (layer >= m.layers) {
    throw std::out_of_range(fmt::format("{}: layer {} out of range (the model has {} layers)",
                                        m.name, layer, m.layers));
  }
}

// The linear layers of one layer's attention on one GPU, each as visit(rows, inputs): a matrix
// of `rows` outputs, each a row of `inputs` weights.
template <class Visit>
void attention_matrices(const ModelConfig& m, unsigned tp, Visit&& visit) {
  const u64 h = m.hidden;
  const u64 heads = heads_per_gpu(m, tp);
  if (m.attention == AttentionKind::kGqa) {
    const u64 kv = kv_heads_per_gpu(m, tp);
    visit(heads * m.head_dim * (m.attention_output_gate ? 2 : 1), h);  // q (and the gate)
    visit(kv * m.head_dim, h);     // k
    visit(kv * m.head_dim, h);     // v
    visit(h, heads * m.head_dim);  // o
    return;
  }
  // MLA (DeepSeek-V3 inference/model.py): wq_a (replicated) and wq_b (by heads), or wq (by heads)
  // without query compression; wkv_a (hidden -> latent + rope key, replicated); wkv_b (latent ->
  // per-head key without RoPE and value, by heads); wo (by heads).
  const u64 qk_head = u64{m.mla_qk_nope_head_dim} + m.mla_rope_head_dim;
  if (m.mla_q_lora_rank > 0) {
    visit(m.mla_q_lora_rank, h);                     // wq_a
    visit(heads * qk_head, u64{m.mla_q_lora_rank});  // wq_b
  } else {
    visit(heads * qk_head, h);  // wq
  }
  visit(u64{m.mla_kv_lora_rank} + m.mla_rope_head_dim, h);  // wkv_a
  visit(heads * (u64{m.mla_qk_nope_head_dim} + m.mla_v_head_dim),
        u64{m.mla_kv_lora_rank});      // wkv_b
  visit(h, heads * m.mla_v_head_dim);  // wo
  if (m.has_sparse_attention()) {
    // The lightning indexer (DeepSeek-V3.2 inference/model.py, Indexer), replicated: wq_b from the
    // compressed query to its heads, wk from the hidden state to its one key.
    const ModelConfig::SparseAttention& s = m.sparse;
    visit(u64{s.index_heads} * s.index_head_dim, u64{m.mla_q_lora_rank});  // wq_b
    visit(s.index_head_dim, h);                                            // wk
  }
}

using LinearKind = ModelConfig::LinearAttention::Kind;

// Throws std::invalid_argument, with linear_split_failure's words, unless tp GPUs split the
// linear-attention layers (the per-GPU shares below all check this first).
void check_linear_split(const ModelConfig& m, unsigned tp) {
  check_tp(tp);
  if (!m.linear_heads_split(tp)) {
    throw std::invalid_argument(
        fmt::format("{}: tensor-parallel degree {}: {}", m.name, tp, m.linear_split_failure(tp)));
  }
}

// A Mamba-1 mixer's inner channels on one GPU: vLLM's MambaMixer splits the inner width by tp.
u64 mamba1_inner_per_gpu(const ModelConfig& m, unsigned tp) {
  check_linear_split(m, tp);
  return m.linear.inner_size / tp;
}

// A Mamba-2 mixer's share on one GPU: heads and groups (B and C), as vLLM's MambaMixer2 splits
// them: tp must divide the heads, and divide the groups or the groups be 1, in which case every GPU
// keeps that one group (extra_groups_for_head_shards makes them tp).
void mamba2_per_gpu(const ModelConfig& m, unsigned tp, u64& heads, u64& groups) {
  check_linear_split(m, tp);
  const ModelConfig::LinearAttention& l = m.linear;
  heads = l.heads / tp;
  groups = l.groups % tp == 0 ? l.groups / tp : 1;
}

// KDA or lightning-attention heads (queries, keys and values alike) one GPU runs: tp must divide
// them, as vLLM's KimiDeltaAttention and MiniMaxText01LinearAttention require.
u64 qkv_heads_per_gpu(const ModelConfig& m, unsigned tp) {
  check_linear_split(m, tp);
  return m.linear.heads / tp;
}

// Linear-attention heads one GPU runs: tp must divide the key heads (and so the value heads, a
// multiple of them), as vLLM's Gated DeltaNet requires.
void linear_heads_per_gpu(const ModelConfig& m, unsigned tp, u64& key_heads, u64& value_heads) {
  check_linear_split(m, tp);
  key_heads = m.linear.key_heads / tp;
  value_heads = m.linear.value_heads / tp;
}

// The convolution's channels on one GPU: queries, keys and values (Gated DeltaNet convolves all
// three); Mamba-2's x, B and C; Mamba-1's x; KDA's q, k and v (three convolutions).
u64 linear_conv_channels(const ModelConfig& m, unsigned tp) {
  switch (m.linear.kind) {
    case LinearKind::kGatedDeltaNet: {
      u64 kh = 0, vh = 0;
      linear_heads_per_gpu(m, tp, kh, vh);
      return 2 * kh * m.linear.key_head_dim + vh * m.linear.value_head_dim;
    }
    case LinearKind::kMamba2: {
      u64 heads = 0, groups = 0;
      mamba2_per_gpu(m, tp, heads, groups);
      return heads * m.linear.head_dim + 2 * groups * m.linear.state_size;
    }
    case LinearKind::kMamba1:
      return mamba1_inner_per_gpu(m, tp);
    case LinearKind::kKda:
      return 3 * qkv_heads_per_gpu(m, tp) * m.linear.head_dim;
    case LinearKind::kLightning:
      return 0;  // no convolution
  }
  return 0;  // not reached
}

// The linear layers of one linear-attention layer on one GPU (Hugging Face Qwen3NextGatedDeltaNet;
// vLLM splits in_proj by heads, out_proj by its inputs), as attention_matrices.
template <class Visit>
void linear_attention_matrices(const ModelConfig& m, unsigned tp, Visit&& visit) {
  switch (m.linear.kind) {
    case LinearKind::kGatedDeltaNet: {
      u64 kh = 0, vh = 0;
      linear_heads_per_gpu(m, tp, kh, vh);
      const u64 keys = kh * m.linear.key_head_dim, values = vh * m.linear.value_head_dim;
      visit(2 * keys + 2 * values, u64{m.hidden});  // in_proj_qkvz: q, k, v and the output gate z
      visit(2 * vh, u64{m.hidden});                 // in_proj_ba: beta and the decay's input a
      visit(u64{m.hidden}, values);                 // out_proj
      return;
    }
    case LinearKind::kMamba2: {
      u64 heads = 0, groups = 0;
      mamba2_per_gpu(m, tp, heads, groups);
      const u64 inner = heads * m.linear.head_dim;
      // in_proj: the gate z and x (inner each), B and C (a group's state_size each), dt (a head's).
      visit(2 * inner + 2 * groups * m.linear.state_size + heads, u64{m.hidden});
      visit(u64{m.hidden}, inner);  // out_proj
      return;
    }
    case LinearKind::kMamba1: {
      const u64 inner = mamba1_inner_per_gpu(m, tp), rank = m.linear.dt_rank;
      visit(2 * inner, u64{m.hidden});                    // in_proj: x and the gate z
      visit(rank + 2 * u64{m.linear.state_size}, inner);  // x_proj: dt's input, B and C
      visit(inner, rank);                                 // dt_proj
      visit(u64{m.hidden}, inner);                        // out_proj
      return;
    }
    case LinearKind::kKda: {
      const u64 heads = qkv_heads_per_gpu(m, tp), d = m.linear.head_dim, p = heads * d;
      const u64 h = m.hidden;
      for (int qkv = 0; qkv < 3; ++qkv) visit(p, h);  // q_proj, k_proj, v_proj
      visit(d, h);                                    // f_a_proj (replicated)
      visit(p, d);                                    // f_b_proj: the decay per channel
      visit(heads, h);                                // b_proj: beta
      visit(d, h);                                    // g_a_proj (replicated)
      visit(p, d);                                    // g_b_proj: the output gate
      visit(h, p);                                    // o_proj
      return;
    }
    case LinearKind::kLightning: {
      const u64 p = qkv_heads_per_gpu(m, tp) * m.linear.head_dim, h = m.hidden;
      visit(3 * p, h);  // qkv_proj
      visit(p, h);      // output_gate
      visit(h, p);      // out_proj
      return;
    }
  }
}

// A linear-attention layer's other weights on one GPU: the convolution (a kernel per channel, no
// bias), A_log and dt_bias (one each per value head) and the gated RMSNorm (value_head_dim,
// replicated).
// Mamba-2's: the depthwise convolution (and its bias), dt_bias, A_log and D (a value a head), and
// the gated RMSNorm over the inner width.
// Mamba-1's: the convolution (and its bias), dt_proj's bias, A_log (state_size a channel), D, and
// Jamba's RMSNorms on dt, B and C (replicated).
// KDA's: the three convolutions (no bias), dt_bias (a value a channel), A_log (a value a head) and
// the gated output norm (head_dim, replicated).
u64 linear_attention_other_params(const ModelConfig& m, unsigned tp) {
  const ModelConfig::LinearAttention& l = m.linear;
  switch (l.kind) {
    case LinearKind::kGatedDeltaNet: {
      u64 kh = 0, vh = 0;
      linear_heads_per_gpu(m, tp, kh, vh);
      return linear_conv_channels(m, tp) * l.conv_kernel + 2 * vh + l.value_head_dim;
    }
    case LinearKind::kMamba2: {
      u64 heads = 0, groups = 0;
      mamba2_per_gpu(m, tp, heads, groups);
      const u64 channels = linear_conv_channels(m, tp);
      return channels * (l.conv_kernel + (l.conv_bias ? 1 : 0)) + 3 * heads + heads * l.head_dim;
    }
    case LinearKind::kMamba1: {
      const u64 inner = mamba1_inner_per_gpu(m, tp);
      const u64 norms = l.inner_norms ? l.dt_rank + 2 * u64{l.state_size} : 0;
      return inner * (l.conv_kernel + (l.conv_bias ? 1 : 0)) + inner + inner * l.state_size +
             inner + norms;
    }
    case LinearKind::kKda: {
      const u64 heads = qkv_heads_per_gpu(m, tp);
      return linear_conv_channels(m, tp) * l.conv_kernel + heads * l.head_dim + heads + l.head_dim;
    }
    case LinearKind::kLightning:
      return qkv_heads_per_gpu(m, tp) * l.head_dim;  // the output norm's share
  }
  return 0;  // not reached
}

// Weights of one layer's attention (full or linear; none in a block pattern's FFN layer) on one
// GPU, in parameters.
u64 attention_linear_params(const ModelConfig& m, unsigned layer, unsigned tp) {
  u64 p = 0;
  const auto add = [&](u64 rows, u64 inputs) { p += rows * inputs; };
  switch (m.mixer(layer)) {
    case ModelConfig::Mixer::kLinear:
      linear_attention_matrices(m, tp, add);
      break;
    case ModelConfig::Mixer::kAttention:
      attention_matrices(m, tp, add);
      break;
    case ModelConfig::Mixer::kNone:
      break;
  }
  return p;
}

// Weights inside a full attention kept at unquantized_dtype_bytes: MLA normalises the compressed
// query and the KV latent; qk_norm one RMSNorm of head_dim weights for the query heads and one for
// the key heads; sparse attention's indexer a LayerNorm on its key (weight and bias) and
// weights_proj (hidden -> index_heads, BF16 in DeepSeek-V3.2's checkpoint).
u64 attention_norm_params(const ModelConfig& m) {
  if (m.attention == AttentionKind::kGqa) return m.qk_norm ? 2 * u64{m.head_dim} : 0;
  const u64 indexer = m.has_sparse_attention()
                          ? 2 * u64{m.sparse.index_head_dim} + u64{m.hidden} * m.sparse.index_heads
                          : 0;
  return u64{m.mla_q_lora_rank} + m.mla_kv_lora_rank + indexer;
}

// A layer's attention parameters other than its linear layers (norms; the convolution and decay
// parameters of a linear-attention layer).
u64 attention_other_params(const ModelConfig& m, unsigned layer, unsigned tp) {
  switch (m.mixer(layer)) {
    case ModelConfig::Mixer::kLinear:
      return linear_attention_other_params(m, tp);
    case ModelConfig::Mixer::kAttention:
      return attention_norm_params(m);
    case ModelConfig::Mixer::kNone:
      return 0;
  }
  return 0;  // not reached: every kind returns above
}

// The matrices of an FFN with inputs from the hidden state: gate and up (SwiGLU), or up alone
// (relu2).
u64 ffn_input_matrices(const ModelConfig& m) { return m.ffn_gated ? 2 : 1; }

// An FFN of width `width` split over tp GPUs by columns: gate (SwiGLU) and up (hidden x width)
// and down (width x hidden).
u64 ffn_params(const ModelConfig& m, u64 width, unsigned tp) {
  check_tp(tp);
  return (ffn_input_matrices(m) + 1) * u64{m.hidden} * ceil_div(width, tp);
}

// The same FFN's bytes in `format`: gate and up have hidden inputs, down the shard's width.
u64 ffn_bytes(const ModelConfig& m, u64 width, unsigned tp, const NumberFormat& format) {
  check_tp(tp);
  const u64 shard = ceil_div(width, tp);
  return ffn_input_matrices(m) * format.matrix_bytes(shard, m.hidden) +
         format.matrix_bytes(m.hidden, shard);
}

// A layer's RMSNorms: one before its attention and one before its FFN, or a block pattern's one.
u64 layer_norm_params(const ModelConfig& m) {
  return (m.has_block_pattern() ? 1 : 2) * u64{m.hidden};
}

u64 embedding_and_head_params(const ModelConfig& m) {
  return u64{m.vocab} * m.hidden * (m.tied_embeddings ? 1 : 2);
}

// Parameters of one layer with `routed` routed experts counted (all of them, or top_k).
u64 layer_params(const ModelConfig& m, unsigned layer, u64 routed) {
  check_layer(m, layer);
  u64 p = attention_linear_params(m, layer, 1) + attention_other_params(m, layer, 1) +
          layer_norm_params(m);
  switch (m.ffn(layer)) {
    case ModelConfig::Ffn::kExperts:
      p += routed * ffn_params(m, m.expert_intermediate, 1);
      p += ffn_params(m, u64{m.shared_experts} * m.shared_intermediate, 1);
      p += (u64{m.experts} + (m.shared_expert_gate ? m.shared_experts : 0)) * m.hidden;  // gates
      break;
    case ModelConfig::Ffn::kDense:
      p += ffn_params(m, m.intermediate, 1);
      break;
    case ModelConfig::Ffn::kNone:
      break;
  }
  return p;
}

// The named weight formats (see the header for their sources).
const NumberFormat kNumberFormats[] = {
    {"fp32", 32, 0, 0},  {"bf16", 16, 0, 0},  {"fp16", 16, 0, 0},   {"fp8", 8, 0, 0},
    {"int8", 8, 0, 0},   {"mxfp8", 8, 32, 8}, {"mxint8", 8, 32, 8}, {"mxfp6", 6, 32, 8},
    {"mxfp4", 4, 32, 8}, {"nvfp4", 4, 16, 8},
};

// A weight format key: a name, or {bits, block, scale_bits}; absent, the format named `def`.
NumberFormat get_number_format(ConfigNode& n, const std::string& key,
                               std::optional<std::string> def = std::nullopt) {
  if (!n.is_map(key)) {
    std::vector<std::string> names;
    for (const NumberFormat& f : kNumberFormats) names.push_back(f.name);
    const std::string name = n.get_choice(key, def, names);
    for (const NumberFormat& f : kNumberFormats) {
      if (f.name == name) return f;
    }
  }
  ConfigNode c = n.child(key, true);
  NumberFormat f;
  f.name = "custom";
  f.bits = static_cast<unsigned>(c.get_uint("bits", std::nullopt, 1, 32));
  if (c.has("block") || c.has("scale_bits")) {
    f.block = static_cast<unsigned>(c.get_uint("block", std::nullopt, 1, 65536));
    f.scale_bits = static_cast<unsigned>(c.get_uint("scale_bits", std::nullopt, 1, 32));
  } else {
    c.ignore("block");
    c.ignore("scale_bits");
  }
  c.finish();
  return f;
}

NumberFormat whole_bytes_format(unsigned bytes) {
  for (const NumberFormat& f : kNumberFormats) {
    if (f.whole_bytes() == bytes) return f;  // fp32, bf16 or fp8 (the first of each size)
  }
  throw std::logic_error(fmt::format("no weight format of {} bytes", bytes));
}

// A format given either by its name or numbers (keys.format) or as whole bytes a value
// (keys.bytes, default 2): one of the two.
NumberFormat get_format_or_bytes(ConfigNode& n, const FormatKeys& keys) {
  const std::string format_key = keys.format, bytes_key = keys.bytes;
  if (!n.has(format_key)) {
    n.ignore(format_key);
    return whole_bytes_format(get_dtype_bytes(n, bytes_key, 2));
  }
  if (n.has(bytes_key)) {
    n.fail_among({format_key, bytes_key},
                 fmt::format("{} and {} both say how the values are stored: give one of them",
                             format_key, bytes_key));
  }
  n.ignore(bytes_key);
  return get_number_format(n, format_key);
}

unsigned get_count(ConfigNode& n, const std::string& key, std::uint64_t min, std::uint64_t max) {
  return static_cast<unsigned>(n.get_uint(key, std::nullopt, min, max));
}

}  // namespace

std::uint64_t NumberFormat::matrix_bytes(std::uint64_t rows, std::uint64_t inputs) const {
  const u64 row_bits =
      block == 0 ? inputs * bits : ceil_div(inputs, block) * (u64{block} * bits + scale_bits);
  return rows * ceil_div(row_bits, 8);
}

bool ModelConfig::linear_heads_split(unsigned n) const {
  switch (linear.kind) {
    case LinearAttention::Kind::kGatedDeltaNet:
      return linear.key_heads % n == 0;
    case LinearAttention::Kind::kMamba2:
      return linear.heads % n == 0 && (linear.groups % n == 0 || linear.groups == 1);
    case LinearAttention::Kind::kMamba1:
      return linear.inner_size % n == 0;
    case LinearAttention::Kind::kKda:
    case LinearAttention::Kind::kLightning:
      return linear.heads % n == 0;
  }
  return false;  // not reached
}

std::string ModelConfig::linear_split_failure(unsigned n) const {
  const LinearAttention& l = linear;
  switch (l.kind) {
    case LinearKind::kGatedDeltaNet:
      return fmt::format("{} linear-attention key heads of {} do not split over {} GPUs",
                         l.key_heads, name, n);
    case LinearKind::kMamba2:
      return fmt::format(
          "{} Mamba-2 heads in {} groups of {} do not split over {} GPUs (expected "
          "{} to divide the heads, and the groups unless there is one)",
          l.heads, l.groups, name, n, n);
    case LinearKind::kMamba1:
      return fmt::format(
          "the Mamba mixers' inner width of {}, {}, does not split over {} GPUs "
          "(expected {} to divide it)",
          name, l.inner_size, n, n);
    case LinearKind::kKda:
      return fmt::format(
          "{} KDA heads of {} do not split over {} GPUs (expected {} to divide "
          "them)",
          l.heads, name, n, n);
    case LinearKind::kLightning:
      return fmt::format(
          "{} lightning-attention heads of {} do not split over {} GPUs (expected "
          "{} to divide them)",
          l.heads, name, n, n);
  }
  return "";  // not reached
}

bool ModelConfig::is_moe_layer(unsigned layer) const {
  check_layer(*this, layer);
  return is_moe() && layer >= dense_layers &&
         (moe_cycle.empty() || moe_cycle[layer % moe_cycle.size()]);
}

unsigned ModelConfig::moe_layers(unsigned n) const {
  unsigned k = 0;
  for (unsigned l = 0; l < n; ++l) k += is_moe_layer(l) ? 1 : 0;
  return k;
}

unsigned ModelConfig::nth_moe_layer(unsigned k) const {
  unsigned seen = 0;
  for (unsigned l = 0; l < layers; ++l) {
    if (is_moe_layer(l) && seen++ == k) return l;
  }
  throw std::out_of_range(fmt::format("{} has no MoE layer {} (it has {})", name, k, seen));
}

unsigned ModelConfig::kv_vectors() const { return attention == AttentionKind::kGqa ? 2 : 1; }

std::uint64_t ModelConfig::kv_bytes_per_token_layer(unsigned tp) const {
  if (attention == AttentionKind::kMla) {
    check_tp(tp);
    if (kv_fp8_ds_mla)
      return kv_format.matrix_bytes(1, mla_kv_lora_rank) + 2 * u64{mla_rope_head_dim};
    return kv_format.matrix_bytes(1, u64{mla_kv_lora_rank} + mla_rope_head_dim);
  }
  return kv_vectors() * kv_format.matrix_bytes(kv_heads_per_gpu(*this, tp), head_dim);
}

std::uint64_t ModelConfig::kv_bytes_per_token(unsigned tp) const {
  return kv_bytes_per_token_layer(tp) * kv_layers(layers);
}

std::uint64_t ModelConfig::recurrent_state_bytes(unsigned tp) const {
  if (!has_linear_attention()) return 0;
  switch (linear.kind) {
    case LinearKind::kGatedDeltaNet: {
      u64 kh = 0, vh = 0;
      linear_heads_per_gpu(*this, tp, kh, vh);
      // Per value head a key_head_dim x value_head_dim matrix; rows of value_head_dim values.
      return linear.state_format.matrix_bytes(vh * linear.key_head_dim, linear.value_head_dim);
    }
    case LinearKind::kMamba2: {
      u64 heads = 0, groups = 0;
      mamba2_per_gpu(*this, tp, heads, groups);
      // Per head a head_dim x state_size matrix; rows of state_size values.
      return linear.state_format.matrix_bytes(heads * linear.head_dim, linear.state_size);
    }
    case LinearKind::kMamba1:
      // Per inner channel state_size values.
      return linear.state_format.matrix_bytes(mamba1_inner_per_gpu(*this, tp), linear.state_size);
    case LinearKind::kKda:
    case LinearKind::kLightning:
      // Per head a head_dim x head_dim matrix (keys by values); rows of head_dim values.
      return linear.state_format.matrix_bytes(qkv_heads_per_gpu(*this, tp) * linear.head_dim,
                                              linear.head_dim);
  }
  return 0;  // not reached
}

std::uint64_t ModelConfig::conv_state_bytes(unsigned tp) const {
  if (!has_linear_attention()) return 0;
  // The last conv_kernel - 1 inputs of every channel; a row per input (none without a
  // convolution: lightning attention).
  if (linear.conv_kernel == 0) return 0;
  return linear.conv_state_format.matrix_bytes(linear.conv_kernel - 1,
                                               linear_conv_channels(*this, tp));
}

std::uint64_t ModelConfig::attention_weight_bytes(unsigned tp) const {
  u64 bytes = attention_norm_params(*this) * unquantized_dtype_bytes;
  attention_matrices(
      *this, tp, [&](u64 rows, u64 inputs) { bytes += weight_format.matrix_bytes(rows, inputs); });
  return bytes;
}

std::uint64_t ModelConfig::linear_attention_weight_bytes(unsigned tp) const {
  if (!has_linear_attention()) return 0;
  u64 bytes = linear_attention_other_params(*this, tp) * unquantized_dtype_bytes;
  linear_attention_matrices(
      *this, tp, [&](u64 rows, u64 inputs) { bytes += weight_format.matrix_bytes(rows, inputs); });
  return bytes;
}

std::uint64_t ModelConfig::dense_ffn_weight_bytes(unsigned tp) const {
  return ffn_bytes(*this, intermediate, tp, weight_format);
}

std::uint64_t ModelConfig::expert_weight_bytes(unsigned tp) const {
  return ffn_bytes(*this, expert_intermediate, tp, expert_format);
}

std::uint64_t ModelConfig::shared_expert_weight_bytes(unsigned tp) const {
  return ffn_bytes(*this, u64{shared_experts} * shared_intermediate, tp, expert_format);
}

std::uint64_t ModelConfig::router_weight_bytes() const {
  return (u64{experts} + (shared_expert_gate ? shared_experts : 0)) * hidden *
         unquantized_dtype_bytes;
}

std::uint64_t ModelConfig::lm_head_weight_bytes(unsigned tp) const {
  check_tp(tp);
  return ceil_div(vocab, tp) * hidden * unquantized_dtype_bytes;
}

std::uint64_t ModelConfig::layer_weight_bytes(unsigned layer, unsigned tp) const {
  u64 ffn_part = 0, mixer_part = 0;
  switch (ffn(layer)) {
    case Ffn::kExperts:
      ffn_part = shared_expert_weight_bytes(tp) + router_weight_bytes();
      break;
    case Ffn::kDense:
      ffn_part = dense_ffn_weight_bytes(tp);
      break;
    case Ffn::kNone:
      break;
  }
  switch (mixer(layer)) {
    case Mixer::kLinear:
      mixer_part = linear_attention_weight_bytes(tp);
      break;
    case Mixer::kAttention:
      mixer_part = attention_weight_bytes(tp);
      break;
    case Mixer::kNone:
      break;
  }
  return mixer_part + ffn_part + layer_norm_params(*this) * unquantized_dtype_bytes;
}

std::uint64_t ModelConfig::parameters() const {
  u64 p = embedding_and_head_params(*this) + hidden;  // + final norm
  for (unsigned l = 0; l < layers; ++l) p += layer_params(*this, l, experts);
  return p;
}

std::uint64_t ModelConfig::weight_bytes() const {
  // Embedding table (counted once when the LM head shares it) and the final norm.
  u64 bytes = (tied_embeddings ? 0 : u64{vocab} * hidden * unquantized_dtype_bytes) +
              u64{hidden} * unquantized_dtype_bytes + lm_head_weight_bytes(1);
  for (unsigned l = 0; l < layers; ++l) {
    bytes += layer_weight_bytes(l, 1);
    if (is_moe_layer(l)) bytes += u64{experts} * expert_weight_bytes(1);
  }
  return bytes;
}

std::uint64_t ModelConfig::active_parameters() const {
  u64 p = embedding_and_head_params(*this) + hidden;
  for (unsigned l = 0; l < layers; ++l) p += layer_active_parameters(l);
  return p;
}

std::uint64_t ModelConfig::layer_active_parameters(unsigned layer) const {
  return layer_params(*this, layer, top_k);
}

namespace {

// Names a model's Hugging Face config.json gives these parameters, with famsim's: a workload owner
// copying a config.json should be told the key's name here, not that `layers` is missing.
struct ConfigJsonName {
  const char* hf;
  const char* ours;
};
constexpr ConfigJsonName kConfigJsonNames[] = {
    {"num_hidden_layers", "layers"},
    {"num_attention_heads", "attention_heads"},
    {"num_key_value_heads", "kv_heads"},
    {"torch_dtype", "weight_dtype_bytes (bytes per value: 2 for bfloat16)"},
    {"n_routed_experts", "moe.experts"},
    {"num_local_experts", "moe.experts"},
    {"num_experts", "moe.experts"},
    {"num_experts_per_tok", "moe.top_k"},
    {"experts_per_token", "moe.top_k"},
    {"quantization_config",
     "weight_format or expert_weight_format (quant_method mxfp4: expert_weight_format: mxfp4)"},
    {"n_shared_experts", "moe.shared_experts"},
    {"moe_intermediate_size", "moe.expert_intermediate_size"},
    {"first_k_dense_replace", "moe.dense_layers"},
    {"index_topk", "sparse_attention.top_k"},
    {"index_n_heads", "sparse_attention.index_heads"},
    {"index_head_dim", "sparse_attention.index_head_dim"},
    {"kv_lora_rank", "mla.kv_lora_rank"},
    {"q_lora_rank", "mla.q_lora_rank"},
    {"qk_rope_head_dim", "mla.qk_rope_head_dim"},
    {"qk_nope_head_dim", "mla.qk_nope_head_dim"},
    {"v_head_dim", "mla.v_head_dim"},
    {"layer_types",
     "sliding_window.layer_types, attention_chunk.layer_types or linear_attention.layer_types "
     "(Granite 4.0-H's mamba and attention entries are linear and full)"},
    {"attention_chunk_size", "attention_chunk (or attention_chunk.tokens)"},
    {"no_rope_layers",
     "attention_chunk.layer_types (Llama 4's layers without RoPE are its full ones: [chunked, "
     "chunked, chunked, full])"},
    {"no_rope_layer_interval",
     "attention_chunk.layer_types (a cycle: 4 is [chunked, chunked, chunked, full])"},
    {"full_attention_interval",
     "linear_attention.layer_types (a cycle: 4 is [linear, linear, linear, full])"},
    {"linear_num_key_heads", "linear_attention.key_heads"},
    {"linear_num_value_heads", "linear_attention.value_heads"},
    {"linear_key_head_dim", "linear_attention.key_head_dim"},
    {"linear_value_head_dim", "linear_attention.value_head_dim"},
    {"linear_conv_kernel_dim", "linear_attention.conv_kernel"},
    {"mamba_ssm_dtype", "linear_attention.state_format"},
    {"mamba_n_heads", "linear_attention.heads (kind: mamba2)"},
    {"mamba_d_head", "linear_attention.head_dim (kind: mamba2)"},
    {"mamba_d_state", "linear_attention.state_size (kind: mamba2 or mamba1)"},
    {"mamba_dt_rank", "linear_attention.dt_rank (kind: mamba1; auto is ceil(hidden_size / 16))"},
    {"mamba_inner_layernorms", "linear_attention.inner_norms (kind: mamba1)"},
    {"attn_layer_period",
     "linear_attention.layer_types (a cycle of attn_layer_period entries, full at "
     "attn_layer_offset: 8 and 4 are [linear, linear, linear, linear, full, linear, linear, "
     "linear])"},
    {"attn_layer_offset",
     "linear_attention.layer_types (a cycle of attn_layer_period entries, full at "
     "attn_layer_offset: 8 and 4 are [linear, linear, linear, linear, full, linear, linear, "
     "linear])"},
    {"mamba_n_groups", "linear_attention.groups (kind: mamba2)"},
    {"mamba_d_conv", "linear_attention.conv_kernel"},
    {"mamba_conv_bias", "linear_attention.conv_bias (kind: mamba2 or mamba1)"},
    {"attn_layer_indices",
     "linear_attention.layer_types (the listed layers full, the others linear; given whole or as "
     "its repeating part)"},
    {"expand",
     "linear_attention.heads and head_dim (kind: mamba2; their product is expand x hidden_size) "
     "or linear_attention.inner_size (kind: mamba1; expand x hidden_size)"},
    {"mamba_expand",
     "linear_attention.heads and head_dim (kind: mamba2; their product is mamba_expand x "
     "hidden_size) or linear_attention.inner_size (kind: mamba1; mamba_expand x hidden_size)"},
    {"hybrid_override_pattern", "block_pattern (the same string: M, *, - and E a layer)"},
    {"mlp_hidden_act", "ffn_activation (relu2 or swiglu)"},
    {"mamba_num_heads", "linear_attention.heads (kind: mamba2)"},
    {"mamba_head_dim", "linear_attention.head_dim (kind: mamba2)"},
    {"ssm_state_size", "linear_attention.state_size (kind: mamba2 or mamba1)"},
    {"n_groups", "linear_attention.groups (kind: mamba2)"},
    {"conv_kernel", "linear_attention.conv_kernel"},
    {"use_conv_bias", "linear_attention.conv_bias (kind: mamba2 or mamba1)"},
    {"time_step_rank", "linear_attention.dt_rank (kind: mamba1; auto is ceil(hidden_size / 16))"},
    {"attention_head_dim", "head_dim"},
    {"attn_output_gate", "attention_output_gate"},
    {"shared_expert_intermediate_size", "moe.shared_expert_intermediate_size"},
    {"decoder_sparse_step",
     "moe.layer_types (a cycle: 2 is [dense, moe]; 1 is every layer, the default)"},
    {"interleave_moe_layer_step",
     "moe.layer_types (a cycle: 2 is [dense, moe]; 1 is every layer, the default)"},
    {"moe_layers", "moe.layer_types (a cycle of dense and moe over the layers)"},
    {"moe_layer_freq",
     "moe.layer_types (DeepSeek's experts are in the layers whose index is a multiple of k from "
     "moe.dense_layers on: the cycle moe then k - 1 dense; 1 is every layer, the default)"},
    {"expert_layer_period",
     "moe.layer_types (a cycle of expert_layer_period entries, moe at expert_layer_offset: 2 and "
     "1 are [dense, moe])"},
    {"expert_layer_offset",
     "moe.layer_types (a cycle of expert_layer_period entries, moe at expert_layer_offset: 2 and "
     "1 are [dense, moe])"},
    {"intermediate_size_mlp",
     "intermediate_size (the dense layers' FFN width; Llama 4's intermediate_size, the experts' "
     "width, is moe.expert_intermediate_size)"},
    {"mlp_only_layers", "moe.dense_layers (the leading layers with a dense FFN)"},
    {"linear_attn_config",
     "linear_attention (kind: kda; its num_heads, head_dim and short_conv_kernel_size are heads, "
     "head_dim and conv_kernel; its kda_layers and full_attn_layers, counted from 1, are "
     "layer_types' linear and full entries counted from 0)"},
    {"kda_layers",
     "linear_attention.layer_types (the listed layers, counted from 1, are linear; give the "
     "list whole when the pattern does not repeat to the end)"},
    {"full_attn_layers",
     "linear_attention.layer_types (the listed layers, counted from 1, are full; give the list "
     "whole when the pattern does not repeat to the end)"},
    {"short_conv_kernel_size", "linear_attention.conv_kernel"},
    {"attn_type_list",
     "linear_attention.layer_types (0 lightning is linear, 1 softmax is full; given whole or as "
     "its "
     "repeating part)"},
    {"shared_intermediate_size",
     "moe.shared_expert_intermediate_size (Granite 4.0-H's shared MLP is one shared expert; "
     "MiniMax's 0 is none), or intermediate_size in a model without experts (Granite 4.0-H-Micro: "
     "the shared MLP is its dense FFN)"},
    {"num_experts_per_token", "moe.top_k"},
    {"num_shared_experts", "moe.shared_experts"},
    {"sliding_window_pattern",
     "sliding_window.layer_types (a cycle: 6 is [sliding, sliding, sliding, sliding, sliding, "
     "full])"},
};

// Every key a model file may have, checked before reading: a misspelt or config.json key is
// reported as what it is, not as the required key it was meant to be being missing.
void check_model_keys(const ConfigNode& node) {
  for (const ConfigJsonName& n : kConfigJsonNames) {
    if (node.has(n.hf)) {
      node.fail(n.hf, fmt::format("unknown key: Hugging Face config.json's name; famsim calls it "
                                  "{}",
                                  n.ours));
    }
  }
  node.check_known({"preset",
                    "file",
                    "name",
                    "source",
                    "layers",
                    "hidden_size",
                    "attention",
                    "attention_heads",
                    "kv_heads",
                    "head_dim",
                    "mla",
                    "moe",
                    "intermediate_size",
                    "vocab_size",
                    "tie_word_embeddings",
                    "weight_dtype_bytes",
                    "weight_format",
                    "expert_weight_format",
                    "unquantized_dtype_bytes",
                    "kv_dtype_bytes",
                    "kv_format",
                    "sliding_window",
                    "attention_chunk",
                    "linear_attention",
                    "attention_output_gate",
                    "qk_norm",
                    "sparse_attention",
                    "ffn_activation",
                    "block_pattern"});
}

// Keys that do not apply given the rest of the model (MLA's attention, no shared experts, the
// other kind of linear attention): each is an error naming it and `why` when given, and is known
// (not an unknown key) when absent.
void refuse_keys(ConfigNode& n, std::initializer_list<const char*> keys, const std::string& why) {
  for (const char* key : keys) {
    if (n.has(key)) n.fail(key, why);
    n.ignore(key);
  }
}

// A cycle of layer kinds, layer_types of `n`: 1 to `layers` entries, each `kind` or `other`, at
// least one `kind` (its absence is `key` absent). True for `kind`.
std::vector<bool> parse_layer_cycle(ConfigNode& n, const std::string& kind, unsigned layers,
                                    const std::string& key, const std::string& other = "full") {
  const std::vector<std::string> types = n.get_string_list("layer_types");
  if (types.empty() || types.size() > layers) {
    n.fail("layer_types", fmt::format("{} entries; expected 1 to the model's {} layers (a cycle "
                                      "over them)",
                                      types.size(), layers));
  }
  std::vector<bool> cycle;
  for (const std::string& t : types) {
    if (t != kind && t != other) {
      n.fail("layer_types", fmt::format("'{}': expected {} or {} for each entry", t, kind, other));
    }
    cycle.push_back(t == kind);
  }
  if (std::find(cycle.begin(), cycle.end(), true) == cycle.end()) {
    n.fail("layer_types",
           fmt::format("no entry is {}: expected at least one (a model without any leaves out "
                       "{})",
                       kind, key));
  }
  return cycle;
}

// block_pattern: one character a layer (see the header). The linear-attention and MoE keys build
// their cycles from it.
void parse_block_pattern(ConfigNode& node, ModelConfig& m) {
  if (!node.has("block_pattern")) {
    node.ignore("block_pattern");
    return;
  }
  const std::string p = node.get_string("block_pattern", std::nullopt);
  if (p.size() != m.layers) {
    node.fail("block_pattern",
              fmt::format("{} character{}; expected one a layer, {} (layers; to simulate fewer "
                          "layers, give the generator's layers instead)",
                          p.size(), p.size() == 1 ? "" : "s", m.layers));
  }
  const std::size_t bad = p.find_first_not_of("M*-E");
  if (bad != std::string::npos) {
    node.fail("block_pattern",
              fmt::format("'{}' for layer {}: expected M (a linear-attention mixer), * "
                          "(attention), - (a dense FFN) or E (experts)",
                          p[bad], bad));
  }
  if (p.find('*') == std::string::npos) {
    node.fail("block_pattern",
              "no attention layer (*): expected at least one (famsim models hybrid models: a KV "
              "cache in the attention layers)");
  }
  m.blocks = p;
}

// A block pattern's cycle of the layers marked `kind` (one entry a layer), for a part the model
// has (`key` given); without the part, none may be marked. `what` names the part.
std::vector<bool> pattern_cycle(ConfigNode& node, const ModelConfig& m, char kind,
                                const std::string& key, const std::string& what) {
  const std::size_t first = m.blocks.find(kind);
  if (!node.has(key)) {
    if (first != std::string::npos) {
      node.fail("block_pattern", fmt::format("layer {} is {} ({}), but the model has no {} key",
                                             first, kind, what, key));
    }
    return {};
  }
  if (first == std::string::npos) {
    node.fail(key, fmt::format("block_pattern has no {} layer ({}): remove {}, or mark its "
                               "layers {} in block_pattern",
                               kind, what, key, kind));
  }
  std::vector<bool> cycle;
  for (const char c : m.blocks) cycle.push_back(c == kind);
  return cycle;
}

// sliding_window or attention_chunk: W (every layer) or {tokens: W, layer_types: [...]}, the
// cycle's entries `kind` (sliding or chunked) and full (see the header).
void parse_window(ConfigNode& node, ModelConfig& m, const std::string& key,
                  const std::string& kind) {
  constexpr std::uint64_t kMaxWindow = std::uint64_t{1} << 32;
  if (!node.has(key)) {
    node.ignore(key);
    return;
  }
  if (m.has_block_pattern()) {
    node.fail_among({key, "block_pattern"},
                    fmt::format("a model with both block_pattern and {} is not modelled: give "
                                "one of them",
                                key));
  }
  if (m.window_tokens > 0) {
    node.fail_among({key, "sliding_window"},
                    "sliding_window and attention_chunk both limit what a layer attends to: give "
                    "one of them");
  }
  m.window_chunked = kind == "chunked";
  if (!node.is_map(key)) {
    m.window_tokens = node.get_uint(key, std::nullopt, 1, kMaxWindow);
    return;
  }
  ConfigNode w = node.child(key, true);
  m.window_tokens = w.get_uint("tokens", std::nullopt, 1, kMaxWindow);
  if (w.has("layer_types")) {
    m.window_cycle = parse_layer_cycle(w, kind, m.layers, key);
  } else {
    w.ignore("layer_types");
  }
  w.finish();
}

// The kinds of linear attention, in the order the model file's `kind` choices list them.
constexpr LinearKind kLinearKinds[] = {LinearKind::kGatedDeltaNet, LinearKind::kMamba2,
                                       LinearKind::kMamba1, LinearKind::kKda,
                                       LinearKind::kLightning};

constexpr unsigned kind_bit(LinearKind k) { return 1u << static_cast<unsigned>(k); }

// The kinds with a short convolution before the mixer (all but lightning attention).
constexpr unsigned kConvKinds = kind_bit(LinearKind::kGatedDeltaNet) |
                                kind_bit(LinearKind::kMamba2) | kind_bit(LinearKind::kMamba1) |
                                kind_bit(LinearKind::kKda);

// The keys of linear_attention that only some kinds have, and which (a mask of kind_bit); the
// others (kind, layer_types, state_format) every kind has.
struct KindKey {
  const char* key;
  unsigned kinds;
};
constexpr KindKey kKindKeys[] = {
    {"key_heads", kind_bit(LinearKind::kGatedDeltaNet)},
    {"value_heads", kind_bit(LinearKind::kGatedDeltaNet)},
    {"key_head_dim", kind_bit(LinearKind::kGatedDeltaNet)},
    {"value_head_dim", kind_bit(LinearKind::kGatedDeltaNet)},
    {"heads",
     kind_bit(LinearKind::kMamba2) | kind_bit(LinearKind::kKda) | kind_bit(LinearKind::kLightning)},
    {"head_dim",
     kind_bit(LinearKind::kMamba2) | kind_bit(LinearKind::kKda) | kind_bit(LinearKind::kLightning)},
    {"groups", kind_bit(LinearKind::kMamba2)},
    {"state_size", kind_bit(LinearKind::kMamba2) | kind_bit(LinearKind::kMamba1)},
    {"conv_bias", kind_bit(LinearKind::kMamba2) | kind_bit(LinearKind::kMamba1)},
    {"inner_size", kind_bit(LinearKind::kMamba1)},
    {"dt_rank", kind_bit(LinearKind::kMamba1)},
    {"inner_norms", kind_bit(LinearKind::kMamba1)},
    {"conv_kernel", kConvKinds},
    {"conv_state_format", kConvKinds},
};

// A key of another kind than `kind` is named as such ("only applies to kind: mamba2 or mamba1"),
// not as an unknown key.
void refuse_other_kinds_keys(ConfigNode& a, LinearKind kind) {
  for (const KindKey& k : kKindKeys) {
    if ((k.kinds & kind_bit(kind)) != 0) continue;
    std::string owners;
    for (LinearKind owner : kLinearKinds) {
      if ((k.kinds & kind_bit(owner)) == 0) continue;
      owners += (owners.empty() ? "" : " or ") +
                std::string(ModelConfig::LinearAttention::name_of(owner));
    }
    refuse_keys(a, {k.key}, "only applies to kind: " + owners);
  }
}

// linear_attention: {kind, heads, head widths, conv_kernel, layer_types, formats} (see the header).
void parse_linear_attention(ConfigNode& node, ModelConfig& m) {
  std::vector<bool> pattern;
  if (m.has_block_pattern()) {
    pattern = pattern_cycle(node, m, 'M', "linear_attention", "a linear-attention mixer");
  }
  if (!node.has("linear_attention")) {
    node.ignore("linear_attention");
    return;
  }
  if (m.window_tokens > 0) {
    const std::string window = m.window_chunked ? "attention_chunk" : "sliding_window";
    node.fail_among({"linear_attention", window},
                    fmt::format("a model with both linear attention and {} is not modelled: give "
                                "one of them",
                                window));
  }
  ConfigNode a = node.child("linear_attention", true);
  ModelConfig::LinearAttention& l = m.linear;
  std::vector<std::string> names;
  for (LinearKind k : kLinearKinds) names.push_back(ModelConfig::LinearAttention::name_of(k));
  const std::string kind = a.get_choice("kind", std::nullopt, names);
  l.kind = kLinearKinds[std::find(names.begin(), names.end(), kind) - names.begin()];
  refuse_other_kinds_keys(a, l.kind);
  switch (l.kind) {
    case LinearKind::kGatedDeltaNet:
      l.key_heads = get_count(a, "key_heads", 1, 1024);
      l.value_heads = get_count(a, "value_heads", 1, 1024);
      if (l.value_heads % l.key_heads != 0) {
        a.fail("value_heads", fmt::format("must be a multiple of key_heads ({}), got {}",
                                          l.key_heads, l.value_heads));
      }
      l.key_head_dim = get_count(a, "key_head_dim", 1, 1024);
      l.value_head_dim = get_count(a, "value_head_dim", 1, 1024);
      break;
    case LinearKind::kMamba2:
      l.heads = get_count(a, "heads", 1, 1024);
      l.head_dim = get_count(a, "head_dim", 1, 1024);
      l.state_size = get_count(a, "state_size", 1, 1024);
      l.groups = get_count(a, "groups", 1, 1024);
      if (l.heads % l.groups != 0) {
        a.fail("groups", fmt::format("must divide heads ({}), got {}", l.heads, l.groups));
      }
      l.conv_bias = a.get_bool("conv_bias", true);
      break;
    case LinearKind::kMamba1:
      l.inner_size = get_count(a, "inner_size", 1, 262144);
      l.state_size = get_count(a, "state_size", 1, 1024);
      l.dt_rank = get_count(a, "dt_rank", 1, 65536);
      l.conv_bias = a.get_bool("conv_bias", true);
      l.inner_norms = a.get_bool("inner_norms", false);
      break;
    case LinearKind::kKda:
    case LinearKind::kLightning:
      l.heads = get_count(a, "heads", 1, 1024);
      l.head_dim = get_count(a, "head_dim", 1, 1024);
      break;
  }
  if ((kConvKinds & kind_bit(l.kind)) != 0) {
    l.conv_kernel = get_count(a, "conv_kernel", 2, 64);  // a state of conv_kernel - 1 inputs
    l.conv_state_format = get_number_format(a, "conv_state_format", "bf16");
  }
  if (m.has_block_pattern()) {
    refuse_keys(a, {"layer_types"}, "block_pattern says which layers are linear (M): remove it");
    l.cycle = std::move(pattern);
  } else {
    l.cycle = parse_layer_cycle(a, "linear", m.layers, "linear_attention");
    if (std::find(l.cycle.begin(), l.cycle.end(), false) == l.cycle.end()) {
      a.fail("layer_types",
             "no entry is full: expected at least one (famsim models hybrid models: "
             "a KV cache in the full layers, recurrent states in the linear ones)");
    }
  }
  l.state_format = get_number_format(a, "state_format", "fp32");
  a.finish();
}

// sparse_attention (see the header): DeepSeek Sparse Attention's top_k and lightning indexer.
void parse_sparse_attention(ConfigNode& node, ModelConfig& m) {
  if (!node.has("sparse_attention")) {
    node.ignore("sparse_attention");
    return;
  }
  if (m.attention != AttentionKind::kMla || m.mla_q_lora_rank == 0) {
    node.fail("sparse_attention",
              "the indexer takes its queries from MLA's compressed query: expected attention: mla "
              "with mla.q_lora_rank above 0 (DeepSeek-V3.2)");
  }
  for (const char* other :
       {"sliding_window", "attention_chunk", "linear_attention", "block_pattern"}) {
    if (node.has(other)) {
      node.fail_among({"sparse_attention", other},
                      fmt::format("sparse_attention is not modelled together with {}: give one "
                                  "of them",
                                  other));
    }
  }
  ConfigNode s = node.child("sparse_attention", true);
  m.sparse.top_k = get_count(s, "top_k", 1, 1u << 30);
  m.sparse.index_heads = get_count(s, "index_heads", 1, 1024);
  m.sparse.index_head_dim = get_count(s, "index_head_dim", 1, 1024);
  if (s.has("index_key_format")) {
    m.sparse.index_key_format = get_number_format(s, "index_key_format");
  } else {
    s.ignore("index_key_format");
  }
  s.finish();
}

}  // namespace

ModelConfig parse_model(ConfigNode node) {
  check_model_keys(node);
  ModelConfig m;
  m.name = node.get_string("name", std::nullopt);
  m.source = node.get_string("source", std::nullopt);
  if (m.name.empty()) node.fail("name", "expected a non-empty model name");
  if (m.source.empty()) node.fail("source", "expected where the numbers come from");
  m.layers = get_count(node, "layers", 1, 1024);
  parse_block_pattern(node, m);
  m.hidden = get_count(node, "hidden_size", 1, 65536);
  m.heads = get_count(node, "attention_heads", 1, 1024);
  m.attention = node.get_choice("attention", std::string("gqa"), {"gqa", "mla"}) == "mla"
                    ? AttentionKind::kMla
                    : AttentionKind::kGqa;

  if (m.attention == AttentionKind::kGqa) {
    if (node.has("mla")) node.fail("mla", "only applies to attention: mla");
    m.kv_heads = get_count(node, "kv_heads", 1, 1024);
    if (m.heads % m.kv_heads != 0) {
      node.fail("kv_heads", fmt::format("attention_heads ({}) must be a multiple of kv_heads ({})",
                                        m.heads, m.kv_heads));
    }
    if (node.has("head_dim")) {
      m.head_dim = get_count(node, "head_dim", 1, 1024);
    } else {
      node.ignore("head_dim");
      if (m.hidden % m.heads != 0 || m.hidden / m.heads > 1024) {
        node.fail("head_dim",
                  fmt::format("missing, and hidden_size ({}) / attention_heads ({}) is not a whole "
                              "head width: give head_dim",
                              m.hidden, m.heads));
      }
      m.head_dim = m.hidden / m.heads;
    }
  } else {
    for (const char* key : {"kv_heads", "head_dim"}) {
      if (node.has(key)) {
        node.fail(key,
                  "is derived from the mla ranks for attention: mla (every head has its own "
                  "key and value); remove it");
      }
    }
    ConfigNode mla = node.child("mla", true);
    m.mla_kv_lora_rank = get_count(mla, "kv_lora_rank", 1, 65536);
    m.mla_rope_head_dim = get_count(mla, "qk_rope_head_dim", 1, 1024);
    m.mla_q_lora_rank = get_count(mla, "q_lora_rank", 0, 65536);
    m.mla_qk_nope_head_dim = get_count(mla, "qk_nope_head_dim", 1, 1024);
    m.mla_v_head_dim = get_count(mla, "v_head_dim", 1, 1024);
    mla.finish();
    m.kv_heads = m.heads;
    m.head_dim = m.mla_qk_nope_head_dim + m.mla_rope_head_dim;
  }

  std::vector<bool> moe_pattern;
  if (m.has_block_pattern()) moe_pattern = pattern_cycle(node, m, 'E', "moe", "experts");
  if (node.has("moe")) {
    ConfigNode moe = node.child("moe", true);
    m.experts = get_count(moe, "experts", 1, 4096);
    m.top_k = get_count(moe, "top_k", 1, 4096);
    if (m.top_k > m.experts) {
      moe.fail("top_k", fmt::format("a token cannot use {} of {} experts: top_k must be <= experts",
                                    m.top_k, m.experts));
    }
    m.shared_experts = static_cast<unsigned>(moe.get_uint("shared_experts", 0, 0, 64));
    m.expert_intermediate = get_count(moe, "expert_intermediate_size", 1, 1u << 20);
    if (m.has_block_pattern()) {
      refuse_keys(moe, {"dense_layers", "layer_types"},
                  "block_pattern says which layers have experts (E): remove it");
      m.moe_cycle = std::move(moe_pattern);
    } else {
      m.dense_layers = static_cast<unsigned>(moe.get_uint("dense_layers", 0, 0, m.layers - 1));
      if (moe.has("layer_types")) {
        m.moe_cycle = parse_layer_cycle(moe, "moe", m.layers, "moe", "dense");
        if (m.moe_layers(m.layers) == 0) {
          moe.fail("layer_types",
                   fmt::format("no layer from moe.dense_layers ({}) on has experts: expected at "
                               "least one MoE layer in the model's {} layers",
                               m.dense_layers, m.layers));
        }
      } else {
        moe.ignore("layer_types");
      }
    }
    if (m.shared_experts == 0) {
      refuse_keys(moe, {"shared_expert_intermediate_size", "shared_expert_gate"},
                  "the model has no shared experts (moe.shared_experts is 0)");
      m.shared_intermediate = m.expert_intermediate;  // no shared expert: unused
    } else {
      m.shared_intermediate = static_cast<unsigned>(
          moe.get_uint("shared_expert_intermediate_size", m.expert_intermediate, 1, 1u << 20));
      m.shared_expert_gate = moe.get_bool("shared_expert_gate", false);
    }
    moe.finish();
  } else {
    node.ignore("moe");
  }

  unsigned dense_ffn_layers = 0;
  for (unsigned l = 0; l < m.layers; ++l) dense_ffn_layers += m.has_dense_ffn(l) ? 1 : 0;
  const char* dense_marks = m.has_block_pattern()
                                ? "`-` in block_pattern"
                                : "moe.dense_layers, or `dense` in moe.layer_types";
  if (dense_ffn_layers > 0) {
    if ((m.is_moe() || m.has_block_pattern()) && !node.has("intermediate_size")) {
      node.fail("intermediate_size",
                fmt::format("missing: {} of the model's {} layers have a dense FFN ({}); "
                            "expected its width, 1..1048576 (Llama 4's intermediate_size_mlp)",
                            dense_ffn_layers, m.layers, dense_marks));
    }
    m.intermediate = get_count(node, "intermediate_size", 1, 1u << 20);
  } else if (node.has("intermediate_size")) {
    node.fail(
        "intermediate_size",
        fmt::format(
            "no layer has a dense FFN ({}); {}(next to a preset that gives "
            "intermediate_size, write intermediate_size: ~ to drop it)",
            m.has_block_pattern() ? "block_pattern has no -"
                                  : "moe.dense_layers is 0 and moe.layer_types, if given, is all "
                                    "moe",
            m.is_moe() ? "the experts' width is moe.expert_intermediate_size " : "remove it "));
  } else {
    node.ignore("intermediate_size");
  }

  m.vocab = get_count(node, "vocab_size", 1, 1u << 22);
  m.tied_embeddings = node.get_bool("tie_word_embeddings", false);
  m.weight_format = get_format_or_bytes(node, kWeightFormatKeys);
  if (node.has("expert_weight_format")) {
    if (!m.is_moe()) node.fail("expert_weight_format", "the model has no experts (no moe)");
    m.expert_format = get_number_format(node, "expert_weight_format");
  } else {
    node.ignore("expert_weight_format");
    m.expert_format = m.weight_format;
  }
  const unsigned linear_bytes = m.weight_format.whole_bytes();
  m.unquantized_dtype_bytes =
      get_dtype_bytes(node, "unquantized_dtype_bytes", linear_bytes ? linear_bytes : 2);
  if (node.has("kv_format") && !node.is_map("kv_format") &&
      node.get_string("kv_format", std::nullopt) == "fp8_ds_mla") {
    // DeepSeek's FP8 MLA entry (see the key list): not a format of every value alike.
    if (m.attention != AttentionKind::kMla) {
      node.fail("kv_format",
                "fp8_ds_mla is DeepSeek's layout of an MLA latent and RoPE key: it "
                "only applies to attention: mla");
    }
    if (node.has("kv_dtype_bytes")) {
      node.fail_among({"kv_format", "kv_dtype_bytes"},
                      "kv_format and kv_dtype_bytes both say how the values are stored: give one "
                      "of them");
    }
    node.ignore("kv_dtype_bytes");
    m.kv_format = NumberFormat{"fp8_ds_mla", 8, 128, 32};
    m.kv_fp8_ds_mla = true;
  } else {
    m.kv_format = get_format_or_bytes(node, kKvFormatKeys);
  }
  m.ffn_gated =
      node.get_choice("ffn_activation", std::string("swiglu"), {"swiglu", "relu2"}) == "swiglu";
  if (node.has("ffn_activation") && m.has_block_pattern() &&
      m.blocks.find_first_of("-E") == std::string::npos) {
    node.fail("ffn_activation", "no layer has an FFN (block_pattern has no - or E): remove it");
  }
  if (m.attention == AttentionKind::kMla) {
    refuse_keys(node, {"qk_norm", "attention_output_gate"}, "only applies to attention: gqa");
  } else {
    m.qk_norm = node.get_bool("qk_norm", false);
    m.attention_output_gate = node.get_bool("attention_output_gate", false);
  }
  parse_window(node, m, "sliding_window", "sliding");
  parse_window(node, m, "attention_chunk", "chunked");
  parse_linear_attention(node, m);
  parse_sparse_attention(node, m);
  node.finish();
  return m;
}

}  // namespace famsim
