// moe_experts: MoE expert fetch through an HBM expert cache.
//
// Keys (stream.moe_experts):
//   model             an MoE model (traffic/ai/generators.h)
//   location          where all experts live (e.g. device/fam0)
//   cache_location    the expert cache (default gpu_local)
//   cache_experts     experts the cache holds (all MoE layers together, LRU), default 0: no cache
//   warm_cache        start with the cache holding each simulated layer's most popular experts
//                     (an equal share of the cache per layer), as in steady-state serving;
//                     default false: start empty
//   batch             tokens per step (per tensor-parallel group), each routed to top_k distinct
//                     experts per MoE layer
//   steps             decode steps, default 1
//   zipf_exponent     routing skew: expert popularity ranks follow Zipf(experts, s), each layer
//                     with its own seeded popularity order; 0 = uniform routing. Default 1.0
//   tensor_parallel   GPUs sharing each expert (each reads its 1/tp shard), default 1; the GPUs
//                     of a group (consecutive GPUs of the stream) route the same tokens
//   expert_parallel   instead of tensor_parallel: GPUs sharing the experts whole (expert
//                     parallelism, as vLLM's --enable-expert-parallel and DeepSeek's serving do),
//                     default 1. The GPUs of a group route the same tokens; rank r of N holds the
//                     contiguous experts [r E/N, (r+1) E/N) of every layer (vLLM's linear
//                     placement; N must divide the experts), keeps its own cache of them
//                     (cache_experts per GPU) and fetches only those its tokens picked, so hot
//                     experts load their rank: the group's step waits for its slowest rank.
//                     Compute is the layer split evenly over the N GPUs (N must divide the
//                     attention heads), as under uniform routing; a rank serving more tokens
//                     computing longer is not modelled
//   layers            MoE layers simulated (the first N of the model's MoE layers), default all
//   compute           per-layer compute (traffic/ai/llm_common.h), tokens = batch
//   prefetch_layers   default 0
//   access_bytes      bytes per access, a power of two (as a pattern stream's), default 64 KiB
//   all_to_all        with expert_parallel > 1: each MoE layer's token dispatch and combine
//                     simulated over the fabric: direct | none (default: none, the group ending
//                     each layer together with no time for them), or {algorithm: direct,
//                     dispatch_dtype_bytes: 2, combine_dtype_bytes: 2}. Token t of the batch is
//                     rank t mod expert_parallel's (each rank's attention holds its share: data-
//                     parallel attention, as DeepSeek's serving runs it); after the layer's compute
//                     each rank writes, into a receive buffer in each other rank's HBM, the hidden
//                     state (hidden_size x dispatch_dtype_bytes) of each of its tokens that picked
//                     an expert there, once a rank however many of its experts it picked (DeepEP's
//                     dispatch), then, once every rank has, the outputs (hidden_size x
//                     combine_dtype_bytes) of the tokens its experts served back to their ranks
//                     (combine). Both come after the compute: the layer's time is the same sum as
//                     dispatch, experts' compute, combine in turn
//   all_reduce        with tensor_parallel > 1: the group's all-reduces after each MoE layer (two:
//                     after its attention and after its experts, batch x hidden_size x dtype_bytes
//                     each) simulated over the fabric: ring | one_shot | two_shot | none (default;
//                     llm_common.h AllReduceConfig). Not with expert_parallel (all_to_all instead)
//
// Per step and MoE layer: every token draws top_k distinct experts; each distinct expert the
// cache does not hold is read from `location` and written into its cache slot (evicting the
// least recently used). Experts the cache holds cost no transfer here (the compute reads them
// from HBM). A step is the simulated MoE layers one after another, each fetching its missing
// experts, then computing; the result gives its time and the part of it compute did not hide.
#include "traffic/ai/generators.h"
#include "traffic/ai/llm_common.h"
#include "traffic/pattern.h"
#include "traffic/zipf.h"

#include <fmt/format.h>

