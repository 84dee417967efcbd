// prefill: prompt prefill with prefix-cache reuse, from synthetic prompts or a Mooncake trace.
//
// Keys (stream.prefill):
//   model             the model (traffic/ai/generators.h)
//   location          where the KV cache (and prefix cache) lives, e.g. device/fam0
//   block_tokens      tokens per KV block, the unit of reuse, default 16; for a hybrid model the
//                     block that holds a state (llm_common.h parse_block_tokens); a block's KV
//                     vector of one layer on one GPU is at most 1 GiB
//   cache_tokens      prefix-cache capacity per GPU, tokens (LRU over blocks; rounded up to whole
//                     blocks, at least one: block_tokens); default: every block of the synthetic
//                     prompts (required with a trace)
//   tensor_parallel, layers, compute (tokens = the prompt's new tokens), prefetch_layers (0)
//   all_reduce        with tensor_parallel > 1: the group's all-reduces after each layer (two a
//                     layer, the prompt's new tokens (at least 1) x hidden_size x dtype_bytes each)
//                     simulated over the fabric: ring | one_shot | two_shot | none (default;
//                     llm_common.h AllReduceConfig)
//   Synthetic prompts:
//     prompts               number of prompts
//     input_tokens          N or {min, max}
//     shared_prefix_tokens  leading tokens identical within a prefix group (a system prompt),
//                           default 0, at most the longest prompt (input_tokens)
//     prefix_groups         distinct shared prefixes, prompt j in group j mod G, default 1, at
//                           most prompts (more groups than prompts are groups without a prompt)
//     arrival_interval_ns   prompt j arrives at j x this, default 0 (all at once)
//   Or a request trace:
//     trace: {file: F, block_tokens: 512, time_scale: 1.0, max_requests: N}
//       Mooncake JSONL (traffic/trace/request_trace.h); each hash id names trace.block_tokens
//       tokens (Mooncake: 512), so a line has at most ceil(input_length / trace.block_tokens) of
//       them (more: the trace was made with smaller blocks, an error naming the line); a request
//       arrives at timestamp x time_scale.
//
// The stream's GPUs form tensor-parallel groups (tensor_parallel consecutive GPUs); a prompt goes
// to the group chosen by a hash of its first block (cache-affinity routing, as Mooncake's
// scheduler prefers the node holding the prefix), and every GPU of the group prefills it on its
// share of the KV heads (1/tensor_parallel of the KV bytes and of the compute). Each GPU keeps its
// own prefix cache of its shard; a group's GPUs see the same prompts, so their caches agree. Per
// prompt, in arrival order on its GPU: the leading blocks found in the cache are reused (read, per
// layer and KV vector); the rest are written (and enter the cache). Reuse stops at the first block
// not in the cache. Only full blocks are shared between prompts (a partly filled last block is the
// prompt's own), as prefix caching hashes full blocks. Output tokens are not decoded here
// (kv_decode models decode).
//
// A hybrid model's linear-attention layer (ModelConfig::is_linear_layer) keeps no KV: as vLLM's
// prefix caching does for such layers, each cached block holds the layer's state (recurrent and
// convolution) as it stands at the block's end, so a prefix hit resumes only at a block boundary
// (vLLM then enlarges block_tokens so that a block's KV page is at least a state: give
// block_tokens as the deployment sets it). Per prompt and linear layer: the state of the last
// reused block is read (none without reuse), and each new block's state is written to its slot
// (the last, partly filled block's is the state decode continues from). The state snapshots are a
// region of their own beside the KV cache's, on `location`, one per cache slot and linear layer.
// A block pattern's layer of an FFN alone keeps neither KV nor state: its phase has no accesses,
// only its compute.
//
// Sparse attention (ModelConfig::sparse, DeepSeek-V3.2): each cache slot also holds its block's
// index keys (after the layer's KV vectors' slots); a reused block's keys are read (the indexer
// scores the prefix) and a new block's written, beside its KV. A reused prefix's KV is read once,
// as for dense attention: a prompt's new tokens each select top_k tokens of what precedes them,
// and famsim takes the union of their selections to be the whole prefix, an assumption that
// overstates the reads of a prompt with few new tokens after a long prefix.
#include "traffic/ai/generators.h"
#include "models/core/time_text.h"
#include "traffic/ai/llm_common.h"
#include "traffic/pattern.h"
#include "traffic/trace/request_trace.h"

#include "models/core/stats.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <unordered_map>

