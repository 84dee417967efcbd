// LLM model descriptions: the presets under traffic/models/ parse, and the KV cache, weight and
// parameter figures derived from them match values worked out by hand from the published
// architecture (each expected value's arithmetic is in the comment above it) and the published
// model sizes. Parser errors name the file, line and key.
#include "traffic/ai/model_config.h"
#include "traffic/ai/llm_common.h"
#include "tests/support/test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#ifndef FAMSIM_SOURCE_DIR
#define FAMSIM_SOURCE_DIR "."
#endif

namespace famsim {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

ModelConfig load_preset(const std::string& file) {
  const std::string path = std::string(FAMSIM_SOURCE_DIR) + "/traffic/models/" + file;
  return parse_model(ConfigNode(load_yaml_file(path), "", std::make_shared<ConfigSources>(path)));
}

ModelConfig parse_text(const std::string& text) {
  return parse_model(ConfigNode(load_yaml_text(text, "model.yaml"), "",
                                std::make_shared<ConfigSources>("model.yaml")));
}

// |actual - published| / published.
double relative_error(std::uint64_t actual, double published) {
  return (static_cast<double>(actual) - published) / published;
}

// A small dense GQA model; tests replace one line to make it wrong. Line numbers are 1-based.
constexpr const char* kSmallModel =
    "name: small\n"             // 1
    "source: test\n"            // 2
    "layers: 4\n"               // 3
    "hidden_size: 256\n"        // 4
    "attention_heads: 8\n"      // 5
    "kv_heads: 2\n"             // 6
    "intermediate_size: 512\n"  // 7
    "vocab_size: 1000\n";       // 8

std::string replace_line(const std::string& text, const std::string& from, const std::string& to) {
  std::string out = text;
  const auto at = out.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) out.replace(at, from.size(), to);
  return out;
}

TEST(ModelConfig, PresetsParseWithTheirSources) {
  for (const char* file : {"llama3_8b.yaml",
                           "llama3_70b.yaml",
                           "mixtral_8x7b.yaml",
                           "deepseek_v3.yaml",
                           "mistral_7b.yaml",
                           "gemma2_27b.yaml",
                           "gpt_oss_120b.yaml",
                           "gpt_oss_20b.yaml",
                           "qwen3_next_80b_a3b.yaml",
                           "llama4_scout.yaml",
                           "llama4_maverick.yaml",
                           "qwen3_32b.yaml",
                           "qwen3_30b_a3b.yaml",
                           "qwen3_235b_a22b.yaml",
                           "gemma3_27b.yaml",
                           "glm4_5.yaml",
                           "glm4_5_air.yaml",
                           "llama3_1_405b.yaml",
                           "deepseek_v3_2_exp.yaml",
                           "qwen3_coder_480b_a35b.yaml",
                           "gemma3_12b.yaml",
                           "gemma3_4b.yaml",
                           "kimi_k2.yaml"}) {
    SCOPED_TRACE(file);
    const ModelConfig m = load_preset(file);
    EXPECT_FALSE(m.name.empty());
    EXPECT_THAT(m.source, HasSubstr("config.json"));
  }
}

TEST(ModelConfig, PresetValuesMatchThePublishedConfigs) {
  const ModelConfig l8 = load_preset("llama3_8b.yaml");
  EXPECT_EQ(l8.layers, 32u);
  EXPECT_EQ(l8.hidden, 4096u);
  EXPECT_EQ(l8.heads, 32u);
  EXPECT_EQ(l8.kv_heads, 8u);
  EXPECT_EQ(l8.head_dim, 128u);
  EXPECT_EQ(l8.intermediate, 14336u);
  EXPECT_EQ(l8.vocab, 128256u);
  EXPECT_EQ(l8.weight_format.whole_bytes(), 2u);
  EXPECT_FALSE(l8.is_moe());

  const ModelConfig l70 = load_preset("llama3_70b.yaml");
  EXPECT_EQ(l70.layers, 80u);
  EXPECT_EQ(l70.hidden, 8192u);
  EXPECT_EQ(l70.heads, 64u);
  EXPECT_EQ(l70.kv_heads, 8u);
  EXPECT_EQ(l70.intermediate, 28672u);

  const ModelConfig mx = load_preset("mixtral_8x7b.yaml");
  EXPECT_EQ(mx.experts, 8u);
  EXPECT_EQ(mx.top_k, 2u);
  EXPECT_EQ(mx.expert_intermediate, 14336u);
  EXPECT_EQ(mx.intermediate, 0u);  // no dense layer
  EXPECT_EQ(mx.vocab, 32000u);

  const ModelConfig ds = load_preset("deepseek_v3.yaml");
  EXPECT_EQ(ds.attention, AttentionKind::kMla);
  EXPECT_EQ(ds.layers, 61u);
  EXPECT_EQ(ds.hidden, 7168u);
  EXPECT_EQ(ds.heads, 128u);
  EXPECT_EQ(ds.mla_kv_lora_rank, 512u);
  EXPECT_EQ(ds.mla_rope_head_dim, 64u);
  EXPECT_EQ(ds.mla_q_lora_rank, 1536u);
  EXPECT_EQ(ds.mla_qk_nope_head_dim, 128u);
  EXPECT_EQ(ds.mla_v_head_dim, 128u);
  EXPECT_EQ(ds.kv_heads, 128u);  // every head its own K and V after up-projection
  EXPECT_EQ(ds.head_dim, 192u);  // query/key head: 128 without RoPE + 64 RoPE
  EXPECT_EQ(ds.experts, 256u);
  EXPECT_EQ(ds.top_k, 8u);
  EXPECT_EQ(ds.shared_experts, 1u);
  EXPECT_EQ(ds.expert_intermediate, 2048u);
  EXPECT_EQ(ds.dense_layers, 3u);
  EXPECT_EQ(ds.intermediate, 18432u);
  EXPECT_EQ(ds.vocab, 129280u);
  EXPECT_EQ(ds.weight_format.whole_bytes(), 1u);
  EXPECT_EQ(ds.unquantized_dtype_bytes, 2u);
  EXPECT_EQ(ds.kv_format.whole_bytes(), 2u);
}

TEST(ModelConfig, Llama3With70bKvBytes) {
  const ModelConfig m = load_preset("llama3_70b.yaml");
  EXPECT_EQ(m.kv_vectors(), 2u);
  // 2 (K, V) x 8 KV heads x 128 x 2 B = 4,096 B per token per layer.
  EXPECT_EQ(m.kv_bytes_per_token_layer(), 4096u);
  // 2 x 80 layers x 8 x 128 x 2 B = 327,680 B (320 KiB) per token.
  EXPECT_EQ(m.kv_bytes_per_token(), 327680u);
  // tp = 8: one KV head per GPU: 2 x 1 x 128 x 2 B = 512 B per layer; x 80 = 40,960 B (40 KiB).
  EXPECT_EQ(m.kv_bytes_per_token_layer(8), 512u);
  EXPECT_EQ(m.kv_bytes_per_token(8), 40960u);
  // tp = 4: 2 heads per GPU: 2 x 2 x 128 x 2 B = 1,024 B.
  EXPECT_EQ(m.kv_bytes_per_token_layer(4), 1024u);
  // tp = 16 > 8 KV heads: each GPU holds one head (each head on 2 GPUs): 512 B, as at tp = 8.
  EXPECT_EQ(m.kv_bytes_per_token_layer(16), 512u);
  // tp = 3 neither divides 8 nor is a multiple of it; tp = 0 is no group.
  EXPECT_THROW(m.kv_bytes_per_token_layer(3), std::invalid_argument);
  EXPECT_THROW(m.kv_bytes_per_token(0), std::invalid_argument);
}

TEST(ModelConfig, Llama3With8bKvBytes) {
  const ModelConfig m = load_preset("llama3_8b.yaml");
  // 2 x 8 x 128 x 2 B = 4,096 B per layer; x 32 layers = 131,072 B (128 KiB) per token.
  EXPECT_EQ(m.kv_bytes_per_token_layer(), 4096u);
  EXPECT_EQ(m.kv_bytes_per_token(), 131072u);
}

TEST(ModelConfig, DeepSeekV3KvBytesAreTheLatentForAnyTp) {
  const ModelConfig m = load_preset("deepseek_v3.yaml");
  EXPECT_EQ(m.kv_vectors(), 1u);
  // (512 latent + 64 RoPE key) = 576 values x 2 B = 1,152 B per token per layer;
  // x 61 layers = 70,272 B per token. Every GPU of a TP group holds the whole latent.
  for (unsigned tp : {1u, 2u, 8u, 16u, 32u}) {
    SCOPED_TRACE(tp);
    EXPECT_EQ(m.kv_bytes_per_token_layer(tp), 1152u);
    EXPECT_EQ(m.kv_bytes_per_token(tp), 70272u);
  }
  EXPECT_THROW(m.kv_bytes_per_token(0), std::invalid_argument);
}

TEST(ModelConfig, Llama3With8bLayerWeightBytesByHand) {
  const ModelConfig m = load_preset("llama3_8b.yaml");
  // Attention: q 4096 x 4096 (16,777,216) + k 4096 x 1024 (4,194,304) + v 4096 x 1024
  // (4,194,304) + o 4096 x 4096 (16,777,216) = 41,943,040 weights x 2 B = 83,886,080 B.
  EXPECT_EQ(m.attention_weight_bytes(), 83886080u);
  // FFN: 3 x 4096 x 14336 = 176,160,768 weights x 2 B = 352,321,536 B.
  EXPECT_EQ(m.dense_ffn_weight_bytes(), 352321536u);
  // Two RMSNorm vectors: 2 x 4096 x 2 B = 16,384 B.
  // Layer: 83,886,080 + 352,321,536 + 16,384 = 436,224,000 B, the same for every layer.
  EXPECT_EQ(m.layer_weight_bytes(0), 436224000u);
  EXPECT_EQ(m.layer_weight_bytes(31), 436224000u);
  EXPECT_THROW(m.layer_weight_bytes(32), std::out_of_range);

  // tp = 8, one GPU: q 4096 x (4 heads x 128) = 2,097,152; k and v 4096 x (1 head x 128) =
  // 524,288 each; o 2,097,152; sum 5,242,880 x 2 B = 10,485,760 B.
  EXPECT_EQ(m.attention_weight_bytes(8), 10485760u);
  // FFN: 3 x 4096 x (14336 / 8 = 1792) = 22,020,096 x 2 B = 44,040,192 B.
  EXPECT_EQ(m.dense_ffn_weight_bytes(8), 44040192u);
  // Norms replicated: 16,384 B. Layer: 10,485,760 + 44,040,192 + 16,384 = 54,542,336 B.
  EXPECT_EQ(m.layer_weight_bytes(5, 8), 54542336u);
  // tp = 3 splits the FFN by whole columns, rounding up: ceil(14336 / 3) = 4,779 columns;
  // 3 x 4096 x 4779 x 2 B = 117,448,704 B. (Attention needs tp to divide the 32 heads.)
  EXPECT_EQ(m.dense_ffn_weight_bytes(3), 117448704u);
  EXPECT_THROW(m.attention_weight_bytes(3), std::invalid_argument);
  // LM head: 128256 x 4096 x 2 B = 1,050,673,152 B; tp = 8: 16,032 rows: 131,334,144 B.
  EXPECT_EQ(m.lm_head_weight_bytes(), 1050673152u);
  EXPECT_EQ(m.lm_head_weight_bytes(8), 131334144u);
  // A dense model has no experts and no router.
  EXPECT_EQ(m.expert_weight_bytes(), 0u);
  EXPECT_EQ(m.router_weight_bytes(), 0u);
}

TEST(ModelConfig, MixtralExpertAndLayerWeightBytesByHand) {
  const ModelConfig m = load_preset("mixtral_8x7b.yaml");
  EXPECT_TRUE(m.is_moe_layer(0));
  EXPECT_TRUE(m.is_moe_layer(31));
  // One expert: 3 x 4096 x 14336 = 176,160,768 weights x 2 B = 352,321,536 B (REFERENCE.md:
  // ~352 MB).
  EXPECT_EQ(m.expert_weight_bytes(), 352321536u);
  EXPECT_EQ(m.shared_expert_weight_bytes(), 0u);
  // Router: 8 experts x 4096 x 2 B = 65,536 B.
  EXPECT_EQ(m.router_weight_bytes(), 65536u);
  // Layer without routed experts: attention 83,886,080 B (as Llama-3-8B: same shapes) + router
  // 65,536 + norms 16,384 = 83,968,000 B.
  EXPECT_EQ(m.layer_weight_bytes(7), 83968000u);
}

TEST(ModelConfig, DeepSeekV3LayerWeightBytesByHand) {
  const ModelConfig m = load_preset("deepseek_v3.yaml");
  EXPECT_FALSE(m.is_moe_layer(0));
  EXPECT_FALSE(m.is_moe_layer(2));
  EXPECT_TRUE(m.is_moe_layer(3));
  EXPECT_TRUE(m.is_moe_layer(60));
  EXPECT_THROW(m.is_moe_layer(61), std::out_of_range);
  // MLA linear layers (FP8, 1 B): wq_a 7168 x 1536 = 11,010,048; wq_b 1536 x 128 x (128 + 64) =
  // 37,748,736; wkv_a 7168 x (512 + 64) = 4,128,768; wkv_b 512 x 128 x (128 + 128) = 16,777,216;
  // wo 128 x 128 x 7168 = 117,440,512; sum 187,105,280 B. Latent norms (BF16): (1536 + 512) x
  // 2 B = 4,096 B. Attention: 187,109,376 B.
  EXPECT_EQ(m.attention_weight_bytes(), 187109376u);
  // Dense FFN: 3 x 7168 x 18432 = 396,361,728 B. Norms 2 x 7168 x 2 B = 28,672 B.
  // Dense layer: 187,109,376 + 396,361,728 + 28,672 = 583,499,776 B.
  EXPECT_EQ(m.dense_ffn_weight_bytes(), 396361728u);
  EXPECT_EQ(m.layer_weight_bytes(0), 583499776u);
  // Expert: 3 x 7168 x 2048 = 44,040,192 B (REFERENCE.md: ~44 MB FP8); one shared expert the same.
  EXPECT_EQ(m.expert_weight_bytes(), 44040192u);
  EXPECT_EQ(m.shared_expert_weight_bytes(), 44040192u);
  // Router (BF16): 256 x 7168 x 2 B = 3,670,016 B.
  EXPECT_EQ(m.router_weight_bytes(), 3670016u);
  // MoE layer without routed experts: 187,109,376 + 44,040,192 + 3,670,016 + 28,672
  // = 234,848,256 B.
  EXPECT_EQ(m.layer_weight_bytes(3), 234848256u);
  // LM head (BF16): 129280 x 7168 x 2 B = 1,853,358,080 B.
  EXPECT_EQ(m.lm_head_weight_bytes(), 1853358080u);

  // tp = 8 (16 heads per GPU). Replicated: wq_a 11,010,048 and wkv_a 4,128,768. Split: wq_b
  // 1536 x 16 x 192 = 4,718,592; wkv_b 512 x 16 x 256 = 2,097,152; wo 16 x 128 x 7168 =
  // 14,680,064. Sum 36,634,624 B + latent norms 4,096 B = 36,638,720 B.
  EXPECT_EQ(m.attention_weight_bytes(8), 36638720u);
  // Expert split by columns: 3 x 7168 x 256 = 5,505,024 B.
  EXPECT_EQ(m.expert_weight_bytes(8), 5505024u);
  // MoE layer: 36,638,720 + shared 5,505,024 + router (replicated) 3,670,016 + norms 28,672
  // = 45,842,432 B.
  EXPECT_EQ(m.layer_weight_bytes(10, 8), 45842432u);
}

TEST(ModelConfig, Llama3ParameterCountsMatchPublishedSizes) {
  // Llama-3-8B: layer = attention 41,943,040 + FFN 176,160,768 + norms 8,192 = 218,112,000;
  // x 32 = 6,979,584,000; embedding and LM head 2 x 128256 x 4096 = 1,050,673,152; final norm
  // 4,096. Total 8,030,261,248; Hugging Face: 8.03B.
  const ModelConfig l8 = load_preset("llama3_8b.yaml");
  EXPECT_EQ(l8.parameters(), 8030261248u);
  EXPECT_LT(std::abs(relative_error(l8.parameters(), 8.03e9)), 0.02);
  EXPECT_EQ(l8.active_parameters(), l8.parameters());  // dense: every weight is active
  EXPECT_EQ(l8.layer_active_parameters(0), 218112000u);

  // Llama-3-70B: attention 8192 x 8192 x 2 + 8192 x 1024 x 2 = 150,994,944; FFN 3 x 8192 x 28672
  // = 704,643,072; norms 16,384; layer 855,654,400 x 80 = 68,452,352,000; embedding and head
  // 2 x 128256 x 8192 = 2,101,346,304; final norm 8,192. Total 70,553,706,496; Hugging Face:
  // 70.6B.
  const ModelConfig l70 = load_preset("llama3_70b.yaml");
  EXPECT_EQ(l70.parameters(), 70553706496u);
  EXPECT_LT(std::abs(relative_error(l70.parameters(), 70.6e9)), 0.02);
}

