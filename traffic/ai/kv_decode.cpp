// kv_decode: LLM decode steps over a paged KV cache (vLLM-style PagedAttention block tables).
//
// Keys (stream.kv_decode):
//   model             the model (traffic/ai/generators.h)
//   batch             sequences decoded together on each tensor-parallel group
//   context_tokens    tokens already in each sequence's cache: N or {min, max} (uniform, drawn
//                     per sequence; the same for every GPU of a tensor-parallel group)
//   steps             decode steps (each appends one token to every sequence), default 1
//   block_tokens      tokens per KV block, default 16 (vLLM's default block size); for a hybrid
//                     model the block that holds a state (llm_common.h parse_block_tokens); a
//                     block's KV vector of one layer on one GPU is at most 1 GiB
//   tensor_parallel   GPUs splitting the KV heads (GQA: kv_heads/tp heads each; MLA: every GPU
//                     holds the whole latent), default 1; consecutive GPUs of the stream form a
//                     group
//   layers            layers simulated (the first N), default all
//   kv_location       where the KV cache lives (default gpu_local)
//   hbm_tokens        tier policy: the newest N tokens of each sequence (whole blocks holding
//                     any of them) stay in HBM (hbm_location, default gpu_local), the rest on
//                     kv_location; a block leaving the window is copied down (read from HBM,
//                     written to kv_location) in the step it leaves, unless it is a
//                     sliding-window layer's block behind the window (dropped: no step reads it
//                     again). Default 0: all on kv_location
//   state_location    a hybrid model's (linear_attention) recurrent states, default kv_location
//   compute           per-layer compute (traffic/ai/llm_common.h), tokens = batch
//   prefetch_layers   layers whose KV is fetched ahead of compute, default 0
//   all_reduce        with tensor_parallel > 1: the group's all-reduces after each layer (two a
//                     layer, batch x hidden_size x dtype_bytes each) simulated over the fabric:
//                     ring | one_shot | two_shot | none (default; llm_common.h AllReduceConfig)
//
// Layout, per GPU and tier: for each layer and each KV vector (K and V, or MLA's one latent) an
// array of block slots, block = block_tokens x (bytes of one vector per token). A sequence's
// logical block b lives in a slot picked from a seeded shuffle of the pool (scattered, as a block
// table is after some time). On kv_location a sliding-window or chunked layer has a ring of slots
// a sequence, only as many as the blocks a step can read or write (window_blocks): block b takes
// ring place b mod that, as vLLM frees a block behind the window and reuses its slot; none when
// an HBM tier holds the window (hbm_tokens >= W - 1: window_ring_used). Per step and
// layer, every sequence reads each of its blocks (the filled part of the last one) for each vector,
// then writes the new token's vectors: a step reads sum(context) x kv_bytes_per_token and writes
// batch x kv_bytes_per_token (for the simulated layers; the new token's own K and V are used from
// registers, not read back).
//
// A hybrid model's linear-attention layer (ModelConfig::is_linear_layer) keeps no KV blocks: per
// step, every sequence reads its recurrent state and its convolution's state whole and writes
// them back updated (vLLM's linear-attention and Mamba decode kernels update them in place), each
// sequence's in its own slot of the state region on state_location
// (ModelConfig::state_bytes_per_layer a slot). The KV regions hold the full-attention layers only.
// A block pattern's layer of an FFN alone (ModelConfig::has_ffn without attention) keeps neither:
// its phase has no accesses, only its compute.
//
// Sparse attention (DeepSeek Sparse Attention, ModelConfig::sparse): each block slot also holds
// the block's tokens' index keys (block_tokens x index_key_bytes, after the layer's KV vectors'
// slots), which move with it between the tiers. Per step, layer and sequence with c cached
// tokens: the indexer reads the index keys of all c (block by block), then the attention reads
// the KV of the top_k tokens it selects, or of all c when c <= top_k; the new token's KV and
// index key are written. Which tokens the indexer selects depends on the data; famsim draws them
// uniformly among the c, without repeats, per step, layer and sequence (the same on every GPU of
// a tensor-parallel group), an assumption: real selections favour recent tokens and a few early
// ones, so a uniform draw is pessimistic for the device: its picks are seldom neighbours, and
// fewer of them fall in an HBM tier. Selected tokens that are neighbours in one block are read as
// one access.
#include "traffic/ai/generators.h"
#include "traffic/ai/llm_common.h"
#include "traffic/pattern.h"

#include <fmt/format.h>

#include <boost/random/uniform_int_distribution.hpp>

#include <algorithm>

namespace famsim {

namespace {

struct KvDecodeParams {
  ModelConfig model;
  unsigned batch = 1;
  TokenRange context;
  unsigned steps = 1;
  unsigned block_tokens = 16;
  unsigned tp = 1;
  unsigned layers = 1;
  Placement kv;
  Placement hbm;
  Placement state;  // linear-attention layers' states
  std::uint64_t hbm_tokens = 0;
  ComputeModel compute;
  unsigned prefetch = 0;
  AllReduceConfig all_reduce;

