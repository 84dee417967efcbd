// LLM model descriptions as data. A workload owner describes a transformer decoder in YAML (presets
// under traffic/models/); workload generators derive the bytes a step moves from it: KV cache per
// token, weights per layer, per GPU of a tensor-parallel group.
//
// What is modelled: a decoder-only transformer of `layers` blocks, each block
//   RMSNorm -> attention (GQA or MLA; full, windowed or linear) -> RMSNorm -> FFN (dense or
//   mixture of experts; SwiGLU, or squared ReLU without a gate), the kinds of attention and FFN
//   set per layer by the cycles below,
// or, with block_pattern (Nemotron-H), each block RMSNorm -> one part alone: a Mamba-2 mixer,
// attention, a dense FFN or experts;
// a token embedding table, a final RMSNorm and an LM head (vocab x hidden). Linear layers have no
// bias (true of Llama 3, Mixtral and DeepSeek-V3; gpt-oss's attention, router and expert biases
// and attention sinks, 0.03% of its parameters, are not counted). Not modelled: DeepSeek-V3's
// multi-token prediction module (see traffic/models/deepseek_v3.yaml), its 256-value routing bias
// per MoE layer (e_score_correction_bias: 0.00002% of the parameters) and the per-block scales of
// its FP8 weights (one FP32 scale per 128 x 128 block: 0.02%; a block-scaled weight_format counts
// scales).
//
// YAML keys (all sizes are counts of values unless a unit is named):
//   name                 text, required: the model's name in reports
//   source               text, required: where the numbers come from (config.json, paper)
//   layers               transformer blocks, 1..1024 (HF num_hidden_layers)
//   hidden_size          model width d_model, 1..65536 (HF hidden_size)
//   attention            gqa | mla, default gqa. gqa covers MHA (kv_heads = attention_heads) and
//                        MQA (kv_heads = 1)
//   attention_heads      query heads, 1..1024 (HF num_attention_heads)
//   kv_heads             gqa only, required: key/value heads, 1..1024, attention_heads must be a
//                        multiple of it (HF num_key_value_heads)
//   head_dim             gqa only: values per head, 1..1024; default hidden_size / attention_heads
//                        (then hidden_size must be a multiple of attention_heads)
//   mla                  mla only, required: the multi-head latent attention ranks
//   (DeepSeek-V2/V3):
//     kv_lora_rank       width of the compressed KV latent that is cached, 1..65536
//     qk_rope_head_dim   width of the decoupled RoPE key, cached next to the latent, 1..1024
//     q_lora_rank        width of the compressed query, 0..65536; 0: queries are projected
//                        directly from the hidden state (DeepSeek-V2-Lite)
//     qk_nope_head_dim   per-head query/key width without RoPE, 1..1024
//     v_head_dim         per-head value width, 1..1024
//   intermediate_size    dense FFN width, 1..2^20 (HF intermediate_size); required when some layer
//                        has a dense FFN (a dense model, moe.dense_layers > 0, a `dense` entry
//                        in moe.layer_types, or a `-` in block_pattern), an error otherwise
//   ffn_activation       swiglu (default: gate, up and down matrices, SiLU(gate) x up; Llama,
//                        Mixtral, DeepSeek, Qwen) or relu2 (up and down only, squared ReLU, no
//                        gate: Nemotron-H's NemotronHMLP, HF mlp_hidden_act relu2). The dense
//                        FFN's and the experts' (routed and shared) matrices alike
//   block_pattern        Nemotron-H's per-layer composition (HF hybrid_override_pattern, copied
//                        as it is): one character a layer, `layers` of them, each layer an
//                        RMSNorm and one part alone: M a linear-attention mixer (the
//                        linear_attention key's, mamba2 for Nemotron-H), * attention (a KV
//                        cache), - a dense FFN of intermediate_size, E experts (the moe key's).
//                        At least one *. With it, linear_attention.layer_types, moe.layer_types
//                        and moe.dense_layers are the pattern's to say (an error when given), and
//                        sliding_window and attention_chunk are not modelled. Absent: every layer
//                        has attention (full or linear) and an FFN
//   vocab_size           vocabulary entries, 1..2^22 (HF vocab_size)
//   tie_word_embeddings  true: the LM head is the embedding table (counted once); default false
//   moe                  mixture of experts; absent: a dense model
//     experts            routed experts per MoE layer, 1..4096 (HF num_local_experts /
//                        n_routed_experts)
//     top_k              routed experts each token uses, 1..experts (HF num_experts_per_tok)
//     shared_experts     experts every token uses, 0..64, default 0 (HF n_shared_experts)
//     expert_intermediate_size  FFN width of one expert, 1..2^20 (Mixtral: intermediate_size;
//                        DeepSeek: moe_intermediate_size). Shared experts have the same width
//                        unless shared_expert_intermediate_size says otherwise.
//     dense_layers       leading layers with a dense FFN instead of experts, 0..layers-1, default 0
//                        (HF first_k_dense_replace)
//     layer_types        which layers have experts, a cycle of `moe` and `dense` over the layers
//                        from layer 0, as sliding_window's, with at least one `moe` (the layers
//                        before dense_layers stay dense). Absent: every layer from dense_layers
//                        on. Llama 4 Maverick's interleave_moe_layer_step 2 and Qwen's
//                        decoder_sparse_step 2 (experts in layers 1, 3, 5, ...) are [dense, moe];
//                        a step of k is k - 1 `dense` then `moe`. Dense layers have an FFN of
//                        intermediate_size (Llama 4: intermediate_size_mlp)
//     shared_expert_intermediate_size  FFN width of each shared expert, 1..2^20, default
//                        expert_intermediate_size (Qwen: shared_expert_intermediate_size)
//     shared_expert_gate true: a sigmoid gate scales the shared experts' output (hidden weights,
//                        Qwen2-MoE and Qwen3-Next's shared_expert_gate). Default false
//   weight_dtype_bytes   bytes per weight of the linear layers: 1 (FP8/INT8), 2 (BF16/FP16) or 4
//                        (FP32), default 2. Or, instead of it:
//   weight_format        how the linear layers' weights are stored: a name, or for a block-scaled
//                        format {bits: B, block: N, scale_bits: S} (B bits a value, 1..32; one
//                        S-bit scale, 1..32, for each N consecutive values of a row along its
//                        input dimension, 1..65536; without block and scale_bits: B bits a value,
//                        unscaled). Names: fp32 (32 bits), bf16 and fp16 (16), fp8 and int8 (8);
//                        the OCP Microscaling (MX) formats (OCP MX Specification v1.0, 2023: a
//                        block of 32 values shares an 8-bit E8M0 scale) mxfp8 and mxint8 (8 bits a
//                        value), mxfp6 (6), mxfp4 (4: 4.25 bits a value with the scales); and
//                        nvfp4 (NVIDIA Blackwell: 4-bit E2M1 values, an 8-bit E4M3 scale per 16,
//                        4.5 bits a value; its one FP32 scale per tensor is not counted). A row's
//                        last block is stored whole (the checkpoints' [rows, blocks, bytes]
//                        layout), so a tensor-parallel shard whose input is not a whole number of
//                        blocks rounds up.
//                        (Next to a preset, {preset: X, weight_format: F}, the user's key of
//                        such a pair replaces the preset's other one: platforms/presets.cpp.)
//   expert_weight_format the routed and shared experts' format, in the same forms; default the
//                        linear layers' (gpt-oss: BF16 attention, MXFP4 experts)
//   unquantized_dtype_bytes  bytes per value of the parts a quantized checkpoint keeps in higher
//                        precision: token embedding, LM head, MoE router and RMSNorm weights
//                        (DeepSeek-V3: FP8 linear layers, these in BF16). 1, 2 or 4; default
//                        weight_dtype_bytes, or with weight_format the bytes of an unscaled
//                        whole-byte format and 2 (BF16) for any other
//   kv_dtype_bytes       bytes per KV cache value, 1, 2 or 4, default 2. Or, instead of it:
//   kv_format            how the KV cache's values are stored, in weight_format's forms (nvfp4:
//                        the NVFP4 KV cache of NVIDIA's Blackwell serving stacks); the blocks run
//                        along one head's vector (GQA: head_dim values of one head's K or V; MLA:
//                        the token's latent and RoPE key), each vector rounded up to whole blocks
//                        and bytes. MLA also takes fp8_ds_mla: DeepSeek's FP8 layout of a token's
//                        entry (FlashMLA's, vLLM's --kv-cache-dtype fp8 for DeepSeek-V3.2): the
//                        latent in FP8 with an FP32 scale per 128 values, the RoPE key in BF16
//                        (512 + 16 + 128 = 656 B for DeepSeek-V3's 512 + 64)
//   sliding_window       sliding-window attention (Mistral 7B, Gemma 2/3, gpt-oss): a layer
//                        with it attends to the last W tokens only, the new one included, so a
//                        decode step reads at most W - 1 cached tokens there (HF sliding_window;
//                        flash-attention's left window W - 1). Either W, 1..2^32, for every
//                        layer, or {tokens: W, layer_types: [sliding, full, ...]}: the list is
//                        a cycle over the layers from layer 0 (HF layer_types, given whole or as
//                        its repeating part: gpt-oss [sliding, full]; Gemma 3's
//                        sliding_window_pattern 6 is five `sliding` then `full`), with at least
//                        one `sliding`. Absent: every layer attends to the whole context. Only
//                        what is read and held changes (kv_decode's cached tokens, prefill's
//                        reused prefix; kv_decode keeps, as vLLM, only the blocks a sliding
//                        layer can still read, in a ring, and its HBM tier drops rather than
//                        moves the others; prefill's prefix cache keeps them all), every new
//                        token is written, and the compute model counts no attention-score
//                        FLOPs.
//   attention_chunk      chunked attention (Llama 4): a layer with it attends only to the tokens
//                        of its own chunk of C (positions floor(p / C) x C to p), so a decode
//                        step at position p reads p mod C cached tokens there (HF
//                        attention_chunk_size). C, 1..2^32, for every layer, or {tokens: C,
//                        layer_types: [chunked, full, ...]}, a cycle as sliding_window's (Llama 4:
//                        every fourth layer, without RoPE, attends to the whole context:
//                        [chunked, chunked, chunked, full]). As a sliding window, it changes
//                        what is read and held (kv_decode keeps a ring of the blocks of the
//                        current chunk; an hbm_tokens tier drops a block of a finished chunk),
//                        and not with sliding_window.
//   linear_attention     hybrid models whose layers mix full attention with linear attention
//                        (Qwen3-Next, Qwen3.5: three Gated DeltaNet layers to one full-attention
//                        layer). A linear-attention layer keeps no KV cache: each sequence has a
//                        fixed recurrent state per layer, read and written whole by every decode
//                        step (vLLM: fused_recurrent_gated_delta_rule updates it in place), plus
//                        (all kinds but lightning) a short convolution's state of its last
//                        conv_kernel - 1 inputs. Keys:
//     kind               gated_deltanet (Yang, Kautz, Hatamizadeh, "Gated Delta Networks", ICLR
//                        2025), mamba2 (Dao, Gu, "Transformers are SSMs", ICML 2024; below),
//                        mamba1 (below), kda or lightning (below)
//     key_heads          1..1024 (HF linear_num_key_heads)
//     value_heads        1..1024, a multiple of key_heads (HF linear_num_value_heads)
//     key_head_dim       1..1024 (HF linear_key_head_dim)
//     value_head_dim     1..1024 (HF linear_value_head_dim)
//     conv_kernel        the short convolution's width, 2..64 (HF linear_conv_kernel_dim)
//     layer_types        required (without block_pattern, whose Ms are the linear layers): a
//                        cycle of `linear` and `full` over the layers from layer 0,
//                        as sliding_window's (HF layer_types linear_attention / full_attention;
//                        full_attention_interval 4 is [linear, linear, linear, full]), with at
//                        least one of each
//     state_format       how the recurrent state's values are stored, in weight_format's forms,
//                        default fp32 (Hugging Face transformers' Qwen3-Next keeps the recurrent
//                        state in float32; Qwen3.5's config.json says mamba_ssm_dtype float32;
//                        vLLM's --mamba-ssm-cache-dtype chooses it, apart from kind kda's)
//     conv_state_format  the convolution state's values, default bf16 (the activations' type)
//                        Per sequence and linear layer on one GPU of tp: the recurrent state
//                        value_heads/tp x key_head_dim x value_head_dim values, the convolution
//                        state (conv_kernel - 1) x (2 x key_heads x key_head_dim + value_heads x
//                        value_head_dim) / tp (vLLM MambaStateShapeCalculator's
//                        gated_delta_net_state_shape). Weights of the layer (Hugging Face
//                        Qwen3NextGatedDeltaNet): in_proj_qkvz (hidden -> 2 x key + 2 x value
//                        dims), in_proj_ba (hidden -> 2 x value_heads), out_proj (value dims ->
//                        hidden) in weight_format; the convolution's weights, A_log, dt_bias
//                        and the gated norm's value_head_dim weights in unquantized_dtype_bytes.
//                        tp must divide key_heads (vLLM's rule). Not with sliding_window.
//                        The state update's FLOPs, like attention scores, are not counted.
//     For kind mamba2 (Granite 4.0-H, Bamba: Mamba-2 mixers in place of attention in most layers,
//     each layer keeping its FFN; Nemotron-H: a Mamba-2 mixer alone, in block_pattern's M layers),
//     instead of the four Gated DeltaNet head keys:
//     heads              1..1024 (HF mamba_n_heads)
//     head_dim           1..1024 (HF mamba_d_head; heads x head_dim is the mixer's inner width I,
//                        HF mamba_expand x hidden_size)
//     state_size         the SSM state per value, 1..1024 (HF mamba_d_state)
//     groups             groups of heads sharing the B and C projections, 1..1024, dividing heads
//                        (HF mamba_n_groups)
//     conv_bias          the convolution has a bias, default true (HF mamba_conv_bias)
//                        conv_kernel, layer_types, state_format and conv_state_format as above.
//                        Per sequence and linear layer on one GPU of tp: the SSM state heads/tp x
//                        head_dim x state_size values, the convolution state (conv_kernel - 1) x
//                        (I + 2 x G x state_size) / tp, G the groups, or tp when groups is 1 and
//                        tp > 1 (each GPU then keeps the one group's B and C: vLLM
//                        MambaStateShapeCalculator's mamba2_state_shape and
//                        extra_groups_for_head_shards). Weights (Hugging Face Mamba2Mixer, as in
//                        GraniteMoeHybridMambaLayer): in_proj (hidden -> 2 x I + 2 x groups x
//                        state_size + heads: z, x, B, C and dt), out_proj (I -> hidden) in
//                        weight_format; the depthwise convolution over I + 2 x groups x
//                        state_size channels (and its bias), dt_bias, A_log and D (a value a
//                        head) and the gated norm's I weights in unquantized_dtype_bytes. tp must
//                        divide heads, and divide groups or groups be 1 (vLLM's MambaMixer2).
//                        vLLM keeps the SSM state in the model's dtype unless
//                        --mamba-ssm-cache-dtype says otherwise: state_format: bf16 for a BF16
//                        model served that way (the default here is fp32, the larger).
//     For kind mamba1 (Jamba: Mamba mixers (Gu, Dao, "Mamba: Linear-Time Sequence Modeling
//     with Selective State Spaces", 2023) in place of attention in most layers, each layer keeping
//     its FFN or experts), instead of the head keys:
//     inner_size         the mixer's inner width I, 1..262144 (HF mamba_expand x hidden_size)
//     state_size         the SSM state per channel, 1..1024 (HF mamba_d_state)
//     dt_rank            the step size's low-rank projection, 1..65536 (HF mamba_dt_rank; "auto"
//                        is ceil(hidden_size / 16))
//     conv_bias          as above (HF mamba_conv_bias)
//     inner_norms        RMSNorms on the step size (dt_rank weights), B and C (state_size each)
//                        before the scan, default false (Jamba has them: Hugging Face
//                        JambaMambaMixer's dt_layernorm, b_layernorm, c_layernorm)
//                        conv_kernel, layer_types, state_format and conv_state_format as above.
//                        Per sequence and linear layer on one GPU of tp: the SSM state I/tp x
//                        state_size values, the convolution state (conv_kernel - 1) x I/tp
//                        (vLLM MambaStateShapeCalculator's mamba1_state_shape). Weights (Hugging
//                        Face JambaMambaMixer, MambaMixer; no bias on in_proj, x_proj and
//                        out_proj, HF mamba_proj_bias false): in_proj (hidden -> 2 x I: x and the
//                        gate z), x_proj (I -> dt_rank + 2 x state_size: the step size's input, B
//                        and C), dt_proj (dt_rank -> I), out_proj (I -> hidden) in weight_format,
//                        split by the inner width (vLLM's MambaMixer: x_proj and out_proj by
//                        their inputs); the depthwise convolution over I channels (and its bias),
//                        dt_proj's bias, A_log (I x state_size), D (I) and the inner norms in
//                        unquantized_dtype_bytes. tp must divide I.
//     For kind kda (Kimi Delta Attention: Kimi Team, "Kimi Linear: An Expressive, Efficient
//     Attention Architecture", arXiv:2510.26692, 2025; a Gated DeltaNet whose decay is per
//     channel rather than per head, three KDA layers to one MLA layer in Kimi Linear), instead of
//     the Gated DeltaNet head keys:
//     heads              1..1024, query, key and value heads alike (HF linear_attn_config
//                        num_heads)
//     head_dim           1..1024, the key and value width of a head (HF linear_attn_config
//                        head_dim); P = heads x head_dim
//                        conv_kernel (HF short_conv_kernel_size), layer_types (HF kda_layers and
//                        full_attn_layers count layers from 1: give the list whole when the
//                        pattern does not repeat to the end, as Kimi Linear's), state_format and
//                        conv_state_format as above.
//                        Per sequence and linear layer on one GPU of tp: the recurrent state
//                        heads/tp x head_dim x head_dim values, the convolution state
//                        (conv_kernel - 1) x 3 x P/tp (q, k and v each convolved: vLLM
//                        MambaStateShapeCalculator's kda_state_shape). Weights (Hugging Face
//                        modeling_kimi.py KimiDeltaAttention, as vLLM's kda.py splits them; no
//                        biases): q_proj, k_proj and v_proj (hidden -> P each), f_b_proj and
//                        g_b_proj (head_dim -> P: the decay's and the output gate's low-rank
//                        up-projections), b_proj (hidden -> heads: beta), o_proj (P -> hidden),
//                        split by heads; f_a_proj and g_a_proj (hidden -> head_dim, their
//                        down-projections), replicated; all in weight_format; the three depthwise
//                        convolutions (3 x P/tp x conv_kernel, no bias), dt_bias (P/tp), A_log
//                        (heads/tp) and the gated output norm (head_dim, replicated) in
//                        unquantized_dtype_bytes (vLLM keeps the convolutions, A_log and dt_bias
//                        in FP32: Kimi Linear's 53,408 such values a layer, 0.14 % of its KDA
//                        weights, are counted at 2 B). tp must divide heads (vLLM's
//                        KimiDeltaAttention). vLLM keeps KDA's recurrent state in FP32 whatever
//                        --mamba-ssm-cache-dtype says (state_format's default; the convolution
//                        state follows --mamba-cache-dtype). The kind covers Kimi Linear's layout:
//                        as many key as value heads, of one width, and low-rank gates of rank
//                        head_dim; a KDA variant with separate key heads or full-rank gates is
//                        not described by these keys.
//     For kind lightning (MiniMax-Text-01 and MiniMax-M1's lightning attention: MiniMax,
//     "MiniMax-01: Scaling Foundation Models with Lightning Attention", arXiv:2501.08313; a linear
//     attention with a fixed decay per head, seven lightning layers to one softmax layer), instead
//     of the Gated DeltaNet head keys, and without conv_kernel and conv_state_format (it has no
//     convolution):
//     heads              1..1024, query, key and value heads alike (HF num_attention_heads)
//     head_dim           1..1024, the key and value width of a head (HF head_dim); P = heads x
//                        head_dim
//                        layer_types (HF attn_type_list: 0 lightning is linear, 1 softmax is
//                        full) and state_format as above.
//                        Per sequence and linear layer on one GPU of tp: the state heads/tp x
//                        head_dim x head_dim values (vLLM MambaStateShapeCalculator's
//                        linear_attention_state_shape), no convolution state. Weights (Hugging
//                        Face MiniMaxLightningAttention; vLLM MiniMaxText01LinearAttention; no
//                        biases): qkv_proj (hidden -> 3 x P), output_gate (hidden -> P), out_proj
//                        (P -> hidden) in weight_format, and the output RMSNorm's P weights in
//                        unquantized_dtype_bytes, all split by heads (vLLM splits the norm's
//                        weights too); the decay slopes are computed, not weights. tp must divide
//                        heads. vLLM keeps the state in the model's dtype unless
//                        --mamba-cache-dtype float32 is given (its first implementation and
//                        Hugging Face's kept float32): state_format: bf16 for the former.
//   attention_output_gate  true: the full-attention layers' query projection also gives a
//                        sigmoid gate per output value (Qwen3-Next; HF attn_output_gate): q_proj
//                        has twice the rows. Default false
//   qk_norm              true: RMSNorm on each query and key head (head_dim weights each; Qwen3,
//                        Qwen3-Next). Default false
//   sparse_attention     DeepSeek Sparse Attention (DeepSeek-V3.2-Exp and V3.2): in every
//                        layer a lightning indexer scores each cached token against the new one,
//                        with a small key per token and layer cached beside the KV, and the
//                        attention reads the KV of only the top_k tokens it scores highest. MLA
//                        with a compressed query only (the indexer's queries come from it); not
//                        with sliding_window, attention_chunk, linear_attention or block_pattern.
//     top_k              tokens each query attends to, 1..2^30 (HF index_topk; V3.2: 2048)
//     index_heads        the indexer's query heads, 1..1024 (HF index_n_heads; V3.2: 64)
//     index_head_dim     values of its key and of each query head, 1..1024 (HF index_head_dim;
//                        V3.2: 128)
//     index_key_format   how the cached index keys are stored, in weight_format's forms; default
//                        8-bit values with a 32-bit scale per 128 ({bits: 8, block: 128,
//                        scale_bits: 32}: 132 B a 128-value key, as DeepSeek's inference code and
//                        vLLM's indexer cache keep them)
//                        Weights per layer (DeepSeek-V3.2 inference/model.py, Indexer): wq_b
//                        (q_lora_rank -> index_heads x index_head_dim) and wk (hidden ->
//                        index_head_dim) in weight_format; k_norm (a LayerNorm: weight and bias,
//                        index_head_dim each) and weights_proj (hidden -> index_heads, kept in
//                        BF16 by the checkpoint) in unquantized_dtype_bytes; all replicated on
//                        every GPU of a tensor-parallel group (plain Linear layers there,
//                        ReplicatedLinear in vLLM), and so is the index key cache.
// The caps keep every byte count of a model within 64 bits; real models are far inside them.
//
// Tensor parallelism (the `tp` argument): Megatron-style, as vLLM shards a model. Attention heads
// and FFN columns are split over the tp GPUs; RMSNorm weights, the MoE router and MLA's down
// projections are replicated on every GPU (DeepSeek-V3 inference/model.py: wq_a and wkv_a are
// plain Linear layers, wq_b, wkv_b and wo are split by heads). Each routed expert is split by
// columns like a dense FFN; expert parallelism (whole experts per GPU) is the generator's choice.
// A split rounds up to whole FFN columns and whole vocabulary rows, so a GPU's share is the
// largest one. For attention, tp must divide attention_heads (vLLM's rule). GQA key/value heads:
// tp must divide kv_heads, or be a multiple of it, in which case each GPU holds one KV head and
// each head is replicated on tp / kv_heads GPUs (vllm/model_executor/layers/linear.py,
// QKVParallelLinear). MLA's latent is not split: every GPU holds the whole latent of every token.
// A tp that breaks these rules, or tp 0, throws std::invalid_argument; a layer index >= layers
// throws std::out_of_range.
#pragma once