namespace famsim {

namespace {

// The most KV blocks one prompt may have (PromptFeed::own_key): 16 Mi, 256 Mi tokens in blocks of
// 16, far past any model's context.
constexpr std::uint64_t kMaxPromptBlocks = std::uint64_t{1} << 24;

struct PrefillParams {
  ModelConfig model;
  Placement where;
  unsigned block_tokens = 16;
  std::uint64_t cache_tokens = 0;
  bool cache_tokens_default = false;  // every block of the synthetic prompts
  unsigned tp = 1;
  unsigned layers = 1;
  ComputeModel compute;
  unsigned prefetch = 0;
  AllReduceConfig all_reduce;
  // Synthetic
  std::uint64_t prompts = 0;
  TokenRange input;
  std::uint64_t shared_prefix = 0;
  std::uint64_t groups = 1;
  double arrival_interval_ns = 0;
  // Trace
  std::string trace;
  std::uint64_t trace_block_tokens = 512;
  double time_scale = 1.0;
  std::uint64_t max_requests = 0;  // 0: all

  std::uint64_t vector_bytes() const { return model.kv_vector_bytes(tp); }
  // Where a layer's blocks (KV vectors, and index keys with sparse attention) lie in a region.
  KvBlockLayout layout() const { return KvBlockLayout(model, block_tokens, tp); }
  std::uint64_t block_bytes() const { return layout().block_bytes; }
  std::uint64_t slots() const { return (cache_tokens + block_tokens - 1) / block_tokens; }
  // Of the simulated layers, those that keep KV blocks and those that keep states.
  unsigned kv_layers() const { return model.kv_layers(layers); }
  unsigned linear_layers() const { return model.linear_layers(layers); }
};

// One prompt, as the generator sees it.
struct Prompt {
  std::uint64_t index = 0;
  std::uint64_t arrival_ps = 0;
  std::uint64_t tokens = 0;
  std::vector<std::uint64_t> keys;  // one per KV block
};

// Produces the prompts of one GPU, in arrival order.
class PromptFeed {
 public:
  PromptFeed(const PrefillParams& p, unsigned rank, unsigned ranks, std::uint64_t seed)
      : p_(p), rank_(rank), ranks_(ranks), rng_(seed) {
    if (!p.trace.empty()) reader_.emplace(p.trace);
  }
  bool next(Prompt& out) {
    for (;;) {
      if (!produce(out)) return false;
      if (mix64(out.keys.empty() ? out.index : out.keys[0]) % ranks_ == rank_) return true;
    }
  }

 private:
  // Block keys: a shared block's key is even, a prompt's own block's odd, (prompt, block) in the
  // rest: distinct while a prompt has at most kMaxPromptBlocks blocks (checked on the
  // configuration and on each trace line) and there are fewer than 2^39 prompts.
  static std::uint64_t own_key(std::uint64_t prompt, std::uint64_t block) {
    return ((prompt << 24 | block) << 1) | 1;
  }

  // A trace's hash id as the shared blocks' keys use it: below 2^40 as it is (Mooncake numbers
  // blocks from 0); larger ids (a trace of 64-bit content hashes) numbered from 2^40 in the order
  // they first appear, so that hash x per_hash (per_hash at most 2^20) cannot wrap and make two
  // different blocks one. Every GPU's feed reads the whole trace, so all number them alike.
  static constexpr std::uint64_t kDirectHashIds = std::uint64_t{1} << 40;
  std::uint64_t block_hash(std::uint64_t id) {
    if (id < kDirectHashIds) return id;
    return big_hash_ids_.try_emplace(id, kDirectHashIds + big_hash_ids_.size()).first->second;
  }