  std::uint64_t vector_bytes() const {  // one KV vector of one token of one layer, this GPU
    return model.kv_vector_bytes(tp);
  }
  // Where a layer's blocks (KV vectors, and index keys with sparse attention) lie in a region.
  KvBlockLayout layout() const { return KvBlockLayout(model, block_tokens, tp); }
  std::uint64_t block_bytes() const { return layout().block_bytes; }
  std::uint64_t max_blocks() const {
    return (context.max + steps + block_tokens - 1) / block_tokens;
  }
  std::uint64_t hbm_blocks() const {  // ring of HBM slots per sequence
    return hbm_tokens == 0 ? 0 : (hbm_tokens + block_tokens - 1) / block_tokens + 1;
  }
  // A sliding-window or chunked layer's ring of slots per sequence on kv_location: the blocks a
  // step can still read or write there. A step at position c reads tokens from c - (W - 1)
  // (sliding) or from its chunk's start, at most C - 1 back (chunked), and writes token c: W (C)
  // consecutive tokens, on at most ceil((W - 1) / block_tokens) + 1 blocks. vLLM frees a block
  // once it is wholly behind them (SlidingWindowManager, ChunkedLocalAttentionManager), and
  // reuses its slot.
  std::uint64_t window_blocks() const {
    const std::uint64_t span = model.window_tokens - 1;
    return std::min(max_blocks(), (span + block_tokens - 1) / block_tokens + 1);
  }
  // Whether the windowed layers' rings on kv_location are used: not when the HBM tier holds every
  // token such a layer reads (hbm_tokens >= W - 1). Each step's reads then fall in HBM, its new
  // token goes there, and a block leaving HBM lies wholly behind the next step's window (chunk),
  // so it is dropped: nothing of those layers reaches kv_location, which keeps no ring for them.
  bool window_ring_used() const { return hbm_tokens == 0 || hbm_tokens + 1 < model.window_tokens; }
  // Slots per sequence of layer l on kv_location.
  std::uint64_t layer_blocks(unsigned l) const {
    if (!model.is_windowed_layer(l)) return max_blocks();
    return window_ring_used() ? window_blocks() : 0;
  }
  // Of the simulated layers, those that keep KV blocks and those with a recurrent state.
  unsigned kv_layers() const { return model.kv_layers(layers); }
  unsigned linear_layers() const { return model.linear_layers(layers); }
  std::uint64_t region_bytes(std::uint64_t slots) const {
    return std::uint64_t{kv_layers()} * slots * layout().slot_bytes();
  }
  // Bytes of kv_location's region before layer l's slots: the layers before it that keep KV
  // blocks, each batch x layer_blocks slots of its vectors and index keys (kv_cache_bytes() at
  // l = layers).
  std::uint64_t kv_layer_offset(unsigned l) const {
    std::uint64_t blocks = 0;
    for (unsigned k = 0; k < l; ++k) {
      if (model.is_attention_layer(k)) blocks += layer_blocks(k);
    }
    return blocks * batch * layout().slot_bytes();
  }
  std::uint64_t kv_cache_bytes() const { return kv_layer_offset(layers); }
  std::uint64_t state_region_bytes() const {
    return std::uint64_t{linear_layers()} * batch * model.state_bytes_per_layer(tp);
  }
  // The regions regions() lists, in its order (a model whose simulated layers are all linear has
  // no KV regions).
  bool has_kv_region() const { return kv_cache_bytes() > 0; }
  bool has_hbm_region() const { return hbm_tokens > 0 && kv_layers() > 0; }
  bool has_state_region() const { return linear_layers() > 0; }
  // Every layer of the model computes as long and keeps the same KV (full attention, no sliding
  // window or chunks, no linear attention), and at least two ran: a whole step is then the first
  // layer as it ran and the others at the steady pace of the later simulated ones
  // (StepTimes::scaled_ns).
  bool identical_layers() const {
    return layers >= 2 && model.windowed_layers(model.layers) == 0 &&
           every_layer_computes_and_mixes_alike(model, compute, batch, tp);
  }
  // All-reduces simulated with layers fetched ahead: the run's last step is no steady state
  // (whole_model_steps).
  bool collectives_ahead() const { return all_reduce.on && tp > 1 && prefetch > 0; }
};

// The result's count of blocks an HBM tier dropped: sliding_blocks_dropped or
// chunked_blocks_dropped, after the model's kind of limited attention.
std::string dropped_key(const ModelConfig& m) {
  return fmt::format("{}_blocks_dropped", m.window_kind());
}

class KvDecodeSource : public PhasedSource {
 public:
  KvDecodeSource(const KvDecodeParams& p, const SourceContext& c)
      : PhasedSource(p.prefetch), p_(p) {
    std::size_t region = 0;
    if (p.has_kv_region()) dev_va_ = c.region_va[region++];
    if (p.has_hbm_region()) hbm_va_ = c.region_va[region++];
    if (p.has_state_region()) state_va_ = c.region_va[region++];
    // The group's sequences: the same context lengths on every GPU of a tensor-parallel group.
    const unsigned group = c.rank / p.tp;
    group_seed_ = mix64(c.sim_seed ^ mix64((std::uint64_t{c.stream} << 32) | group));
    boost::random::mt19937_64 rng(group_seed_);
    ctx_.resize(p.batch);
    for (auto& t : ctx_) t = p.context.draw(rng);
    dev_slots_ = p.batch * p.max_blocks();
    dev_slot_ = shuffled_slots(dev_slots_, mix64(c.sim_seed ^ (0xdecULL + c.gpu)));
    if (p.model.windowed_layers(p.layers) > 0 && p.window_ring_used()) {
      window_slots_ = p.batch * p.window_blocks();
      window_slot_ = shuffled_slots(window_slots_, mix64(c.sim_seed ^ (0x5f1ULL + c.gpu)));
    }
    if (p.hbm_tokens > 0) {
      hbm_slots_ = p.batch * p.hbm_blocks();
      hbm_slot_ = shuffled_slots(hbm_slots_, mix64(c.sim_seed ^ (0x4b3ULL + c.gpu)));
    }
    // A bit per cached token for the indexer's selection: the most a step sees is the largest
    // context plus the tokens the steps before it appended.
    if (p.model.has_sparse_attention()) picked_.assign((p.context.max + p.steps + 63) / 64, 0);
  }

  nlohmann::json report() const override {
    nlohmann::json j;
    j["steps_done"] = phases_done() / p_.layers;
    j["read_bytes_kv_location"] = read_dev_;
    j["read_bytes_hbm"] = read_hbm_;
    j["write_bytes_kv_location"] = write_dev_;
    j["write_bytes_hbm"] = write_hbm_;
    j["blocks_moved_to_kv_location"] = demoted_;
    if (p_.hbm_tokens > 0 && p_.model.windowed_layers(p_.layers) > 0) {
      j[dropped_key(p_.model)] = dropped_;
    }
    if (p_.has_state_region()) {
      j["read_bytes_state"] = read_state_;
      j["write_bytes_state"] = write_state_;
    }
    if (p_.model.has_sparse_attention()) {
      j["read_bytes_index_keys"] = read_index_;
      j["write_bytes_index_keys"] = write_index_;
      j["selected_tokens_read"] = selected_read_;
    }
    const std::vector<double>& step_ns = steps_.ns();
    j["step_ns"] = step_ns;
    if (p_.all_reduce.on)
      add_collective_report(j, "all_reduce", steps_, collective_bytes_written(), "step");
    if (p_.layers < p_.model.layers && p_.identical_layers()) {
      j["step_whole_model_ns"] =
          whole_model_steps(steps_, p_.layers, p_.model.layers, p_.collectives_ahead(), p_.steps);
    }
    if (p_.layers < p_.model.layers && p_.collectives_ahead())
      j["step_ns_for_estimate"] = steady_steps(steps_, true, p_.steps);
    double sum = 0;
    for (double s : step_ns) sum += s;
    j["mean_step_ns"] = step_ns.empty() ? 0.0 : sum / static_cast<double>(step_ns.size());
    j["tokens_per_second_per_group"] =
        sum > 0 ? static_cast<double>(p_.batch) * static_cast<double>(step_ns.size()) / (sum * 1e-9)
                : 0.0;
    return j;
  }

 protected:
  bool open_phase(std::uint64_t i, PhaseStart& start) override {
    const std::uint64_t step = i / p_.layers;
    if (step >= p_.steps) return false;
    layer_ = static_cast<unsigned>(i % p_.layers);
    step_ = step;
    if (layer_ == 0 && step > 0) {
      for (auto& t : ctx_) ++t;  // the previous step appended a token
    }
    start.compute_ps = p_.compute.layer_ps(p_.model, layer_, p_.batch, p_.tp);
    // The model's last layer ends the step with the LM head (the logits of the batch's tokens).
    if (layer_ + 1 == p_.model.layers)
      start.compute_ps += p_.compute.lm_head_ps(p_.model, p_.batch, p_.tp);
    p_.all_reduce.set_phase(start, p_.model, layer_, p_.batch);
    linear_ = p_.model.is_linear_layer(layer_);
    attention_ = p_.model.is_attention_layer(layer_);
    sparse_ = attention_ && p_.model.has_sparse_attention();
    kv_layer_ = p_.model.kv_layers(layer_);
    windowed_ = p_.model.is_windowed_layer(layer_);
    dev_layer_va_ = dev_va_ + p_.kv_layer_offset(layer_);
    state_layer_ = p_.model.linear_layers(layer_);
    seq_ = 0;
    next_stage(first_stage());
    block_ = 0;
    state_.reset();
    return true;
  }