#include "models/core/config.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace famsim {

enum class AttentionKind { kGqa, kMla };  // GQA covers MHA (kv_heads == heads) and MQA

// How weights or KV cache values are stored (the weight_format and kv_format keys): `bits` a
// value, and with block scaling one `scale_bits` scale per `block` consecutive values of a row (a
// weight matrix's row along its input dimension; one head's K or V vector).
struct NumberFormat {
  std::string name;  // the format's name, or "custom" for one given by its numbers
  unsigned bits = 16;
  unsigned block = 0;  // 0: no scales
  unsigned scale_bits = 0;

  // An unscaled whole-byte format (FP8, BF16, FP32): its bytes a value; 0 for any other.
  unsigned whole_bytes() const { return block == 0 && bits % 8 == 0 ? bits / 8 : 0; }
  // Bits a value with the scales (4.25 for MXFP4).
  double bits_per_value() const {
    return bits + (block ? static_cast<double>(scale_bits) / block : 0.0);
  }
  // Bytes of a matrix of `rows` rows of `inputs` values each: per row, its blocks stored whole
  // (values and scale), rounded up to a whole byte.
  std::uint64_t matrix_bytes(std::uint64_t rows, std::uint64_t inputs) const;
};

struct ModelConfig {
  std::string name;
  std::string source;  // citation text from the YAML
  unsigned layers = 0;
  unsigned hidden = 0;  // hidden size (d_model)
  unsigned heads = 0;   // attention (query) heads
  // GQA: key/value heads. MLA: set to heads (after up-projection every head has its own K and V).
  unsigned kv_heads = 0;
  // GQA: values per head. MLA: the query/key head width, qk_nope_head_dim + qk_rope_head_dim (the
  // value head width is mla_v_head_dim).
  unsigned head_dim = 0;
  AttentionKind attention = AttentionKind::kGqa;
  // MLA (DeepSeek-V2/V3): the KV cache holds one latent vector per token per layer of
  // kv_lora_rank + qk_rope_head_dim values (512 + 64 = 576 for DeepSeek-V3).
  unsigned mla_kv_lora_rank = 0, mla_rope_head_dim = 0, mla_q_lora_rank = 0;
  unsigned mla_qk_nope_head_dim = 0, mla_v_head_dim = 0;
  NumberFormat kv_format{"bf16", 16, 0, 0};  // the KV cache's values
  // kv_format fp8_ds_mla (MLA): kv_format is the latent's (FP8, an FP32 scale per 128 values) and
  // the RoPE key stays BF16.
  bool kv_fp8_ds_mla = false;
  // The linear layers' weights (attention, dense FFN) and the experts' (routed and shared).
  NumberFormat weight_format{"bf16", 16, 0, 0};
  NumberFormat expert_format{"bf16", 16, 0, 0};
  // Bytes per value of the token embedding, LM head, MoE router and norms (see the key list).
  unsigned unquantized_dtype_bytes = 2;
  unsigned intermediate = 0;  // dense FFN intermediate size (SwiGLU: 3 matrices; relu2: 2)
  // The FFNs (dense and experts) have a gate matrix (SwiGLU), or up and down only (relu2).
  bool ffn_gated = true;
  // Per-layer composition (block_pattern): a character a layer, M, *, - or E (a Mamba-2 mixer,
  // attention, a dense FFN, experts, each alone); empty: every layer attention and an FFN. The
  // linear-attention and MoE cycles are built from it (a cycle of `layers` entries).
  std::string blocks;
  unsigned vocab = 0;
  bool tied_embeddings = false;  // LM head shares the embedding table
  // Mixture of experts (0 experts: dense model)
  unsigned experts = 0, top_k = 0, shared_experts = 0, expert_intermediate = 0;
  unsigned dense_layers = 0;  // leading layers with a dense FFN instead of experts (DeepSeek-V3: 3)
  // Which layers from dense_layers on have experts, a cycle over the layers (true: experts;
  // empty: every one).
  std::vector<bool> moe_cycle;
  unsigned shared_intermediate = 0;  // each shared expert's FFN width
  bool shared_expert_gate = false;
  bool attention_output_gate = false;  // q_proj also gives a gate per output value
  bool qk_norm = false;                // RMSNorm per query and key head
  // DeepSeek Sparse Attention (see the key list): top_k 0 when the model has none.
  struct SparseAttention {
    unsigned top_k = 0, index_heads = 0, index_head_dim = 0;
    NumberFormat index_key_format{"fp8 with a 32-bit scale per 128", 8, 128, 32};
  } sparse;
  // Attention over a limited span of the context: a sliding window of W tokens, or chunks of W
  // (window_chunked); W in tokens (0: none), and which layers have it, a cycle over the layers
  // (true: windowed; empty with a window: every layer).
  std::uint64_t window_tokens = 0;
  bool window_chunked = false;
  std::vector<bool> window_cycle;
  // Linear attention (Gated DeltaNet, Mamba-2, Mamba-1, KDA or lightning) in a hybrid model: its
  // kind, heads and the cycle of layers that have it (true: linear; empty: every layer has full
  // attention).
  struct LinearAttention {
    enum class Kind {
      kGatedDeltaNet,
      kMamba2,
      kMamba1,
      kKda,
      kLightning
    } kind = Kind::kGatedDeltaNet;
    // The kind as the model file's `kind` key names it.
    const char* kind_name() const { return name_of(kind); }
    static const char* name_of(Kind k) {
      switch (k) {
        case Kind::kGatedDeltaNet:
          return "gated_deltanet";
        case Kind::kMamba2:
          return "mamba2";
        case Kind::kMamba1:
          return "mamba1";
        case Kind::kKda:
          return "kda";
        case Kind::kLightning:
          return "lightning";
      }
      return "";  // not reached
    }
    // Gated DeltaNet.
    unsigned key_heads = 0, value_heads = 0, key_head_dim = 0, value_head_dim = 0;
    // Mamba-2: heads of head_dim values (the mixer's inner width heads x head_dim), the SSM
    // state's size per value, the groups sharing B and C, and a bias on the convolution. KDA and
    // lightning: heads and head_dim (a head's key and value width).
    unsigned heads = 0, head_dim = 0, state_size = 0, groups = 0;
    bool conv_bias = true;
    // Mamba-1 (also state_size and conv_bias): the inner width, the rank of the step size's
    // projection, and RMSNorms on the step size, B and C (Jamba's).
    unsigned inner_size = 0, dt_rank = 0;
    bool inner_norms = false;
    unsigned conv_kernel = 0;
    NumberFormat state_format{"fp32", 32, 0, 0};
    NumberFormat conv_state_format{"bf16", 16, 0, 0};
    std::vector<bool> cycle;
  } linear;

