// weight_stream: a model's weights streamed from memory layer by layer, paced by compute.
//
// Keys (stream.weight_stream):
//   model             the model (traffic/ai/generators.h)
//   location          where the weights live (e.g. device/fam0)
//   tensor_parallel   GPUs sharing each layer (each reads its 1/tp shard), default 1
//   layers            layers simulated (the first N), default all
//   steps             passes over the layers (forward passes), default 1
//   batch             tokens per pass, for the compute time, default 1
//   compute           per-layer compute (traffic/ai/llm_common.h)
//   prefetch_layers   layers fetched ahead of the one computing, default 1 (double buffering);
//                     0: each layer's fetch waits for the previous layer's compute
//   include_experts   MoE layers also read all their routed experts, default false (the
//                     moe_experts generator models fetching only the routed ones)
//   access_bytes      bytes per access the GPU splits into requests (a copy engine's chunk), a
//                     power of two (as a pattern stream's), default 64 KiB
//   all_reduce        with tensor_parallel > 1: the group's all-reduces after each layer (two a
//                     layer, batch x hidden_size x dtype_bytes each) simulated over the fabric:
//                     ring | one_shot | two_shot | none (default; llm_common.h AllReduceConfig)
//
// Per pass and layer the GPU reads ModelConfig::layer_weight_bytes(layer, tp) bytes (plus the
// experts when asked); the layers sit back to back in one region. The report gives per-pass time
// and the time transfers were not hidden behind compute.
#include "traffic/ai/generators.h"
#include "traffic/ai/llm_common.h"

#include <fmt/format.h>

namespace famsim {

namespace {

struct WeightStreamParams {
  ModelConfig model;
  Placement where;
  unsigned tp = 1;
  unsigned layers = 1;
  unsigned steps = 1;
  std::uint64_t batch = 1;
  ComputeModel compute;
  unsigned prefetch = 1;
  bool include_experts = false;
  std::uint64_t access_bytes = 64 * 1024;
  AllReduceConfig all_reduce;

  std::uint64_t layer_bytes(unsigned l) const {
    std::uint64_t b = model.layer_weight_bytes(l, tp);
    if (include_experts && model.is_moe_layer(l))
      b += model.experts * model.expert_weight_bytes(tp);
    return b;
  }
  std::uint64_t total_bytes() const {
    std::uint64_t t = 0;
    for (unsigned l = 0; l < layers; ++l) t += layer_bytes(l);
    return t;
  }
  // Every layer of the model reads as many bytes, computes as long and mixes alike, and at least
  // two ran: a whole pass is then the first layer as it ran and the others at the steady pace of
  // the later simulated ones (StepTimes::scaled_ns).
  bool identical_layers() const {
    return layers >= 2 &&
           every_layer_alike(model.layers, [&](unsigned l) { return layer_bytes(l); }) &&
           every_layer_computes_and_mixes_alike(model, compute, batch, tp);
  }
  // All-reduces simulated with layers fetched ahead: the run's last pass is no steady state
  // (whole_model_steps).
  bool collectives_ahead() const { return all_reduce.on && tp > 1 && prefetch > 0; }
};

class WeightStreamSource : public PhasedSource {
 public:
  WeightStreamSource(const WeightStreamParams& p, const SourceContext& c)
      : PhasedSource(p.prefetch), p_(p), base_(c.region_va[0]) {
    offset_.resize(p.layers);
    std::uint64_t o = 0;
    for (unsigned l = 0; l < p.layers; ++l) {
      offset_[l] = o;
      o += p.layer_bytes(l);
    }
  }