  bool phase_access(Access& a) override {
    if (!linear_ && !attention_) return false;  // a block pattern's FFN layer: weights only
    const unsigned vectors = p_.model.kv_vectors();
    const std::uint64_t bt = p_.block_tokens;
    while (seq_ < p_.batch) {
      const std::uint64_t c = ctx_[seq_];
      switch (stage_) {
        case Stage::kStateRead:
        case Stage::kStateWrite: {
          const bool reading = stage_ == Stage::kStateRead;
          const std::uint64_t state_bytes = p_.model.state_bytes_per_layer(p_.tp);
          const bool last = state_.next(
              p_.model, p_.tp,
              state_va_ + (std::uint64_t{state_layer_} * p_.batch + seq_) * state_bytes, a);
          a.write = !reading;
          (reading ? read_state_ : write_state_) += a.bytes;
          if (last) {
            if (reading) {
              next_stage(Stage::kStateWrite);
            } else {
              next_seq();
            }
          }
          return true;
        }
        case Stage::kIndexRead: {
          // The indexer scores every cached token: each block's index keys, its filled part.
          const std::uint64_t blocks = (c + bt - 1) / bt;
          if (block_ >= blocks) {
            block_ = 0;
            if (c > p_.model.sparse.top_k) {
              draw_selection(c);
              next_stage(Stage::kGather);
            } else {
              next_stage(Stage::kRead);  // it selects every cached token
            }
            continue;
          }
          const bool in_hbm = in_window(block_, c);
          a.va = index_address(in_hbm, seq_, block_);
          a.bytes = static_cast<std::uint32_t>(std::min(bt, c - block_ * bt) *
                                               p_.model.index_key_bytes());
          a.write = false;
          (in_hbm ? read_hbm_ : read_dev_) += a.bytes;
          read_index_ += a.bytes;
          ++block_;
          return true;
        }
        case Stage::kGather: {
          // The selected tokens in order, neighbours in one block as one access (a run), each
          // run for every KV vector.
          if (vec_ == 0 && !find_run(c)) {
            std::fill_n(picked_.begin(), (c + 63) / 64, 0);
            next_stage(Stage::kAppend);
            continue;
          }
          const std::uint64_t b = run_first_ / bt;
          const bool in_hbm = in_window(b, c);
          a.va = address(in_hbm, seq_, b, vec_) + (run_first_ % bt) * p_.vector_bytes();
          a.bytes = static_cast<std::uint32_t>(run_tokens_ * p_.vector_bytes());
          a.write = false;
          (in_hbm ? read_hbm_ : read_dev_) += a.bytes;
          if (++vec_ == vectors) {
            vec_ = 0;
            selected_read_ += run_tokens_;
            pick_from_ = run_first_ + run_tokens_;
          }
          return true;
        }
        case Stage::kRead: {
          const std::uint64_t blocks = (c + bt - 1) / bt;
          // A sliding-window layer reads only the newest tokens: from token `first` on, the
          // first block from that token's place in it.
          const std::uint64_t first = c - p_.model.attended_tokens(layer_, c);
          block_ = std::max(block_, first / bt);
          if (block_ >= blocks || first == c) {  // (a new chunk reads no cached token)
            next_stage(Stage::kAppend);
            continue;
          }
          const std::uint64_t skip = block_ == first / bt ? first % bt : 0;
          const std::uint64_t tokens = std::min(bt, c - block_ * bt) - skip;
          const bool in_hbm = in_window(block_, c);
          a.va = address(in_hbm, seq_, block_, vec_) + skip * p_.vector_bytes();
          a.bytes = static_cast<std::uint32_t>(tokens * p_.vector_bytes());
          a.write = false;
          (in_hbm ? read_hbm_ : read_dev_) += a.bytes;
          if (sparse_ && vec_ + 1 == vectors) selected_read_ += tokens;
          advance_vector(vectors);
          return true;
        }
        case Stage::kAppend: {
          // Token c goes to block c / bt at its position; the newest token is always in the
          // window when there is one.
          const std::uint64_t b = c / bt;
          const bool in_hbm = p_.hbm_tokens > 0;
          a.va = address(in_hbm, seq_, b, vec_) + (c % bt) * p_.vector_bytes();
          a.bytes = static_cast<std::uint32_t>(p_.vector_bytes());
          a.write = true;
          (in_hbm ? write_hbm_ : write_dev_) += a.bytes;
          if (++vec_ == vectors) next_stage(sparse_ ? Stage::kIndexAppend : Stage::kDemoteRead);
          return true;
        }
        case Stage::kIndexAppend: {
          // The new token's index key, beside its KV.
          const bool in_hbm = p_.hbm_tokens > 0;
          a.va = index_address(in_hbm, seq_, c / bt) + (c % bt) * p_.model.index_key_bytes();
          a.bytes = static_cast<std::uint32_t>(p_.model.index_key_bytes());
          a.write = true;
          (in_hbm ? write_hbm_ : write_dev_) += a.bytes;
          write_index_ += a.bytes;
          next_stage(Stage::kDemoteRead);
          return true;
        }
        case Stage::kDemoteRead:
        case Stage::kDemoteWrite: {
          // After this step the window starts at token c + 1 - hbm_tokens: the block that
          // ends exactly there leaves HBM now.
          const std::uint64_t h = p_.hbm_tokens;
          if (h == 0 || c + 1 < h + bt || (c + 1 - h) % bt != 0) {
            next_seq();
            continue;
          }
          const std::uint64_t b = (c + 1 - h) / bt - 1;
          if (dropped(layer_, b, c)) {
            ++dropped_;
            next_seq();
            continue;
          }
          const bool reading = stage_ == Stage::kDemoteRead;
          // The block's KV vectors, then a sparse layer's index keys (they move together).
          const bool index = vec_ == vectors;
          a.va = index ? index_address(reading, seq_, b) : address(reading, seq_, b, vec_);
          a.bytes =
              static_cast<std::uint32_t>(index ? p_.layout().index_block_bytes : p_.block_bytes());
          a.write = !reading;
          (reading ? read_hbm_ : write_dev_) += a.bytes;
          if (index) (reading ? read_index_ : write_index_) += a.bytes;
          if (++vec_ == vectors + (sparse_ ? 1u : 0u)) {
            vec_ = 0;
            if (reading) {
              stage_ = Stage::kDemoteWrite;
            } else {
              if (layer_ == first_keeping(b, c)) ++demoted_;  // once a block, not a layer
              next_seq();
            }
          }
          return true;
        }
      }
    }
    return false;
  }

  void phase_finished(const PhaseTimes& t) override { steps_.phase_finished(t, p_.layers); }