// Mistral-7B-v0.1: a layer as Llama-3-8B's (the same widths), 218,112,000 x 32 = 6,979,584,000;
// embedding and LM head 2 x 32000 x 4096 = 262,144,000; final norm 4,096. Total 7,241,732,096;
// Hugging Face: 7.24B. Every layer slides over 4096 tokens (the paper's window_size).
TEST(ModelConfig, MistralParameterCountAndWindow) {
  const ModelConfig m = load_preset("mistral_7b.yaml");
  EXPECT_EQ(m.parameters(), 7241732096u);
  EXPECT_LT(std::abs(relative_error(m.parameters(), 7.24e9)), 0.02);
  EXPECT_EQ(m.window_tokens, 4096u);
  EXPECT_EQ(m.sliding_layers(32), 32u);
  EXPECT_EQ(m.attended_tokens(31, 32768), 4095u);
}

// Gemma-2-27B: attention q 4608 x 4096 + k, v 4608 x 2048 each + o 4096 x 4608 = 56,623,104; FFN
// 3 x 4608 x 36864 = 509,607,936; two norms 9,216: a layer of 566,240,256, x 46 =
// 26,047,051,776; the tied embedding 256000 x 4608 = 1,179,648,000 once; final norm 4,608. Total
// 27,226,704,384; Hugging Face: 27.2B. Even layers slide over 4096 tokens: 23 of 46.
TEST(ModelConfig, Gemma2ParameterCountAndAlternatingWindow) {
  const ModelConfig m = load_preset("gemma2_27b.yaml");
  EXPECT_EQ(m.layer_active_parameters(0), 566240256u);
  EXPECT_EQ(m.parameters(), 27226704384u);
  EXPECT_LT(std::abs(relative_error(m.parameters(), 27.2e9)), 0.02);
  EXPECT_EQ(m.sliding_layers(46), 23u);
  EXPECT_TRUE(m.is_sliding_layer(0));
  EXPECT_FALSE(m.is_sliding_layer(45));
  EXPECT_EQ(m.attended_tokens(0, 8192), 4095u);
  EXPECT_EQ(m.attended_tokens(1, 8192), 8192u);
  // 16 KV heads x 128 x 2 (K, V) x 2 B per token and layer.
  EXPECT_EQ(m.kv_bytes_per_token_layer(), 8192u);
}

TEST(ModelConfig, MixtralParameterCountsMatchPublishedSizes) {
  const ModelConfig m = load_preset("mixtral_8x7b.yaml");
  // Layer: attention 41,943,040 + 8 experts x 176,160,768 (1,409,286,144) + router 8 x 4096
  // (32,768) + norms 8,192 = 1,451,270,144; x 32 = 46,440,644,608; embedding and head
  // 2 x 32000 x 4096 = 262,144,000; final norm 4,096. Total 46,702,792,704; Mistral: 46.7B.
  EXPECT_EQ(m.parameters(), 46702792704u);
  EXPECT_LT(std::abs(relative_error(m.parameters(), 46.7e9)), 0.02);
  // Active layer: 41,943,040 + 2 x 176,160,768 + 32,768 + 8,192 = 394,305,536; x 32 =
  // 12,617,777,152 + 262,144,000 + 4,096 = 12,879,925,248; Mistral: 12.9B.
  EXPECT_EQ(m.layer_active_parameters(0), 394305536u);
  EXPECT_EQ(m.active_parameters(), 12879925248u);
  EXPECT_LT(std::abs(relative_error(m.active_parameters(), 12.9e9)), 0.02);
}

TEST(ModelConfig, DeepSeekV3ParameterCountsMatchPublishedSizes) {
  const ModelConfig m = load_preset("deepseek_v3.yaml");
  // Attention 187,105,280 linear + 2,048 latent norms = 187,107,328; layer norms 14,336.
  // Dense layer: + FFN 396,361,728 = 583,483,392; x 3 = 1,750,450,176.
  // MoE layer: + 256 x 44,040,192 (11,274,289,152) + shared 44,040,192 + router 256 x 7168
  // (1,835,008) = 11,507,286,016; x 58 = 667,422,588,928.
  // Embedding and head 2 x 129280 x 7168 = 1,853,358,080; final norm 7,168.
  // Total 671,026,404,352. DeepSeek: 671B for the main model; the 685B Hugging Face checkpoint
  // adds the 14B multi-token-prediction module, which the preset does not describe.
  EXPECT_EQ(m.parameters(), 671026404352u);
  EXPECT_LT(std::abs(relative_error(m.parameters(), 671e9)), 0.02);
  // Active MoE layer: 187,107,328 + (8 routed + 1 shared) x 44,040,192 (396,361,728) + router
  // 1,835,008 + norms 14,336 = 585,318,400; x 58 = 33,948,467,200; + dense layers
  // 1,750,450,176 + embedding and head 1,853,358,080 + 7,168 = 37,552,282,624. DeepSeek: 37B.
  EXPECT_EQ(m.layer_active_parameters(3), 585318400u);
  EXPECT_EQ(m.layer_active_parameters(0), 583483392u);
  EXPECT_EQ(m.active_parameters(), 37552282624u);
  EXPECT_LT(std::abs(relative_error(m.active_parameters(), 37e9)), 0.02);
  // README_WEIGHTS.md's finer figure, 36.6B "including 0.9B for the output Head", leaves out the
  // input embedding (129280 x 7168 = 926,679,040): 36,625,603,584.
  const std::uint64_t without_input_embedding = m.active_parameters() - 926679040u;
  EXPECT_LT(std::abs(relative_error(without_input_embedding, 36.6e9)), 0.005);
}

// Kimi K2: DeepSeek-V3's layers with 64 heads and 384 experts. MLA linear layers: wq_a 7168 x 1536
// = 11,010,048; wq_b 1536 x 64 x (128 + 64) = 18,874,368; wkv_a 7168 x 576 = 4,128,768; wkv_b
// 512 x 64 x (128 + 128) = 8,388,608; wo 64 x 128 x 7168 = 58,720,256: 101,122,048, + latent norms
// 2,048 and layer norms 14,336. Dense layer (the first): + 3 x 7168 x 18432 = 396,361,728:
// 497,500,160. MoE layer: + 384 x 44,040,192 (16,911,433,728) + shared 44,040,192 + router
// 384 x 7168 (2,752,512) = 17,059,364,864; x 60 = 1,023,561,891,840. Embedding and head
// 2 x 163840 x 7168 = 2,348,810,240; final norm 7,168. Total 1,026,408,209,408 (Moonshot: 1T).
// Active MoE layer: 101,138,432 + 9 x 44,040,192 + 2,752,512 = 500,252,672; x 60 =
// 30,015,160,320, + 497,500,160 + 2,348,817,408 = 32,861,477,888 (Moonshot: 32B).
TEST(ModelConfig, KimiK2ParameterCountsByHand) {
  const ModelConfig m = load_preset("kimi_k2.yaml");
  EXPECT_EQ(m.moe_layers(61), 60u);
  EXPECT_FALSE(m.is_moe_layer(0));
  EXPECT_TRUE(m.is_moe_layer(1));
  EXPECT_EQ(m.layer_active_parameters(0), 497500160u);
  EXPECT_EQ(m.layer_active_parameters(1), 500252672u);
  EXPECT_EQ(m.parameters(), 1026408209408u);
  EXPECT_EQ(m.active_parameters(), 32861477888u);
  // The latent and RoPE key as DeepSeek-V3's: 576 x 2 B x 61 layers, whatever the heads.
  EXPECT_EQ(m.kv_bytes_per_token(8), 70272u);
}

// DeepSeek-V3.2-Exp: DeepSeek-V3 and a lightning indexer in each of its 61 layers: wq_b 1536 x
// (64 x 128) = 12,582,912 and wk 7168 x 128 = 917,504 (FP8, 1 B each), k_norm's weight and bias
// 256 and weights_proj 7168 x 64 = 458,752 (BF16, 2 B each): 13,959,424 parameters a layer,
// 851,524,864 in all: 671,026,404,352 + 851,524,864 = 671,877,929,216, and 37,552,282,624 +
// 851,524,864 = 38,403,807,488 active (DeepSeekV3ParameterCountsMatchPublishedSizes works out
// V3's). A layer's weights grow by 13,500,416 + 2 x 459,008 = 14,418,432 B on every GPU of any
// tp: the indexer is replicated. An index key: 128 FP8 values and one 32-bit scale, 132 B.
TEST(ModelConfig, DeepSeekV32SparseAttentionByHand) {
  const ModelConfig v3 = load_preset("deepseek_v3.yaml");
  const ModelConfig m = load_preset("deepseek_v3_2_exp.yaml");
  ASSERT_TRUE(m.has_sparse_attention());
  EXPECT_FALSE(v3.has_sparse_attention());
  EXPECT_EQ(m.sparse.top_k, 2048u);
  EXPECT_EQ(m.parameters(), 671877929216u);
  EXPECT_EQ(m.active_parameters(), 38403807488u);
  EXPECT_EQ(m.layer_active_parameters(3), 585318400u + 13959424u);
  for (unsigned tp : {1u, 8u}) {
    EXPECT_EQ(m.layer_weight_bytes(3, tp) - v3.layer_weight_bytes(3, tp), 14418432u) << tp;
  }
  EXPECT_EQ(m.index_key_bytes(), 132u);
  EXPECT_EQ(v3.index_key_bytes(), 0u);
  EXPECT_EQ(m.kv_bytes_per_token_layer(), 1152u);  // the latent, as V3's
  EXPECT_EQ(m.selected_tokens(100000), 2048u);
  EXPECT_EQ(m.selected_tokens(1000), 1000u);
  EXPECT_EQ(v3.selected_tokens(100000), 100000u);
}

// kv_format fp8_ds_mla: DeepSeek's FP8 MLA entry, the 512-value latent in FP8 with 4 FP32 scales
// (528 B) and the 64-value RoPE key in BF16 (128 B): 656 B a token and layer, against 1152 B in
// BF16 and 5 x (128 + 4) = 660 B for a plain block format over all 576 values ({bits: 8, block:
// 128, scale_bits: 32}: the RoPE key scaled too, and the last of 4.5 blocks stored whole). Refused
// for GQA and next to kv_dtype_bytes.
TEST(ModelConfig, Fp8DsMlaKvFormatByHand) {
  const std::string v3 = test::source_file("traffic/models/deepseek_v3.yaml");
  const ModelConfig ds = parse_text(replace_line(v3, "kv_dtype_bytes: 2", "kv_format: fp8_ds_mla"));
  EXPECT_EQ(ds.kv_bytes_per_token_layer(), 656u);
  EXPECT_EQ(ds.kv_bytes_per_token_layer(8), 656u);
  EXPECT_EQ(ds.kv_format.name, "fp8_ds_mla");
  const ModelConfig blocks = parse_text(
      replace_line(v3, "kv_dtype_bytes: 2", "kv_format: {bits: 8, block: 128, scale_bits: 32}"));
  EXPECT_EQ(blocks.kv_bytes_per_token_layer(), 660u);
  std::string e = test::config_error_of(
      [&] { parse_text(std::string(kSmallModel) + "kv_format: fp8_ds_mla\n"); });
  EXPECT_THAT(e, HasSubstr("only applies to attention: mla"));
  e = test::config_error_of([&] {
    parse_text(replace_line(v3, "kv_dtype_bytes: 2", "kv_dtype_bytes: 2\nkv_format: fp8_ds_mla"));
  });
  EXPECT_THAT(e, HasSubstr("give one of them"));
}

// sparse_attention's keys: the index key's format; where it applies; Hugging Face's names.
TEST(ModelConfig, SparseAttentionKeysAndErrors) {
  const std::string mla =
      "name: s\nsource: test\nlayers: 2\nhidden_size: 256\nattention: mla\n"  // 1-5
      "attention_heads: 4\n"                                                  // 6
      "mla: {kv_lora_rank: 64, qk_rope_head_dim: 16, q_lora_rank: 32, qk_nope_head_dim: 16, "
      "v_head_dim: 16}\n"                            // 7
      "intermediate_size: 512\nvocab_size: 1000\n";  // 8-9
  const std::string sparse = "sparse_attention: {top_k: 16, index_heads: 2, index_head_dim: 64}\n";
  const ModelConfig m = parse_text(mla + sparse);
  // 64 FP8 values in a block of 128 stored whole (a row's last block), and its scale: 132 B.
  EXPECT_EQ(m.index_key_bytes(), 132u);
  // In BF16 without scales: 64 x 2 B.
  const ModelConfig b = parse_text(mla +
                                   "sparse_attention: {top_k: 16, index_heads: 2, "
                                   "index_head_dim: 64, index_key_format: bf16}\n");
  EXPECT_EQ(b.index_key_bytes(), 128u);
  // Indexer parameters a layer: wq_b 32 x (2 x 64) = 4096, wk 256 x 64 = 16,384, k_norm 128,
  // weights_proj 256 x 2 = 512: 21,120 more than without it.
  EXPECT_EQ(m.parameters() - parse_text(mla).parameters(), 2u * 21120u);

  std::string e = test::config_error_of([&] { parse_text(std::string(kSmallModel) + sparse); });
  EXPECT_THAT(e, HasSubstr("sparse_attention"));
  EXPECT_THAT(e, HasSubstr("expected attention: mla with mla.q_lora_rank above 0"));
  e = test::config_error_of(
      [&] { parse_text(replace_line(mla, "q_lora_rank: 32", "q_lora_rank: 0") + sparse); });
  EXPECT_THAT(e, HasSubstr("mla.q_lora_rank above 0"));
  e = test::config_error_of([&] { parse_text(mla + sparse + "sliding_window: 128\n"); });
  EXPECT_THAT(e, HasSubstr("sparse_attention is not modelled together with sliding_window"));
  e = test::config_error_of([&] { parse_text(mla + "index_topk: 2048\n"); });
  EXPECT_THAT(e, HasSubstr("famsim calls it sparse_attention.top_k"));
  e = test::config_error_of([&] {
    parse_text(mla + "sparse_attention: {top_k: 0, index_heads: 2, index_head_dim: 64}\n");
  });
  EXPECT_THAT(e, HasSubstr("top_k"));
}

// gpt-oss: BF16 attention, MXFP4 experts (17 bytes per block of 32 weights: 16 of 4-bit values
// and an 8-bit scale), sliding window of 128 on even layers.
TEST(ModelConfig, GptOss120bSizesAndMxfp4ExpertBytesByHand) {
  const ModelConfig m = load_preset("gpt_oss_120b.yaml");
  EXPECT_EQ(m.layers, 36u);
  EXPECT_EQ(m.experts, 128u);
  EXPECT_EQ(m.top_k, 4u);
  EXPECT_EQ(m.expert_format.name, "mxfp4");
  EXPECT_DOUBLE_EQ(m.expert_format.bits_per_value(), 4.25);
  EXPECT_EQ(m.weight_format.whole_bytes(), 2u);
  EXPECT_TRUE(m.is_sliding_layer(0));
  EXPECT_FALSE(m.is_sliding_layer(35));
  // An expert: gate and up 2880 rows of 2880 inputs, down 2880 rows of 2880: 8640 rows of 90
  // blocks x 17 B = 1530 B: 13,219,200 B (BF16 would be 3 x 2880^2 x 2 = 49,766,400 B).
  EXPECT_EQ(m.expert_weight_bytes(), 13219200u);
  // tp = 8: each GPU holds 360 of the 2880 columns. Gate and up: 2 x 360 rows x 1530 B =
  // 1,101,600 B; down: 2880 rows of 360 inputs, 12 blocks (11.25 rounded up) x 17 B = 204 B:
  // 587,520 B. 1,689,120 B, more than an eighth (1,652,400) by the last block of each row.
  EXPECT_EQ(m.expert_weight_bytes(8), 1689120u);
  // Layer without routed experts (BF16): attention q 2880 x 4096 + k, v 2 x 2880 x 512 + o
  // 4096 x 2880 = 26,542,080 x 2 B = 53,084,160; router 128 x 2880 x 2 B = 737,280; norms 2 x
  // 2880 x 2 B = 11,520: 53,832,960 B.
  EXPECT_EQ(m.layer_weight_bytes(0), 53832960u);
  // Parameters: embedding and LM head 2 x 201088 x 2880 = 1,158,266,880; final norm 2880; per
  // layer 26,542,080 + 128 x 24,883,200 (3,185,049,600) + router 368,640 + norms 5,760 =
  // 3,211,966,080, x 36 = 115,630,778,880. Total 116,789,048,640; the model card's 116.83B adds
  // the biases and sinks famsim leaves out.
  EXPECT_EQ(m.parameters(), 116789048640u);
  EXPECT_LT(std::abs(relative_error(m.parameters(), 116.83e9)), 0.001);
  // Active: per layer 26,542,080 + 4 x 24,883,200 + 368,640 + 5,760 = 126,449,280, x 36 =
  // 4,552,174,080, + 1,158,269,760 = 5,710,443,840. The card's 5.13B leaves out the embedding
  // table (579,133,440): 5,131,310,400.
  EXPECT_EQ(m.active_parameters(), 5710443840u);
  EXPECT_LT(std::abs(relative_error(m.active_parameters() - 579133440u, 5.13e9)), 0.001);
  // Weights as stored: embedding and LM head 2 x 579,133,440 x 2 B = 2,316,533,760; final norm
  // 5,760; per layer 53,832,960 + 128 x 13,219,200 (1,692,057,600) = 1,745,890,560, x 36 =
  // 62,852,060,160. 65,168,599,680 B = 60.69 GiB; the card's checkpoint is 60.8 GiB (with the
  // biases' 80 MB).
  EXPECT_EQ(m.weight_bytes(), 65168599680u);
  EXPECT_LT(std::abs(relative_error(m.weight_bytes(), 60.8 * 1073741824.0)), 0.003);
}