  bool produce(Prompt& out) {
    const std::uint64_t bt = p_.block_tokens;
    out.keys.clear();
    if (reader_) {
      if (p_.max_requests && produced_ >= p_.max_requests) return false;
      if (!reader_->next(record_)) return false;
      out.index = produced_++;
      out.tokens = record_.input_length;
      const double arrival_ps = record_.timestamp_ms * 1e9 * p_.time_scale;
      if (arrival_ps > static_cast<double>(kMaxSimTimePs)) {
        // An error naming the line, not a wake-up the scheduler refuses without saying why.
        throw TraceError(fmt::format(
            "{}:{}: timestamp {} ms{} is past 2^48 ps (281 s), the longest famsim represents; "
            "expected a timestamp below {} ms",
            p_.trace, record_.line, record_.timestamp_ms,
            p_.time_scale == 1.0
                ? std::string()
                : fmt::format(" x time_scale {} = {} ms", p_.time_scale, ms_of_ps(arrival_ps)),
            ms_of_ps(static_cast<double>(kMaxSimTimePs) / p_.time_scale)));
      }
      out.arrival_ps = static_cast<std::uint64_t>(std::llround(arrival_ps));
      const std::uint64_t per_hash = p_.trace_block_tokens / bt;
      // Hash ids past the prompt's last trace block would name tokens it does not have: the
      // trace's blocks are smaller than trace.block_tokens says, and every reuse it gives would
      // be read at the wrong tokens.
      const std::uint64_t hash_blocks =
          (out.tokens + p_.trace_block_tokens - 1) / p_.trace_block_tokens;
      if (record_.hash_ids.size() > hash_blocks) {
        throw TraceError(fmt::format(
            "{}:{}: {} hash_ids of trace.block_tokens {} tokens each name {} tokens, more than "
            "input_length {} has ({} block{}); expected at most {} hash_ids, or the trace's "
            "block size as trace.block_tokens",
            p_.trace, record_.line, record_.hash_ids.size(), p_.trace_block_tokens,
            record_.hash_ids.size() * p_.trace_block_tokens, out.tokens, hash_blocks,
            hash_blocks == 1 ? "" : "s", hash_blocks));
      }
      const std::uint64_t blocks = (out.tokens + bt - 1) / bt;
      if (blocks > kMaxPromptBlocks) {
        throw TraceError(fmt::format(
            "{}:{}: input_length {} is {} KV blocks of block_tokens {}; expected at most {} "
            "blocks per prompt ({} tokens)",
            p_.trace, record_.line, out.tokens, blocks, bt, kMaxPromptBlocks,
            kMaxPromptBlocks * bt));
      }
      for (std::uint64_t k = 0; k < blocks; ++k) {
        const std::uint64_t h = k / per_hash;
        // Blocks beyond the trace's hash ids, and a partly filled last block, are the prompt's
        // own: only full blocks are shared (prefix caching hashes full blocks, as vLLM does).
        const bool full = (k + 1) * bt <= out.tokens;
        out.keys.push_back(full && h < record_.hash_ids.size()
                               ? (block_hash(record_.hash_ids[h]) * per_hash + k % per_hash) << 1
                               : own_key(out.index, k));
      }
      return true;
    }
    if (produced_ >= p_.prompts) return false;
    out.index = produced_++;
    out.tokens = p_.input.draw(rng_);
    out.arrival_ps = static_cast<std::uint64_t>(
        std::llround(static_cast<double>(out.index) * p_.arrival_interval_ns * 1000.0));
    const std::uint64_t group = out.index % p_.groups;
    const std::uint64_t blocks = (out.tokens + bt - 1) / bt;
    for (std::uint64_t k = 0; k < blocks; ++k) {
      // A block is shared only if all its tokens are in the shared prefix.
      const bool shared = (k + 1) * bt <= p_.shared_prefix && (k + 1) * bt <= out.tokens;
      out.keys.push_back(shared ? (group << 32 | k) << 1 : own_key(out.index, k));
    }
    return true;
  }

  const PrefillParams& p_;
  unsigned rank_;
  unsigned ranks_;
  boost::random::mt19937_64 rng_;
  std::optional<MooncakeReader> reader_;
  std::unordered_map<std::uint64_t, std::uint64_t> big_hash_ids_;  // block_hash()
  MooncakeRecord record_;
  std::uint64_t produced_ = 0;
};

class PrefillSource : public PhasedSource {
 public:
  PrefillSource(const PrefillParams& p, const SourceContext& c, unsigned ranks)
      : PhasedSource(p.prefetch),
        p_(p),
        feed_(p, c.rank / p.tp, ranks / p.tp, mix64(c.sim_seed ^ (std::uint64_t{c.stream} << 32))),
        cache_(p.slots()) {
    std::size_t region = 0;  // as PrefillSpec::regions lists them
    if (p.kv_layers() > 0) base_ = c.region_va[region++];
    if (p.linear_layers() > 0) state_va_ = c.region_va[region++];
  }

  nlohmann::json report() const override {
    nlohmann::json j = {
        {"prompts_done", phases_done() / p_.layers},
        {"input_tokens", tokens_},
        {"reused_tokens", reused_tokens_},
        {"reuse_fraction",
         tokens_ ? static_cast<double>(reused_tokens_) / static_cast<double>(tokens_) : 0.0},
        {"read_bytes", read_},
        {"write_bytes", written_},
        {"cache_evictions", cache_.evictions()},
        {"prefill_latency_ns", latency_.to_json()},
        {"prompt_latency_ns", prompt_latency_ns_},
        {"prompt_service_ns", prompt_service_ns_}};
    if (p_.linear_layers() > 0) {
      j["read_bytes_state"] = read_state_;
      j["write_bytes_state"] = written_state_;
    }
    if (p_.model.has_sparse_attention()) {
      j["read_bytes_index_keys"] = read_index_;
      j["write_bytes_index_keys"] = written_index_;
    }
    if (p_.all_reduce.on) {
      const std::uint64_t prompts = phases_done() / p_.layers;
      j["mean_all_reduce_ns_per_prompt"] =
          prompts ? static_cast<double>(all_reduce_ps_) * 1e-3 / static_cast<double>(prompts) : 0.0;
      j["all_reduce_bytes_written"] = collective_bytes_written();
    }
    return j;
  }