 private:
  enum class Stage {
    kIndexRead,
    kGather,
    kRead,
    kAppend,
    kIndexAppend,
    kDemoteRead,
    kDemoteWrite,
    kStateRead,
    kStateWrite
  };

  Stage first_stage() const {
    if (linear_) return Stage::kStateRead;
    return sparse_ ? Stage::kIndexRead : Stage::kRead;
  }

  // The indexer's selection for the open layer and sequence of c cached tokens (c > top_k): top_k
  // distinct tokens of [0, c), every set of them equally likely (Floyd's algorithm), from a
  // stream seeded by the group, the step, the layer and the sequence, so that every GPU of a
  // tensor-parallel group selects alike.
  void draw_selection(std::uint64_t c) {
    boost::random::mt19937_64 rng(mix64(
        group_seed_ ^ mix64((step_ << 40) ^ (std::uint64_t{layer_} << 20) ^ std::uint64_t{seq_})));
    for (std::uint64_t j = c - p_.model.sparse.top_k; j < c; ++j) {
      const std::uint64_t t = boost::random::uniform_int_distribution<std::uint64_t>(0, j)(rng);
      const std::uint64_t pick = picked(t) ? j : t;
      picked_[pick >> 6] |= std::uint64_t{1} << (pick & 63);
    }
    pick_from_ = 0;
  }
  bool picked(std::uint64_t t) const { return picked_[t >> 6] >> (t & 63) & 1; }
  // The next run of selected tokens from pick_from_: its first token and how many follow it in
  // its block; false when no selected token is left.
  bool find_run(std::uint64_t c) {
    const std::size_t words = (c + 63) / 64;
    std::size_t w = pick_from_ >> 6;
    if (w >= words) return false;
    std::uint64_t bits = picked_[w] & (~std::uint64_t{0} << (pick_from_ & 63));
    while (bits == 0) {
      if (++w == words) return false;
      bits = picked_[w];
    }
    run_first_ = (std::uint64_t{w} << 6) + static_cast<std::uint64_t>(__builtin_ctzll(bits));
    run_tokens_ = 1;
    const std::uint64_t bt = p_.block_tokens;
    while (run_first_ + run_tokens_ < c && (run_first_ + run_tokens_) % bt != 0 &&
           picked(run_first_ + run_tokens_)) {
      ++run_tokens_;
    }
    return true;
  }

  // A sliding-window (or chunked) layer's block b, leaving HBM as a sequence of c cached tokens
  // takes its next one, is dropped rather than moved to kv_location when it lies wholly before
  // the window (chunk) of the next step, and so of every later one: no decode step reads it again
  // (vLLM frees such blocks; its slot on kv_location is in the layer's ring, free for a later
  // block).
  bool dropped(unsigned layer, std::uint64_t b, std::uint64_t c) const {
    if (!p_.model.is_windowed_layer(layer)) return false;
    const std::uint64_t first_read = c + 1 - p_.model.attended_tokens(layer, c + 1);
    return (b + 1) * p_.block_tokens <= first_read;
  }
  // The first simulated layer that moves that block down (the block counts as moved there):
  // the first that keeps KV blocks and does not drop it.
  unsigned first_keeping(std::uint64_t b, std::uint64_t c) const {
    unsigned l = 0;
    while (l + 1 < p_.layers && (!p_.model.is_attention_layer(l) || dropped(l, b, c))) ++l;
    return l;
  }
  // Block b of a sequence with c cached tokens is in HBM when it holds one of the newest
  // hbm_tokens tokens.
  bool in_window(std::uint64_t b, std::uint64_t c) const {
    const std::uint64_t h = p_.hbm_tokens;
    return h > 0 && (b + 1) * p_.block_tokens + h > c;
  }
  // Where block b of sequence seq lies in a tier (HBM, or kv_location): its slot, the slots the
  // tier has for a layer, and the layer's first byte there. A layer's slots hold, in turn, each
  // KV vector's blocks, then (sparse attention) the blocks' index keys.
  void locate(bool hbm, unsigned seq, std::uint64_t b, std::uint64_t& slot, std::uint64_t& slots,
              std::uint64_t& base) const {
    if (hbm) {
      slot = hbm_slot_[seq * p_.hbm_blocks() + b % p_.hbm_blocks()];
      slots = hbm_slots_;
      base = hbm_va_ + std::uint64_t{kv_layer_} * slots * p_.layout().slot_bytes();
    } else if (windowed_) {
      slot = window_slot_[seq * p_.window_blocks() + b % p_.window_blocks()];
      slots = window_slots_;
      base = dev_layer_va_;
    } else {
      slot = dev_slot_[seq * p_.max_blocks() + b];
      slots = dev_slots_;
      base = dev_layer_va_;
    }
  }
  std::uint64_t address(bool hbm, unsigned seq, std::uint64_t b, unsigned vec) const {
    std::uint64_t slot, slots, base;
    locate(hbm, seq, b, slot, slots, base);
    return base + p_.layout().kv_offset(vec, slot, slots);
  }
  // The index keys of block b (sparse attention).
  std::uint64_t index_address(bool hbm, unsigned seq, std::uint64_t b) const {
    std::uint64_t slot, slots, base;
    locate(hbm, seq, b, slot, slots, base);
    return base + p_.layout().index_offset(slot, slots);
  }
  void advance_vector(unsigned vectors) {
    if (++vec_ == vectors) {
      vec_ = 0;
      ++block_;
    }
  }
  void next_stage(Stage s) {
    stage_ = s;
    vec_ = 0;
  }
  void next_seq() {
    ++seq_;
    stage_ = first_stage();
    block_ = 0;
    vec_ = 0;
  }