TEST(ModelConfig, GptOss20bSizesByHand) {
  const ModelConfig m = load_preset("gpt_oss_20b.yaml");
  // Per layer 26,542,080 + 32 x 24,883,200 (796,262,400) + router 92,160 + norms 5,760 =
  // 822,902,400, x 24 = 19,749,657,600, + 1,158,269,760 = 20,907,927,360 (card: 20.91B).
  EXPECT_EQ(m.parameters(), 20907927360u);
  // Active without the embedding table: 24 x (26,542,080 + 4 x 24,883,200 + 92,160 + 5,760) =
  // 3,028,147,200 + LM head 579,133,440 + final norm 2880 = 3,607,283,520 (card: 3.61B).
  EXPECT_EQ(m.active_parameters() - 579133440u, 3607283520u);
  // Weights: 24 x (53,084,160 + 184,320 + 11,520 + 32 x 13,219,200) = 24 x 476,294,400 =
  // 11,431,065,600, + 2,316,539,520 = 13,747,605,120 B = 12.80 GiB (card: 12.8 GiB).
  EXPECT_EQ(m.weight_bytes(), 13747605120u);
}

// Qwen3-Next-80B-A3B: three Gated DeltaNet layers to one gated full-attention layer, every layer
// 512 experts (10 a token) and a gated shared expert.
TEST(ModelConfig, Qwen3NextHybridSizesAndStateBytesByHand) {
  const ModelConfig m = load_preset("qwen3_next_80b_a3b.yaml");
  EXPECT_TRUE(m.has_linear_attention());
  EXPECT_TRUE(m.is_linear_layer(0));
  EXPECT_TRUE(m.is_linear_layer(2));
  EXPECT_FALSE(m.is_linear_layer(3));
  EXPECT_FALSE(m.is_linear_layer(47));
  EXPECT_EQ(m.linear_layers(48), 36u);
  EXPECT_EQ(m.kv_layers(48), 12u);
  EXPECT_EQ(m.kv_layers(5), 1u);  // layer 3 of 0..4
  // KV: a full layer 2 (K, V) x 2 heads x 256 x 2 B = 2048 B a token; 12 such layers: 24,576 B.
  EXPECT_EQ(m.kv_bytes_per_token_layer(), 2048u);
  EXPECT_EQ(m.kv_bytes_per_token(), 24576u);
  // State of a sequence in one linear layer: 32 value heads x 128 x 128 values x 4 B (FP32) =
  // 2,097,152 B; convolution 3 (kernel 4 - 1) x (2 x 16 x 128 + 32 x 128 = 8192 channels) x 2 B
  // = 49,152 B.
  EXPECT_EQ(m.recurrent_state_bytes(), 2097152u);
  EXPECT_EQ(m.conv_state_bytes(), 49152u);
  EXPECT_EQ(m.state_bytes_per_layer(), 2146304u);
  // tp = 16: 1 key head and 2 value heads a GPU: 2 x 128 x 128 x 4 = 131,072 B; convolution 3 x
  // (2 x 128 + 2 x 128) x 2 = 3,072 B.
  EXPECT_EQ(m.state_bytes_per_layer(16), 134144u);
  EXPECT_THROW(m.state_bytes_per_layer(32), std::invalid_argument);  // 16 key heads
  // Attention parameters. Full layer: q (and gate) 2 x 16 x 256 = 8192 rows x 2048 =
  // 16,777,216; k and v 2 x 512 x 2048 = 2,097,152; o 2048 x 4096 = 8,388,608; q/k norms 2 x 256:
  // 27,263,488. Linear layer: in_proj_qkvz (2 x 2048 + 2 x 4096 = 12,288) x 2048 = 25,165,824;
  // in_proj_ba 64 x 2048 = 131,072; out_proj 2048 x 4096 = 8,388,608; conv 8192 x 4 = 32,768;
  // A_log and dt_bias 2 x 32; norm 128: 33,718,464.
  // FFN: 512 experts x 3 x 2048 x 512 (3,145,728) = 1,610,612,736; shared expert 3,145,728;
  // router 512 x 2048 = 1,048,576 and shared gate 2048: 1,614,809,088. Norms 2 x 2048 = 4096.
  // Layer weights in BF16, without routed experts: linear (33,718,464 + 3,145,728 + 1,050,624 +
  // 4096) x 2 = 75,837,824 B; full (27,263,488 + ...) x 2 = 62,927,872 B.
  EXPECT_EQ(m.layer_weight_bytes(0), 75837824u);
  EXPECT_EQ(m.layer_weight_bytes(3), 62927872u);
  EXPECT_EQ(m.linear_attention_weight_bytes(), 33718464u * 2);
  EXPECT_EQ(m.attention_weight_bytes(), 27263488u * 2);
  EXPECT_EQ(m.router_weight_bytes(), (1048576u + 2048u) * 2);
  // Whole model: 36 x (33,718,464 + 1,614,809,088 + 4096) = 59,347,139,328; 12 x (27,263,488 +
  // 1,614,809,088 + 4096) = 19,704,920,064; embedding and LM head 2 x 151,936 x 2048 =
  // 622,329,856; final norm 2048: 79,674,391,296 (the model card's 80B).
  EXPECT_EQ(m.parameters(), 79674391296u);
  // Active: 10 of 512 experts, 48 x 502 x 3,145,728 = 75,799,461,888 fewer: 3,874,929,408, or
  // 3,563,764,480 without the embedding table (the card: 3B activated).
  EXPECT_EQ(m.active_parameters(), 3874929408u);
  EXPECT_EQ(m.weight_bytes(), 2 * 79674391296u);  // all BF16
  // tp = 4 shards a linear layer by heads: in_proj_qkvz 3072 x 2048, in_proj_ba 16 x 2048,
  // out_proj 2048 x 1024, conv 2048 x 4, A_log and dt_bias 2 x 8, norm 128: 6,291,456 + 32,768 +
  // 2,097,152 + 8192 + 16 + 128 = 8,429,712 values x 2 B.
  EXPECT_EQ(m.linear_attention_weight_bytes(4), 8429712u * 2);
}

// A Mamba-2 hybrid (as Granite 4.0-H or Bamba): kSmallModel (hidden 256, FFN 512, 8 heads of 32,
// 2 KV heads, vocab 1000) with Mamba-2 mixers of 8 heads of 32 (inner width I = 256), a state of 16
// per value and 2 groups, in layers 0-2; layer 3 full attention.
TEST(ModelConfig, Mamba2StatesAndWeightsByHand) {
  const std::string mamba = std::string(kSmallModel) +
                            "linear_attention: {kind: mamba2, heads: 8, head_dim: 32, "
                            "state_size: 16, groups: 2, conv_kernel: 4,\n"
                            "                   layer_types: [linear, linear, linear, full]}\n";
  const ModelConfig m = parse_text(mamba);
  EXPECT_EQ(m.kv_layers(4), 1u);
  // SSM state: 8 heads x 32 x 16 values x 4 B (FP32) = 16,384 B. The convolution runs over x, B
  // and C: I + 2 x 2 groups x 16 = 320 channels; its state 3 x 320 x 2 B = 1920 B.
  EXPECT_EQ(m.recurrent_state_bytes(), 16384u);
  EXPECT_EQ(m.conv_state_bytes(), 1920u);
  // Weights: in_proj 256 x (2 x 256 + 2 x 2 x 16 + 8 = 584) = 149,504; out_proj 256 x 256 =
  // 65,536; convolution 320 x 4 + its bias 320 = 1600; dt_bias, A_log and D 3 x 8 = 24; the gated
  // norm 256: 216,920 values, x 2 B.
  EXPECT_EQ(m.linear_attention_weight_bytes(), 216920u * 2);
  // tp 2: 4 heads, 1 group a GPU. State 4 x 32 x 16 x 4 = 8192 B; channels 128 + 2 x 16 = 160,
  // state 3 x 160 x 2 = 960 B; in_proj 256 x (256 + 32 + 4 = 292) = 74,752, out_proj 256 x 128 =
  // 32,768, convolution 160 x 5 = 800, 12 per-head values, norm 128: 108,460 values.
  EXPECT_EQ(m.recurrent_state_bytes(2), 8192u);
  EXPECT_EQ(m.conv_state_bytes(2), 960u);
  EXPECT_EQ(m.linear_attention_weight_bytes(2), 108460u * 2);
  // tp 4 would split 2 groups 4 ways: refused (vLLM's MambaMixer2 asserts it).
  EXPECT_THROW(m.recurrent_state_bytes(4), std::invalid_argument);
  // One group is kept whole by every GPU: tp 4 gives 2 heads and the group's B and C, 64 + 32 =
  // 96 channels, a state of 3 x 96 x 2 = 576 B.
  const ModelConfig one = parse_text(replace_line(mamba, "groups: 2", "groups: 1"));
  EXPECT_EQ(one.conv_state_bytes(4), 576u);
  // Its weights: tp 1, in_proj 256 x (2 x 256 + 2 x 16 + 8 = 552) = 141,312, out_proj 65,536,
  // convolution (256 + 32) x 5 = 1440, 24 per-head values, norm 256: 208,568 values; tp 4, in_proj
  // 256 x (2 x 64 + 2 x 16 + 2 = 162) = 41,472 (B and C whole on every GPU), out_proj 256 x 64 =
  // 16,384, convolution 96 x 5 = 480, 6, norm 64: 58,406.
  EXPECT_EQ(one.linear_attention_weight_bytes(), 208568u * 2);
  EXPECT_EQ(one.linear_attention_weight_bytes(4), 58406u * 2);
  // Parameters: a Mamba-2 layer 216,920 + FFN 3 x 256 x 512 = 393,216 + norms 512 = 610,648, x 3;
  // the full layer q and o 2 x 256 x 256 + k and v 2 x 256 x 64 = 163,840, + 393,216 + 512 =
  // 557,568; embedding and LM head 2 x 1000 x 256 = 512,000; final norm 256: 2,901,768.
  EXPECT_EQ(m.parameters(), 2901768u);
  // Without the convolution's bias: 3 x 320 fewer.
  const ModelConfig no_bias =
      parse_text(replace_line(mamba, "conv_kernel: 4", "conv_kernel: 4, conv_bias: false"));
  EXPECT_EQ(no_bias.parameters(), 2901768u - 3 * 320);

  std::string e =
      test::config_error_of([&] { parse_text(replace_line(mamba, "groups: 2", "groups: 3")); });
  EXPECT_THAT(e, HasSubstr("linear_attention.groups: must divide heads (8), got 3"));
  e = test::config_error_of([&] {
    parse_text(replace_line(mamba, "mamba2, heads: 8", "mamba2, key_heads: 2, heads: 8"));
  });
  EXPECT_THAT(e, HasSubstr("linear_attention.key_heads: only applies to kind: gated_deltanet"));
  e = test::config_error_of([&] { parse_text(replace_line(mamba, "state_size: 16, ", "")); });
  EXPECT_THAT(e, HasSubstr("linear_attention.state_size: missing"));
  for (const char* hf : {"mamba_n_heads: 128", "mamba_d_state: 128", "mamba_expand: 2"}) {
    e = test::config_error_of([&] { parse_text(std::string(kSmallModel) + hf + "\n"); });
    EXPECT_THAT(e, HasSubstr("famsim calls it linear_attention.")) << hf;
  }
  e = test::config_error_of(
      [] { parse_text(std::string(kSmallModel) + "hybrid_override_pattern: M-M*\n"); });
  EXPECT_THAT(e, HasSubstr("famsim calls it block_pattern (the same string"));
}

// A Mamba-1 mixer (kind mamba1, Jamba's) on kSmallModel (hidden 256): inner width 512, state 16 a
// channel, dt_rank 16, a convolution of 4 with its bias, the RMSNorms on dt, B and C.
TEST(ModelConfig, Mamba1StatesAndWeightsByHand) {
  const std::string mamba = std::string(kSmallModel) +
                            "linear_attention: {kind: mamba1, inner_size: 512, state_size: 16, "
                            "dt_rank: 16, conv_kernel: 4, inner_norms: true,\n"
                            "                   layer_types: [linear, full]}\n";
  const ModelConfig m = parse_text(mamba);
  EXPECT_EQ(m.kv_layers(4), 2u);
  EXPECT_EQ(m.linear_layers(4), 2u);
  // SSM state: 512 channels x 16 values x 4 B (FP32) = 32,768 B; the convolution's: 3 x 512 x 2 B
  // = 3072 B.
  EXPECT_EQ(m.recurrent_state_bytes(), 32768u);
  EXPECT_EQ(m.conv_state_bytes(), 3072u);
  // Weights: in_proj 2 x 512 x 256 = 262,144; x_proj (16 + 2 x 16) x 512 = 24,576; dt_proj 512 x
  // 16 = 8192; out_proj 256 x 512 = 131,072: 425,984. Others: convolution 512 x (4 + 1) = 2560,
  // dt_proj's bias 512, A_log 512 x 16 = 8192, D 512, norms 16 + 16 + 16 = 48: 11,824. 437,808
  // values, x 2 B.
  EXPECT_EQ(m.linear_attention_weight_bytes(), 437808u * 2);
  // tp 2: 256 channels a GPU. State 256 x 16 x 4 = 16,384 B, 3 x 256 x 2 = 1536 B; in_proj
  // 131,072, x_proj 48 x 256 = 12,288, dt_proj 4096, out_proj 65,536; convolution 1280, bias 256,
  // A_log 4096, D 256, norms 48 (replicated): 218,928 values.
  EXPECT_EQ(m.recurrent_state_bytes(2), 16384u);
  EXPECT_EQ(m.conv_state_bytes(2), 1536u);
  EXPECT_EQ(m.linear_attention_weight_bytes(2), 218928u * 2);
  // tp 3 does not divide 512 channels (vLLM's MambaMixer splits them).
  EXPECT_FALSE(m.linear_heads_split(3));
  EXPECT_THROW(m.recurrent_state_bytes(3), std::invalid_argument);
  // Parameters: a Mamba layer 437,808 + FFN 3 x 256 x 512 = 393,216 + norms 512 = 831,536, x 2;
  // a full layer 163,840 + 393,216 + 512 = 557,568, x 2; embedding and LM head 512,000; final
  // norm 256: 3,290,464.
  EXPECT_EQ(m.parameters(), 3290464u);
  // Without the inner norms 2 x 48 fewer, without the convolution's bias 2 x 512 fewer.
  EXPECT_EQ(parse_text(replace_line(mamba, "inner_norms: true", "inner_norms: false")).parameters(),
            3290464u - 2 * 48);
  EXPECT_EQ(parse_text(replace_line(mamba, "conv_kernel: 4", "conv_kernel: 4, conv_bias: false"))
                .parameters(),
            3290464u - 2 * 512);

  std::string e = test::config_error_of([&] {
    parse_text(replace_line(mamba, "mamba1, inner_size", "mamba1, heads: 8, inner_size"));
  });
  EXPECT_THAT(e, HasSubstr("linear_attention.heads: only applies to kind: mamba2 or kda"));
  e = test::config_error_of([&] { parse_text(replace_line(mamba, "dt_rank: 16, ", "")); });
  EXPECT_THAT(e, HasSubstr("linear_attention.dt_rank: missing"));
  e = test::config_error_of([&] {
    parse_text(replace_line(mamba, "kind: mamba1", "kind: mamba2, heads: 8, head_dim: 64"));
  });
  EXPECT_THAT(e, HasSubstr("linear_attention.inner_size: only applies to kind: mamba1"));
  e = test::config_error_of([&] {
    parse_text(std::string(kSmallModel) +
               "linear_attention: {kind: gated_deltanet, key_heads: 2, value_heads: 2, "
               "key_head_dim: 32, value_head_dim: 32, conv_kernel: 4, state_size: 16, "
               "layer_types: [linear, full]}\n");
  });
  EXPECT_THAT(e, HasSubstr("linear_attention.state_size: only applies to kind: mamba2 or mamba1"));
  for (const char* hf : {"mamba_dt_rank: 256", "time_step_rank: 256", "attn_layer_period: 8",
                         "mamba_inner_layernorms: true"}) {
    e = test::config_error_of([&] { parse_text(std::string(kSmallModel) + hf + "\n"); });
    EXPECT_THAT(e, HasSubstr("famsim calls it linear_attention.")) << hf;
  }
}