namespace famsim {

namespace {

struct MoeParams {
  ModelConfig model;
  Placement where;
  Placement cache_where;
  std::uint64_t cache_experts = 0;
  bool warm = false;
  unsigned batch = 1;
  unsigned steps = 1;
  double zipf = 1.0;
  unsigned tp = 1;
  unsigned ep = 1;      // expert parallelism: GPUs sharing the experts whole
  unsigned layers = 1;  // MoE layers simulated
  ComputeModel compute;
  unsigned prefetch = 0;
  std::uint64_t access_bytes = 64 * 1024;
  bool all_to_all = false;  // (with ep > 1)
  AllReduceConfig all_reduce;  // (with tp > 1)
  std::string all_to_all_text = "none";
  unsigned dispatch_dtype_bytes = 2, combine_dtype_bytes = 2;

  std::uint64_t expert_bytes() const { return model.expert_weight_bytes(tp); }
  unsigned model_layer(unsigned moe_layer) const { return model.nth_moe_layer(moe_layer); }
  // GPUs that route the same tokens (one of tp and ep is 1).
  unsigned group() const { return tp * ep; }
  std::uint64_t experts_per_rank() const { return model.experts / ep; }
  // The rank of an expert-parallel group that holds expert e (0 without expert parallelism).
  unsigned owner(std::uint64_t e) const { return static_cast<unsigned>(e / experts_per_rank()); }
};

class MoeSource : public PhasedSource {
 public:
  MoeSource(const MoeParams& p, const SourceContext& c)
      : PhasedSource(p.prefetch),
        p_(p),
        experts_va_(c.region_va[0]),
        cache_va_(p.cache_experts > 0 ? c.region_va[1] : 0),
        zipf_(p.model.experts, p.zipf),
        // The GPUs of a tensor- or expert-parallel group route the same tokens.
        rng_(mix64(c.sim_seed ^ mix64((std::uint64_t{c.stream} << 32) | (c.rank / p.group())))),
        rank_(c.rank % p.ep),
        cache_(p.cache_experts),
        needed_(p.model.experts, 0),
        picks_(p.model.top_k),
        rank_hit_(p.ep, 0) {
    if (p.all_to_all) {
      dest_tokens_.assign(2 * std::size_t{p.ep - 1}, 0);
      dest_bytes_.assign(2 * std::size_t{p.ep - 1}, 0);
    }
    if (p.warm) {
      // Each layer's most popular experts this GPU holds (all of them without expert
      // parallelism), least popular first, so the most popular end up most recently used.
      const std::uint64_t per_layer =
          std::min<std::uint64_t>(p.cache_experts / p.layers, p.experts_per_rank());
      std::vector<std::vector<std::uint64_t>> popular(p.layers);
      for (unsigned l = 0; l < p.layers; ++l) {
        for (std::uint64_t r = 0; popular[l].size() < per_layer; ++r) {
          const std::uint64_t e = scatter_rank(r, p.model.experts, perm_seed(l));
          if (p.owner(e) == rank_) popular[l].push_back(e);
        }
      }
      for (std::uint64_t r = per_layer; r-- > 0;) {
        for (unsigned l = 0; l < p.layers; ++l) {
          std::uint64_t slot = 0;
          cache_.insert(std::uint64_t{l} * p.model.experts + popular[l][r], slot);
        }
      }
    }
  }

  nlohmann::json report() const override {
    const std::uint64_t lookups = hits_ + misses_;
    nlohmann::json j = {
        {"steps_done", phases_done() / p_.layers},
        {"step_ns", steps_.ns()},
        {"expert_lookups", lookups},
        {"cache_hits", hits_},
        {"cache_misses", misses_},
        {"hit_rate", lookups ? static_cast<double>(hits_) / static_cast<double>(lookups) : 0.0},
        {"evictions", cache_.evictions()},
        {"bytes_fetched", fetched_},
        {"mean_distinct_experts_per_layer",
         phases_done() ? static_cast<double>(lookups) / static_cast<double>(phases_done()) : 0.0}};
    if (p_.all_to_all)
      add_collective_report(j, "all_to_all", steps_, collective_bytes_written(), "step");
    if (p_.all_reduce.on)
      add_collective_report(j, "all_reduce", steps_, collective_bytes_written(), "step");
    return j;
  }