  const KvDecodeParams& p_;
  std::uint64_t group_seed_ = 0;  // the tensor-parallel group's: contexts, selections
  std::uint64_t dev_va_ = 0;
  std::uint64_t hbm_va_ = 0;
  std::uint64_t state_va_ = 0;
  std::vector<std::uint64_t> ctx_;
  std::uint64_t dev_slots_ = 0;
  std::uint64_t hbm_slots_ = 0;
  std::vector<std::uint32_t> dev_slot_;
  std::vector<std::uint32_t> hbm_slot_;
  // Sliding-window or chunked layers' rings on kv_location (window_blocks a sequence).
  std::uint64_t window_slots_ = 0;
  std::vector<std::uint32_t> window_slot_;
  // Cursor in the open phase (in a linear-attention layer, state_ the place in the state).
  unsigned layer_ = 0;
  std::uint64_t step_ = 0;
  bool linear_ = false;
  bool sparse_ = false;       // an attention layer with sparse attention: index keys, selection
  bool attention_ = false;    // full attention: KV blocks
  unsigned kv_layer_ = 0;     // the layer's place among the layers with KV blocks
  bool windowed_ = false;     // a sliding-window or chunked layer: its blocks in a ring (if any)
  std::uint64_t dev_layer_va_ = 0;  // the layer's first slot on kv_location
  unsigned state_layer_ = 0;  // its place among the linear-attention layers
  unsigned seq_ = 0;
  Stage stage_ = Stage::kRead;
  std::uint64_t block_ = 0;
  unsigned vec_ = 0;
  StateWalk state_;
  // Sparse attention: a bit per cached token the indexer selected (clear between selections), and
  // the gather's cursor: where the next run is looked for, the run at hand.
  std::vector<std::uint64_t> picked_;
  std::uint64_t pick_from_ = 0, run_first_ = 0, run_tokens_ = 0;
  // Results.
  std::uint64_t read_dev_ = 0, read_hbm_ = 0, write_dev_ = 0, write_hbm_ = 0, demoted_ = 0;
  std::uint64_t dropped_ = 0;  // (block, layer) pairs of sliding-window layers dropped
  std::uint64_t read_state_ = 0, write_state_ = 0;
  // Index keys read and written (also in the tiers' counts), and KV tokens read in sparse layers.
  std::uint64_t read_index_ = 0, write_index_ = 0, selected_read_ = 0;
  StepTimes steps_;
};

class KvDecodeSpec : public GeneratorSpec {
 public:
  explicit KvDecodeSpec(KvDecodeParams p) : p_(std::move(p)) {}
  const char* kind() const override { return "kv_decode"; }
  std::vector<RegionSpec> regions() const override {
    std::vector<RegionSpec> r = simulated_regions();
    if (p_.layers < p_.model.layers) {
      // The same regions for every layer of the model: what a whole-model estimate assumes fits.
      KvDecodeParams whole = p_;
      whole.layers = p_.model.layers;
      const std::vector<RegionSpec> w = KvDecodeSpec(whole).simulated_regions();
      for (RegionSpec& region : r) {
        for (const RegionSpec& all : w) {
          if (all.role == region.role) region.whole_model_bytes = all.bytes;
        }
      }
    }
    return r;
  }
  std::vector<RegionSpec> simulated_regions() const {
    std::vector<RegionSpec> r;
    // Per GPU: layers x KV vectors (K and V, or MLA's one) x slots x a block of its KV shard.
    const std::string per_slot =
        fmt::format("{} layers x {} KV vectors x {} B a block of {} tokens (tensor_parallel {}){}",
                    p_.kv_layers(), p_.model.kv_vectors(), p_.block_bytes(), p_.block_tokens, p_.tp,
                    p_.layout().index_keys_text());
    if (p_.has_kv_region()) {
      // Full layers hold the whole context; sliding or chunked ones their ring (window_blocks).
      const unsigned windowed = p_.model.windowed_layers(p_.layers);
      const unsigned full = p_.kv_layers() - windowed;
      std::string blocks =
          fmt::format("{} layer{} x {} blocks", full, full == 1 ? "" : "s", p_.max_blocks());
      if (windowed > 0 && p_.window_ring_used()) {
        blocks = fmt::format(
            "{}{} {} layer{} x {} blocks (a ring for the {} tokens a step "
            "reads or writes)",
            full > 0 ? blocks + " + " : std::string(), windowed, p_.model.window_kind(),
            windowed == 1 ? "" : "s", p_.window_blocks(), p_.model.window_tokens);
      } else if (windowed > 0) {
        blocks += fmt::format(
            "; none for the {} {} layer{}: hbm_tokens {} holds the at most {} tokens a step "
            "reads there",
            windowed, p_.model.window_kind(), windowed == 1 ? "" : "s", p_.hbm_tokens,
            p_.model.window_tokens - 1);
      }
      r.push_back(
          {"kv_cache",
           p_.kv_cache_bytes(),
           p_.kv,
           true,
           {"batch", "context_tokens", "steps", "block_tokens", "layers", "model"},
           fmt::format("batch {} x ({}) a sequence (context_tokens up to {} + {} steps) "
                       "x {} KV vectors x {} B a block of {} tokens (tensor_parallel {}){}",
                       p_.batch, blocks, p_.context.max, p_.steps, p_.model.kv_vectors(),
                       p_.block_bytes(), p_.block_tokens, p_.tp, p_.layout().index_keys_text())});
    }
    if (p_.has_hbm_region()) {
      r.push_back({"kv_cache_hbm",
                   p_.region_bytes(p_.batch * p_.hbm_blocks()),
                   p_.hbm,
                   true,
                   {"hbm_tokens", "batch", "block_tokens", "layers"},
                   fmt::format("batch {} x {} blocks a sequence (hbm_tokens {}, and one more) x {}",
                               p_.batch, p_.hbm_blocks(), p_.hbm_tokens, per_slot)});
    }
    if (p_.has_state_region()) {
      r.push_back({"recurrent_state",
                   p_.state_region_bytes(),
                   p_.state,
                   true,
                   {"batch", "layers"},
                   fmt::format("{} linear-attention layers x batch {} x {} B of state a sequence "
                               "(tensor_parallel {})",
                               p_.linear_layers(), p_.batch, p_.model.state_bytes_per_layer(p_.tp),
                               p_.tp)});
    }
    return r;
  }
  std::unique_ptr<AccessSource> make_source(const SourceContext& c) const override {
    return std::make_unique<KvDecodeSource>(p_, c);
  }
  // The model's weights as stored, split over the tensor-parallel group (the embedding table too:
  // about, as a deployment may keep it whole on every GPU).
  std::uint64_t hbm_weight_bytes_per_gpu() const override {
    return (p_.model.weight_bytes() + p_.tp - 1) / p_.tp;
  }
  // A tensor-parallel group's GPUs end each layer together (its all-reduces).
  unsigned synchronised_group() const override { return p_.tp; }
  Collectives collectives() const override {
    return p_.all_reduce.collectives(p_.all_reduce.message_bytes(p_.model, p_.batch));
  }
  bool sizes_whole_model() const override { return true; }
  // Every GPU runs steps x layers phases (one per simulated layer of each step).
  std::uint64_t phases_total(unsigned gpus) const override {
    return std::uint64_t{gpus} * p_.steps * p_.layers;
  }
  // Each GPU, every step, reads each sequence's context (at least context_tokens.min, growing by
  // one a step) and writes its new token: batch x (min + 1) tokens of its KV shard per layer on
  // kv_location, at least (block demotions add more). With hbm_tokens the newest tokens (whole
  // blocks, so up to hbm_tokens + block_tokens - 1 of them) and the new one are in HBM; only the
  // older ones are counted, on kv_location (HBM's own share is left out: still a lower bound).
  // A sliding-window layer reads at most the window's newest W - 1 cached tokens: the count per
  // layer below is then min(context_tokens.min, W - 1), added up over the simulated layers; with
  // sparse attention, min(context_tokens.min, top_k), and the index keys of every cached token
  // (their own count, below).
  std::vector<MovedBytes> bytes_moved_at_least(unsigned gpus) const override {
    const std::uint64_t per_token_layer = p_.model.kv_bytes_per_token_layer(p_.tp);
    const std::uint64_t per_token = per_token_layer * p_.kv_layers();
    const std::uint64_t in_hbm = p_.hbm_tokens > 0 ? p_.hbm_tokens + p_.block_tokens - 1 : 0;
    const auto tokens_of = [&](std::uint64_t read) {
      return p_.hbm_tokens > 0 ? (read > in_hbm ? read - in_hbm : 0) : read + 1;
    };
    const std::uint64_t tokens = tokens_of(p_.context.min);
    std::uint64_t token_layers = 0;  // over the simulated layers that keep KV blocks
    for (unsigned l = 0; l < p_.layers; ++l) {
      if (p_.model.is_attention_layer(l)) token_layers += tokens_of(least_attended(l));
    }
    MovedBytes m;
    m.bytes = static_cast<double>(gpus) * p_.steps * p_.batch * static_cast<double>(token_layers) *
              static_cast<double>(per_token_layer);
    m.where = {p_.kv};
    m.keys = {"steps", "batch", "context_tokens", "layers"};
    const std::string hbm_part =
        p_.hbm_tokens > 0 ? fmt::format(", less up to {} in HBM", in_hbm) : ", and the new one";
    if (p_.model.has_sparse_attention()) {
      // Every layer reads the latents of min(context, top_k) tokens.
      m.how = fmt::format(
          "{} GPUs x {} steps x batch {} x {} tokens on kv_location (the latents of context_tokens "
          "at least {}, at most top_k {} of them{}) x {} B of KV per token on each GPU ({} layers)",
          gpus, p_.steps, p_.batch, tokens_of(p_.model.selected_tokens(p_.context.min)),
          p_.context.min, p_.model.sparse.top_k, hbm_part, per_token, p_.kv_layers());
    } else if (p_.model.windowed_layers(p_.layers) == 0) {
      m.how = fmt::format(
          "{} GPUs x {} steps x batch {} x {} tokens on kv_location (context_tokens at least "
          "{}{}) x {} B of KV per token on each GPU ({} layers{})",
          gpus, p_.steps, p_.batch, tokens, p_.context.min, hbm_part, per_token, p_.kv_layers(),
          p_.has_state_region() ? " with full attention" : "");
    } else {
      m.how = fmt::format(
          "{} GPUs x {} steps x batch {} x {} tokens x layers on kv_location (context_tokens at "
          "least {}, at most {} in each of the {} {} layers of {}{}) x {} B of KV per token per "
          "layer on each GPU",
          gpus, p_.steps, p_.batch, token_layers, p_.context.min,
          p_.model.window_tokens - 1,  // a chunk's tokens before its last, or a window's
          p_.model.windowed_layers(p_.layers),
          p_.model.window_chunked ? "chunked-attention" : "sliding-window", p_.layers, hbm_part,
          per_token_layer);
    }
    std::vector<MovedBytes> moved;
    if (p_.has_kv_region()) moved.push_back(m);
    if (p_.has_kv_region() && p_.model.has_sparse_attention()) {
      // The indexer reads every cached token's index key in every layer.
      MovedBytes x;
      x.bytes = static_cast<double>(gpus) * p_.steps * p_.batch * p_.kv_layers() *
                static_cast<double>(tokens) * static_cast<double>(p_.model.index_key_bytes());
      x.where = {p_.kv};
      x.keys = {"steps", "batch", "context_tokens", "layers"};
      x.how = fmt::format(
          "{} GPUs x {} steps x batch {} x {} layers x {} tokens on kv_location (context_tokens at "
          "least {}{}) x {} B of index key per token (sparse attention's indexer)",
          gpus, p_.steps, p_.batch, p_.kv_layers(), tokens, p_.context.min, hbm_part,
          p_.model.index_key_bytes());
      moved.push_back(x);
    }
    if (p_.has_state_region()) {
      // Every step reads and writes each sequence's state in each linear-attention layer.
      MovedBytes s;
      s.bytes = 2.0 * gpus * p_.steps * p_.batch * p_.linear_layers() *
                static_cast<double>(p_.model.state_bytes_per_layer(p_.tp));
      s.where = {p_.state};
      s.keys = {"steps", "batch", "layers"};
      s.how = fmt::format(
          "{} GPUs x {} steps x batch {} x {} linear-attention layers x {} B of state a sequence, "
          "read and written",
          gpus, p_.steps, p_.batch, p_.linear_layers(), p_.model.state_bytes_per_layer(p_.tp));
      moved.push_back(s);
    }
    return moved;
  }
  // The stream's result. Each tensor-parallel group (tp consecutive GPUs) decodes its own batch,
  // every GPU on its share of the KV heads:
  //   steps_done                  decode steps every group completed (a group's step counts
  //                               once, not once per GPU): the configured steps when all ran
  //   blocks_moved_to_kv_location blocks that left the HBM window, once per group, summed over
  //                               groups (a block moved in any simulated layer counts once)
  //   sliding_blocks_dropped      with hbm_tokens and sliding-window layers: (block, layer) pairs
  //                               that left HBM behind a sliding layer's window and were dropped
  //                               instead of moved, once per group, summed over groups
  //                               (chunked_blocks_dropped with chunked layers: behind the chunk)
  //   read_bytes_state, write_bytes_state  a hybrid model's states (totals over every GPU)
  //   read_bytes_index_keys, write_bytes_index_keys  sparse attention's index keys (totals over
  //                               every GPU, also in the tiers' read_bytes_* and write_bytes_*):
  //                               the indexer's reads, the new tokens' keys, and the keys of
  //                               blocks moved from HBM to kv_location
  //   selected_tokens_read        sparse attention: tokens whose KV the attention read (of the
  //                               top_k selected, or every cached one when there are no more),
  //                               over steps, layers and sequences, once per group
  //   read_bytes_*, write_bytes_* totals over every GPU of the stream
  //   mean_step_ns                a step's time on the group's critical path (per step, its
  //                               slowest GPU), mean over steps and groups
  //   tokens_per_second_per_group batch x steps / the group's critical-path time, mean over
  //                               groups; for the simulated layers only
  //   mean_all_reduce_ns_per_step, all_reduce_bytes_written  with all_reduce: a step's time in the
  //                               all-reduces after its layers' compute (in mean_step_ns), and
  //                               the bytes every GPU wrote for them (llm_common.h)
  //   lm_head_ns_per_step         the LM head's compute, once a step after the model's last
  //                               layer (in mean_step_ns when that layer ran; 0 with layer_ns)
  //   layers_simulated, model_layers, and when fewer layers ran than the model has, the
  //   *_whole_model_estimate fields (the LM head added once; or a note when no estimate is
  //   sound)
  nlohmann::json combine(const std::vector<nlohmann::json>& per_gpu) const override {
    const TpGroups g(per_gpu, p_.tp);
    nlohmann::json j = nlohmann::json::object();
    j["tensor_parallel_groups"] = g.groups();
    j["steps_done"] = g.completed("steps_done");
    for (const char* k :
         {"read_bytes_kv_location", "read_bytes_hbm", "write_bytes_kv_location", "write_bytes_hbm"})
      j[k] = g.gpu_sum(k);
    j["blocks_moved_to_kv_location"] = g.group_sum("blocks_moved_to_kv_location");
    if (p_.hbm_tokens > 0 && p_.model.windowed_layers(p_.layers) > 0) {
      j[dropped_key(p_.model)] = g.group_sum(dropped_key(p_.model));
    }
    if (p_.has_state_region()) {
      for (const char* k : {"read_bytes_state", "write_bytes_state"}) j[k] = g.gpu_sum(k);
    }
    if (p_.model.has_sparse_attention()) {
      for (const char* k : {"read_bytes_index_keys", "write_bytes_index_keys"}) j[k] = g.gpu_sum(k);
      // Each GPU of a group reads the same selection: counted once a group.
      j["selected_tokens_read"] = g.group_sum("selected_tokens_read");
    }
    if (p_.all_reduce.on) add_collective_combined(j, "all_reduce", g, "step");
    const TpGroups::Steps st = g.steps("step_ns", p_.batch);
    const double mean_step_ns = st.mean_step_ns;
    j["mean_step_ns"] = mean_step_ns;
    j["tokens_per_second_per_group"] = st.tokens_per_second;
    j["layers_simulated"] = p_.layers;
    j["model_layers"] = p_.model.layers;
    const double lm_head_ns = lm_head_ns_per_step();
    j["lm_head_ns_per_step"] = lm_head_ns;
    if (p_.layers < p_.model.layers && j["steps_done"].get<std::uint64_t>() == 0) {
      j["note"] =
          "no decode step was completed by every GPU before the run stopped, so there is "
          "no step time to scale to the whole model";
    } else if (p_.layers < p_.model.layers) {
      if (!windows_alike()) {
        j["note"] = fmt::format(
            "step time and tokens per second are for the first {} of {}'s {} layers only: {} of "
            "them have {} against {} of the model's, so they are not scaled to the whole model "
            "(simulate a whole number of the {}'s layer cycle)",
            p_.layers, p_.model.name, p_.model.layers, p_.model.windowed_layers(p_.layers),
            p_.model.window_chunked ? "chunked attention" : "a sliding window",
            p_.model.windowed_layers(p_.model.layers),
            p_.model.window_chunked ? "chunks" : "window");
      } else if (!mixers_alike(p_.model, p_.layers)) {
        j["note"] = fmt::format(
            "step time and tokens per second are for the first {} of {}'s {} layers only: {} of "
            "them have linear attention and {} full attention against {} and {} of the model's, "
            "so they are not scaled to the whole model (simulate {})",
            p_.layers, p_.model.name, p_.model.layers, p_.linear_layers(), p_.kv_layers(),
            p_.model.linear_layers(p_.model.layers), p_.model.kv_layers(p_.model.layers),
            p_.model.has_block_pattern()
                ? "first layers with the model's shares of block_pattern's M, * and other "
                  "layers, or every layer"
                : "a whole number of linear_attention's layer cycle");
      } else if (std::string why = no_estimate_reason(); !why.empty()) {
        j["note"] = std::move(why);
      } else if (layers_alike()) {
        // Identical layers (a dense transformer): the first layer as it ran (the pipeline's
        // fill) and the others at the later simulated layers' steady pace. Otherwise the layers
        // come in the model's shares of sliding-window or linear-attention layers (checked
        // above), or one layer ran: every layer of the model is taken to last as long per step as
        // the simulated ones did on average, the fill scaled too, so that estimate errs long by
        // about the first layer's fetch x (model layers / simulated layers - 1). The LM head,
        // which the simulated layers did not reach, is added once.
        const double scale = static_cast<double>(p_.model.layers) / static_cast<double>(p_.layers);
        // (With collectives and layers fetched ahead, the run's last step is left out.)
        const double whole_ns =
            (p_.identical_layers()
                 ? g.steps("step_whole_model_ns", p_.batch).mean_step_ns
                 : (p_.collectives_ahead() ? g.steps("step_ns_for_estimate", p_.batch).mean_step_ns
                                           : mean_step_ns) *
                       scale) +
            lm_head_ns;
        j["mean_step_ns_whole_model_estimate"] = whole_ns;
        j["tokens_per_second_per_group_whole_model_estimate"] =
            whole_ns > 0 ? static_cast<double>(p_.batch) / (whole_ns * 1e-9) : 0.0;
      } else {
        j["note"] = fmt::format(
            "step time and tokens per second are for the first {} of {}'s {} layers only; its "
            "layers differ in compute (the simulated ones' mean from the model's), so they are "
            "not scaled to the whole model",
            p_.layers, p_.model.name, p_.model.layers);
      }
    }
    return j;
  }
  nlohmann::json summary() const override {
    const std::uint64_t per_token = p_.model.kv_bytes_per_token_layer(p_.tp) * p_.kv_layers();
    const std::uint64_t state_per_step =
        std::uint64_t{p_.batch} * p_.linear_layers() * p_.model.state_bytes_per_layer(p_.tp);
    nlohmann::json j = {
        {"model", p_.model.name},
        {"kv_bytes_per_token_per_gpu", per_token},
        {"kv_bytes_per_token_per_gpu_per_layer", p_.model.kv_bytes_per_token_layer(p_.tp)},
        {"kv_bytes_per_token_model", p_.model.kv_bytes_per_token(1)},
        {"kv_format", p_.model.kv_format.name},
        {"batch", p_.batch},
        {"steps", p_.steps},
        {"layers_simulated", p_.layers},
        // 0 and 0 without sliding-window attention.
        {"sliding_window_tokens", p_.model.window_chunked ? 0 : p_.model.window_tokens},
        {"sliding_layers_simulated", p_.model.sliding_layers(p_.layers)},
        {"tensor_parallel", p_.tp},
        {"block_bytes", p_.block_bytes()},
        {"mean_read_bytes_per_step_per_gpu", mean_read_bytes_per_step()},
        {"write_bytes_per_step_per_gpu",
         p_.batch * (per_token + p_.kv_layers() * p_.model.index_key_bytes()) + state_per_step},
        {"compute", p_.compute.to_json()},
        // The first layer's compute phase and the part of it reading its weights takes alone
        // (the roofline's memory side), so that a model's figures can be checked by hand.
        {"weight_bytes_first_layer_per_gpu",
         ComputeModel::layer_read_weight_bytes(p_.model, 0, p_.batch, p_.tp)},
        {"compute_ns_first_layer",
         static_cast<double>(p_.compute.layer_ps(p_.model, 0, p_.batch, p_.tp)) / 1000.0},
        {"weights_read_ns_first_layer",
         static_cast<double>(p_.compute.weights_ps(p_.model, 0, p_.batch, p_.tp)) / 1000.0},
        {"lm_head_bytes_per_gpu", p_.model.lm_head_weight_bytes(p_.tp)},
        {"lm_head_ns_per_step", lm_head_ns_per_step()},
        // The whole model, so that a model file can be checked against its model card, and the
        // weights each GPU's HBM holds (checked against its capacity: Simulation).
        {"model_parameters", p_.model.parameters()},
        {"model_weight_bytes", p_.model.weight_bytes()},
        {"model_weight_bytes_per_gpu", hbm_weight_bytes_per_gpu()}};
    add_layer_kinds(j, p_.model, p_.layers);
    add_all_reduce_summary(j, p_.all_reduce, p_.model, p_.layers, p_.batch, p_.tp, "step");
    if (p_.model.has_linear_attention()) {
      // The KV figures above are for the kv_layers_simulated full-attention layers.
      j["state_bytes_per_sequence_per_gpu_per_layer"] = p_.model.state_bytes_per_layer(p_.tp);
      j["recurrent_state_bytes_per_sequence_per_gpu_per_layer"] =
          p_.model.recurrent_state_bytes(p_.tp);
      j["conv_state_bytes_per_sequence_per_gpu_per_layer"] = p_.model.conv_state_bytes(p_.tp);
      j["state_format"] = p_.model.linear.state_format.name;
      j["state_location"] = p_.state.text;
      j["state_bytes_per_step_per_gpu"] = state_per_step;  // read, and written again
    }
    if (p_.model.has_sparse_attention()) {
      j["sparse_attention_top_k"] = p_.model.sparse.top_k;
      j["index_key_bytes_per_token_per_layer"] = p_.model.index_key_bytes();
      j["index_key_format"] = p_.model.sparse.index_key_format.name;
    }
    return j;
  }