// Jamba-1.5-Mini and -Large (Mamba-1 mixers, attention in 1 layer of 8, experts in every other
// layer). Mini: a Mamba layer's mixer, inner 8192: in_proj 2 x 8192 x 4096 = 67,108,864; x_proj
// (256 + 32) x 8192 = 2,359,296; dt_proj 8192 x 256 = 2,097,152; out_proj 33,554,432; convolution
// 8192 x 5 = 40,960; dt_proj's bias 8192; A_log 8192 x 16 = 131,072; D 8192; norms 256 + 32 = 288:
// 105,308,448. Attention q and o 2 x 4096^2 + k and v 2 x 4096 x 1024 = 41,943,040. A dense MLP
// 3 x 4096 x 14336 = 176,160,768; an expert layer 16 of them + router 16 x 4096 = 2,818,637,824.
// 28 Mamba and 4 attention layers, 16 dense and 16 expert layers, 2 x 4096 of norms a layer:
// 2,948,636,544 + 167,772,160 + 2,818,572,288 + 45,098,205,184 + 262,144; embedding and LM head
// 2 x 65,536 x 4096 = 536,870,912; final norm 4096: 51,570,323,328 (AI21: 52B). Active: 14 of
// the 16 experts fewer in 16 layers, 16 x 14 x 176,160,768 = 39,460,012,032 fewer:
// 12,110,311,296 (12B).
// Large, hidden 8192, inner 16384, dt_rank 512, MLP 24576, 72 layers (63 Mamba, 9 attention; 36
// dense, 36 expert): a Mamba mixer 268,435,456 + 8,912,896 + 8,388,608 + 134,217,728 + 81,920 +
// 16,384 + 262,144 + 16,384 + 544 = 420,332,064; attention 2 x 8192^2 + 2 x 8192 x 1024 =
// 150,994,944; an MLP 3 x 8192 x 24576 = 603,979,776; 63 x 420,332,064 + 9 x 150,994,944 + 36 x
// 603,979,776 + 36 x (16 x 603,979,776 + 16 x 8192) + 72 x 16,384 + 2 x 65,536 x 8192 + 8192 =
// 398,555,145,696 (398B); active 36 x 14 x 603,979,776 = 304,405,807,104 fewer: 94,149,338,592
// (94B).
TEST(ModelConfig, JambaPresetsByHand) {
  const ModelConfig mini = load_preset("jamba_1_5_mini.yaml");
  EXPECT_EQ(mini.linear_layers(32), 28u);
  EXPECT_EQ(mini.kv_layers(32), 4u);
  EXPECT_TRUE(mini.is_attention_layer(4));
  EXPECT_TRUE(mini.is_attention_layer(28));
  EXPECT_EQ(mini.moe_layers(32), 16u);
  EXPECT_TRUE(mini.is_moe_layer(1));
  EXPECT_FALSE(mini.is_moe_layer(4));
  EXPECT_EQ(mini.parameters(), 51570323328u);
  EXPECT_EQ(mini.active_parameters(), 12110311296u);
  // A sequence's state in one layer: 8192 x 16 x 4 B = 524,288 and 3 x 8192 x 2 B = 49,152; KV:
  // 4 layers x K and V x 8 heads x 128 x 2 B = 16,384 B a token (Llama-3-8B: 131,072).
  EXPECT_EQ(mini.recurrent_state_bytes(), 524288u);
  EXPECT_EQ(mini.conv_state_bytes(), 49152u);
  EXPECT_EQ(mini.kv_bytes_per_token(), 16384u);
  const ModelConfig large = load_preset("jamba_1_5_large.yaml");
  EXPECT_EQ(large.linear_layers(72), 63u);
  EXPECT_EQ(large.moe_layers(72), 36u);
  EXPECT_EQ(large.parameters(), 398555145696u);
  EXPECT_EQ(large.active_parameters(), 94149338592u);
  EXPECT_EQ(large.recurrent_state_bytes(8), 16384u / 8 * 16 * 4);
}

// A KDA layer (kind kda, Kimi Linear's) on kSmallModel (hidden 256): 4 heads of 32, so P = 128
// channels each for q, k and v.
TEST(ModelConfig, KdaStatesAndWeightsByHand) {
  const std::string kda = std::string(kSmallModel) +
                          "linear_attention: {kind: kda, heads: 4, head_dim: 32, conv_kernel: 4,\n"
                          "                   layer_types: [linear, full]}\n";
  const ModelConfig m = parse_text(kda);
  EXPECT_EQ(m.linear.kind_name(), std::string("kda"));
  EXPECT_EQ(m.linear_layers(4), 2u);
  EXPECT_EQ(m.kv_layers(4), 2u);
  // Recurrent state: 4 heads x 32 x 32 values x 4 B (FP32) = 16,384 B; the convolutions': 3 inputs
  // x 3 x 128 channels x 2 B = 2304 B.
  EXPECT_EQ(m.recurrent_state_bytes(), 16384u);
  EXPECT_EQ(m.conv_state_bytes(), 2304u);
  // Weights: q, k, v 3 x 128 x 256 = 98,304; f_a 32 x 256 = 8192; f_b 128 x 32 = 4096; b 4 x 256 =
  // 1024; g_a 8192; g_b 4096; o 256 x 128 = 32,768: 156,672. Others: convolutions 384 x 4 = 1536,
  // dt_bias 128, A_log 4, the output norm 32: 1700. 158,372 values, x 2 B.
  EXPECT_EQ(m.linear_attention_weight_bytes(), 158372u * 2);
  // tp 2: 2 heads, 64 channels each of q, k, v. State 2 x 32 x 32 x 4 = 8192 B, 3 x 192 x 2 = 1152
  // B; q, k, v 3 x 64 x 256 = 49,152, f_a 8192 (replicated), f_b 64 x 32 = 2048, b 2 x 256 = 512,
  // g_a 8192 (replicated), g_b 2048, o 256 x 64 = 16,384; convolutions 192 x 4 = 768, dt_bias 64,
  // A_log 2, norm 32 (replicated): 87,394 values.
  EXPECT_EQ(m.recurrent_state_bytes(2), 8192u);
  EXPECT_EQ(m.conv_state_bytes(2), 1152u);
  EXPECT_EQ(m.linear_attention_weight_bytes(2), 87394u * 2);
  // tp 8 does not divide 4 heads (vLLM's KimiDeltaAttention splits them).
  EXPECT_TRUE(m.linear_heads_split(4));
  EXPECT_FALSE(m.linear_heads_split(8));
  EXPECT_THROW(m.conv_state_bytes(8), std::invalid_argument);
  // The exception says what a workload's ConfigError says (linear_split_failure).
  try {
    m.recurrent_state_bytes(8);
    ADD_FAILURE() << "tp 8 split 4 KDA heads";
  } catch (const std::invalid_argument& x) {
    EXPECT_THAT(x.what(), HasSubstr("4 KDA heads of small do not split over 8 GPUs"));
  }
  // Parameters: a KDA layer 158,372 + FFN 3 x 256 x 512 = 393,216 + norms 512 = 552,100, x 2; a
  // full layer 163,840 + 393,216 + 512 = 557,568, x 2; embedding and LM head 512,000; final norm
  // 256: 2,731,592.
  EXPECT_EQ(m.parameters(), 2731592u);

  std::string e = test::config_error_of(
      [&] { parse_text(replace_line(kda, "kind: kda, ", "kind: kda, key_heads: 4, ")); });
  EXPECT_THAT(e, HasSubstr("linear_attention.key_heads: only applies to kind: gated_deltanet"));
  e = test::config_error_of(
      [&] { parse_text(replace_line(kda, "kind: kda, ", "kind: kda, state_size: 16, ")); });
  EXPECT_THAT(e, HasSubstr("linear_attention.state_size: only applies to kind: mamba2 or mamba1"));
  e = test::config_error_of([&] { parse_text(replace_line(kda, "head_dim: 32, ", "")); });
  EXPECT_THAT(e, HasSubstr("linear_attention.head_dim: missing"));
  // heads belongs to Mamba-2 and KDA, not to Gated DeltaNet.
  e = test::config_error_of([&] {
    parse_text(std::string(kSmallModel) +
               "linear_attention: {kind: gated_deltanet, key_heads: 2, value_heads: 2, "
               "key_head_dim: 32, value_head_dim: 32, conv_kernel: 4, heads: 2, "
               "layer_types: [linear, full]}\n");
  });
  EXPECT_THAT(e, HasSubstr("linear_attention.heads: only applies to kind: mamba2 or kda"));
  // Kimi Linear's config.json names point to famsim's.
  for (const char* hf :
       {"linear_attn_config: {num_heads: 4}", "kda_layers: [1, 2]", "full_attn_layers: [2, 4]",
        "short_conv_kernel_size: 4", "num_experts_per_token: 8", "num_shared_experts: 1"}) {
    e = test::config_error_of([&] { parse_text(std::string(kSmallModel) + hf + "\n"); });
    EXPECT_THAT(e, HasSubstr("famsim calls it ")) << hf;
  }
}

// Kimi-Linear-48B-A3B: 27 layers, MLA in layers 3, 7, 11, 15, 19, 23 and 26 (config.json's
// full_attn_layers counted from 1), KDA in the other 20; layer 0 a dense FFN, 1-26 experts.
// A KDA layer (hidden 2304, 32 heads of 128, P = 4096): q, k, v 3 x 4096 x 2304 = 28,311,552;
// f_a and g_a 2 x 128 x 2304 = 589,824; f_b and g_b 2 x 4096 x 128 = 1,048,576; b 32 x 2304 =
// 73,728; o 2304 x 4096 = 9,437,184; convolutions 3 x 4096 x 4 = 49,152; dt_bias 4096; A_log 32;
// norm 128: 39,514,272. An MLA layer (no q LoRA): q 32 x (128 + 64) x 2304 = 14,155,776;
// kv_a (512 + 64) x 2304 = 1,327,104; the latent's norm 512; kv_b 32 x (128 + 128) x 512 =
// 4,194,304; o 2304 x 32 x 128 = 9,437,184: 29,114,880. Layer 0's FFN 3 x 2304 x 9216 =
// 63,700,992. An expert 3 x 2304 x 1024 = 7,077,888; a MoE layer 256 + 1 shared of them + the
// router 256 x 2304 = 589,824: 1,819,607,040. Norms 2 x 2304 a layer; embedding and LM head
// 2 x 163,840 x 2304 = 754,974,720; final norm 2304. Total 20 x 39,514,272 + 7 x 29,114,880 +
// 63,700,992 + 26 x 1,819,607,040 + 27 x 4608 + 754,974,720 + 2304 = 49,122,675,072 (Moonshot:
// 48B). Active: 9 experts instead of 257 in 26 layers, 26 x 248 x 7,077,888 = 45,638,221,824
// fewer: 3,484,453,248 (3B: 3.11 B without the embedding table).
TEST(ModelConfig, KimiLinearPresetByHand) {
  const ModelConfig m = load_preset("kimi_linear_48b_a3b.yaml");
  EXPECT_EQ(m.linear_layers(27), 20u);
  EXPECT_EQ(m.kv_layers(27), 7u);
  for (unsigned l : {3u, 7u, 11u, 15u, 19u, 23u, 26u}) EXPECT_TRUE(m.is_attention_layer(l)) << l;
  EXPECT_TRUE(m.is_linear_layer(25));
  EXPECT_EQ(m.moe_layers(27), 26u);
  EXPECT_FALSE(m.is_moe_layer(0));
  EXPECT_EQ(m.parameters(), 49122675072u);
  EXPECT_EQ(m.active_parameters(), 3484453248u);
  // A sequence's state in one KDA layer: 32 x 128 x 128 x 4 B = 2,097,152 and 3 x 3 x 4096 x 2 B =
  // 73,728 (vLLM's kda_state_shape); KV: 7 layers x (512 + 64) x 2 B = 8064 B a token, the same on
  // every GPU of tp (MLA's latent is not split).
  EXPECT_EQ(m.recurrent_state_bytes(), 2097152u);
  EXPECT_EQ(m.conv_state_bytes(), 73728u);
  EXPECT_EQ(m.kv_bytes_per_token(), 8064u);
  EXPECT_EQ(m.kv_bytes_per_token(4), 8064u);
  EXPECT_EQ(m.state_bytes_per_layer(4), (2097152u + 73728u) / 4);
  // Layer 0's weights on a GPU of tp 2 (16 KDA heads, P = 2048): q, k, v 3 x 2048 x 2304 =
  // 14,155,776; f_a and g_a 2 x 128 x 2304 = 589,824 (replicated); f_b and g_b 2 x 2048 x 128 =
  // 524,288; b 16 x 2304 = 36,864; o 2304 x 2048 = 4,718,592; convolutions 3 x 2048 x 4 = 24,576;
  // dt_bias 2048; A_log 16; norm 128: 20,052,112. Its dense FFN 3 x 2304 x 9216 / 2 = 31,850,496;
  // norms 2 x 2304. 51,907,216 values, x 2 B.
  EXPECT_EQ(m.layer_weight_bytes(0, 2), 51907216u * 2);
}

// Lightning attention (kind lightning, MiniMax's) on kSmallModel (hidden 256): 4 heads of 32, P =
// 128, no convolution.
TEST(ModelConfig, LightningStatesAndWeightsByHand) {
  const std::string light = std::string(kSmallModel) +
                            "linear_attention: {kind: lightning, heads: 4, head_dim: 32,\n"
                            "                   layer_types: [linear, full]}\n";
  const ModelConfig m = parse_text(light);
  EXPECT_EQ(m.linear.kind_name(), std::string("lightning"));
  // State: 4 heads x 32 x 32 values x 4 B (FP32) = 16,384 B; no convolution state.
  EXPECT_EQ(m.recurrent_state_bytes(), 16384u);
  EXPECT_EQ(m.conv_state_bytes(), 0u);
  // Weights: qkv 3 x 128 x 256 = 98,304; output gate 128 x 256 = 32,768; out 256 x 128 = 32,768;
  // the norm 128: 163,968 values, x 2 B. tp 2: 49,152 + 16,384 + 16,384 + 64 = 81,984; state
  // 8192 B.
  EXPECT_EQ(m.linear_attention_weight_bytes(), 163968u * 2);
  EXPECT_EQ(m.linear_attention_weight_bytes(2), 81984u * 2);
  EXPECT_EQ(m.recurrent_state_bytes(2), 8192u);
  EXPECT_FALSE(m.linear_heads_split(8));
  // Parameters: a lightning layer 163,968 + FFN 393,216 + norms 512 = 557,696, x 2; a full layer
  // 557,568, x 2; embedding and LM head 512,000; final norm 256: 2,742,784.
  EXPECT_EQ(m.parameters(), 2742784u);
  std::string e = test::config_error_of(
      [&] { parse_text(replace_line(light, "head_dim: 32,", "head_dim: 32, conv_kernel: 4,")); });
  EXPECT_THAT(e, HasSubstr("linear_attention.conv_kernel: only applies to kind: gated_deltanet or "
                           "mamba2 or mamba1 or kda"));
  e = test::config_error_of([&] {
    parse_text(replace_line(light, "head_dim: 32,", "head_dim: 32, conv_state_format: fp32,"));
  });
  EXPECT_THAT(e, HasSubstr("linear_attention.conv_state_format: only applies to kind:"));
  e = test::config_error_of(
      [&] { parse_text(std::string(kSmallModel) + "attn_type_list: [0, 1]\n"); });
  EXPECT_THAT(e, HasSubstr("famsim calls it linear_attention.layer_types"));
}

// MiniMax-Text-01: 80 layers, softmax attention in layers 7, 15, ..., 79, lightning in the other
// 70; 32 experts in every layer. A lightning layer (hidden 6144, 64 heads of 128, P = 8192): qkv 3
// x 8192 x 6144 = 150,994,944; output gate and out 2 x 8192 x 6144 = 100,663,296; norm 8192:
// 251,666,432. A softmax layer: q and o 2 x 8192 x 6144 = 100,663,296, k and v 2 x 1024 x 6144 =
// 12,582,912: 113,246,208. An expert 3 x 6144 x 9216 = 169,869,312; a layer's 32 and the router
// 32 x 6144 = 196,608: 5,436,014,592; norms 2 x 6144. 70 x 251,666,432 + 10 x 113,246,208 + 80 x
// 5,436,026,880 + embedding and LM head 2 x 200,064 x 6144 = 2,458,386,432 + 6144 =
// 456,089,655,296 (MiniMax: 456B). Active: 30 experts fewer in 80 layers, 80 x 30 x 169,869,312 =
// 407,686,348,800: 48,403,306,496; without the embedding and LM head 45,944,920,064 (45.9B).
TEST(ModelConfig, MiniMaxPresetByHand) {
  const ModelConfig m = load_preset("minimax_text_01.yaml");
  EXPECT_EQ(m.linear_layers(80), 70u);
  for (unsigned l = 7; l < 80; l += 8) EXPECT_TRUE(m.is_attention_layer(l)) << l;
  EXPECT_TRUE(m.is_linear_layer(78));
  EXPECT_EQ(m.parameters(), 456089655296u);
  EXPECT_EQ(m.active_parameters(), 48403306496u);
  // A sequence's state in a lightning layer: 64 x 128 x 128 x 4 B = 4,194,304 (tp 8: 524,288); KV:
  // 10 layers x K and V x 8 heads x 128 x 2 B = 40,960 B a token (tp 8: one KV head, 5120).
  EXPECT_EQ(m.state_bytes_per_layer(), 4194304u);
  EXPECT_EQ(m.state_bytes_per_layer(8), 524288u);
  EXPECT_EQ(m.kv_bytes_per_token(), 40960u);
  EXPECT_EQ(m.kv_bytes_per_token(8), 5120u);
}