  nlohmann::json report() const override {
    const std::vector<double>& pass_ns = passes_.ns();
    double sum = 0;
    for (double s : pass_ns) sum += s;
    const double compute_ns =
        static_cast<double>(compute_ps_per_pass_) * 1e-3 * static_cast<double>(pass_ns.size());
    nlohmann::json j = {
        {"passes_done", pass_ns.size()},
        {"bytes_read", read_},
        {"pass_ns", pass_ns},
        {"mean_pass_ns", pass_ns.empty() ? 0.0 : sum / static_cast<double>(pass_ns.size())},
        {"compute_ns_per_pass", static_cast<double>(compute_ps_per_pass_) * 1e-3},
        // Time the passes took beyond their compute: transfers not hidden behind compute.
        {"exposed_transfer_ns", sum > compute_ns ? sum - compute_ns : 0.0}};
    if (p_.all_reduce.on)
      add_collective_report(j, "all_reduce", passes_, collective_bytes_written(), "pass");
    if (p_.layers < p_.model.layers && p_.identical_layers()) {
      j["pass_whole_model_ns"] =
          whole_model_steps(passes_, p_.layers, p_.model.layers, p_.collectives_ahead(), p_.steps);
    }
    if (p_.layers < p_.model.layers && p_.collectives_ahead())
      j["pass_ns_for_estimate"] = steady_steps(passes_, true, p_.steps);
    return j;
  }

 protected:
  bool open_phase(std::uint64_t i, PhaseStart& start) override {
    if (i / p_.layers >= p_.steps) return false;
    const unsigned l = static_cast<unsigned>(i % p_.layers);
    start.compute_ps = p_.compute.layer_ps(p_.model, l, p_.batch, p_.tp);
    if (i < p_.layers) compute_ps_per_pass_ += start.compute_ps;
    p_.all_reduce.set_phase(start, p_.model, l, p_.batch);
    cursor_ = ChunkCursor{base_ + offset_[l], p_.layer_bytes(l), false};
    return true;
  }
  bool phase_access(Access& a) override {
    if (!cursor_.take(p_.access_bytes, a.va, a.bytes, a.write)) return false;
    read_ += a.bytes;
    return true;
  }
  void phase_finished(const PhaseTimes& t) override { passes_.phase_finished(t, p_.layers); }