  bool is_moe() const { return experts > 0; }
  bool has_block_pattern() const { return !blocks.empty(); }
  // What a layer has: full attention (a KV cache), and an FFN (dense or experts). Without a block
  // pattern every layer has an FFN, and full attention unless it is a linear-attention layer.
  // (With a block pattern, a layer index >= layers throws std::out_of_range.)
  bool is_attention_layer(unsigned layer) const {
    return blocks.empty() ? !is_linear_layer(layer) : blocks.at(layer) == '*';
  }
  bool has_ffn(unsigned layer) const {
    return blocks.empty() || blocks.at(layer) == '-' || blocks.at(layer) == 'E';
  }
  bool has_dense_ffn(unsigned layer) const { return has_ffn(layer) && !is_moe_layer(layer); }
  bool is_moe_layer(unsigned layer) const;
  // A layer's parts, each of one kind: what counts a layer's weights and parameters switches over
  // them (without a default, so a new kind of part is a compile error wherever it is not handled).
  enum class Mixer { kNone, kLinear, kAttention };
  enum class Ffn { kNone, kDense, kExperts };
  Mixer mixer(unsigned layer) const {
    if (is_linear_layer(layer)) return Mixer::kLinear;
    return is_attention_layer(layer) ? Mixer::kAttention : Mixer::kNone;
  }
  Ffn ffn(unsigned layer) const {
    if (is_moe_layer(layer)) return Ffn::kExperts;
    return has_ffn(layer) ? Ffn::kDense : Ffn::kNone;
  }
  // Of layers [0, n): how many have experts; and the model layer of the k-th of them (k from 0,
  // below moe_layers(layers)).
  unsigned moe_layers(unsigned n) const;
  unsigned nth_moe_layer(unsigned k) const;
  // A layer whose attention reaches back over a limited span: a sliding window or a chunk.
  bool is_windowed_layer(unsigned layer) const {
    return window_tokens > 0 && (window_cycle.empty() || window_cycle[layer % window_cycle.size()]);
  }
  bool is_sliding_layer(unsigned layer) const {
    return !window_chunked && is_windowed_layer(layer);
  }
  // Cached tokens a decode step's query attends to in `layer` when the cache holds `cached` (the
  // new token's position): all of them; with a sliding window the newest W - 1 (the new token is
  // the window's W-th); with chunks of W those of its own chunk, cached mod W.
  std::uint64_t attended_tokens(unsigned layer, std::uint64_t cached) const {
    if (!is_windowed_layer(layer)) return cached;
    return window_chunked ? cached % window_tokens : std::min(cached, window_tokens - 1);
  }
  // Of layers [0, n): how many have a limited span, and of which kind.
  unsigned windowed_layers(unsigned n) const {
    unsigned k = 0;
    for (unsigned l = 0; l < n; ++l) k += is_windowed_layer(l) ? 1 : 0;
    return k;
  }
  unsigned sliding_layers(unsigned n) const { return window_chunked ? 0 : windowed_layers(n); }
  unsigned chunked_layers(unsigned n) const { return window_chunked ? windowed_layers(n) : 0; }
  // "sliding" or "chunked": the kind of a windowed layer, for report keys.
  const char* window_kind() const { return window_chunked ? "chunked" : "sliding"; }
  bool has_linear_attention() const { return !linear.cycle.empty(); }
  bool has_sparse_attention() const { return sparse.top_k > 0; }
  // Cached tokens whose KV a decode step reads in an attention layer when the cache holds
  // `cached`: all of them, or with sparse attention at most top_k (those the indexer selects).
  std::uint64_t selected_tokens(std::uint64_t cached) const {
    return has_sparse_attention() ? std::min<std::uint64_t>(cached, sparse.top_k) : cached;
  }
  // Bytes of one token's index key in one attention layer (every GPU of a group holds it whole);
  // 0 without sparse attention.
  std::uint64_t index_key_bytes() const {
    return has_sparse_attention() ? sparse.index_key_format.matrix_bytes(1, sparse.index_head_dim)
                                  : 0;
  }
  // Whether n GPUs split the linear-attention heads as vLLM requires: Gated DeltaNet, n divides
  // key_heads; Mamba-2, n divides heads, and groups unless there is one (MambaMixer2); Mamba-1, n
  // divides the inner width (MambaMixer); KDA, n divides heads (KimiDeltaAttention).
  bool linear_heads_split(unsigned n) const;
  // When it does not: what fails, for an error message ("6 KDA heads of k do not split over 4 GPUs
  // (expected 4 to divide them)"); the generators' ConfigError and the per-GPU shares' exception
  // both say it.
  std::string linear_split_failure(unsigned n) const;
  // A linear-attention layer: no KV cache, a recurrent state per sequence.
  bool is_linear_layer(unsigned layer) const {
    return !linear.cycle.empty() && linear.cycle[layer % linear.cycle.size()];
  }
  // Of layers [0, n): how many have linear attention, and how many keep a KV cache (full
  // attention: without a block pattern, the others).
  unsigned linear_layers(unsigned n) const {
    unsigned k = 0;
    for (unsigned l = 0; l < n; ++l) k += is_linear_layer(l) ? 1 : 0;
    return k;
  }
  unsigned kv_layers(unsigned n) const {
    unsigned k = 0;
    for (unsigned l = 0; l < n; ++l) k += is_attention_layer(l) ? 1 : 0;
    return k;
  }
  // Bytes of one sequence's state in one linear-attention layer on one GPU of tp (see the key
  // list): the recurrent state, and the convolution's; throws std::invalid_argument when tp does
  // not split the heads (linear_heads_split).
  std::uint64_t recurrent_state_bytes(unsigned tp = 1) const;
  std::uint64_t conv_state_bytes(unsigned tp = 1) const;
  std::uint64_t state_bytes_per_layer(unsigned tp = 1) const {
    return recurrent_state_bytes(tp) + conv_state_bytes(tp);
  }