 protected:
  bool open_phase(std::uint64_t i, PhaseStart& start) override {
    layer_ = static_cast<unsigned>(i % p_.layers);
    if (layer_ == 0) {
      if (!feed_.next(prompt_)) return false;
      arrivals_.push_back(prompt_.arrival_ps);
      // Reuse the leading blocks the cache holds; the rest are written and cached.
      slot_.clear();
      reused_blocks_ = 0;
      bool reusing = true;
      for (std::uint64_t key : prompt_.keys) {
        std::uint64_t s = 0;
        if (reusing && cache_.find(key, s)) {
          ++reused_blocks_;
        } else {
          reusing = false;
          if (!cache_.find(key, s) && !cache_.insert(key, s)) s = kNoSlot;
        }
        slot_.push_back(s);
      }
      const std::uint64_t reused = std::min(prompt_.tokens, reused_blocks_ * p_.block_tokens);
      tokens_ += prompt_.tokens;
      reused_tokens_ += reused;
      new_tokens_ = prompt_.tokens - reused;
    }
    start.not_before_ps = prompt_.arrival_ps;
    start.compute_ps =
        p_.compute.layer_ps(p_.model, layer_, std::max<std::uint64_t>(1, new_tokens_), p_.tp);
    p_.all_reduce.set_phase(start, p_.model, layer_, std::max<std::uint64_t>(1, new_tokens_));
    linear_ = p_.model.is_linear_layer(layer_);
    attention_ = p_.model.is_attention_layer(layer_);
    kv_layer_ = p_.model.kv_layers(layer_);
    state_layer_ = p_.model.linear_layers(layer_);
    block_ = 0;
    vec_ = 0;
    state_.reset();
    return true;
  }

  bool phase_access(Access& a) override {
    if (linear_) return state_access(a);
    if (!attention_) return false;  // a block pattern's FFN layer: weights only
    const unsigned vectors = p_.model.kv_vectors();
    // Each block's KV vectors, then with sparse attention its index keys.
    const bool sparse = p_.model.has_sparse_attention();
    const unsigned parts = vectors + (sparse ? 1 : 0);
    while (block_ < slot_.size()) {
      const std::uint64_t k = block_;
      const std::uint64_t s = slot_[k];
      const unsigned v = vec_;
      if (++vec_ == parts) {
        vec_ = 0;
        ++block_;
      }
      if (s == kNoSlot) continue;  // no cache room: the block is not kept
      std::uint64_t tokens =
          std::min<std::uint64_t>(p_.block_tokens, prompt_.tokens - k * p_.block_tokens);
      std::uint64_t skip = 0;
      if (k < reused_blocks_) {
        // A sliding-window (or chunked) layer reads only the reused tokens its first new token
        // attends to: the newest W - 1 before it (those of its own chunk); later new tokens reach
        // back less far into the prefix.
        const std::uint64_t reused = reused_blocks_ * p_.block_tokens;
        const std::uint64_t first = reused - p_.model.attended_tokens(layer_, reused);
        if ((k + 1) * p_.block_tokens <= first) continue;
        if (k * p_.block_tokens < first) skip = first - k * p_.block_tokens;
        tokens -= skip;
      }
      const KvBlockLayout layout = p_.layout();
      const std::uint64_t layer_va =
          base_ + std::uint64_t{kv_layer_} * p_.slots() * layout.slot_bytes();
      a.write = k >= reused_blocks_;
      if (v == vectors) {  // the block's index keys (no window: sparse attention has none)
        a.va = layer_va + layout.index_offset(s, p_.slots());
        a.bytes = static_cast<std::uint32_t>(tokens * p_.model.index_key_bytes());
        (a.write ? written_index_ : read_index_) += a.bytes;
      } else {
        a.va = layer_va + layout.kv_offset(v, s, p_.slots()) + skip * p_.vector_bytes();
        a.bytes = static_cast<std::uint32_t>(tokens * p_.vector_bytes());
      }
      (a.write ? written_ : read_) += a.bytes;
      return true;
    }
    return false;
  }