 private:
  const WeightStreamParams& p_;
  std::uint64_t base_;
  std::vector<std::uint64_t> offset_;
  ChunkCursor cursor_;
  std::uint64_t read_ = 0;
  std::uint64_t compute_ps_per_pass_ = 0;
  StepTimes passes_;
};

class WeightStreamSpec : public GeneratorSpec {
 public:
  explicit WeightStreamSpec(WeightStreamParams p) : p_(std::move(p)) {}
  const char* kind() const override { return "weight_stream"; }
  std::vector<RegionSpec> regions() const override {
    WeightStreamParams whole = p_;
    whole.layers = p_.model.layers;
    RegionSpec r{"weights",
                 p_.total_bytes(),
                 p_.where,
                 false,
                 {"layers", "tensor_parallel"},
                 fmt::format("the weights of {} layers (tensor_parallel {})", p_.layers, p_.tp)};
    if (p_.layers < p_.model.layers) r.whole_model_bytes = whole.total_bytes();
    return {r};
  }
  // A tensor-parallel group's GPUs end each layer together (its all-reduces).
  unsigned synchronised_group() const override { return p_.tp; }
  Collectives collectives() const override {
    return p_.all_reduce.collectives(p_.all_reduce.message_bytes(p_.model, p_.batch));
  }
  bool sizes_whole_model() const override { return true; }
  std::unique_ptr<AccessSource> make_source(const SourceContext& c) const override {
    return std::make_unique<WeightStreamSource>(p_, c);
  }
  // Every GPU runs steps x layers phases (one per simulated layer of each step).
  std::uint64_t phases_total(unsigned gpus) const override {
    return std::uint64_t{gpus} * p_.steps * p_.layers;
  }
  // Each GPU reads its shard of every simulated layer once a pass.
  std::vector<MovedBytes> bytes_moved_at_least(unsigned gpus) const override {
    MovedBytes m;
    m.bytes = static_cast<double>(gpus) * p_.steps * static_cast<double>(p_.total_bytes());
    m.where = {p_.where};
    m.keys = {"steps", "layers"};
    m.how = fmt::format("{} GPUs x {} passes x {} B of weights a pass on each GPU ({} layers)",
                        gpus, p_.steps, p_.total_bytes(), p_.layers);
    return {m};
  }
  // The stream's result. Each tensor-parallel group (tp consecutive GPUs) streams the model once
  // per pass, every GPU its 1/tp shard of each layer:
  //   passes_done                  passes every group completed (a group's pass counts once,
  //                                not once per GPU): the configured passes when all ran
  //   bytes_read                   total over every GPU of the stream
  //   compute_ns_per_pass          one GPU's compute for one pass (the GPUs of a group compute
  //                                their shards side by side, so this is also the group's)
  //   mean_pass_ns                 a pass's time on the group's critical path (per pass, its
  //                                slowest GPU), mean over passes and groups
  //   exposed_transfer_ns          over all passes, the group's critical-path time beyond its
  //                                compute (transfers compute did not hide), mean over groups
  //   exposed_transfer_ns_per_pass the same per pass: mean_pass_ns - compute_ns_per_pass
  //                                (with all_reduce its all-reduces' time is in both)
  //   mean_all_reduce_ns_per_pass, all_reduce_bytes_written  with all_reduce: a pass's time in the
  //                                all-reduces after its layers' compute, and the bytes every GPU
  //                                wrote for them (llm_common.h)
  //   layers_simulated, model_layers, and when fewer layers ran than the model has,
  //   mean_pass_ns_whole_model_estimate (or a note when no estimate is sound)
  nlohmann::json combine(const std::vector<nlohmann::json>& per_gpu) const override {
    const TpGroups g(per_gpu, p_.tp);
    const double compute_ns = g.gpu_max("compute_ns_per_pass");
    double pass_sum = 0, exposed_sum = 0;
    std::size_t passes = 0;
    unsigned groups_with_passes = 0;
    for (const std::vector<double>& path : g.critical_path_ns("pass_ns")) {
      if (path.empty()) continue;
      double group_ns = 0;
      for (double s : path) group_ns += s;
      pass_sum += group_ns;
      passes += path.size();
      const double group_compute_ns = compute_ns * static_cast<double>(path.size());
      exposed_sum += group_ns > group_compute_ns ? group_ns - group_compute_ns : 0.0;
      ++groups_with_passes;
    }
    const double mean_pass_ns = passes ? pass_sum / static_cast<double>(passes) : 0.0;
    nlohmann::json j = {
        {"tensor_parallel_groups", g.groups()},
        {"passes_done", g.completed("passes_done")},
        {"bytes_read", g.gpu_sum("bytes_read")},
        {"mean_pass_ns", mean_pass_ns},
        {"compute_ns_per_pass", compute_ns},
        {"exposed_transfer_ns", groups_with_passes ? exposed_sum / groups_with_passes : 0.0},
        {"exposed_transfer_ns_per_pass",
         mean_pass_ns > compute_ns ? mean_pass_ns - compute_ns : 0.0},
        {"layers_simulated", p_.layers},
        {"model_layers", p_.model.layers}};
    if (p_.all_reduce.on) add_collective_combined(j, "all_reduce", g, "pass");
    if (p_.layers < p_.model.layers && j["passes_done"].get<std::uint64_t>() == 0) {
      j["note"] =
          "no pass was completed by every GPU before the run stopped, so there is no pass "
          "time to scale to the whole model";
    } else if (p_.layers < p_.model.layers) {
      if (std::string why = no_estimate_reason(); !why.empty()) {
        j["note"] = std::move(why);
      } else if (p_.identical_layers()) {
        // The first layer as it ran (the fill), the others at the later layers' steady pace:
        // per pass its slowest GPU's, mean over passes and groups, as mean_pass_ns.
        j["mean_pass_ns_whole_model_estimate"] =
            g.steps("pass_whole_model_ns", p_.batch).mean_step_ns;
      } else if (layers_alike()) {
        // The simulated layers average the model's (whole cycles of a hybrid's layer kinds, or a
        // single layer ran): the pass scales with the layers. The pipeline's fill at the start of
        // a pass, the first layer's fetch that no compute hid, is scaled too: the estimate errs
        // long by about that fetch x (model layers / simulated layers - 1).
        // (With collectives and layers fetched ahead, the run's last pass is left out.)
        j["mean_pass_ns_whole_model_estimate"] =
            (p_.collectives_ahead() ? g.steps("pass_ns_for_estimate", p_.batch).mean_step_ns
                                    : mean_pass_ns) *
            static_cast<double>(p_.model.layers) / static_cast<double>(p_.layers);
      } else {
        j["note"] = fmt::format(
            "pass time is for the first {} of {}'s {} layers only; its layers differ in weight "
            "bytes or compute, so it is not scaled to the whole model",
            p_.layers, p_.model.name, p_.model.layers);
      }
    }
    return j;
  }
  nlohmann::json summary() const override {
    std::uint64_t compute = 0;
    for (unsigned l = 0; l < p_.layers; ++l)
      compute += p_.compute.layer_ps(p_.model, l, p_.batch, p_.tp);
    nlohmann::json j = {{"model", p_.model.name},
                        {"bytes_per_pass_per_gpu", p_.total_bytes()},
                        {"weight_format", p_.model.weight_format.name},
                        {"bits_per_weight", p_.model.weight_format.bits_per_value()},
                        {"layers_simulated", p_.layers},
                        {"passes", p_.steps},
                        {"tensor_parallel", p_.tp},
                        {"compute_ns_per_pass", static_cast<double>(compute) * 1e-3},
                        {"compute", p_.compute.to_json()}};
    if (p_.model.is_moe()) {
      j["expert_weight_format"] = p_.model.expert_format.name;
      j["expert_bits_per_weight"] = p_.model.expert_format.bits_per_value();
    }
    add_layer_kinds(j, p_.model, p_.layers);
    add_all_reduce_summary(j, p_.all_reduce, p_.model, p_.layers, p_.batch, p_.tp, "pass");
    return j;
  }