  // KV cache bytes one GPU of a tensor-parallel group of `tp` holds per token per layer: GQA
  // 2 (K and V) x kv_heads/tp x the bytes of head_dim values (one head when tp is a multiple of
  // kv_heads); MLA: the bytes of the latent's kv_lora_rank + rope values, the same for any tp.
  // (head_dim x kv_dtype_bytes for a whole-byte format; with block scales, whole blocks a head.)
  // (A linear-attention layer keeps none: kv_bytes_per_token_layer is a full-attention layer's.)
  std::uint64_t kv_bytes_per_token_layer(unsigned tp = 1) const;
  std::uint64_t kv_bytes_per_token(unsigned tp = 1) const;  // x the layers that keep a KV cache
  // KV vectors per token per layer: 2 for GQA (K, V), 1 for MLA (the latent).
  unsigned kv_vectors() const;
  // One of them (K, V or the latent) of one token in one layer on a GPU of tp, bytes.
  std::uint64_t kv_vector_bytes(unsigned tp = 1) const {
    return kv_bytes_per_token_layer(tp) / kv_vectors();
  }

  // Weights, bytes, for one GPU of a tensor-parallel group of tp (split as the file comment says):
  // A full-attention layer's attention (incl. MLA projections, MLA's two latent norms and the
  // per-head q/k norms); a linear-attention layer's (Gated DeltaNet's projections, convolution,
  // decay parameters and norm).
  std::uint64_t attention_weight_bytes(unsigned tp = 1) const;
  std::uint64_t linear_attention_weight_bytes(unsigned tp = 1) const;
  std::uint64_t dense_ffn_weight_bytes(unsigned tp = 1) const;  // per dense FFN
  std::uint64_t expert_weight_bytes(unsigned tp = 1) const;     // one routed expert; 0 if dense
  std::uint64_t shared_expert_weight_bytes(unsigned tp = 1) const;  // all shared experts of a layer
  // One MoE layer's router (experts x hidden) and shared-expert gates (hidden each); replicated.
  std::uint64_t router_weight_bytes() const;
  std::uint64_t lm_head_weight_bytes(unsigned tp = 1) const;  // vocab x hidden, split by vocabulary
  // A layer's weights read when it runs, excluding routed experts: its attention (full or linear)
  // + dense FFN (dense layer) or shared experts + router (MoE layer) + the layer's two RMSNorms
  // (with a block pattern: its one part and its one RMSNorm).
  std::uint64_t layer_weight_bytes(unsigned layer, unsigned tp = 1) const;