 private:
  // At the first step, per GPU: batch x each layer's mean attended context x its KV per token,
  // and each linear-attention layer's states.
  double mean_read_bytes_per_step() const {
    double token_layers = 0;
    for (unsigned l = 0; l < p_.layers; ++l) {
      if (!p_.model.is_attention_layer(l)) continue;
      if (p_.model.has_sparse_attention()) {
        token_layers += p_.context.mean_capped(p_.model.sparse.top_k);
      } else if (!p_.model.is_windowed_layer(l)) {
        token_layers += p_.context.mean();
      } else if (p_.model.window_chunked) {
        token_layers += p_.context.mean_mod(p_.model.window_tokens);
      } else {
        token_layers += p_.context.mean_capped(p_.model.window_tokens - 1);
      }
    }
    // Sparse attention's indexer reads every cached token's index key.
    const double index_keys = static_cast<double>(p_.batch) * p_.kv_layers() * p_.context.mean() *
                              static_cast<double>(p_.model.index_key_bytes());
    return token_layers * static_cast<double>(p_.batch) *
               static_cast<double>(p_.model.kv_bytes_per_token_layer(p_.tp)) +
           index_keys +
           static_cast<double>(p_.batch) * p_.linear_layers() *
               static_cast<double>(p_.model.state_bytes_per_layer(p_.tp));
  }
  // The LM head's compute once per step after the model's last layer (0 with layer_ns compute).
  double lm_head_ns_per_step() const {
    return static_cast<double>(p_.compute.lm_head_ps(p_.model, p_.batch, p_.tp)) / 1000.0;
  }