 private:
  // True when the simulated layers read, on average, the weight bytes of the model's layers and
  // compute for their mean time, with the model's share of each kind of mixer (linear attention,
  // full attention, none): every layer alike (a dense transformer; not DeepSeek-V3, whose first
  // layers are dense and the rest MoE), or whole cycles of a hybrid model's layer kinds
  // (Qwen3-Next: 4 of its 48 layers).
  std::string no_estimate_reason() const override {
    if (p_.layers >= p_.model.layers || !p_.collectives_ahead() || p_.steps >= 2 ||
        !(p_.identical_layers() || layers_alike()))
      return {};
    return one_step_note("pass time is", "pass", p_.layers, p_.model, p_.prefetch);
  }
  bool layers_alike() const {
    const auto alike = [&](auto per_layer) {
      return first_layers_average_the_models(p_.model.layers, p_.layers, per_layer);
    };
    return alike([&](unsigned l) { return p_.layer_bytes(l); }) &&
           alike([&](unsigned l) { return p_.compute.layer_ps(p_.model, l, p_.batch, p_.tp); }) &&
           mixers_alike(p_.model, p_.layers);
  }

  WeightStreamParams p_;
};

}  // namespace

std::shared_ptr<const GeneratorSpec> parse_weight_stream(ConfigNode& n, const PlatformFacts& facts,
                                                         const std::vector<unsigned>& gpus) {
  WeightStreamParams p;
  p.model = parse_model_key(n);
  p.where = parse_placement(n, "location", facts, gpus);
  p.tp = parse_tp(n, p.model, gpus.size());
  p.layers = parse_layers(n, p.model);
  p.steps = static_cast<unsigned>(n.get_uint("steps", 1, 1, 1u << 24));
  p.batch = n.get_uint("batch", 1, 1, 1ULL << 30);
  p.compute = parse_compute(n, facts.gpu_memory_gbps, /*weights_are_traffic=*/true);
  p.prefetch = static_cast<unsigned>(n.get_uint("prefetch_layers", 1, 0, 64));
  p.include_experts = n.get_bool("include_experts", false);
  if (p.include_experts && !p.model.is_moe()) {
    n.fail("include_experts", p.model.name + " has no experts");
  }
  p.access_bytes = parse_access_bytes(n, 64 * 1024);
  p.all_reduce = parse_all_reduce(n, p.tp, facts);
  n.finish();
  return std::make_shared<WeightStreamSpec>(std::move(p));
}

}  // namespace famsim