// IBM's Mamba-2 hybrids whose layers each keep their FFN. Granite-4.0-H-Small (hidden 4096; 128
// Mamba heads of 64, inner 8192, state 128, 1 group): a mixer's in_proj (2 x 8192 + 2 x 128 + 128)
// x 4096 = 68,681,728; convolution (8192 + 256) x (4 + 1) = 42,240; dt_bias, A_log, D 3 x 128 and
// the norm 8192: 8576; out_proj 33,554,432: 102,286,976. Attention 2 x 4096^2 + 2 x 4096 x 1024 =
// 41,943,040. Every layer 72 experts of 3 x 4096 x 768 = 9,437,184 and the router 72 x 4096 =
// 294,912, the shared MLP 3 x 4096 x 1536 = 18,874,368, norms 8192: 698,654,720. 36 x
// 102,286,976 + 4 x 41,943,040 + 40 x 698,654,720 + the tied embedding 100,352 x 4096 =
// 411,041,792 + 4096 = 32,207,337,984 (IBM: 32B); 62 experts fewer in 40 layers, 23,404,216,320:
// 8,803,121,664 active (9B).
// H-Tiny (hidden 1536; 48 Mamba heads of 64, inner 3072): mixer 6448 x 1536 + 3328 x 5 + 3 x 48 +
// 3072 + 3072 x 1536 = 14,642,576; attention 2 x 1536^2 + 2 x 1536 x 512 = 6,291,456; every layer
// 64 x 3 x 1536 x 512 = 150,994,944 + router 98,304 + shared 3 x 1536 x 1024 = 4,718,592 + norms
// 3072; 36 x 14,642,576 + 4 x 6,291,456 + 40 x 155,814,912 + 100,352 x 1536 + 1536 =
// 6,939,037,248 (7B); 58 experts fewer, 40 x 58 x 2,359,296: 1,465,470,528 active (1B: 1.31 B
// without the embedding table).
// Bamba-9B (hidden 4096, Mamba as H-Small's, attention in layers 9, 18, 27, a dense MLP of 14336
// in every layer): 29 x 102,286,976 + 3 x 41,943,040 + 32 x (3 x 4096 x 14336 + 8192) + 2 x
// 128,256 x 4096 (untied) + 4096 = 9,780,235,392 (9.78B).
TEST(ModelConfig, GraniteAndBambaPresetsByHand) {
  const ModelConfig small = load_preset("granite_4_0_h_small.yaml");
  EXPECT_EQ(small.linear_layers(40), 36u);
  for (unsigned l : {5u, 15u, 25u, 35u}) EXPECT_TRUE(small.is_attention_layer(l)) << l;
  EXPECT_EQ(small.moe_layers(40), 40u);
  EXPECT_EQ(small.parameters(), 32207337984u);
  EXPECT_EQ(small.active_parameters(), 8803121664u);
  // A sequence's state in a Mamba layer: 128 x 64 x 128 x 4 B = 4,194,304 and 3 x 8448 x 2 B =
  // 50,688; at tp 4, 32 heads and the one group kept whole on each GPU: 1,048,576 and 3 x (2048 +
  // 256) x 2 B = 13,824. KV: 4 layers x K and V x 8 heads x 128 x 2 B = 16,384 B a token.
  EXPECT_EQ(small.recurrent_state_bytes(), 4194304u);
  EXPECT_EQ(small.conv_state_bytes(), 50688u);
  EXPECT_EQ(small.recurrent_state_bytes(4), 1048576u);
  EXPECT_EQ(small.conv_state_bytes(4), 13824u);
  EXPECT_EQ(small.kv_bytes_per_token(), 16384u);
  const ModelConfig tiny = load_preset("granite_4_0_h_tiny.yaml");
  EXPECT_EQ(tiny.parameters(), 6939037248u);
  EXPECT_EQ(tiny.active_parameters(), 1465470528u);
  EXPECT_EQ(tiny.kv_bytes_per_token(), 8192u);  // 4 x 2 x 4 x 128 x 2 B
  const ModelConfig bamba = load_preset("bamba_9b.yaml");
  EXPECT_EQ(bamba.linear_layers(32), 29u);
  for (unsigned l : {9u, 18u, 27u}) EXPECT_TRUE(bamba.is_attention_layer(l)) << l;
  EXPECT_FALSE(bamba.is_moe());
  EXPECT_EQ(bamba.parameters(), 9780235392u);
  EXPECT_EQ(bamba.kv_bytes_per_token(), 12288u);  // 3 x 2 x 8 x 128 x 2 B
}

// Qwen3's dense and MoE flagships and Gemma 3, worked out from their config.json values.
// Qwen3-32B: attention 5120 x 8192 (q) + 2 x 5120 x 1024 (k, v) + 8192 x 5120 (o) = 94,371,840,
// q/k norms 256, two norms 10,240, SwiGLU 3 x 5120 x 25600 = 393,216,000: a layer of
// 487,598,336, x 64 = 31,206,293,504; embedding and LM head 2 x 151936 x 5120 = 1,555,824,640;
// final norm 5,120. Total 32,762,123,264 (Qwen: 32.8B; 31.2B without embeddings).
// Qwen3-30B-A3B: attention 2048 x 4096 + 2 x 2048 x 512 + 4096 x 2048 = 18,874,368, norms 256 +
// 4,096; an expert 3 x 2048 x 768 = 4,718,592, 128 of them 603,979,776; router 2048 x 128 =
// 262,144: a layer of 623,120,640, x 48 = 29,909,790,720; embedding and head 2 x 151936 x 2048 =
// 622,329,856; final norm 2,048. Total 30,532,122,624 (30.5B). Active: a layer 18,878,720 + 8
// experts 37,748,736 + router 262,144 = 56,889,600, x 48 = 2,730,700,800, + 622,331,904 =
// 3,353,032,704 (3.3B).
// Qwen3-235B-A22B: attention 4096 x 8192 + 2 x 4096 x 512 + 8192 x 4096 = 71,303,168, norms 256
// + 8,192; an expert 3 x 4096 x 1536 = 18,874,368, 128 of them 2,415,919,104; router 524,288: a
// layer of 2,487,755,008, x 94 = 233,848,970,752; embedding and head 2 x 151936 x 4096 =
// 1,244,659,712; final norm 4,096. Total 235,093,634,560 (235B). Active: 71,311,616 + 8 experts
// 150,994,944 + 524,288 = 222,830,848 a layer, x 94 = 20,946,099,712, + 1,244,663,808 =
// 22,190,763,520 (22B).
// Gemma 3 27B: attention 5376 x 4096 + 2 x 5376 x 2048 + 4096 x 5376 = 66,060,288, q/k norms
// 256, two norms 10,752, GeGLU 3 x 5376 x 21504 = 346,816,512: a layer of 412,887,808, x 62 =
// 25,599,044,096; the tied embedding 262208 x 5376 = 1,409,630,208 once; final norm 5,376. Total
// 27,008,679,680 (27B).
TEST(ModelConfig, Qwen3AndGemma3PresetsByHand) {
  const ModelConfig q32 = load_preset("qwen3_32b.yaml");
  EXPECT_FALSE(q32.is_moe());
  EXPECT_EQ(q32.layer_active_parameters(0), 487598336u);
  EXPECT_EQ(q32.parameters(), 32762123264u);
  EXPECT_EQ(q32.active_parameters(), 32762123264u);
  // 64 layers x K and V x 8 heads x 128 x 2 B.
  EXPECT_EQ(q32.kv_bytes_per_token(), 262144u);

  const ModelConfig q30 = load_preset("qwen3_30b_a3b.yaml");
  EXPECT_EQ(q30.moe_layers(48), 48u);
  EXPECT_EQ(q30.parameters(), 30532122624u);
  EXPECT_EQ(q30.active_parameters(), 3353032704u);
  EXPECT_EQ(q30.layer_active_parameters(0), 56889600u);
  EXPECT_EQ(q30.kv_bytes_per_token(), 98304u);  // 48 x 2 x 4 x 128 x 2 B

  const ModelConfig q235 = load_preset("qwen3_235b_a22b.yaml");
  EXPECT_EQ(q235.parameters(), 235093634560u);
  EXPECT_EQ(q235.active_parameters(), 22190763520u);
  EXPECT_EQ(q235.kv_bytes_per_token(), 192512u);  // 94 x 2 x 4 x 128 x 2 B

  // Qwen3-Coder-480B-A35B: attention 6144 x 12288 (q) + 2 x 6144 x 1024 (k, v) + 12288 x 6144
  // (o) = 163,577,856; q/k norms 256 and two norms 12,288: 12,544; router 6144 x 160 = 983,040;
  // an expert 3 x 6144 x 2560 = 47,185,920, 160 of them 7,549,747,200: 7,714,320,640 a layer,
  // x 62 = 478,287,879,680; embedding and LM head 2 x 151936 x 6144 = 1,866,989,568, final norm
  // 6,144. Total 480,154,875,392 (480B). Active: 163,577,856 + 12,544 + 983,040 + 8 experts
  // 377,487,360 = 542,060,800 a layer, x 62 = 33,607,769,600, + 1,866,995,712 = 35,474,765,312
  // (35B).
  const ModelConfig coder = load_preset("qwen3_coder_480b_a35b.yaml");
  EXPECT_EQ(coder.moe_layers(62), 62u);
  EXPECT_EQ(coder.layer_active_parameters(0), 542060800u);
  EXPECT_EQ(coder.parameters(), 480154875392u);
  EXPECT_EQ(coder.active_parameters(), 35474765312u);
  EXPECT_EQ(coder.kv_bytes_per_token(), 253952u);  // 62 x 2 x 8 x 128 x 2 B

  const ModelConfig g3 = load_preset("gemma3_27b.yaml");
  EXPECT_EQ(g3.layer_active_parameters(0), 412887808u);
  EXPECT_EQ(g3.parameters(), 27008679680u);
  // Layer i slides unless i + 1 is a multiple of 6: layers 5, 11, ..., 59 are full, and the last
  // two (60, 61) slide.
  EXPECT_EQ(g3.sliding_layers(62), 52u);
  for (unsigned l : {0u, 4u, 6u, 60u, 61u}) EXPECT_TRUE(g3.is_sliding_layer(l)) << l;
  for (unsigned l : {5u, 11u, 59u}) EXPECT_FALSE(g3.is_sliding_layer(l)) << l;
  // A sliding layer reads the newest W - 1 = 1023 cached tokens; a full one all of them.
  EXPECT_EQ(g3.attended_tokens(0, 8192), 1023u);
  EXPECT_EQ(g3.attended_tokens(5, 8192), 8192u);
  EXPECT_EQ(g3.kv_bytes_per_token_layer(), 8192u);  // 2 x 16 x 128 x 2 B

  // Gemma 3 12B: attention 3840 x 4096 (q) + 2 x 3840 x 2048 (k, v) + 4096 x 3840 (o) =
  // 47,185,920; q/k norms 512 and two norms 7,680; GeGLU 3 x 3840 x 15360 = 176,947,200:
  // 224,141,312 a layer, x 48 = 10,758,782,976; tied embedding 262208 x 3840 = 1,006,878,720;
  // final norm 3,840. Total 11,765,665,536.
  const ModelConfig g12 = load_preset("gemma3_12b.yaml");
  EXPECT_EQ(g12.layer_active_parameters(0), 224141312u);
  EXPECT_EQ(g12.parameters(), 11765665536u);
  EXPECT_EQ(g12.sliding_layers(48), 40u);
  EXPECT_FALSE(g12.is_sliding_layer(47));
  EXPECT_EQ(g12.kv_bytes_per_token_layer(), 8192u);  // 2 x 8 x 256 x 2 B

  // Gemma 3 4B: attention 2560 x 2048 (q) + 2 x 2560 x 1024 (k, v) + 2048 x 2560 (o) =
  // 15,728,640; q/k norms 512 and two norms 5,120; GeGLU 3 x 2560 x 10240 = 78,643,200:
  // 94,377,472 a layer, x 34 = 3,208,834,048 (with the final norm's 2,560 and the two norms a
  // layer famsim leaves out, 34 x 5,120, 3,209,010,688: the report's 3,209M non-embedding
  // parameters); tied embedding 262208 x 2560 = 671,252,480. Total 3,880,089,088. Layers 5, 11,
  // 17, 23 and 29 are full, the other 29 slide.
  const ModelConfig g4 = load_preset("gemma3_4b.yaml");
  EXPECT_EQ(g4.layer_active_parameters(0), 94377472u);
  EXPECT_EQ(g4.parameters(), 3880089088u);
  EXPECT_EQ(g4.sliding_layers(34), 29u);
  EXPECT_FALSE(g4.is_sliding_layer(29));
  EXPECT_TRUE(g4.is_sliding_layer(33));
  EXPECT_EQ(g4.attended_tokens(0, 8192), 1023u);
  EXPECT_EQ(g4.kv_bytes_per_token_layer(), 4096u);  // 2 x 4 x 256 x 2 B
}

// GLM-4.5: attention 5120 x 12288 (q) + 2 x 5120 x 1024 (k, v) + 12288 x 5120 (o) = 136,314,880,
// q/k norms 256, two norms 10,240: 136,325,376. Dense layers (0-2): + 3 x 5120 x 12288 =
// 188,743,680 = 325,069,056. Expert layers: an expert 3 x 5120 x 1536 = 23,592,960; 160 routed
// and one shared 3,798,466,560; router 5120 x 160 = 819,200: 3,935,611,136, x 89 =
// 350,269,391,104. Embedding and LM head 2 x 151552 x 5120 = 1,551,892,480; final norm 5,120.
// Total 975,207,168 + 350,269,391,104 + 1,551,897,600 = 352,796,495,872 (GLM: 355B with its MTP
// layer, not counted). Active: an expert layer 136,325,376 + 9 experts 212,336,640 + router
// 819,200 = 349,481,216, x 89 = 31,103,828,224, + 975,207,168 + 1,551,897,600 = 33,630,932,992
// (32,079,040,512 without the embedding table and LM head: GLM's 32B).
// GLM-4.5-Air (no q/k norms): attention 4096 x 12288 + 2 x 4096 x 1024 + 12288 x 4096 =
// 109,051,904 + norms 8,192; the dense layer + 3 x 4096 x 10944 = 243,539,968; an expert
// 3 x 4096 x 1408 = 17,301,504, 129 of them 2,231,894,016, router 524,288: 2,341,478,400 a layer,
// x 45 = 105,366,528,000; embedding and head 2 x 151552 x 4096 = 1,241,513,984, final norm
// 4,096. Total 106,851,586,048 (106B). Active: 109,060,096 + 9 x 17,301,504 + 524,288 =
// 265,297,920 a layer, x 45 = 11,938,406,400, + 243,539,968 + 1,241,518,080 = 13,423,464,448.
// Llama-3.1-405B: attention 2 x 16384 x 16384 + 2 x 16384 x 1024 = 570,425,344, norms 32,768,
// SwiGLU 3 x 16384 x 53248 = 2,617,245,696: 3,187,703,808 a layer, x 126 = 401,650,679,808;
// embedding and head 2 x 128256 x 16384 = 4,202,692,608; final norm 16,384. Total
// 405,853,388,800 (405B).
TEST(ModelConfig, GlmAndLlama405bPresetsByHand) {
  const ModelConfig glm = load_preset("glm4_5.yaml");
  EXPECT_EQ(glm.moe_layers(92), 89u);
  EXPECT_FALSE(glm.is_moe_layer(2));
  EXPECT_TRUE(glm.is_moe_layer(3));
  EXPECT_EQ(glm.layer_active_parameters(0), 325069056u);
  EXPECT_EQ(glm.layer_active_parameters(3), 349481216u);
  EXPECT_EQ(glm.parameters(), 352796495872u);
  EXPECT_EQ(glm.active_parameters(), 33630932992u);
  EXPECT_EQ(glm.kv_bytes_per_token(), 376832u);  // 92 x 2 x 8 x 128 x 2 B

  const ModelConfig air = load_preset("glm4_5_air.yaml");
  EXPECT_EQ(air.moe_layers(46), 45u);
  EXPECT_EQ(air.parameters(), 106851586048u);
  EXPECT_EQ(air.active_parameters(), 13423464448u);

  const ModelConfig l405 = load_preset("llama3_1_405b.yaml");
  EXPECT_EQ(l405.layer_active_parameters(0), 3187703808u);
  EXPECT_EQ(l405.parameters(), 405853388800u);
  EXPECT_EQ(l405.kv_bytes_per_token(), 516096u);  // 126 x 2 x 8 x 128 x 2 B
}

