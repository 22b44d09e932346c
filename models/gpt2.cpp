/// GPT-2 exactly as Hugging Face transformers GPT2Model (Radford et al., "Language Models are Unsupervised
/// Multitask Learners", 2019): token and position embeddings, pre-norm blocks, final layer norm, no LM head
/// (its weight is tied to wte, so every parameter is counted once). Configurations of gpt2 and gpt2-medium
/// (vocabulary 50257, 1024 positions); samples are 1024 tokens, the full context. Projections are HF Conv1D
/// with [in, out] weights. Attention is the eager implementation (scores and probabilities are materialised).
#include <string>

#include "models/op_costs.hpp"
#include "models/sequence_builder.hpp"
#include "models/zoo_builders.hpp"

namespace dtsim::models {
namespace {

struct Gpt2Config {
  std::int64_t hidden;
  std::int64_t layers;
  std::int64_t heads;
};

constexpr std::int64_t vocabulary = 50257;
constexpr std::int64_t context = 1024;

void block(SequenceBuilder& b, const std::string& p, const Gpt2Config& c) {
  const std::int64_t t = b.tokens();
  const std::int64_t activations = t * c.hidden;
  const std::int64_t probabilities = c.heads * t * t;
  b.layer_norm(p + "ln_1", c.hidden, false);
  b.conv1d(p + "attn.c_attn", c.hidden, 3 * c.hidden);
  b.attention_scores(p + "attn.scores", c.hidden, c.heads);
  b.elementwise(p + "attn.softmax", probabilities, softmax_flops_per_element, 1);
  b.elementwise(p + "attn.attn_dropout", probabilities, pointwise_flops_per_element, 1);
  b.attention_context(p + "attn.context", c.hidden, c.heads);
  b.conv1d(p + "attn.c_proj", c.hidden, c.hidden);
  b.elementwise(p + "attn.resid_dropout", activations, pointwise_flops_per_element, 1);
  b.elementwise(p + "attn_residual", activations, pointwise_flops_per_element, 2);
  b.layer_norm(p + "ln_2", c.hidden, false);
  b.conv1d(p + "mlp.c_fc", c.hidden, 4 * c.hidden);
  b.elementwise(p + "mlp.act", 4 * activations, gelu_flops_per_element, 1);
  b.conv1d(p + "mlp.c_proj", 4 * c.hidden, c.hidden);
  b.elementwise(p + "mlp.dropout", activations, pointwise_flops_per_element, 1);
  b.elementwise(p + "mlp_residual", activations, pointwise_flops_per_element, 2);
}

Model gpt2(const std::string& name, const std::string& reference, const Gpt2Config& c) {
  SequenceBuilder b(name, "Hugging Face GPT2Model " + reference + " (Radford et al. 2019), 1024 tokens",
                    context);
  const std::int64_t activations = b.tokens() * c.hidden;
  b.embedding("wte", vocabulary, c.hidden);
  b.embedding("wpe", context, c.hidden);
  b.elementwise("embeddings_add", activations, pointwise_flops_per_element, 2);
  b.elementwise("drop", activations, pointwise_flops_per_element, 1);
  for (std::int64_t i = 0; i < c.layers; ++i) block(b, "h." + std::to_string(i) + ".", c);
  b.layer_norm("ln_f", c.hidden, false);
  return std::move(b).finish();
}

}  // namespace

Model build_gpt2_small() { return gpt2("gpt2_small", "gpt2", {768, 12, 12}); }
Model build_gpt2_medium() { return gpt2("gpt2_medium", "gpt2-medium", {1024, 24, 16}); }

}  // namespace dtsim::models