 protected:
  bool open_phase(std::uint64_t i, PhaseStart& start) override {
    if (i / p_.layers >= p_.steps) return false;
    layer_ = static_cast<unsigned>(i % p_.layers);
    start.compute_ps = p_.compute.layer_ps(p_.model, p_.model_layer(layer_), p_.batch, p_.group());
    // Route the batch: mark every expert some token picked that this GPU holds.
    std::fill(needed_.begin(), needed_.end(), 0);
    std::fill(dest_tokens_.begin(), dest_tokens_.end(), 0);
    const std::uint64_t seed = perm_seed(layer_);
    const unsigned others = p_.ep - 1;
    for (unsigned t = 0; t < p_.batch; ++t) {
      zipf_distinct(zipf_, p_.model.top_k, rng_, picks_.data());
      std::fill(rank_hit_.begin(), rank_hit_.end(), 0);
      for (std::uint64_t r : picks_) {
        const std::uint64_t e = scatter_rank(r, p_.model.experts, seed);
        if (p_.owner(e) == rank_) needed_[e] = 1;
        rank_hit_[p_.owner(e)] = 1;
      }
      if (!p_.all_to_all) continue;
      // Destination d is rank rank_ + 1 + d (modulo), as the receive buffers are mapped.
      const unsigned home = t % p_.ep;
      for (unsigned d = 0; d < others; ++d) {
        const unsigned r = (rank_ + 1 + d) % p_.ep;
        if (home == rank_ && rank_hit_[r]) ++dest_tokens_[d];           // dispatch to r
        if (home == r && rank_hit_[rank_]) ++dest_tokens_[others + d];  // combine back to r
      }
    }
    if (p_.all_to_all) {
      const std::uint64_t hidden = p_.model.hidden;
      for (unsigned d = 0; d < others; ++d) {
        dest_bytes_[d] = dest_tokens_[d] * hidden * p_.dispatch_dtype_bytes;
        dest_bytes_[others + d] = dest_tokens_[others + d] * hidden * p_.combine_dtype_bytes;
      }
      start.collectives = 1;
      start.dest_bytes = &dest_bytes_;
    } else {
      p_.all_reduce.set_phase(start, p_.model, p_.model_layer(layer_), p_.batch);
    }
    expert_ = 0;
    copy_ = ChunkCursor{};
    fill_ = ChunkCursor{};
    return true;
  }

  void phase_finished(const PhaseTimes& t) override { steps_.phase_finished(t, p_.layers); }

  bool phase_access(Access& a) override {
    for (;;) {
      if (copy_.take(p_.access_bytes, a.va, a.bytes, a.write)) {
        fetched_ += a.bytes;
        return true;
      }
      if (fill_.take(p_.access_bytes, a.va, a.bytes, a.write)) return true;
      // The next needed expert.
      while (expert_ < p_.model.experts && !needed_[expert_]) ++expert_;
      if (expert_ >= p_.model.experts) return false;
      const std::uint64_t e = expert_++;
      const std::uint64_t key = std::uint64_t{layer_} * p_.model.experts + e;
      std::uint64_t slot = 0;
      if (cache_.find(key, slot)) {
        ++hits_;
        continue;
      }
      ++misses_;
      const std::uint64_t bytes = p_.expert_bytes();
      copy_ = ChunkCursor{experts_va_ + key * bytes, bytes, false};
      if (cache_.insert(key, slot)) fill_ = ChunkCursor{cache_va_ + slot * bytes, bytes, true};
    }
  }

 private:
  // Each layer's popularity order: rank -> expert.
  static std::uint64_t perm_seed(unsigned layer) { return mix64(0x3e7ULL + layer); }

