/// The zoo's decoder-only transformers as data: each a published shape for models/transformer.hpp's one builder.
///
/// GPT-2 exactly as Hugging Face GPT2Model (Radford et al. 2019): configurations gpt2 and gpt2-medium, vocabulary
/// 50257, 1024 learned positions, no language-model head (its weight is wte's, so every parameter is counted once).
///
/// GPT-3 (Brown et al., "Language Models are Few-Shot Learners", NeurIPS 2020, table 2.1): GPT-2's architecture (the
/// paper's locally banded sparse layers are not modelled) at the paper's sizes, context 2048, with the head tied to
/// the token embedding and the cross-entropy, as Megatron-LM trains it. GPT-3 13B: the table's d_model 5140 is not
/// n_heads x d_head = 40 x 128; 5120 is used (as Megatron-LM does). XL has the table's 24 heads.
///
/// Megatron-LM's weak-scaling series (Narayanan et al., "Efficient Large-Scale Language Model Training on GPU
/// Clusters Using Megatron-LM", SC 2021, table 1: heads, hidden, layers; vocabulary 51200, sequence 2048): GPT
/// layers with tied embeddings. Its 529.6B row is MT-NLG 530B (Smith et al., "Using DeepSpeed and Megatron to Train
/// Megatron-Turing NLG 530B", 2022, section 3.1: 105 layers, hidden 20480, 128 heads, sequence 2048).
///
/// BLOOM-176B (BigScience, "BLOOM: A 176B-Parameter Open-Access Multilingual Language Model", 2022, table 3; the
/// model's config.json): 70 layers, hidden 14336, 112 heads, vocabulary 250880, ALiBi, a LayerNorm after the word
/// embedding, tied head, no dropout, sequence 2048.
///
/// Llama 2 (Touvron et al. 2023, table 1), Llama 3 / 3.1 (Dubey et al., "The Llama 3 Herd of Models", 2024, table
/// 3) and Llama 3.2 1B/3B (their config.json: tied embeddings) as LlamaForCausalLM: RMSNorm, rotary positions,
/// grouped-query attention (8 key/value heads for Llama 2 70B and every Llama 3), a SwiGLU MLP, no biases, no
/// dropout. Vocabulary 32000 (Llama 2) or 128256 (Llama 3); 4096, 8192 (Llama 3) or 131072 (3.1, 3.2) positions.
///
/// Mixtures of experts, Llama-style layers with the MLP replaced by routed experts (transformer.hpp):
/// - Mixtral 8x7B (Jiang et al., "Mixtral of Experts", 2024, table 1; mistralai/Mixtral-8x7B-v0.1 config.json): 32
///   layers, hidden 4096, 32 heads, 8 key/value heads, 8 experts of SwiGLU 14336, top-2, vocabulary 32000, 32768
///   positions: 46.7B parameters, 12.9B active.
/// - DeepSeek-V3 (DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv 2412.19437, section 4.2; deepseek-ai/DeepSeek-V3
///   config.json): 61 layers, hidden 7168, multi-head latent attention with 128 heads (q_lora_rank 1536, kv_lora_rank
///   512, qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128), the first 3 layers dense (SwiGLU 18432), the
///   others 256 routed experts top-8 plus 1 shared expert of 2048, vocabulary 129280, untied: 671B parameters, 37B
///   active (the multi-token prediction module's 14B are not part of the 671B and not modelled; nor are the router's
///   256 correction biases per layer).
/// - Qwen3-235B-A22B (Qwen Team, "Qwen3 Technical Report", arXiv 2505.09388, table 2; Qwen/Qwen3-235B-A22B
///   config.json): 94 layers, hidden 4096, 64 query heads of head_dim 128, 4 key/value heads, 128 experts of 1536,
///   top-8, no shared expert, vocabulary 151936, untied: 235B, 22B active (its per-head q/k RMSNorm weights, 256 a
///   layer, are left out).
/// - Llama 4 Scout 17B-16E and Maverick 17B-128E (Meta, "The Llama 4 herd", 2025; meta-llama/Llama-4-Scout-17B-16E
///   and Llama-4-Maverick-17B-128E config.json, text_config): 48 layers, hidden 5120, 40 heads, 8 key/value heads, a
///   shared expert and 16 (Scout, every layer) or 128 (Maverick, every second layer: interleave_moe_layer_step 2)
///   routed experts of 8192, top-1, dense layers of 16384, vocabulary 202048: Scout 109B (of which about 1B is the
///   vision encoder, not modelled) and Maverick 400B, each 17B active.
#include <array>

#include "models/zoo_builders.hpp"