  // The simulated layers have sliding windows in the same share as the model's layers, so that
  // their mean step time scales to the model's (each kind of layer read as much as the model's).
  std::string no_estimate_reason() const override {
    if (p_.layers >= p_.model.layers || !p_.collectives_ahead() || p_.steps >= 2 ||
        !windows_alike() || !mixers_alike(p_.model, p_.layers) || !layers_alike())
      return {};
    return one_step_note("step time and tokens per second are", "step", p_.layers, p_.model,
                         p_.prefetch);
  }
  bool windows_alike() const {
    return first_layers_average_the_models(
        p_.model.layers, p_.layers, [&](unsigned l) { return p_.model.is_windowed_layer(l); });
  }

  // The fewest cached tokens a step reads in layer l, over every context the steps see
  // (context_tokens.min .. max + steps - 1): a sliding window's reads only grow with the context;
  // a chunked layer's start again at each chunk, so none when a chunk may begin in that range.
  std::uint64_t least_attended(unsigned l) const {
    const std::uint64_t lo = p_.context.min;
    if (p_.model.has_sparse_attention()) return p_.model.selected_tokens(lo);
    if (!p_.model.is_windowed_layer(l) || !p_.model.window_chunked) {
      return p_.model.attended_tokens(l, lo);
    }
    const std::uint64_t w = p_.model.window_tokens, hi = p_.context.max + p_.steps - 1;
    return lo / w == hi / w ? lo % w : 0;
  }
  // Every full-attention layer of the model moves the same KV bytes per token
  // (kv_bytes_per_token_layer does not depend on the layer), every linear-attention layer the
  // same state; true when the simulated layers also compute for the model's mean time per layer
  // (every layer alike, or a hybrid model's whole cycles of its layer kinds).
  bool layers_alike() const {
    return first_layers_average_the_models(p_.model.layers, p_.layers, [&](unsigned l) {
      return p_.compute.layer_ps(p_.model, l, p_.batch, p_.tp);
    });
  }