  const MoeParams& p_;
  std::uint64_t experts_va_;
  std::uint64_t cache_va_;
  ZipfDistribution zipf_;
  boost::random::mt19937_64 rng_;
  unsigned rank_;  // in an expert-parallel group
  LruSlots cache_;
  std::vector<std::uint8_t> needed_;
  std::vector<std::uint64_t> picks_;
  std::vector<std::uint8_t> rank_hit_;  // the ranks a token's picks are on
  std::vector<std::uint64_t>
      dest_tokens_;  // this layer's tokens to each other rank: dispatch, combine
  std::vector<std::uint64_t> dest_bytes_;  // the same in bytes (PhaseStart::dest_bytes)
  unsigned layer_ = 0;
  std::uint64_t expert_ = 0;
  ChunkCursor copy_;
  ChunkCursor fill_;
  std::uint64_t hits_ = 0, misses_ = 0, fetched_ = 0;
  StepTimes steps_;
};

class MoeSpec : public GeneratorSpec {
 public:
  explicit MoeSpec(MoeParams p) : p_(std::move(p)) {}
  const char* kind() const override { return "moe_experts"; }
  std::vector<RegionSpec> regions() const override {
    std::vector<RegionSpec> r;
    r.push_back(
        {"experts",
         std::uint64_t{p_.layers} * p_.model.experts * p_.expert_bytes(),
         p_.where,
         false,
         {"layers", "tensor_parallel"},
         fmt::format("{} MoE layers x {} experts x {} B of each expert (tensor_parallel {})",
                     p_.layers, p_.model.experts, p_.expert_bytes(), p_.tp)});
    if (p_.cache_experts > 0) {
      r.push_back({"expert_cache",
                   p_.cache_experts * p_.expert_bytes(),
                   p_.cache_where,
                   true,
                   {"cache_experts", "tensor_parallel"},
                   fmt::format("cache_experts {} x {} B of each expert (tensor_parallel {}, "
                               "expert_parallel {})",
                               p_.cache_experts, p_.expert_bytes(), p_.tp, p_.ep)});
    }
    return r;
  }
  // A tensor- and expert-parallel group's GPUs end each MoE layer together (its all-reduces and
  // the all-to-all that brings the experts' outputs back).
  unsigned synchronised_group() const override { return p_.group(); }
  // A rank sends at most every token of the batch to a peer, hidden x the larger dtype each; an
  // all-reduce's message is the batch's activations.
  Collectives collectives() const override {
    if (!p_.all_to_all)
      return p_.all_reduce.collectives(p_.all_reduce.message_bytes(p_.model, p_.batch));
    return {true, CollectivePlan::Algorithm::kAllToAll,
            std::uint64_t{p_.batch} * p_.model.hidden *
                std::max(p_.dispatch_dtype_bytes, p_.combine_dtype_bytes)};
  }
  std::unique_ptr<AccessSource> make_source(const SourceContext& c) const override {
    return std::make_unique<MoeSource>(p_, c);
  }
  // Every GPU runs steps x layers phases (one per simulated layer of each step).
  std::uint64_t phases_total(unsigned gpus) const override {
    return std::uint64_t{gpus} * p_.steps * p_.layers;
  }
  // Without a cache every step reads, on each GPU and simulated MoE layer, the top_k distinct
  // experts its tokens route to at least (its shard of each). With a cache the hits are not known
  // up front (a warm cache may hold them all): no figure.
  std::vector<MovedBytes> bytes_moved_at_least(unsigned gpus) const override {
    // (Under expert parallelism the ranks holding none of a step's experts read nothing: no
    // per-GPU figure either.)
    if (p_.cache_experts > 0 || p_.ep > 1) return {};
    MovedBytes m;
    m.bytes = static_cast<double>(gpus) * p_.steps * p_.layers * p_.model.top_k *
              static_cast<double>(p_.expert_bytes());
    m.where = {p_.where};
    m.keys = {"steps", "layers"};
    m.how = fmt::format(
        "{} GPUs x {} steps x {} MoE layers x top_k {} experts x {} B of expert weights on "
        "each GPU",
        gpus, p_.steps, p_.layers, p_.model.top_k, p_.expert_bytes());
    return {m};
  }
  // The stream's result. The GPUs of a tensor-parallel group (tp consecutive GPUs) route the
  // same tokens and each caches its 1/tp shard of the same experts, so a lookup, hit, miss or
  // eviction is the group's and counts once per group; under expert parallelism each rank looks
  // up, caches and fetches its own experts, and the group's counts are its ranks' sums. Groups
  // route their own tokens and add:
  //   steps_done                       steps every group completed (the configured steps when
  //                                    all ran)
  //   expert_lookups, cache_hits, cache_misses, evictions  once per group, summed over groups
  //   hit_rate                         cache_hits / expert_lookups
  //   bytes_fetched                    total over every GPU of the stream (all shards: whole
  //                                    experts)
  //   mean_distinct_experts_per_layer  per step and MoE layer of a group, mean over groups
  //   mean_step_ns                     a step's time over the simulated MoE layers on the
  //                                    group's critical path (per step, its slowest GPU), mean
  //                                    over steps and groups
  //   compute_ns_per_step              one GPU's compute for the simulated MoE layers of a step
  //                                    (the group's GPUs compute their shards side by side)
  //   exposed_fetch_ns_per_step        mean_step_ns - compute_ns_per_step: expert fetches (and
  //                                    cache fills) compute did not hide
  //   tokens_per_second_per_group      batch x steps / the group's critical-path time, mean
  //                                    over groups; for the simulated MoE layers only
  //   moe_layers_simulated, model_layers, and a note saying what a step leaves out
  //   with expert_parallel: bytes_fetched_max_gpu and fetch_imbalance (the most any GPU
  //                                    fetched over the mean per GPU: 1 when the ranks share
  //                                    the fetches evenly)
  nlohmann::json combine(const std::vector<nlohmann::json>& per_gpu) const override {
    const TpGroups g(per_gpu, p_.group());
    // A group's event: once per group (its tensor-parallel GPUs count the same), or its
    // expert-parallel ranks' own events added up.
    const auto group_count = [&](const char* key) {
      return p_.ep > 1 ? g.gpu_sum(key) : g.group_sum(key);
    };
    const std::uint64_t lookups = group_count("expert_lookups");
    const std::uint64_t hits = group_count("cache_hits");
    const std::uint64_t fetched = g.gpu_sum("bytes_fetched");
    const TpGroups::Steps st = g.steps("step_ns", p_.batch);
    const double mean_step_ns = st.mean_step_ns;
    const double compute_ns = compute_ns_per_step();
    // With all_to_all or all_reduce, the step's collectives (not expert fetch).
    const double a2a_ns = p_.all_to_all      ? g.gpu_mean("mean_all_to_all_ns_per_step")
                          : p_.all_reduce.on ? g.gpu_mean("mean_all_reduce_ns_per_step")
                                             : 0.0;
    const std::uint64_t phases = std::uint64_t{g.groups()} * g.completed("steps_done") * p_.layers;
    const unsigned moe_layers = p_.model.moe_layers(p_.model.layers);
    nlohmann::json j = {
        {"tensor_parallel_groups", g.groups()},
        {"steps_done", g.completed("steps_done")},
        {"expert_lookups", lookups},
        {"cache_hits", hits},
        {"cache_misses", group_count("cache_misses")},
        {"hit_rate", lookups ? static_cast<double>(hits) / static_cast<double>(lookups) : 0.0},
        {"evictions", group_count("evictions")},
        {"bytes_fetched", fetched},
        {"mean_distinct_experts_per_layer",
         p_.ep > 1 ? (phases ? static_cast<double>(lookups) / static_cast<double>(phases) : 0.0)
                   : g.gpu_mean("mean_distinct_experts_per_layer")},
        {"mean_step_ns", mean_step_ns},
        {"compute_ns_per_step", compute_ns},
        {"exposed_fetch_ns_per_step", std::max(0.0, mean_step_ns - compute_ns - a2a_ns)},
        {"tokens_per_second_per_group", st.tokens_per_second},
        {"moe_layers_simulated", p_.layers},
        {"model_layers", p_.model.layers},
        {"note",
         fmt::format("a step here is the expert fetches and compute{} of {} of {}'s {} MoE "
                     "layers only{}; attention's KV reads and the LM head are not "
                     "run either, so its step time and tokens per second are not "
                     "the whole model's",
                     p_.all_to_all                   ? ", dispatch and combine"
                     : p_.all_reduce.on && p_.tp > 1 ? " and all-reduces"
                                                     : "",
                     p_.layers, p_.model.name, moe_layers,
                     moe_layers < p_.model.layers
                         ? fmt::format(", not its {} {} layers", p_.model.layers - moe_layers,
                                       p_.model.has_block_pattern() ? "other" : "dense")
                         : std::string())}};
    if (p_.all_to_all) add_collective_combined(j, "all_to_all", g, "step");
    if (p_.all_reduce.on) add_collective_combined(j, "all_reduce", g, "step");
    if (p_.ep > 1) {
      const double mean = static_cast<double>(fetched) / static_cast<double>(per_gpu.size());
      const double most = g.gpu_max("bytes_fetched");
      j["expert_parallel"] = p_.ep;
      j["bytes_fetched_max_gpu"] = most;
      j["fetch_imbalance"] = mean > 0 ? most / mean : 0.0;
    }
    return j;
  }
  nlohmann::json summary() const override {
    nlohmann::json j = {{"model", p_.model.name},
                        {"expert_bytes_per_gpu", p_.expert_bytes()},
                        {"expert_weight_format", p_.model.expert_format.name},
                        {"expert_bits_per_weight", p_.model.expert_format.bits_per_value()},
                        {"experts", p_.model.experts},
                        {"top_k", p_.model.top_k},
                        {"tensor_parallel", p_.tp},
                        {"expert_parallel", p_.ep},
                        {"moe_layers_simulated", p_.layers},
                        {"model_moe_layers", p_.model.moe_layers(p_.model.layers)},
                        {"batch", p_.batch},
                        {"steps", p_.steps},
                        {"cache_experts", p_.cache_experts},
                        {"warm_cache", p_.warm},
                        {"zipf_exponent", p_.zipf},
                        {"compute", p_.compute.to_json()},
                        {"compute_ns_per_step", compute_ns_per_step()},
                        {"all_to_all", p_.all_to_all_text}};
    add_all_reduce_summary(j, p_.all_reduce, p_.model, p_.layers, p_.batch, p_.tp, "step",
                           [this](unsigned l) { return p_.model_layer(l); });
    return j;
  }

