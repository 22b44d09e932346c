/// Llama 2 (Touvron et al., "Llama 2: Open Foundation and Fine-Tuned Chat Models", 2023, table 1 and section 2.2)
/// and Llama 3 / 3.1 (Dubey et al., "The Llama 3 Herd of Models", 2024, table 3) exactly as Hugging Face
/// transformers LlamaForCausalLM holds them: token embedding, pre-norm decoder layers with RMSNorm, rotary
/// position embeddings, grouped-query attention (Ainslie et al. 2023: 8 key/value heads for Llama 2 70B and every
/// Llama 3), a SwiGLU MLP (Shazeer 2020) of the configuration's intermediate size, no biases, a final RMSNorm and
/// an untied language-model head, then the cross-entropy. Configurations from the models' config.json: Llama 2
/// vocabulary 32000, 4096 positions; Llama 3 vocabulary 128256, 8192 positions (Llama 3.1: 131072). Attention
/// is the eager implementation without dropout: its scores and probabilities are materialised, and K and V are
/// repeated to every query head (repeat_kv) before the products, as transformers' eager attention does.
#include <string>

#include "models/op_costs.hpp"
#include "models/sequence_builder.hpp"
#include "models/zoo_builders.hpp"

namespace dtsim::models {
namespace {

struct LlamaConfig {
  std::int64_t hidden;
  std::int64_t layers;
  std::int64_t heads;
  std::int64_t kv_heads;
  std::int64_t intermediate;
  std::int64_t vocabulary;
};

/// FLOPs per element of SiLU (x sigmoid(x): negate, exp, add, divide, multiply).
constexpr double silu_flops_per_element = 5;
/// FLOPs per element of a rotary embedding: two products and a sum per element.
constexpr double rope_flops_per_element = 3;

void decoder_layer(SequenceBuilder& b, const std::string& p, const LlamaConfig& c) {
  const std::int64_t t = b.tokens();
  const std::int64_t kv = c.kv_heads * (c.hidden / c.heads);
  b.rms_norm(p + "input_layernorm", c.hidden);
  b.linear(p + "self_attn.q_proj", c.hidden, c.hidden, t, false).split = TensorSplit::column;
  b.linear(p + "self_attn.k_proj", c.hidden, kv, t, false, false).split = TensorSplit::column;  // q_proj's input, kept once
  b.linear(p + "self_attn.v_proj", c.hidden, kv, t, false, false).split = TensorSplit::column;
  b.elementwise(p + "self_attn.rotary", t * (c.hidden + kv), rope_flops_per_element, 1, Keeps::nothing).split = TensorSplit::sharded;
  b.attention_scores(p + "self_attn.scores", c.hidden, c.heads);
  b.attention_softmax(p + "self_attn.softmax", c.heads);
  b.attention_context(p + "self_attn.context", c.hidden, c.heads, false);
  b.linear(p + "self_attn.o_proj", c.hidden, c.hidden, t, false).split = TensorSplit::row;
  b.elementwise(p + "attn_residual", t * c.hidden, pointwise_flops_per_element, 2, Keeps::nothing);
  b.rms_norm(p + "post_attention_layernorm", c.hidden);
  b.linear(p + "mlp.gate_proj", c.hidden, c.intermediate, t, false).split = TensorSplit::column;
  b.linear(p + "mlp.up_proj", c.hidden, c.intermediate, t, false, false).split = TensorSplit::column;
  b.elementwise(p + "mlp.act_fn", t * c.intermediate, silu_flops_per_element, 1, Keeps::operand).split = TensorSplit::sharded;
  b.elementwise(p + "mlp.gate_times_up", t * c.intermediate, pointwise_flops_per_element, 2, Keeps::operands).split = TensorSplit::sharded;
  b.linear(p + "mlp.down_proj", c.intermediate, c.hidden, t, false).split = TensorSplit::row;
  b.elementwise(p + "mlp_residual", t * c.hidden, pointwise_flops_per_element, 2, Keeps::nothing);
}

Model llama(const std::string& name, const std::string& reference, const LlamaConfig& c, std::int64_t tokens) {
  SequenceBuilder b(name, reference + ", " + std::to_string(tokens) + " tokens", tokens);
  b.embedding("model.embed_tokens", c.vocabulary, c.hidden);
  for (std::int64_t i = 0; i < c.layers; ++i) {
    b.begin_block(static_cast<int>(i));
    decoder_layer(b, "model.layers." + std::to_string(i) + ".", c);
  }
  b.end_block();
  b.rms_norm("model.norm", c.hidden);
  b.linear("lm_head", c.hidden, c.vocabulary, tokens, false).split = TensorSplit::column;
  b.cross_entropy("loss", c.vocabulary);
  Model m = std::move(b).finish();
  m.causal = true;  // a decoder: causal self-attention
  return m;
}

constexpr std::int64_t llama2_vocabulary = 32000;
constexpr std::int64_t llama3_vocabulary = 128256;

}  // namespace

Model build_llama2_7b(std::int64_t tokens) {
  return llama("llama2_7b", "Llama-2-7b-hf", {4096, 32, 32, 32, 11008, llama2_vocabulary}, tokens);
}
Model build_llama2_13b(std::int64_t tokens) {
  return llama("llama2_13b", "Llama-2-13b-hf", {5120, 40, 40, 40, 13824, llama2_vocabulary}, tokens);
}
Model build_llama2_70b(std::int64_t tokens) {
  return llama("llama2_70b", "Llama-2-70b-hf", {8192, 80, 64, 8, 28672, llama2_vocabulary}, tokens);
}
Model build_llama3_8b(std::int64_t tokens) {
  return llama("llama3_8b", "Meta-Llama-3-8B", {4096, 32, 32, 8, 14336, llama3_vocabulary}, tokens);
}
Model build_llama3_70b(std::int64_t tokens) {
  return llama("llama3_70b", "Meta-Llama-3-70B", {8192, 80, 64, 8, 28672, llama3_vocabulary}, tokens);
}
Model build_llama3_405b(std::int64_t tokens) {
  return llama("llama3_405b", "Llama-3.1-405B", {16384, 126, 128, 8, 53248, llama3_vocabulary}, tokens);
}

}  // namespace dtsim::models