// Linear attention's keys: the cycle, the heads' rule, the formats; Hugging Face's names point to
// famsim's.
TEST(ModelConfig, LinearAttentionKeysAndErrors) {
  const std::string hybrid = std::string(kSmallModel) +
                             "linear_attention:\n"               // 9
                             "  kind: gated_deltanet\n"          // 10
                             "  key_heads: 2\n"                  // 11
                             "  value_heads: 4\n"                // 12
                             "  key_head_dim: 32\n"              // 13
                             "  value_head_dim: 16\n"            // 14
                             "  conv_kernel: 4\n"                // 15
                             "  layer_types: [linear, full]\n";  // 16
  const ModelConfig m = parse_text(hybrid);
  EXPECT_TRUE(m.is_linear_layer(0));
  EXPECT_FALSE(m.is_linear_layer(1));
  EXPECT_EQ(m.kv_layers(4), 2u);
  // Defaults: FP32 state, BF16 convolution state. 4 x 32 x 16 x 4 B = 8192; 3 x (2 x 2 x 32 + 4 x
  // 16 = 192) x 2 B = 1152.
  EXPECT_EQ(m.recurrent_state_bytes(), 8192u);
  EXPECT_EQ(m.conv_state_bytes(), 1152u);
  // A block-scaled state: rows of 16 values, each 16 x 8 bits + one 8-bit scale = 17 B; 4 x 32
  // rows.
  const ModelConfig scaled =
      parse_text(hybrid + "  state_format: {bits: 8, block: 16, scale_bits: 8}\n");
  EXPECT_EQ(scaled.recurrent_state_bytes(), 4u * 32u * 17u);
  // No linear attention: no state, every layer keeps a KV cache.
  const ModelConfig dense = parse_text(kSmallModel);
  EXPECT_EQ(dense.state_bytes_per_layer(), 0u);
  EXPECT_EQ(dense.kv_layers(4), 4u);
  EXPECT_EQ(dense.kv_bytes_per_token(), 4u * dense.kv_bytes_per_token_layer());

  std::string e = test::config_error_of(
      [&] { parse_text(replace_line(hybrid, "kind: gated_deltanet", "kind: mamba")); });
  EXPECT_THAT(e, HasSubstr("model.yaml:10"));
  EXPECT_THAT(e, HasSubstr("linear_attention.kind"));
  e = test::config_error_of(
      [&] { parse_text(replace_line(hybrid, "value_heads: 4", "value_heads: 3")); });
  EXPECT_THAT(e, HasSubstr("linear_attention.value_heads: must be a multiple of key_heads (2)"));
  e = test::config_error_of(
      [&] { parse_text(replace_line(hybrid, "[linear, full]", "[linear, linear]")); });
  EXPECT_THAT(e, HasSubstr("no entry is full"));
  e = test::config_error_of([&] { parse_text(replace_line(hybrid, "[linear, full]", "[full]")); });
  EXPECT_THAT(e, HasSubstr("no entry is linear"));
  e = test::config_error_of(
      [&] { parse_text(replace_line(hybrid, "[linear, full]", "[linear, global]")); });
  EXPECT_THAT(e, HasSubstr("'global': expected linear or full"));
  e = test::config_error_of([&] { parse_text(replace_line(hybrid, "  conv_kernel: 4\n", "")); });
  EXPECT_THAT(e, HasSubstr("linear_attention.conv_kernel: missing"));
  e = test::config_error_of([&] { parse_text(hybrid + "sliding_window: 128\n"); });
  EXPECT_THAT(e, HasSubstr("both linear attention and sliding_window is not modelled"));
  // Hugging Face config.json names.
  e = test::config_error_of(
      [] { parse_text(std::string(kSmallModel) + "full_attention_interval: 4\n"); });
  EXPECT_THAT(e, HasSubstr("famsim calls it linear_attention.layer_types"));
  e = test::config_error_of(
      [] { parse_text(std::string(kSmallModel) + "linear_num_value_heads: 32\n"); });
  EXPECT_THAT(e, HasSubstr("famsim calls it linear_attention.value_heads"));
  e = test::config_error_of(
      [] { parse_text(std::string(kSmallModel) + "attn_output_gate: true\n"); });
  EXPECT_THAT(e, HasSubstr("famsim calls it attention_output_gate"));
}

// Nemotron-H-8B: a block pattern of 24 Mamba-2 layers, 24 MLP layers (squared ReLU, no gate) and
// 4 attention layers (7, 18, 29, 40), each a part alone behind one RMSNorm.
TEST(ModelConfig, NemotronH8bBlockPatternSizesAndStatesByHand) {
  const ModelConfig m = load_preset("nemotron_h_8b.yaml");
  EXPECT_THAT(m.source, HasSubstr("Nemotron-H-8B-Base-8K.sh"));
  EXPECT_TRUE(m.has_block_pattern());
  EXPECT_FALSE(m.ffn_gated);
  EXPECT_TRUE(m.is_linear_layer(0));
  EXPECT_FALSE(m.has_ffn(0));
  EXPECT_FALSE(m.is_linear_layer(1));
  EXPECT_FALSE(m.is_attention_layer(1));
  EXPECT_TRUE(m.has_dense_ffn(1));
  EXPECT_TRUE(m.is_attention_layer(7));
  EXPECT_FALSE(m.has_ffn(7));
  EXPECT_FALSE(m.is_moe_layer(1));
  EXPECT_EQ(m.linear_layers(52), 24u);
  EXPECT_EQ(m.kv_layers(52), 4u);
  EXPECT_EQ(m.kv_layers(8), 1u);      // layer 7
  EXPECT_EQ(m.linear_layers(8), 4u);  // layers 0, 2, 4, 6
  // KV: K and V of 8 heads x 128 x 2 B = 4096 B a token in each of the 4 attention layers.
  EXPECT_EQ(m.kv_bytes_per_token_layer(), 4096u);
  EXPECT_EQ(m.kv_bytes_per_token(), 16384u);
  // SSM state: 128 heads x 64 x 128 values x 4 B = 4,194,304 B; the convolution over x, B and C,
  // 8192 + 2 x 8 x 128 = 10,240 channels, keeps 3 inputs of each: 3 x 10,240 x 2 B = 61,440 B.
  EXPECT_EQ(m.recurrent_state_bytes(), 4194304u);
  EXPECT_EQ(m.conv_state_bytes(), 61440u);
  // tp 8: 16 heads and 1 group a GPU: 16 x 64 x 128 x 4 = 524,288 B; 3 x (1024 + 2 x 128) x 2 =
  // 7680 B. KV: 1 head a GPU, 2 x 128 x 2 = 512 B a token.
  EXPECT_EQ(m.state_bytes_per_layer(8), 524288u + 7680u);
  EXPECT_EQ(m.kv_bytes_per_token_layer(8), 512u);
  // A Mamba-2 layer: in_proj 4096 x (2 x 8192 + 2 x 8 x 128 + 128 = 18,560) = 76,021,760;
  // out_proj 4096 x 8192 = 33,554,432; convolution 10,240 x (4 + bias 1) = 51,200; dt_bias, A_log
  // and D 3 x 128; gated norm 8192: 109,635,968. An MLP layer: up and down 2 x 4096 x 21,504 =
  // 176,160,768. An attention layer: q and o 2 x 4096 x 4096, k and v 2 x 1024 x 4096:
  // 41,943,040. Each with its one norm of 4096, in BF16.
  EXPECT_EQ(m.layer_weight_bytes(0), (109635968u + 4096u) * 2);
  EXPECT_EQ(m.layer_weight_bytes(1), (176160768u + 4096u) * 2);
  EXPECT_EQ(m.layer_weight_bytes(7), (41943040u + 4096u) * 2);
  // tp 8 splits the MLP by columns: 21,504 / 8 = 2688; up and down 2 x 4096 x 2688 x 2 B.
  EXPECT_EQ(m.dense_ffn_weight_bytes(8), 2u * 4096u * 2688u * 2u);
  // Whole model: 24 x 109,640,064 = 2,631,361,536; 24 x 176,164,864 = 4,227,956,736; 4 x
  // 41,947,136 = 167,788,544; embedding and LM head 2 x 131,072 x 4096 = 1,073,741,824; final norm
  // 4096: 8,100,852,736 (NVIDIA's "8B").
  EXPECT_EQ(m.parameters(), 8100852736u);
  EXPECT_EQ(m.active_parameters(), 8100852736u);  // no experts
  EXPECT_EQ(m.weight_bytes(), 2u * 8100852736u);
}

// Nemotron Nano 9B v2: 27 Mamba-2 layers (two of them in a row twice: "MM"), 25 MLP layers and 4
// attention layers (14, 21, 30, 39); heads of 128 that are not hidden_size / heads (40 x 128 =
// 5120 against 4480).
TEST(ModelConfig, NemotronNano9bV2SizesAndStatesByHand) {
  const ModelConfig m = load_preset("nemotron_nano_9b_v2.yaml");
  EXPECT_THAT(m.source, HasSubstr("NVIDIA-Nemotron-Nano-9B-v2.sh"));
  EXPECT_EQ(m.linear_layers(56), 27u);
  EXPECT_EQ(m.kv_layers(56), 4u);
  EXPECT_TRUE(m.is_linear_layer(6));
  EXPECT_TRUE(m.is_linear_layer(7));  // "MM"
  EXPECT_TRUE(m.is_attention_layer(14));
  EXPECT_TRUE(m.is_attention_layer(39));
  EXPECT_TRUE(m.has_dense_ffn(55));
  // KV: 2 x 8 heads x 128 x 2 B = 4096 B a token a layer. SSM state: 128 heads x 80 x 128 x 4 B =
  // 5,242,880 B; convolution 3 x (10,240 + 2 x 8 x 128 = 12,288 channels) x 2 B = 73,728 B.
  EXPECT_EQ(m.kv_bytes_per_token(), 4u * 4096u);
  EXPECT_EQ(m.recurrent_state_bytes(), 5242880u);
  EXPECT_EQ(m.conv_state_bytes(), 73728u);
  // A Mamba-2 layer: in_proj 4480 x (2 x 10,240 + 2 x 8 x 128 + 128 = 22,656) = 101,498,880;
  // out_proj 4480 x 10,240 = 45,875,200; convolution 12,288 x 5 = 61,440; 3 x 128; norm 10,240:
  // 147,446,144. An MLP layer: 2 x 4480 x 15,680 = 140,492,800. Attention: q and o 2 x 4480 x
  // 5120, k and v 2 x 1024 x 4480: 55,050,240. Each with a norm of 4480.
  EXPECT_EQ(m.layer_weight_bytes(0), (147446144u + 4480u) * 2);
  EXPECT_EQ(m.layer_weight_bytes(1), (140492800u + 4480u) * 2);
  EXPECT_EQ(m.layer_weight_bytes(14), (55050240u + 4480u) * 2);
  // 27 x 147,450,624 = 3,981,166,848; 25 x 140,497,280 = 3,512,432,000; 4 x 55,054,720 =
  // 220,218,880; embedding and LM head 2 x 131,072 x 4480 = 1,174,405,120; final norm 4480:
  // 8,888,227,328 (NVIDIA's "9B").
  EXPECT_EQ(m.parameters(), 8888227328u);
}

// Nemotron 3 Nano 30B-A3B: 23 Mamba-2 layers, 23 expert layers (128 experts of squared ReLU, 6 a
// token, one shared expert of 3712) and 6 attention layers of 2 KV heads.
TEST(ModelConfig, Nemotron3NanoExpertBlocksSizesByHand) {
  const ModelConfig m = load_preset("nemotron3_nano_30b_a3b.yaml");
  EXPECT_EQ(m.linear_layers(52), 23u);
  EXPECT_EQ(m.moe_layers(52), 23u);
  EXPECT_EQ(m.kv_layers(52), 6u);
  EXPECT_EQ(m.nth_moe_layer(0), 1u);
  EXPECT_EQ(m.nth_moe_layer(22), 51u);
  EXPECT_FALSE(m.has_ffn(5));  // the first attention layer
  // KV: 2 x 2 heads x 128 x 2 B = 1024 B a token a layer. State: 64 heads x 64 x 128 x 4 B =
  // 2,097,152 B; convolution 3 x (4096 + 2 x 8 x 128 = 6144) x 2 B = 36,864 B.
  EXPECT_EQ(m.kv_bytes_per_token(), 6u * 1024u);
  EXPECT_EQ(m.state_bytes_per_layer(), 2097152u + 36864u);
  // An expert: up and down 2 x 2688 x 1856 = 9,977,856; the shared one 2 x 2688 x 3712 =
  // 19,955,712; the router 128 x 2688 = 344,064.
  EXPECT_EQ(m.expert_weight_bytes(), 9977856u * 2);
  EXPECT_EQ(m.layer_weight_bytes(1), (19955712u + 344064u + 2688u) * 2);
  // A Mamba-2 layer: in_proj 2688 x (2 x 4096 + 2 x 8 x 128 + 64 = 10,304) = 27,697,152; out_proj
  // 2688 x 4096 = 11,010,048; convolution 6144 x 5 = 30,720; 3 x 64; norm 4096: 38,742,208.
  // Attention: q and o 2 x 2688 x 4096, k and v 2 x 256 x 2688: 23,396,352.
  EXPECT_EQ(m.layer_weight_bytes(0), (38742208u + 2688u) * 2);
  EXPECT_EQ(m.layer_weight_bytes(5), (23396352u + 2688u) * 2);
  // 23 x 38,744,896 = 891,132,608; 23 x (128 x 9,977,856 + 19,955,712 + 344,064 + 2688 =
  // 1,297,468,032) = 29,841,764,736; 6 x 23,399,040 = 140,394,240; embedding and LM head 2 x
  // 131,072 x 2688 = 704,643,072; final norm 2688: 31,577,937,344 (31.6B). Active: 6 experts
  // instead of 128, 23 x 122 x 9,977,856 fewer: 3,580,073,408 (3.6B), 3,227,751,872 without the
  // embedding table (3.2B).
  EXPECT_EQ(m.parameters(), 31577937344u);
  EXPECT_EQ(m.active_parameters(), 3580073408u);
}

// A block pattern of each kind of part on kSmallModel (hidden 256, 8 heads of 32, 2 KV heads,
// FFN 512, vocab 1000): layer 0 a Mamba-2 mixer (Mamba2StatesAndWeightsByHand's: 216,920), 1
// attention (163,840), 2 a dense FFN, 3 experts (4 of width 128, top 2, a router of 4 x 256), each
// with one norm of 256.
TEST(ModelConfig, BlockPatternOfEachPartByHand) {
  const std::string parts =
      std::string(kSmallModel) +
      "block_pattern: \"M*-E\"\n"
      "ffn_activation: relu2\n"
      "moe: {experts: 4, top_k: 2, expert_intermediate_size: 128}\n"
      "linear_attention: {kind: mamba2, heads: 8, head_dim: 32, state_size: 16, groups: 2, "
      "conv_kernel: 4}\n";
  const ModelConfig m = parse_text(parts);
  EXPECT_EQ(m.linear_layers(4), 1u);
  EXPECT_EQ(m.kv_layers(4), 1u);
  EXPECT_EQ(m.moe_layers(4), 1u);
  EXPECT_TRUE(m.is_moe_layer(3));
  EXPECT_FALSE(m.is_moe_layer(2));
  EXPECT_TRUE(m.has_dense_ffn(2));
  EXPECT_FALSE(m.has_dense_ffn(3));
  EXPECT_TRUE(m.is_linear_layer(0));
  EXPECT_FALSE(m.is_attention_layer(0));
  EXPECT_TRUE(m.is_attention_layer(1));
  EXPECT_FALSE(m.is_attention_layer(2));
  EXPECT_FALSE(m.is_attention_layer(3));
  EXPECT_FALSE(m.is_linear_layer(3));
  EXPECT_THROW(m.has_ffn(4), std::out_of_range);
  // relu2: the dense FFN up and down 2 x 256 x 512 = 262,144; an expert 2 x 256 x 128 = 65,536.
  EXPECT_EQ(m.dense_ffn_weight_bytes(), 262144u * 2);
  EXPECT_EQ(m.expert_weight_bytes(), 65536u * 2);
  // The expert layer without its routed experts: router 1024 + norm 256.
  EXPECT_EQ(m.layer_weight_bytes(3), (1024u + 256u) * 2);
  EXPECT_EQ(m.layer_weight_bytes(2), (262144u + 256u) * 2);
  // Parameters: 217,176 + 164,096 + 262,400 + (4 x 65,536 + 1024 + 256 = 263,424) + embedding and
  // LM head 512,000 + final norm 256 = 1,419,352; active: 2 of the 4 experts, 131,072 fewer.
  EXPECT_EQ(m.parameters(), 1419352u);
  EXPECT_EQ(m.active_parameters(), 1419352u - 131072u);
  // SwiGLU instead: a gate matrix more in the dense FFN (131,072) and in each expert (32,768).
  const ModelConfig swiglu = parse_text(replace_line(parts, "ffn_activation: relu2\n", ""));
  EXPECT_TRUE(swiglu.ffn_gated);
  EXPECT_EQ(swiglu.parameters(), 1419352u + 131072u + 4u * 32768u);
}

// A whole-model estimate scales the first layers only when they have the model's share of each
// mixer. "M*M-": the first 2 ("M*") have its share of linear layers (1 of 2, 2 of 4) but twice its
// share of attention (1 of 2 against 1 of 4); "M-M*"'s first 2 have none; both shares hold for
// the first 4 alone. "M*-M*-": the first 3 have both (1 of 3 each, 2 of 6).
TEST(ModelConfig, MixersAlikeComparesLinearAndAttentionSharesEach) {
  const std::string mamba =
      "linear_attention: {kind: mamba2, heads: 8, head_dim: 32, state_size: 16, groups: 2, "
      "conv_kernel: 4}\n";
  const auto with_pattern = [&](const std::string& pattern) {
    std::string text = std::string(kSmallModel) + "block_pattern: \"" + pattern + "\"\n" + mamba;
    if (pattern.size() != 4) text = replace_line(text, "layers: 4", "layers: 6");
    return parse_text(text);
  };
  for (const char* pattern : {"M*M-", "M-M*"}) {
    const ModelConfig m = with_pattern(pattern);
    EXPECT_FALSE(mixers_alike(m, 2)) << pattern;
    EXPECT_FALSE(mixers_alike(m, 1)) << pattern;
    EXPECT_FALSE(mixers_alike(m, 3)) << pattern;
    EXPECT_TRUE(mixers_alike(m, 4)) << pattern;
  }
  const ModelConfig six = with_pattern("M*-M*-");
  EXPECT_TRUE(mixers_alike(six, 3));
  EXPECT_FALSE(mixers_alike(six, 2));
}