 private:
  // One GPU's compute for the simulated MoE layers of a step (tokens = batch).
  double compute_ns_per_step() const {
    std::uint64_t ps = 0;
    for (unsigned l = 0; l < p_.layers; ++l)
      ps += p_.compute.layer_ps(p_.model, p_.model_layer(l), p_.batch, p_.group());
    return static_cast<double>(ps) * 1e-3;
  }

  MoeParams p_;
};

}  // namespace

std::shared_ptr<const GeneratorSpec> parse_moe_experts(ConfigNode& n, const PlatformFacts& facts,
                                                       const std::vector<unsigned>& gpus) {
  MoeParams p;
  p.model = parse_model_key(n);
  if (!p.model.is_moe()) n.fail("model", p.model.name + " has no experts");
  p.where = parse_placement(n, "location", facts, gpus);
  p.cache_experts = n.get_uint("cache_experts", 0, 0, 1ULL << 24);
  p.cache_where = n.has("cache_location")
                      ? parse_placement(n, "cache_location", facts, gpus)
                      : Placement{Placement::Kind::kGpuLocal, 0, {}, "gpu_local"};
  if (p.cache_experts > 0 && p.cache_where.kind == Placement::Kind::kGpuLocal &&
      !facts.gpu_has_local_memory) {
    n.fail("cache_experts",
           "the platform's GPUs have no local memory for the cache; give "
           "cache_location");
  }
  p.warm = n.get_bool("warm_cache", false);
  if (p.warm && p.cache_experts == 0) n.fail("warm_cache", "needs cache_experts > 0");
  p.batch = static_cast<unsigned>(n.get_uint("batch", std::nullopt, 1, 1u << 20));
  p.steps = static_cast<unsigned>(n.get_uint("steps", 1, 1, 1u << 24));
  p.zipf = n.get_double("zipf_exponent", 1.0, 0.0, 10.0);
  p.tp = parse_tp(n, p.model, gpus.size());
  p.ep = static_cast<unsigned>(n.get_uint("expert_parallel", 1, 1, 1024));
  if (p.ep > 1) {
    if (p.tp > 1) {
      n.fail_among({"expert_parallel", "tensor_parallel"},
                   "expert_parallel and tensor_parallel both split the experts over GPUs: give "
                   "one of them");
    }
    if (gpus.size() % p.ep != 0) {
      n.fail("expert_parallel",
             fmt::format("the stream's {} GPUs do not split into groups of {}", gpus.size(), p.ep));
    }
    if (p.model.experts % p.ep != 0) {
      n.fail("expert_parallel", fmt::format("{} does not divide {}'s {} experts per layer", p.ep,
                                            p.model.name, p.model.experts));
    }
    // The compute model splits each layer over the group's GPUs.
    check_heads_split(n, "expert_parallel", p.model, p.ep);
  }
  const unsigned moe_layers = p.model.moe_layers(p.model.layers);
  p.layers = static_cast<unsigned>(n.get_uint("layers", moe_layers, 1, moe_layers));
  // A cache larger than every expert of the simulated layers (that this GPU holds) has slots
  // nothing can fill: a mistake (Mixtral's 8 experts with cache_experts: 64 for one layer), and
  // memory the run allocates for nothing.
  if (const std::uint64_t all = p.experts_per_rank() * p.layers; p.cache_experts > all) {
    n.fail(
        "cache_experts",
        fmt::format("{} is more than the {} experts of the {} simulated MoE layer{} ({} x {}{}); "
                    "expected at most {} (which caches them all)",
                    p.cache_experts, all, p.layers, p.layers == 1 ? "" : "s", p.experts_per_rank(),
                    p.layers,
                    p.ep > 1 ? fmt::format(", each GPU's share under expert_parallel {}", p.ep)
                             : std::string(),
                    all));
  }
  p.compute = parse_compute(n, facts.gpu_memory_gbps);
  p.prefetch = static_cast<unsigned>(n.get_uint("prefetch_layers", 0, 0, 64));
  p.access_bytes = parse_access_bytes(n, 64 * 1024);
  n.ignore("all_to_all");  // a known key even when absent: a misspelling of it is named
  if (n.has("all_to_all")) {
    static const std::vector<std::string> kAlgorithms = {"none", "direct"};
    if (n.is_map("all_to_all")) {
      ConfigNode a = n.child("all_to_all");
      p.all_to_all_text = a.get_choice("algorithm", std::nullopt, kAlgorithms);
      p.dispatch_dtype_bytes = get_dtype_bytes(a, "dispatch_dtype_bytes", 2);
      p.combine_dtype_bytes = get_dtype_bytes(a, "combine_dtype_bytes", 2);
      a.finish();
    } else {
      p.all_to_all_text = n.get_choice("all_to_all", std::nullopt, kAlgorithms);
    }
    // With expert_parallel 1 (a sweep may reach it) there is nothing to send: no rounds.
    p.all_to_all = p.all_to_all_text == "direct" && p.ep > 1;
    if (p.all_to_all) check_collective_platform(n, "all_to_all", facts);
  }
  p.all_reduce = parse_all_reduce(n, p.tp, facts);
  if (p.all_reduce.on && p.ep > 1) {
    n.fail("all_reduce",
           fmt::format("is tensor_parallel's: under expert_parallel {} the layer's tokens move "
                       "by all_to_all (give all_to_all: direct, and all_reduce: none)",
                       p.ep));
  }
  n.finish();
  return std::make_shared<MoeSpec>(std::move(p));
}

}  // namespace famsim