  KvDecodeParams p_;
};

}  // namespace

std::shared_ptr<const GeneratorSpec> parse_kv_decode(ConfigNode& n, const PlatformFacts& facts,
                                                     const std::vector<unsigned>& gpus) {
  KvDecodeParams p;
  p.model = parse_model_key(n);
  p.batch = static_cast<unsigned>(n.get_uint("batch", std::nullopt, 1, 1u << 20));
  p.context = parse_tokens(n, "context_tokens", 1);
  p.steps = static_cast<unsigned>(n.get_uint("steps", 1, 1, 1u << 24));
  p.tp = parse_tp(n, p.model, gpus.size());
  p.block_tokens = parse_block_tokens(n, p.model, p.tp);
  p.layers = parse_layers(n, p.model);
  p.kv = n.has("kv_location") ? parse_placement(n, "kv_location", facts, gpus)
                              : Placement{Placement::Kind::kGpuLocal, 0, {}, "gpu_local"};
  p.hbm_tokens = n.get_uint("hbm_tokens", 0, 0, 1ULL << 30);
  p.hbm = n.has("hbm_location") ? parse_placement(n, "hbm_location", facts, gpus)
                                : Placement{Placement::Kind::kGpuLocal, 0, {}, "gpu_local"};
  if (n.has("state_location") && p.model.linear_layers(p.layers) == 0) {
    n.fail("state_location",
           fmt::format("only applies to a model with linear-attention layers among the simulated "
                       "ones ({} has {})",
                       p.model.name,
                       p.model.has_linear_attention() ? "none among them" : "no linear_attention"));
  }
  p.state = n.has("state_location") ? parse_placement(n, "state_location", facts, gpus) : p.kv;
  if (p.hbm_tokens == 0 && n.has("hbm_location")) {
    n.fail("hbm_location", "only applies with hbm_tokens > 0");
  }
  if ((p.hbm_tokens > 0 || !n.has("kv_location")) && !facts.gpu_has_local_memory &&
      p.hbm.kind == Placement::Kind::kGpuLocal) {
    n.fail(p.hbm_tokens > 0 ? "hbm_tokens" : "kv_location",
           "the platform's GPUs have no local memory; give kv_location: device/<name>");
  }
  p.compute = parse_compute(n, facts.gpu_memory_gbps);
  p.prefetch = static_cast<unsigned>(n.get_uint("prefetch_layers", 0, 0, 64));
  p.all_reduce = parse_all_reduce(n, p.tp, facts);
  n.finish();
  return std::make_shared<KvDecodeSpec>(std::move(p));
}

}  // namespace famsim