  // Parameters of the whole model (embeddings + layers incl. all experts + final norm + LM head),
  // for checking a preset against its published size.
  std::uint64_t parameters() const;
  // Bytes of the whole model's weights as stored (every layer with all its experts, the embedding
  // table, the final norm and the LM head, on one GPU), for checking a preset against its
  // checkpoint's size.
  std::uint64_t weight_bytes() const;
  // Parameters active per token (top_k routed experts instead of all); includes the embedding
  // table and the LM head.
  std::uint64_t active_parameters() const;
  // Parameters of one layer that one token multiplies (for FLOP estimates: 2 x this per token):
  // attention, norms, and the dense FFN or the router + shared experts + top_k routed experts
  // (with a block pattern, the layer's one part and its norm).
  std::uint64_t layer_active_parameters(unsigned layer) const;
};

// The keys of a model file that say how values are stored in two ways: a format, or whole bytes a
// value. parse_model takes one of each pair; next to a preset, the user's key of a pair replaces
// the preset's other one (platforms/presets.cpp), so that the merged model has one.
struct FormatKeys {
  const char* format;
  const char* bytes;
};
inline constexpr FormatKeys kWeightFormatKeys{"weight_format", "weight_dtype_bytes"};
inline constexpr FormatKeys kKvFormatKeys{"kv_format", "kv_dtype_bytes"};
inline constexpr FormatKeys kFormatKeyPairs[] = {kWeightFormatKeys, kKvFormatKeys};

// Reads a model description (the keys above); ConfigError on any bad key, value out of range or
// inconsistent combination (e.g. top_k > experts, MLA without its ranks, heads not a multiple of
// kv_heads). The error names the file, line and key path.
ModelConfig parse_model(ConfigNode node);
// Bytes per value at `key` of `n`: 1 (FP8/INT8), 2 (BF16/FP16) or 4 (FP32); `def` when absent.
unsigned get_dtype_bytes(ConfigNode& n, const std::string& key, unsigned def);

}  // namespace famsim