TEST(ModelConfig, BlockPatternErrorsNameTheKey) {
  const std::string mamba =
      "linear_attention: {kind: mamba2, heads: 8, head_dim: 32, state_size: 16, groups: 2, "
      "conv_kernel: 4}\n";
  const std::string moe = "moe: {experts: 4, top_k: 2, expert_intermediate_size: 128}\n";
  const auto error_of = [](const std::string& extra) {
    return test::config_error_of([&] { parse_text(std::string(kSmallModel) + extra); });
  };
  EXPECT_THAT(error_of("block_pattern: \"M*-\"\n" + mamba),
              HasSubstr("block_pattern: 3 characters; expected one a layer, 4 (layers; to "
                        "simulate fewer layers, give the generator's layers instead)"));
  EXPECT_THAT(error_of("block_pattern: \"M*X-\"\n" + mamba),
              HasSubstr("block_pattern: 'X' for layer 2: expected M (a linear-attention mixer)"));
  EXPECT_THAT(error_of("block_pattern: \"M-M-\"\n" + mamba),
              HasSubstr("block_pattern: no attention layer (*)"));
  EXPECT_THAT(error_of("block_pattern: \"*M--\"\n"),
              HasSubstr("block_pattern: layer 1 is M (a linear-attention mixer), but the model "
                        "has no linear_attention key"));
  EXPECT_THAT(error_of("block_pattern: \"*-*-\"\n" + mamba),
              HasSubstr("linear_attention: block_pattern has no M layer"));
  EXPECT_THAT(error_of("block_pattern: \"M*--\"\n" + replace_line(mamba, "conv_kernel: 4}",
                                                                  "conv_kernel: 4, layer_types: "
                                                                  "[linear, full]}")),
              HasSubstr("linear_attention.layer_types: block_pattern says which layers are "
                        "linear (M)"));
  EXPECT_THAT(error_of("block_pattern: \"*-*E\"\n"),
              HasSubstr("block_pattern: layer 3 is E (experts), but the model has no moe key"));
  EXPECT_THAT(error_of("block_pattern: \"*-*-\"\n" + moe),
              HasSubstr("moe: block_pattern has no E layer"));
  EXPECT_THAT(
      error_of("block_pattern: \"*-*E\"\n" + replace_line(moe, "128}", "128, dense_layers: 1}")),
      HasSubstr("moe.dense_layers: block_pattern says which layers have experts (E)"));
  // A dense FFN needs its width; without one, the width is refused.
  EXPECT_THAT(test::config_error_of([&] {
                parse_text(replace_line(kSmallModel, "intermediate_size: 512\n", "") +
                           "block_pattern: \"*-*E\"\n" + moe);
              }),
              HasSubstr("intermediate_size: missing: 1 of the model's 4 layers have a dense FFN "
                        "(`-` in block_pattern)"));
  EXPECT_THAT(error_of("block_pattern: \"*E*E\"\n" + moe),
              HasSubstr("intermediate_size: no layer has a dense FFN (block_pattern has no -)"));
  EXPECT_THAT(error_of("block_pattern: \"*-*-\"\nsliding_window: 64\n"),
              HasSubstr("a model with both block_pattern and sliding_window is not modelled"));
  EXPECT_THAT(error_of("ffn_activation: gelu\n"), HasSubstr("ffn_activation"));
  EXPECT_THAT(test::config_error_of([&] {
                parse_text(replace_line(kSmallModel, "intermediate_size: 512\n", "") +
                           "block_pattern: \"M*M*\"\nffn_activation: relu2\n" + mamba);
              }),
              HasSubstr("ffn_activation: no layer has an FFN (block_pattern has no - or E)"));
  EXPECT_THAT(error_of("block_pattern: \"M*M*\"\n" + mamba),
              HasSubstr("intermediate_size: no layer has a dense FFN (block_pattern has no -); "
                        "remove it"));
  for (const char* hf : {"hybrid_override_pattern: \"M*\"", "mlp_hidden_act: relu2",
                         "mamba_num_heads: 128", "ssm_state_size: 128", "n_groups: 8"}) {
    EXPECT_THAT(error_of(std::string(hf) + "\n"), HasSubstr("famsim calls it ")) << hf;
  }
}

// The full attention's output gate and per-head norms; shared experts' own width and gate.
TEST(ModelConfig, OutputGateQkNormAndSharedExpertKeysByHand) {
  const ModelConfig plain = parse_text(kSmallModel);
  // head_dim 256 / 8 = 32. q 256 x 256, k and v 2 x 64 x 256, o 256 x 256: 163,840 x 2 B.
  EXPECT_EQ(plain.attention_weight_bytes(), 163840u * 2);
  const ModelConfig gated =
      parse_text(std::string(kSmallModel) + "attention_output_gate: true\nqk_norm: true\n");
  // q doubles (+65,536) and two norms of 32: 229,440 x 2 B.
  EXPECT_EQ(gated.attention_weight_bytes(), (163840u + 65536u + 64u) * 2);
  EXPECT_EQ(gated.parameters() - plain.parameters(), 4u * (65536u + 64u));

  const std::string moe = replace_line(kSmallModel, "intermediate_size: 512\n", "") +
                          "moe: {experts: 4, top_k: 2, expert_intermediate_size: 64, "
                          "shared_experts: 1";
  const ModelConfig same = parse_text(moe + "}\n");
  EXPECT_EQ(same.shared_expert_weight_bytes(), 3u * 256u * 64u * 2u);
  const ModelConfig wide =
      parse_text(moe + ", shared_expert_intermediate_size: 96, shared_expert_gate: true}\n");
  EXPECT_EQ(wide.shared_expert_weight_bytes(), 3u * 256u * 96u * 2u);
  EXPECT_EQ(wide.router_weight_bytes(), (4u + 1u) * 256u * 2u);
  // Per layer 3 x 256 x 32 more shared-expert weights and 256 for the gate.
  EXPECT_EQ(wide.parameters() - same.parameters(), 4u * (3u * 256u * 32u + 256u));

  std::string e = test::config_error_of([&] {
    parse_text(replace_line(moe, "shared_experts: 1", "shared_experts: 0") +
               ", shared_expert_gate: true}\n");
  });
  EXPECT_THAT(e, HasSubstr("moe.shared_expert_gate: the model has no shared experts"));
  e = test::config_error_of([] {
    parse_text(
        "name: m\nsource: test\nlayers: 2\nhidden_size: 256\nattention: mla\n"
        "attention_heads: 4\nintermediate_size: 512\nvocab_size: 100\n"
        "mla: {kv_lora_rank: 64, qk_rope_head_dim: 16, q_lora_rank: 0, qk_nope_head_dim: 32, "
        "v_head_dim: 32}\nqk_norm: true\n");
  });
  EXPECT_THAT(e, HasSubstr("qk_norm: only applies to attention: gqa"));
}

// Llama 4 Scout: chunked attention (8192) in three of every four layers, 16 experts and a shared
// expert in every layer.
TEST(ModelConfig, Llama4ScoutChunkedLayersAndSizesByHand) {
  const ModelConfig m = load_preset("llama4_scout.yaml");
  EXPECT_TRUE(m.window_chunked);
  EXPECT_TRUE(m.is_windowed_layer(0));
  EXPECT_FALSE(m.is_sliding_layer(0));
  EXPECT_FALSE(m.is_windowed_layer(3));
  EXPECT_EQ(m.chunked_layers(48), 36u);
  EXPECT_EQ(m.sliding_layers(48), 0u);
  // Position 8200 is the 9th token of its chunk (8192..): 8 cached tokens of its own chunk; at
  // 8192 a chunk begins and none; the full layer all 8200.
  EXPECT_EQ(m.attended_tokens(0, 8200), 8u);
  EXPECT_EQ(m.attended_tokens(0, 8192), 0u);
  EXPECT_EQ(m.attended_tokens(0, 100), 100u);
  EXPECT_EQ(m.attended_tokens(3, 8200), 8200u);
  // Parameters: embedding and LM head 2 x 202,048 x 5120 = 2,068,971,520; final norm 5120. Per
  // layer: attention q and o 2 x 5120 x 5120 + k and v 2 x 5120 x 1024 = 62,914,560; 16 experts
  // x 3 x 5120 x 8192 (125,829,120) = 2,013,265,920; the shared expert 125,829,120; router 16 x
  // 5120 = 81,920; norms 10,240: 2,202,101,760, x 48 = 105,700,884,480. Total 107,769,861,120,
  // 1.1 % under the card's 109B, which counts the vision encoder famsim does not model.
  EXPECT_EQ(m.parameters(), 107769861120u);
  EXPECT_LT(std::abs(relative_error(m.parameters(), 109e9)), 0.015);
  // Active: per layer 62,914,560 + 2 x 125,829,120 + 81,920 + 10,240 = 314,664,960, x 48 =
  // 15,103,918,080, + 2,068,976,640 = 17,172,894,720 (card: 17B).
  EXPECT_EQ(m.active_parameters(), 17172894720u);
  EXPECT_LT(std::abs(relative_error(m.active_parameters(), 17e9)), 0.015);
}

// Llama 4 Maverick: experts in every other layer (1, 3, ..., 47: Hugging Face's
// interleave_moe_layer_step 2), 128 of them and a shared expert; a dense FFN of 16384 in the
// others.
TEST(ModelConfig, Llama4MaverickInterleavedExpertsAndSizesByHand) {
  const ModelConfig m = load_preset("llama4_maverick.yaml");
  EXPECT_FALSE(m.is_moe_layer(0));
  EXPECT_TRUE(m.is_moe_layer(1));
  EXPECT_FALSE(m.is_moe_layer(46));
  EXPECT_TRUE(m.is_moe_layer(47));
  EXPECT_EQ(m.moe_layers(48), 24u);
  EXPECT_EQ(m.moe_layers(5), 2u);  // layers 1 and 3
  EXPECT_EQ(m.nth_moe_layer(0), 1u);
  EXPECT_EQ(m.nth_moe_layer(23), 47u);
  EXPECT_THROW(m.nth_moe_layer(24), std::out_of_range);
  // Parameters: embedding and LM head 2 x 202,048 x 5120 = 2,068,971,520; final norm 5120. Every
  // layer: attention 62,914,560 (as Scout's) and norms 10,240. A dense layer's FFN 3 x 5120 x
  // 16384 = 251,658,240; an MoE layer's 128 x 125,829,120 = 16,106,127,360, the shared expert
  // 125,829,120 and the router 128 x 5120 = 655,360: 16,232,611,840. 48 x 62,924,800 +
  // 24 x 251,658,240 + 24 x 16,232,611,840 = 3,020,390,400 + 6,039,797,760 + 389,582,684,160 =
  // 398,642,872,320. Total 400,711,848,960 (card: 400B).
  EXPECT_EQ(m.parameters(), 400711848960u);
  EXPECT_LT(std::abs(relative_error(m.parameters(), 400e9)), 0.002);
  // Active: an MoE layer's routed expert, shared expert and router 125,829,120 + 125,829,120 +
  // 655,360 = 252,313,600, x 24 = 6,055,526,400; with every layer's attention and norms
  // 3,020,390,400, the dense FFNs 6,039,797,760 and the embedding, LM head and final norm
  // 2,068,976,640: 17,184,691,200 (card: 17B).
  EXPECT_EQ(m.active_parameters(), 17184691200u);
  EXPECT_LT(std::abs(relative_error(m.active_parameters(), 17e9)), 0.015);
  // A layer's weights read when it runs, BF16, without routed experts: a dense layer's
  // (62,914,560 + 251,658,240 + 10,240) x 2 = 629,166,080 B; an MoE layer's (62,914,560 +
  // 125,829,120 + 655,360 + 10,240) x 2 = 378,818,560 B.
  EXPECT_EQ(m.layer_weight_bytes(0), 629166080u);
  EXPECT_EQ(m.layer_weight_bytes(1), 378818560u);
}

TEST(ModelConfig, MoeLayerTypesKeysAndErrors) {
  // kSmallModel with experts in every third layer after one dense layer: of 4 layers, layer 2
  // (cycle [dense, dense, moe]); layer 5 would be the next.
  const std::string moe = std::string(kSmallModel) +
                          "moe: {experts: 4, top_k: 1, expert_intermediate_size: 128, "
                          "dense_layers: 1, layer_types: [dense, dense, moe]}\n";
  const ModelConfig m = parse_text(moe);
  EXPECT_FALSE(m.is_moe_layer(0));
  EXPECT_FALSE(m.is_moe_layer(1));
  EXPECT_TRUE(m.is_moe_layer(2));
  EXPECT_FALSE(m.is_moe_layer(3));
  EXPECT_EQ(m.moe_layers(4), 1u);
  // dense_layers holds the cycle off the first layers: [moe, dense] with dense_layers 1 puts
  // experts in layer 2 only (layer 0 is before dense_layers).
  const ModelConfig lead = parse_text(replace_line(moe, "[dense, dense, moe]", "[moe, dense]"));
  EXPECT_FALSE(lead.is_moe_layer(0));
  EXPECT_TRUE(lead.is_moe_layer(2));
  EXPECT_EQ(lead.moe_layers(4), 1u);
  std::string e = test::config_error_of(
      [&] { parse_text(replace_line(moe, "[dense, dense, moe]", "[dense, full]")); });
  EXPECT_THAT(e, HasSubstr("moe.layer_types: 'full': expected moe or dense"));
  e = test::config_error_of(
      [&] { parse_text(replace_line(moe, "[dense, dense, moe]", "[dense]")); });
  EXPECT_THAT(e, HasSubstr("moe.layer_types: no entry is moe"));
  // Only layer 0 of the cycle [moe, dense, dense, dense] has experts, and dense_layers 1 skips it.
  e = test::config_error_of(
      [&] { parse_text(replace_line(moe, "[dense, dense, moe]", "[moe, dense, dense, dense]")); });
  EXPECT_THAT(e, HasSubstr("moe.layer_types: no layer from moe.dense_layers (1) on has experts"));
  // Every layer has experts: no dense FFN, so intermediate_size is refused; with a dense entry it
  // is required.
  const std::string no_ffn = replace_line(moe, "intermediate_size: 512\n", "");
  e = test::config_error_of([&] {
    parse_text(replace_line(replace_line(moe, "dense_layers: 1", "dense_layers: 0"),
                            "[dense, dense, moe]", "[moe]"));
  });
  EXPECT_THAT(e, HasSubstr("intermediate_size: no layer has a dense FFN"));
  // With dense layers and no intermediate_size, the message says which layers need it.
  e = test::config_error_of([&] { parse_text(replace_line(moe, "intermediate_size: 512\n", "")); });
  EXPECT_THAT(e, HasSubstr("intermediate_size: missing: 3 of the model's 4 layers have a dense "
                           "FFN"));
  e = test::config_error_of([&] {
    parse_text(replace_line(replace_line(no_ffn, "dense_layers: 1", "dense_layers: 0"),
                            "[dense, dense, moe]", "[dense, moe]"));
  });
  EXPECT_THAT(e, HasSubstr("intermediate_size"));
  // Hugging Face's names for it are refused with famsim's.
  for (const char* hf : {"interleave_moe_layer_step: 2", "decoder_sparse_step: 2"}) {
    e = test::config_error_of([&] { parse_text(std::string(kSmallModel) + hf + "\n"); });
    EXPECT_THAT(e, HasSubstr("famsim calls it moe.layer_types (a cycle: 2 is [dense, moe]")) << hf;
  }
  e = test::config_error_of(
      [] { parse_text(std::string(kSmallModel) + "intermediate_size_mlp: 16384\n"); });
  EXPECT_THAT(e, HasSubstr("famsim calls it intermediate_size"));
}

TEST(ModelConfig, AttentionChunkKeysAndErrors) {
  const ModelConfig every = parse_text(std::string(kSmallModel) + "attention_chunk: 64\n");
  EXPECT_EQ(every.chunked_layers(4), 4u);
  EXPECT_EQ(every.attended_tokens(2, 130), 2u);  // 130 mod 64
  std::string e = test::config_error_of([] {
    parse_text(std::string(kSmallModel) +
               "attention_chunk: {tokens: 64, layer_types: [chunked, sliding]}\n");
  });
  EXPECT_THAT(e, HasSubstr("attention_chunk.layer_types: 'sliding': expected chunked or full"));
  e = test::config_error_of(
      [] { parse_text(std::string(kSmallModel) + "sliding_window: 128\nattention_chunk: 64\n"); });
  EXPECT_THAT(e, HasSubstr("sliding_window and attention_chunk both limit"));
  e = test::config_error_of(
      [] { parse_text(std::string(kSmallModel) + "attention_chunk_size: 8192\n"); });
  EXPECT_THAT(e, HasSubstr("famsim calls it attention_chunk"));
  e = test::config_error_of(
      [] { parse_text(std::string(kSmallModel) + "no_rope_layer_interval: 4\n"); });
  EXPECT_THAT(e, HasSubstr("famsim calls it attention_chunk.layer_types"));
}