namespace dtsim::models {
namespace {

/// GPT-2's layers at `layers` x `hidden` with `heads` heads and a learned table of `positions`.
constexpr TransformerShape gpt(std::int64_t layers, std::int64_t hidden, std::int64_t heads, std::int64_t vocabulary,
                               std::int64_t positions) {
  TransformerShape s;
  s.layers = layers;
  s.hidden = hidden;
  s.heads = s.kv_heads = heads;
  s.ffn_hidden = 4 * hidden;
  s.vocabulary = vocabulary;
  s.tied_embeddings = true;
  s.max_positions = positions;
  s.dropout = true;
  s.modules = ModuleStyle::gpt2;
  return s;
}

constexpr TransformerShape gpt2(std::int64_t layers, std::int64_t hidden, std::int64_t heads) {
  TransformerShape s = gpt(layers, hidden, heads, 50257, 1024);
  s.head = false;
  return s;
}

constexpr TransformerShape gpt3(std::int64_t layers, std::int64_t hidden, std::int64_t heads) {
  return gpt(layers, hidden, heads, 50257, 2048);
}

constexpr TransformerShape megatron(std::int64_t layers, std::int64_t hidden, std::int64_t heads) {
  return gpt(layers, hidden, heads, 51200, 2048);
}

constexpr TransformerShape bloom_176b() {
  TransformerShape s = gpt(70, 14336, 112, 250880, 2048);
  s.position = PositionScheme::alibi;
  s.dropout = false;
  s.embedding_norm = true;
  return s;
}

constexpr TransformerShape llama(std::int64_t layers, std::int64_t hidden, std::int64_t heads, std::int64_t kv_heads,
                                 std::int64_t ffn, std::int64_t vocabulary, std::int64_t positions,
                                 bool tied = false) {
  TransformerShape s;
  s.layers = layers;
  s.hidden = hidden;
  s.heads = heads;
  s.kv_heads = kv_heads;
  s.ffn_hidden = ffn;
  s.gated = true;
  s.vocabulary = vocabulary;
  s.tied_embeddings = tied;
  s.position = PositionScheme::rotary;
  s.max_positions = positions;
  s.norm = NormKind::rmsnorm;
  s.bias = false;
  s.modules = ModuleStyle::llama;
  return s;
}

/// Llama layers whose MLPs are mixtures of `experts` routed experts (top `top_k`) and `shared` shared experts of
/// `expert_ffn` each.
constexpr TransformerShape moe(TransformerShape s, std::int64_t experts, std::int64_t top_k, std::int64_t shared,
                               std::int64_t expert_ffn) {
  s.experts = experts;
  s.top_k = top_k;
  s.shared_experts = shared;
  s.expert_ffn_hidden = expert_ffn;
  return s;
}

constexpr TransformerShape mixtral_8x7b() { return moe(llama(32, 4096, 32, 8, 14336, 32000, 32768), 8, 2, 0, 14336); }

constexpr TransformerShape deepseek_v3() {
  TransformerShape s = moe(llama(61, 7168, 128, 128, 18432, 129280, 163840), 256, 8, 1, 2048);
  s.head_dim = 128;
  s.q_lora_rank = 1536;
  s.kv_lora_rank = 512;
  s.rope_head_dim = 64;
  s.v_head_dim = 128;
  s.dense_layers = 3;
  return s;
}

constexpr TransformerShape qwen3_235b_a22b() {
  TransformerShape s = moe(llama(94, 4096, 64, 4, 12288, 151936, 40960), 128, 8, 0, 1536);
  s.head_dim = 128;
  return s;
}

constexpr TransformerShape llama4(std::int64_t experts, std::int64_t every, std::int64_t positions) {
  TransformerShape s = moe(llama(48, 5120, 40, 8, 16384, 202048, positions), experts, 1, 1, 8192);
  s.moe_every = every;
  return s;
}

constexpr std::int64_t llama2_vocabulary = 32000;
constexpr std::int64_t llama3_vocabulary = 128256;

// The registry: the key is the name scenario files use.
constexpr std::array kDecoders = {
    DecoderEntry{"gpt2_small", "Hugging Face GPT2Model gpt2 (Radford et al. 2019)", gpt2(12, 768, 12), 1024},
    DecoderEntry{"gpt2_medium", "Hugging Face GPT2Model gpt2-medium (Radford et al. 2019)", gpt2(24, 1024, 16), 1024},
    DecoderEntry{"gpt3_125m", "GPT-3 125m (Brown et al. 2020, table 2.1), tied head", gpt3(12, 768, 12), 2048, "fused"},
    DecoderEntry{"gpt3_350m", "GPT-3 350m (Brown et al. 2020, table 2.1), tied head", gpt3(24, 1024, 16), 2048, "fused"},
    DecoderEntry{"gpt3_760m", "GPT-3 760m (Brown et al. 2020, table 2.1), tied head", gpt3(24, 1536, 16), 2048, "fused"},
    DecoderEntry{"gpt3_1_3b", "GPT-3 1_3b (Brown et al. 2020, table 2.1), tied head", gpt3(24, 2048, 24), 2048, "fused"},
    DecoderEntry{"gpt3_2_7b", "GPT-3 2_7b (Brown et al. 2020, table 2.1), tied head", gpt3(32, 2560, 32), 2048, "fused"},
    DecoderEntry{"gpt3_6_7b", "GPT-3 6_7b (Brown et al. 2020, table 2.1), tied head", gpt3(32, 4096, 32), 2048, "fused"},
    DecoderEntry{"gpt3_13b", "GPT-3 13b (Brown et al. 2020, table 2.1), tied head", gpt3(40, 5120, 40), 2048, "fused"},
    DecoderEntry{"gpt3_175b", "GPT-3 175b (Brown et al. 2020, table 2.1), tied head", gpt3(96, 12288, 96), 2048, "fused"},
    DecoderEntry{"llama2_7b", "Llama-2-7b-hf", llama(32, 4096, 32, 32, 11008, llama2_vocabulary, 4096), 4096},
    DecoderEntry{"llama2_13b", "Llama-2-13b-hf", llama(40, 5120, 40, 40, 13824, llama2_vocabulary, 4096), 4096},
    DecoderEntry{"llama2_70b", "Llama-2-70b-hf", llama(80, 8192, 64, 8, 28672, llama2_vocabulary, 4096), 4096},
    DecoderEntry{"llama3_8b", "Meta-Llama-3-8B", llama(32, 4096, 32, 8, 14336, llama3_vocabulary, 8192), 8192},
    DecoderEntry{"llama3_70b", "Meta-Llama-3-70B", llama(80, 8192, 64, 8, 28672, llama3_vocabulary, 8192), 8192},
    DecoderEntry{"llama3_405b", "Llama-3.1-405B", llama(126, 16384, 128, 8, 53248, llama3_vocabulary, 131072), 8192},
    DecoderEntry{"llama3_2_1b", "Llama-3.2-1B", llama(16, 2048, 32, 8, 8192, llama3_vocabulary, 131072, true), 8192},
    DecoderEntry{"llama3_2_3b", "Llama-3.2-3B", llama(28, 3072, 24, 8, 8192, llama3_vocabulary, 131072, true), 8192},
    DecoderEntry{"megatron_1_7b", "Megatron-LM 1.7B (Narayanan et al. 2021, table 1)", megatron(24, 2304, 24), 2048,
                 "fused"},
    DecoderEntry{"megatron_3_6b", "Megatron-LM 3.6B (Narayanan et al. 2021, table 1)", megatron(30, 3072, 32), 2048,
                 "fused"},
    DecoderEntry{"megatron_7_5b", "Megatron-LM 7.5B (Narayanan et al. 2021, table 1)", megatron(36, 4096, 32), 2048,
                 "fused"},
    DecoderEntry{"megatron_18b", "Megatron-LM 18.4B (Narayanan et al. 2021, table 1)", megatron(40, 6144, 48), 2048,
                 "fused"},
    DecoderEntry{"megatron_39b", "Megatron-LM 39.1B (Narayanan et al. 2021, table 1)", megatron(48, 8192, 64), 2048,
                 "fused"},
    DecoderEntry{"megatron_76b", "Megatron-LM 76.1B (Narayanan et al. 2021, table 1)", megatron(60, 10240, 80), 2048,
                 "fused"},
    DecoderEntry{"megatron_146b", "Megatron-LM 145.6B (Narayanan et al. 2021, table 1)", megatron(80, 12288, 96), 2048,
                 "fused"},
    DecoderEntry{"megatron_310b", "Megatron-LM 310.1B (Narayanan et al. 2021, table 1)", megatron(96, 16384, 128),
                 2048, "fused"},
    DecoderEntry{"mtnlg_530b", "MT-NLG 530B (Smith et al. 2022; Narayanan et al. 2021, table 1)",
                 megatron(105, 20480, 128), 2048, "fused"},
    DecoderEntry{"megatron_1t", "Megatron-LM 1T (Narayanan et al. 2021, table 1)", megatron(128, 25600, 160), 2048,
                 "fused"},
    DecoderEntry{"bloom_176b", "BLOOM-176B (BigScience 2022)", bloom_176b(), 2048, "fused"},
    DecoderEntry{"mixtral_8x7b", "Mixtral-8x7B-v0.1 (Jiang et al. 2024)", mixtral_8x7b(), 4096},
    DecoderEntry{"deepseek_v3", "DeepSeek-V3 (arXiv 2412.19437)", deepseek_v3(), 4096},
    DecoderEntry{"qwen3_235b_a22b", "Qwen3-235B-A22B (arXiv 2505.09388)", qwen3_235b_a22b(), 4096},
    DecoderEntry{"llama4_scout", "Llama-4-Scout-17B-16E", llama4(16, 1, 10485760), 8192},
    DecoderEntry{"llama4_maverick", "Llama-4-Maverick-17B-128E", llama4(128, 2, 1048576), 8192},
};

}  // namespace

std::span<const DecoderEntry> decoder_zoo() { return kDecoders; }

}  // namespace dtsim::models