  void phase_finished(const PhaseTimes& t) override {
    prompt_all_reduce_ps_ += t.end_ps - t.compute_end_ps;
    if (t.index % p_.layers == p_.layers - 1) {
      // Counted for finished prompts only, as the mean divides by them.
      all_reduce_ps_ += prompt_all_reduce_ps_;
      prompt_all_reduce_ps_ = 0;
      const std::uint64_t arrival = arrivals_[t.index / p_.layers];
      const std::uint64_t end = t.end_ps;  // after its last layer's all-reduces, if any
      // Its service: from its arrival, or from the end of the GPU's previous prompt if that was
      // later (the time before it is queueing behind earlier prompts).
      const std::uint64_t start = std::min(std::max(arrival, previous_end_ps_), end);
      previous_end_ps_ = end;
      latency_.add_ps(end - std::min(arrival, end));
      prompt_latency_ns_.push_back(static_cast<double>(end - std::min(arrival, end)) * 1e-3);
      prompt_service_ns_.push_back(static_cast<double>(end - start) * 1e-3);
    }
  }

 private:
  static constexpr std::uint64_t kNoSlot = ~std::uint64_t{0};
  // A linear-attention layer's accesses: the last reused block's state read, each new block's
  // written.
  bool state_access(Access& a) {
    while (block_ < slot_.size()) {
      const std::uint64_t k = block_;
      const std::uint64_t s = slot_[k];
      const bool reused = k < reused_blocks_;
      if (s == kNoSlot || (reused && k + 1 != reused_blocks_)) {
        ++block_;  // not kept (no cache room), or a reused block before the last: no access
        continue;
      }
      const std::uint64_t state_bytes = p_.model.state_bytes_per_layer(p_.tp);
      if (state_.next(p_.model, p_.tp,
                      state_va_ + (std::uint64_t{state_layer_} * p_.slots() + s) * state_bytes,
                      a)) {
        ++block_;
      }
      a.write = !reused;
      (a.write ? written_state_ : read_state_) += a.bytes;
      (a.write ? written_ : read_) += a.bytes;
      return true;
    }
    return false;
  }