TEST(ModelConfig, NumberFormatsByNameAndByTheirNumbers) {
  // A block-scaled format: per row its blocks, each `block` values and a scale, whole bytes.
  const ModelConfig nv = parse_text(std::string(kSmallModel) + "weight_format: nvfp4\n");
  // NVFP4: 16 values of 4 bits and an 8-bit scale, 72 bits a block. q: 256 rows of 256 inputs,
  // 16 blocks = 1152 bits = 144 B a row: 36,864 B; k and v: 64 rows x 144 B = 9,216 B each; o:
  // 256 rows x 144 B = 36,864 B. 92,160 B.
  EXPECT_EQ(nv.attention_weight_bytes(), 92160u);
  EXPECT_DOUBLE_EQ(nv.weight_format.bits_per_value(), 4.5);
  // Dense FFN: gate and up 512 rows x 144 B, down 256 rows of 512 inputs, 32 blocks x 9 B =
  // 288 B: 2 x 73,728 + 73,728 = 221,184 B.
  EXPECT_EQ(nv.dense_ffn_weight_bytes(), 221184u);
  // The parts kept unquantized default to BF16 under a block-scaled format.
  EXPECT_EQ(nv.unquantized_dtype_bytes, 2u);
  // An unscaled name is weight_dtype_bytes by another name, and sets the unquantized default.
  const ModelConfig fp8 = parse_text(std::string(kSmallModel) + "weight_format: fp8\n");
  EXPECT_EQ(fp8.unquantized_dtype_bytes, 1u);
  // q 65,536 + k, v 2 x 16,384 + o 65,536 values, 1 B each.
  EXPECT_EQ(fp8.attention_weight_bytes(), 163840u);
  // By its numbers: 3-bit values with a 16-bit scale per 64: a row of 256 inputs is 4 blocks of
  // 192 + 16 bits = 832 bits = 104 B. q: 256 x 104 = 26,624; k, v: 64 x 104 = 6,656 each; o
  // 26,624. 66,560 B. A row of 100 inputs would round up to 2 whole blocks: 52 B.
  const ModelConfig custom = parse_text(std::string(kSmallModel) +
                                        "weight_format: {bits: 3, block: 64, scale_bits: 16}\n");
  EXPECT_EQ(custom.weight_format.name, "custom");
  EXPECT_EQ(custom.attention_weight_bytes(), 66560u);
  EXPECT_EQ(custom.weight_format.matrix_bytes(1, 100), 52u);
  // Bits alone: unscaled, each row rounded up to whole bytes (5 x 100 bits = 63 B a row).
  const ModelConfig five = parse_text(std::string(kSmallModel) + "weight_format: {bits: 5}\n");
  EXPECT_EQ(five.weight_format.matrix_bytes(3, 100), 189u);
  // Experts: their own format; the attention keeps the linear layers'.
  const std::string moe = replace_line(
      kSmallModel, "intermediate_size: 512\n",
      "moe: {experts: 4, top_k: 2, expert_intermediate_size: 64}\nexpert_weight_format: mxfp4\n");
  const ModelConfig mx = parse_text(moe);
  // Gate and up: 64 rows of 256 inputs, 8 blocks x 17 B = 136 B; down: 256 rows of 64 inputs,
  // 2 blocks x 17 B = 34 B. 2 x 8,704 + 8,704 = 26,112 B.
  EXPECT_EQ(mx.expert_weight_bytes(), 26112u);
  EXPECT_EQ(mx.attention_weight_bytes(), 163840u * 2);  // BF16
}

TEST(ModelConfig, NumberFormatErrorsNameTheKey) {
  std::string e =
      test::config_error_of([] { parse_text(std::string(kSmallModel) + "weight_format: fp4\n"); });
  EXPECT_THAT(e, HasSubstr("model.yaml:9"));
  EXPECT_THAT(e, HasSubstr("weight_format"));
  EXPECT_THAT(e, HasSubstr("mxfp4"));  // the names it takes
  e = test::config_error_of([] {
    parse_text(std::string(kSmallModel) + "weight_dtype_bytes: 1\nweight_format: mxfp4\n");
  });
  EXPECT_THAT(e, HasSubstr("give one of them"));
  e = test::config_error_of(
      [] { parse_text(std::string(kSmallModel) + "expert_weight_format: mxfp4\n"); });
  EXPECT_THAT(e, HasSubstr("expert_weight_format: the model has no experts"));
  e = test::config_error_of(
      [] { parse_text(std::string(kSmallModel) + "weight_format: {bits: 4, block: 32}\n"); });
  EXPECT_THAT(e, HasSubstr("weight_format.scale_bits: missing"));
  e = test::config_error_of(
      [] { parse_text(std::string(kSmallModel) + "weight_format: {bits: 0}\n"); });
  EXPECT_THAT(e, HasSubstr("weight_format.bits: expected an integer in [1, 32]"));
  e = test::config_error_of(
      [] { parse_text(std::string(kSmallModel) + "weight_format: {bits: 4, group: 32}\n"); });
  EXPECT_THAT(
      e, HasSubstr("unknown key 'weight_format.group'; expected one of: bits, block, scale_bits"));
  // config.json's quantization block is named for what it is.
  e = test::config_error_of([] {
    parse_text(std::string(kSmallModel) + "quantization_config: {quant_method: mxfp4}\n");
  });
  EXPECT_THAT(e, HasSubstr("expert_weight_format"));
}

TEST(ModelConfig, KvCacheFormatsByHand) {
  // NVFP4 KV cache: a head's 32 values are 2 blocks of 16 x 4 bits and an 8-bit scale, 18 B.
  // 2 (K, V) x 2 KV heads x 18 B = 72 B per token and layer (BF16: 256 B).
  const ModelConfig nv = parse_text(std::string(kSmallModel) + "kv_format: nvfp4\n");
  EXPECT_EQ(nv.kv_bytes_per_token_layer(), 72u);
  // tp = 2: one head each, 36 B; x 4 layers = 144 B per token.
  EXPECT_EQ(nv.kv_bytes_per_token_layer(2), 36u);
  EXPECT_EQ(nv.kv_bytes_per_token(2), 144u);
  // The weights keep their own format.
  EXPECT_EQ(nv.weight_format.whole_bytes(), 2u);
  // FP8 by name: as kv_dtype_bytes: 1, 2 x 2 x 32 x 1 B.
  EXPECT_EQ(parse_text(std::string(kSmallModel) + "kv_format: fp8\n").kv_bytes_per_token_layer(),
            128u);
  // MLA: the latent (64 + 16 = 80 values) in MXFP4 is 3 blocks of 32 (the last one whole) x 17 B
  // = 51 B, for any tp.
  const ModelConfig mla = parse_text(
      replace_line(replace_line(kSmallModel, "kv_heads: 2\n", "attention: mla\n"),
                   "intermediate_size: 512\n",
                   "intermediate_size: 512\nmla: {kv_lora_rank: 64, qk_rope_head_dim: 16, "
                   "q_lora_rank: 0, qk_nope_head_dim: 32, v_head_dim: 32}\n") +
      "kv_format: mxfp4\n");
  EXPECT_EQ(mla.kv_bytes_per_token_layer(), 51u);
  EXPECT_EQ(mla.kv_bytes_per_token_layer(4), 51u);
  // One of the two keys.
  const std::string e = test::config_error_of(
      [] { parse_text(std::string(kSmallModel) + "kv_dtype_bytes: 1\nkv_format: nvfp4\n"); });
  EXPECT_THAT(e, HasSubstr("kv_format and kv_dtype_bytes both say how the values are stored"));
}

TEST(ModelConfig, DefaultsAndDerivedHeadDim) {
  const ModelConfig m = parse_text(kSmallModel);
  EXPECT_EQ(m.attention, AttentionKind::kGqa);
  EXPECT_EQ(m.head_dim, 32u);  // 256 / 8
  EXPECT_EQ(m.weight_format.whole_bytes(), 2u);
  EXPECT_EQ(m.expert_format.whole_bytes(), 2u);
  EXPECT_EQ(m.unquantized_dtype_bytes, 2u);
  EXPECT_EQ(m.kv_format.whole_bytes(), 2u);
  EXPECT_FALSE(m.tied_embeddings);
  // 2 x 2 KV heads x 32 x 2 B = 256 B per layer.
  EXPECT_EQ(m.kv_bytes_per_token_layer(), 256u);
  // unquantized_dtype_bytes follows weight_dtype_bytes unless given.
  const ModelConfig fp8 = parse_text(std::string(kSmallModel) + "weight_dtype_bytes: 1\n");
  EXPECT_EQ(fp8.unquantized_dtype_bytes, 1u);
  // Tied embeddings count the table once: the untied count minus 1000 x 256.
  const ModelConfig tied = parse_text(std::string(kSmallModel) + "tie_word_embeddings: true\n");
  EXPECT_EQ(m.parameters() - tied.parameters(), 256000u);
}

TEST(ModelConfig, ErrorsNameFileLineAndKey) {
  // Unknown key.
  std::string e =
      test::config_error_of([] { parse_text(std::string(kSmallModel) + "num_layers: 4\n"); });
  EXPECT_THAT(e, HasSubstr("model.yaml:9"));
  EXPECT_THAT(e, HasSubstr("unknown key 'num_layers'"));

  // Missing required key.
  e = test::config_error_of([] { parse_text(replace_line(kSmallModel, "layers: 4\n", "")); });
  EXPECT_THAT(e, HasSubstr("layers: missing"));

  // A required key under a name too far from its own to be a misspelling: the unknown key is
  // named (with the keys a model has), not `layers` as missing.
  e = test::config_error_of(
      [] { parse_text(replace_line(kSmallModel, "layers: 4\n", "depth: 4\n")); });
  EXPECT_THAT(e, HasSubstr("unknown key 'depth'"));
  EXPECT_THAT(e, HasSubstr("expected one of: "));
  EXPECT_THAT(e, Not(HasSubstr("missing")));
  // Hugging Face config.json's name for it: famsim's name is given.
  e = test::config_error_of(
      [] { parse_text(replace_line(kSmallModel, "layers: 4\n", "num_hidden_layers: 4\n")); });
  EXPECT_THAT(e, HasSubstr("num_hidden_layers: unknown key: Hugging Face config.json's name; "
                           "famsim calls it layers"));
  e = test::config_error_of([] {
    parse_text(replace_line(kSmallModel, "intermediate_size: 512\n",
                            "moe: {experts: 4, top_k: 2, expert_intermediate_size: 64}\n"
                            "num_experts_per_tok: 2\n"));
  });
  EXPECT_THAT(e, HasSubstr("famsim calls it moe.top_k"));

  // attention_heads not a multiple of kv_heads.
  e = test::config_error_of(
      [] { parse_text(replace_line(kSmallModel, "kv_heads: 2", "kv_heads: 3")); });
  EXPECT_THAT(e, HasSubstr("model.yaml:6"));
  EXPECT_THAT(e, HasSubstr("kv_heads"));
  EXPECT_THAT(e, HasSubstr("multiple"));

  // top_k > experts.
  const std::string moe =
      replace_line(kSmallModel, "intermediate_size: 512\n",
                   "moe: {experts: 4, top_k: 5, expert_intermediate_size: 64}\n");
  e = test::config_error_of([&] { parse_text(moe); });
  EXPECT_THAT(e, HasSubstr("moe.top_k"));
  EXPECT_THAT(e, HasSubstr("model.yaml:7"));

  // A value out of range.
  e = test::config_error_of(
      [] { parse_text(replace_line(kSmallModel, "layers: 4", "layers: 0")); });
  EXPECT_THAT(e, HasSubstr("layers: expected an integer in [1, 1024]"));
  e = test::config_error_of([] { parse_text(std::string(kSmallModel) + "kv_dtype_bytes: 3\n"); });
  EXPECT_THAT(e, HasSubstr("kv_dtype_bytes"));
}

// Sliding-window attention: W for every layer, or a cycle of layer types; a layer with a window
// of W attends to the newest W - 1 cached tokens (and the new one).
TEST(ModelConfig, SlidingWindowLayersAndAttendedTokens) {
  const ModelConfig none = parse_text(kSmallModel);
  EXPECT_FALSE(none.is_sliding_layer(0));
  EXPECT_EQ(none.attended_tokens(0, 5000), 5000u);

  const ModelConfig all = parse_text(std::string(kSmallModel) + "sliding_window: 128\n");
  EXPECT_EQ(all.sliding_layers(4), 4u);
  EXPECT_EQ(all.attended_tokens(3, 5000), 127u);
  EXPECT_EQ(all.attended_tokens(3, 100), 100u);

  // gpt-oss's alternation, layer 0 sliding; Gemma 3's five sliding layers to one full.
  const ModelConfig alt = parse_text(
      std::string(kSmallModel) + "sliding_window: {tokens: 128, layer_types: [sliding, full]}\n");
  EXPECT_TRUE(alt.is_sliding_layer(0));
  EXPECT_FALSE(alt.is_sliding_layer(1));
  EXPECT_TRUE(alt.is_sliding_layer(2));
  EXPECT_EQ(alt.attended_tokens(1, 5000), 5000u);
  EXPECT_EQ(alt.sliding_layers(3), 2u);
  const ModelConfig six =
      parse_text(replace_line(kSmallModel, "layers: 4", "layers: 8") +
                 "sliding_window:\n  tokens: 1024\n"
                 "  layer_types: [sliding, sliding, sliding, sliding, sliding, full]\n");
  EXPECT_EQ(six.sliding_layers(8), 7u);  // all but layer 5 (the cycle restarts at 6)
  EXPECT_FALSE(six.is_sliding_layer(5));
  EXPECT_TRUE(six.is_sliding_layer(7));
}

TEST(ModelConfig, SlidingWindowErrorsNameTheKey) {
  std::string e =
      test::config_error_of([] { parse_text(std::string(kSmallModel) + "sliding_window: 0\n"); });
  EXPECT_THAT(e, HasSubstr("model.yaml:9"));
  EXPECT_THAT(e, HasSubstr("sliding_window"));
  e = test::config_error_of([] {
    parse_text(std::string(kSmallModel) +
               "sliding_window: {tokens: 64, layer_types: [sliding, local]}\n");
  });
  EXPECT_THAT(e, HasSubstr("sliding_window.layer_types: 'local': expected sliding or full"));
  e = test::config_error_of([] {
    parse_text(std::string(kSmallModel) +
               "sliding_window: {tokens: 64, layer_types: [full, full]}\n");
  });
  EXPECT_THAT(e, HasSubstr("no entry is sliding"));
  e = test::config_error_of([] {
    parse_text(std::string(kSmallModel) +
               "sliding_window: {tokens: 64, layer_types: [sliding, full, full, full, full]}\n");
  });
  EXPECT_THAT(e, HasSubstr("5 entries; expected 1 to the model's 4 layers"));
  e = test::config_error_of(
      [] { parse_text(std::string(kSmallModel) + "sliding_window: {layer_types: [sliding]}\n"); });
  EXPECT_THAT(e, HasSubstr("sliding_window.tokens: missing"));
  // Hugging Face's names for the cycle.
  e = test::config_error_of(
      [] { parse_text(std::string(kSmallModel) + "sliding_window_pattern: 6\n"); });
  EXPECT_THAT(e, HasSubstr("famsim calls it sliding_window.layer_types"));
  e = test::config_error_of(
      [] { parse_text(std::string(kSmallModel) + "layer_types: [sliding_attention]\n"); });
  EXPECT_THAT(e, HasSubstr("famsim calls it sliding_window.layer_types"));
}

TEST(ModelConfig, InconsistentCombinationsAreErrors) {
  // MLA without its ranks.
  const std::string mla_base =
      "name: m\nsource: test\nlayers: 2\nhidden_size: 256\nattention: mla\n"
      "attention_heads: 4\nintermediate_size: 512\nvocab_size: 100\n";
  std::string e = test::config_error_of([&] { parse_text(mla_base); });
  EXPECT_THAT(e, HasSubstr("mla: missing"));
  e = test::config_error_of([&] {
    parse_text(mla_base +
               "mla: {kv_lora_rank: 64, q_lora_rank: 0, qk_nope_head_dim: 32, "
               "v_head_dim: 32}\n");
  });
  EXPECT_THAT(e, HasSubstr("mla.qk_rope_head_dim: missing"));
  // MLA derives kv_heads and head_dim: giving them is an error.
  const std::string mla_ok = mla_base +
                             "mla: {kv_lora_rank: 64, qk_rope_head_dim: 16, q_lora_rank: 0, "
                             "qk_nope_head_dim: 32, v_head_dim: 32}\n";
  EXPECT_EQ(parse_text(mla_ok).kv_bytes_per_token_layer(), (64u + 16u) * 2u);
  e = test::config_error_of([&] { parse_text(mla_ok + "kv_heads: 4\n"); });
  EXPECT_THAT(e, HasSubstr("kv_heads"));
  // mla with gqa attention.
  e = test::config_error_of(
      [] { parse_text(std::string(kSmallModel) + "mla: {kv_lora_rank: 64}\n"); });
  EXPECT_THAT(e, HasSubstr("mla: only applies to attention: mla"));

  // A dense model needs intermediate_size; an all-MoE model must not have one.
  e = test::config_error_of(
      [] { parse_text(replace_line(kSmallModel, "intermediate_size: 512\n", "")); });
  EXPECT_THAT(e, HasSubstr("intermediate_size: missing"));
  e = test::config_error_of([] {
    parse_text(std::string(kSmallModel) +
               "moe: {experts: 4, top_k: 2, expert_intermediate_size: 64}\n");
  });
  EXPECT_THAT(e, HasSubstr("intermediate_size: no layer has a dense FFN"));
  // dense_layers must leave at least one MoE layer.
  e = test::config_error_of([] {
    parse_text(std::string(kSmallModel) +
               "moe: {experts: 4, top_k: 2, expert_intermediate_size: 64, dense_layers: 4}\n");
  });
  EXPECT_THAT(e, HasSubstr("moe.dense_layers"));
  // hidden_size not a multiple of attention_heads and no head_dim.
  e = test::config_error_of(
      [] { parse_text(replace_line(kSmallModel, "hidden_size: 256", "hidden_size: 260")); });
  EXPECT_THAT(e, HasSubstr("head_dim: missing"));
}

}  // namespace
}  // namespace famsim
