#include "traffic/ai/generators.h"

namespace famsim {

std::shared_ptr<const GeneratorSpec> parse_kv_decode(ConfigNode&, const PlatformFacts&,
                                                     const std::vector<unsigned>&);
std::shared_ptr<const GeneratorSpec> parse_prefill(ConfigNode&, const PlatformFacts&,
                                                   const std::vector<unsigned>&);
std::shared_ptr<const GeneratorSpec> parse_weight_stream(ConfigNode&, const PlatformFacts&,
                                                         const std::vector<unsigned>&);
std::shared_ptr<const GeneratorSpec> parse_moe_experts(ConfigNode&, const PlatformFacts&,
                                                       const std::vector<unsigned>&);
std::shared_ptr<const GeneratorSpec> parse_replay(ConfigNode&, const PlatformFacts&,
                                                  const std::vector<unsigned>&);

namespace {

using Parser = std::shared_ptr<const GeneratorSpec> (*)(ConfigNode&, const PlatformFacts&,
                                                        const std::vector<unsigned>&);
struct Entry {
  const char* kind;
  Parser parse;
};
const Entry kGenerators[] = {{"kv_decode", parse_kv_decode},
                             {"prefill", parse_prefill},
                             {"weight_stream", parse_weight_stream},
                             {"moe_experts", parse_moe_experts},
                             {"replay", parse_replay}};

}  // namespace

const std::vector<std::string>& generator_kinds() {
  static const std::vector<std::string> kinds = [] {
    std::vector<std::string> k;
    for (const Entry& e : kGenerators) k.push_back(e.kind);
    return k;
  }();
  return kinds;
}

std::shared_ptr<const GeneratorSpec> parse_generator(const std::string& kind, ConfigNode& node,
                                                     const PlatformFacts& facts,
                                                     const std::vector<unsigned>& gpus) {
  for (const Entry& e : kGenerators) {
    if (kind == e.kind) return e.parse(node, facts, gpus);
  }
  throw std::logic_error("unknown generator kind " + kind);
}

}  // namespace famsim
