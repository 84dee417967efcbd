// Workload generators beyond simple access patterns: AI workloads described by a model config,
// and replay of timed access traces. Each is a stream key (one per stream) whose value holds the
// generator's parameters; parse_generator reads it into a GeneratorSpec
// (traffic/workload_config.h), which says what memory each GPU needs and makes each GPU's
// AccessSource.
//
//   kv_decode      LLM decode over a paged KV cache (traffic/ai/kv_decode.cpp)
//   prefill        prefill with prefix-cache reuse, synthetic prompts or a Mooncake trace
//                  (traffic/ai/prefill.cpp)
//   weight_stream  per-layer weight streaming paced by compute (traffic/ai/weight_stream.cpp)
//   moe_experts    MoE expert fetch through an HBM expert cache (traffic/ai/moe_experts.cpp)
//   replay         a famsim timed access trace (traffic/ai/replay.cpp)
//
// Every AI generator takes `model:` (traffic/ai/model_config.h), either `{preset: NAME, ...}` for
// a shipped model (traffic/models/NAME.yaml; keys written next to preset override it), the
// path of a model YAML file, or {file: PATH, ...} (the file's keys overridden likewise).
#pragma once

#include "traffic/workload_config.h"

#include <memory>
#include <string>
#include <vector>

namespace famsim {

const std::vector<std::string>& generator_kinds();

std::shared_ptr<const GeneratorSpec> parse_generator(const std::string& kind, ConfigNode& node,
                                                     const PlatformFacts& facts,
                                                     const std::vector<unsigned>& gpus);

}  // namespace famsim