  const PrefillParams& p_;
  std::uint64_t base_ = 0;
  std::uint64_t state_va_ = 0;
  PromptFeed feed_;
  LruSlots cache_;
  Prompt prompt_;
  std::vector<std::uint64_t> slot_;
  std::uint64_t reused_blocks_ = 0;
  std::uint64_t new_tokens_ = 0;
  std::uint64_t all_reduce_ps_ = 0;         // the finished prompts' layers', after their compute
  std::uint64_t prompt_all_reduce_ps_ = 0;  // the finished layers of the prompt in progress
  unsigned layer_ = 0;
  bool linear_ = false;       // the layer has linear attention: states, no KV
  bool attention_ = false;    // the layer has full attention: KV blocks
  unsigned kv_layer_ = 0;     // its place among the simulated layers with KV blocks
  unsigned state_layer_ = 0;  // its place among the linear-attention layers
  std::uint64_t block_ = 0;
  unsigned vec_ = 0;
  StateWalk state_;  // in a linear-attention layer, the place in a block's state
  std::vector<std::uint64_t> arrivals_;
  std::uint64_t tokens_ = 0, reused_tokens_ = 0, read_ = 0, written_ = 0;
  std::uint64_t read_state_ = 0, written_state_ = 0;
  std::uint64_t read_index_ = 0, written_index_ = 0;  // sparse attention's index keys
  LatencyHistogram latency_;
  // Per prompt, in order: from its arrival, and from its service's start, to its last simulated
  // layer's compute end (ns), for the group's critical path (TpGroups).
  std::vector<double> prompt_latency_ns_;
  std::vector<double> prompt_service_ns_;
  std::uint64_t previous_end_ps_ = 0;
};

class PrefillSpec : public GeneratorSpec {
 public:
  PrefillSpec(PrefillParams p, unsigned ranks) : p_(std::move(p)), ranks_(ranks) {}
  const char* kind() const override { return "prefill"; }
  std::vector<RegionSpec> regions() const override {
    const std::vector<std::string> keys =
        p_.cache_tokens_default
            ? std::vector<std::string>{"prompts", "input_tokens", "cache_tokens", "block_tokens",
                                       "layers"}
            : std::vector<std::string>{"cache_tokens", "block_tokens", "layers"};
    const std::string blocks = fmt::format(
        "{} blocks (cache_tokens {}{})", p_.slots(), p_.cache_tokens,
        p_.cache_tokens_default ? fmt::format(", by default every block of {} prompts of up to {} "
                                              "tokens",
                                              p_.prompts, p_.input.max)
                                : "");
    std::vector<RegionSpec> r;
    if (p_.kv_layers() > 0) {
      r.push_back({"kv_cache",
                   std::uint64_t{p_.kv_layers()} * p_.slots() * p_.layout().slot_bytes(), p_.where,
                   true, keys,
                   fmt::format("{} layers x {} KV vectors x {} x {} B a block of {} tokens "
                               "(tensor_parallel {}){}",
                               p_.kv_layers(), p_.model.kv_vectors(), blocks, p_.block_bytes(),
                               p_.block_tokens, p_.tp, p_.layout().index_keys_text())});
    }
    if (p_.linear_layers() > 0) {
      r.push_back(
          {"state_snapshots",
           std::uint64_t{p_.linear_layers()} * p_.slots() * p_.model.state_bytes_per_layer(p_.tp),
           p_.where, true, keys,
           fmt::format("{} linear-attention layers x {} x {} B of state a block "
                       "(tensor_parallel {})",
                       p_.linear_layers(), blocks, p_.model.state_bytes_per_layer(p_.tp), p_.tp)});
    }
    return r;
  }
  // A tensor-parallel group's GPUs end each layer of a prompt together (its all-reduces).
  unsigned synchronised_group() const override { return p_.tp; }
  // The largest message: the longest synthetic prompt's, or a trace's longest possible.
  Collectives collectives() const override {
    const std::uint64_t tokens = p_.trace.empty() ? p_.input.max : kMaxTokens;
    return p_.all_reduce.collectives(p_.all_reduce.message_bytes(p_.model, tokens));
  }
  std::unique_ptr<AccessSource> make_source(const SourceContext& c) const override {
    return std::make_unique<PrefillSource>(p_, c, ranks_);
  }
  // Each synthetic prompt goes to one tensor-parallel group, whose tensor_parallel GPUs each run
  // one phase per simulated layer. A trace's prompts are counted as it is read: not known.
  std::uint64_t phases_total(unsigned /*gpus*/) const override {
    return p_.trace.empty() ? p_.prompts * p_.tp * p_.layers : 0;
  }
  // Synthetic prompts: every GPU of the group a prompt goes to reads (reused) or writes (new)
  // each of its tokens' KV shard per simulated full-attention layer, so the stream moves prompts x
  // tensor_parallel x input_tokens.min tokens at least. A sliding-window or chunked layer may
  // read only part of a reused prefix, and a linear-attention layer moves states, not tokens:
  // neither is counted. A trace's prompts are read during the run: no figure.
  std::vector<MovedBytes> bytes_moved_at_least(unsigned /*gpus*/) const override {
    if (!p_.trace.empty()) return {};
    const unsigned full = p_.kv_layers() - p_.model.windowed_layers(p_.layers);
    if (full == 0) return {};
    // With sparse attention a token's index key moves with its KV.
    const std::uint64_t per_token =
        (p_.model.kv_bytes_per_token_layer(p_.tp) + p_.model.index_key_bytes()) * full;
    MovedBytes m;
    m.bytes = static_cast<double>(p_.prompts) * p_.tp * static_cast<double>(p_.input.min) *
              static_cast<double>(per_token);
    m.where = {p_.where};
    m.keys = {"prompts", "input_tokens", "layers"};
    m.how = fmt::format(
        "{} prompts x tensor_parallel {} x {} tokens (input_tokens at least) x {} B of KV (and "
        "index keys) per token on each GPU ({} layers with full attention)",
        p_.prompts, p_.tp, p_.input.min, per_token, full);
    return {m};
  }
  // The stream's result. Each tensor-parallel group prefills its own prompts, every GPU of it on
  // its shard:
  //   prompts_done, input_tokens, reused_tokens, cache_evictions  once per group (its GPUs see
  //                               the same prompts), summed over groups
  //   reuse_fraction              reused_tokens / input_tokens
  //   read_bytes, write_bytes     totals over every GPU of the stream
  //   mean_prompt_latency_ns, max_prompt_latency_ns  from a prompt's arrival to its last simulated
  //                               layer's compute end on its group's slowest GPU: the time to
  //                               first token over the simulated layers, queueing included
  //   mean_prompt_service_ns, max_prompt_service_ns  the same from its arrival or the end of its
  //                               GPU's previous prompt, whichever is later: the prefill alone
  //   mean_all_reduce_ns_per_prompt, all_reduce_bytes_written  with all_reduce: a prompt's time in
  //                               the all-reduces after its layers' compute (in its latency and
  //                               service times), mean over GPUs; the bytes every GPU wrote
  //   layers_simulated, model_layers
  nlohmann::json combine(const std::vector<nlohmann::json>& per_gpu) const override {
    const TpGroups g(per_gpu, p_.tp);
    nlohmann::json j = nlohmann::json::object();
    j["tensor_parallel_groups"] = g.groups();
    for (const char* k : {"prompts_done", "input_tokens", "reused_tokens", "cache_evictions"})
      j[k] = g.group_sum(k);
    for (const char* k : {"read_bytes", "write_bytes"}) j[k] = g.gpu_sum(k);
    if (p_.linear_layers() > 0) {
      for (const char* k : {"read_bytes_state", "write_bytes_state"}) j[k] = g.gpu_sum(k);
    }
    if (p_.model.has_sparse_attention()) {
      for (const char* k : {"read_bytes_index_keys", "write_bytes_index_keys"}) j[k] = g.gpu_sum(k);
    }
    const double tokens = static_cast<double>(j["input_tokens"].get<std::uint64_t>());
    j["reuse_fraction"] =
        tokens > 0 ? static_cast<double>(j["reused_tokens"].get<std::uint64_t>()) / tokens : 0.0;
    // A prompt is done when the slowest GPU of its group is (the group's critical path).
    for (const char* k : {"prompt_latency_ns", "prompt_service_ns"}) {
      double sum = 0, max = 0;
      std::size_t n = 0;
      for (const std::vector<double>& path : g.critical_path_ns(k)) {
        for (double v : path) {
          sum += v;
          max = std::max(max, v);
          ++n;
        }
      }
      const std::string what = std::string(k).substr(0, std::string(k).size() - 3);
      j["mean_" + what + "_ns"] = n ? sum / static_cast<double>(n) : 0.0;
      j["max_" + what + "_ns"] = max;
    }
    if (p_.all_reduce.on) add_collective_combined(j, "all_reduce", g, "prompt");
    j["layers_simulated"] = p_.layers;
    j["model_layers"] = p_.model.layers;
    return j;
  }
  nlohmann::json summary() const override {
    nlohmann::json j = {
        {"model", p_.model.name},
        {"tensor_parallel", p_.tp},
        {"kv_bytes_per_token_per_gpu", p_.model.kv_bytes_per_token_layer(p_.tp) * p_.kv_layers()},
        {"kv_bytes_per_token_per_gpu_per_layer", p_.model.kv_bytes_per_token_layer(p_.tp)},
        {"kv_format", p_.model.kv_format.name},
        {"layers_simulated", p_.layers},
        {"block_tokens", p_.block_tokens},
        {"cache_tokens_per_gpu", p_.cache_tokens},
        {"compute", p_.compute.to_json()}};
    add_layer_kinds(j, p_.model, p_.layers);
    // A message is the prompt's new tokens x hidden x dtype_bytes: no fixed bytes to give.
    j["all_reduce"] = p_.all_reduce.to_json();
    if (p_.all_reduce.on) {
      j["all_reduce_rounds_each"] = p_.all_reduce.plan(p_.tp).rounds();
      j["all_reduce_message_bytes_per_token"] = p_.all_reduce.message_bytes(p_.model, 1);
    }
    if (p_.model.has_linear_attention()) {
      j["state_bytes_per_block_per_gpu_per_layer"] = p_.model.state_bytes_per_layer(p_.tp);
    }
    if (!p_.trace.empty()) {
      j["trace"] = p_.trace;
    } else {
      j["prompts"] = p_.prompts;
      j["shared_prefix_tokens"] = p_.shared_prefix;
    }
    return j;
  }

 private:
  PrefillParams p_;
  unsigned ranks_;
};

}  // namespace

std::shared_ptr<const GeneratorSpec> parse_prefill(ConfigNode& n, const PlatformFacts& facts,
                                                   const std::vector<unsigned>& gpus) {
  PrefillParams p;
  p.model = parse_model_key(n);
  p.where = parse_placement(n, "location", facts, gpus);
  p.tp = parse_tp(n, p.model, gpus.size());
  p.block_tokens = parse_block_tokens(n, p.model, p.tp);
  p.layers = parse_layers(n, p.model);
  p.compute = parse_compute(n, facts.gpu_memory_gbps);
  p.prefetch = static_cast<unsigned>(n.get_uint("prefetch_layers", 0, 0, 64));
  p.all_reduce = parse_all_reduce(n, p.tp, facts);
  const bool traced = n.has("trace");
  if (traced) {
    for (const char* k : {"prompts", "input_tokens", "shared_prefix_tokens", "prefix_groups",
                          "arrival_interval_ns"}) {
      n.ignore(k);
      if (n.has(k)) n.fail(k, "synthetic prompts and a trace exclude each other");
    }
    ConfigNode t = n.child("trace");
    p.trace = t.get_path("file");
    p.trace_block_tokens = t.get_uint("block_tokens", 512, 1, 1u << 20);
    if (p.trace_block_tokens % p.block_tokens != 0) {
      if (!n.has("block_tokens")) {
        // The default for a hybrid model (a block that holds a state) rarely divides a trace's
        // blocks: the user must choose.
        n.fail(
            "block_tokens",
            fmt::format("missing, and its default for {}'s linear-attention layers, {} tokens "
                        "(the smallest multiple of 16 whose KV holds a state, as vLLM sizes "
                        "blocks), does not divide trace.block_tokens ({}), the trace's hash "
                        "granularity: give block_tokens, a divisor of {}",
                        p.model.name, p.block_tokens, p.trace_block_tokens, p.trace_block_tokens));
      }
      t.fail("block_tokens",
             fmt::format("expected a multiple of the KV block_tokens ({})", p.block_tokens));
    }
    p.time_scale = t.get_double("time_scale", 1.0, 0.0, 1e6);
    p.max_requests = t.get_uint("max_requests", 0, 0);
    t.finish();
    // Unreadable or without a single request (which would run nothing and pass): fail now,
    // naming the key.
    try {
      MooncakeReader probe(p.trace);
      MooncakeRecord first;
      if (!probe.next(first)) {
        t.fail("file", p.trace +
                           ": no requests in the trace; expected at least one JSON line "
                           "with timestamp, input_length, output_length and hash_ids");
      }
    } catch (const TraceError& e) {
      t.fail("file", e.what());
    }
    p.cache_tokens = n.get_uint("cache_tokens", std::nullopt, 1, 1ULL << 40);
  } else {
    p.prompts = n.get_uint("prompts", std::nullopt, 1, 1ULL << 32);
    p.input = parse_tokens(n, "input_tokens", 1);
    if ((p.input.max + p.block_tokens - 1) / p.block_tokens > kMaxPromptBlocks) {
      n.fail("input_tokens",
             fmt::format("a prompt of {} tokens is more than {} KV blocks of block_tokens {}; "
                         "expected at most {} tokens",
                         p.input.max, kMaxPromptBlocks, p.block_tokens,
                         kMaxPromptBlocks * p.block_tokens));
    }
    // A prefix longer than every prompt shares what the longest shares, and groups past the
    // prompts hold no prompt: values that change nothing are refused rather than read as
    // something else.
    p.shared_prefix = n.get_uint("shared_prefix_tokens", 0, 0, 1ULL << 30);
    if (p.shared_prefix > p.input.max) {
      n.fail_among({"shared_prefix_tokens", "input_tokens"},
                   fmt::format("shared_prefix_tokens {} is longer than the longest prompt "
                               "(input_tokens {}{}); expected at most {}",
                               p.shared_prefix, p.input.min == p.input.max ? "" : "max ",
                               p.input.max, p.input.max));
    }
    p.groups = n.get_uint("prefix_groups", 1, 1, 1ULL << 24);
    if (p.groups > p.prompts) {
      n.fail_among({"prefix_groups", "prompts"},
                   fmt::format("prefix_groups {} is more than prompts {}: prompt j is in group j "
                               "mod prefix_groups, so the groups past the prompts hold none; "
                               "expected at most {}",
                               p.groups, p.prompts, p.prompts));
    }
    p.arrival_interval_ns = n.get_double("arrival_interval_ns", 0.0, 0.0, 1e12);
    // The last prompt arrives at (prompts - 1) x the interval: within the longest simulated time.
    const double last_arrival_ns = static_cast<double>(p.prompts - 1) * p.arrival_interval_ns;
    if (last_arrival_ns * 1e3 > static_cast<double>(kMaxSimTimePs)) {
      n.fail("arrival_interval_ns",
             fmt::format("the last of {} prompts would arrive at {} s, past 2^48 ps (281 s), the "
                         "longest famsim represents; expected at most {} ns for {} prompts",
                         p.prompts, s_of_ps(last_arrival_ns * 1e3),
                         ns_of_ps(std::floor(static_cast<double>(kMaxSimTimePs) /
                                             static_cast<double>(p.prompts - 1))),
                         p.prompts));
    }
    const std::uint64_t all =
        p.prompts * ((p.input.max + p.block_tokens - 1) / p.block_tokens) * p.block_tokens;
    p.cache_tokens_default = !n.has("cache_tokens");
    p.cache_tokens = n.get_uint("cache_tokens", all, 1, 1ULL << 40);
  }
  // The cache holds whole blocks (PrefillParams::slots rounds up): fewer tokens than one block
  // would be read as a cache of one block.
  if (p.cache_tokens < p.block_tokens) {
    n.fail_among({"cache_tokens", "block_tokens"},
                 fmt::format("cache_tokens {} is less than one KV block (block_tokens {}): the "
                             "prefix cache holds whole blocks; expected at least {}",
                             p.cache_tokens, p.block_tokens, p.block_tokens));
  }
  n.finish();
  return std::make_shared<PrefillSpec>(std::move(p), static_cast<unsigned>(gpus.size()));
}

}  // namespace famsim
