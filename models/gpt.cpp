/// GPT-2 and GPT-3. GPT-2 exactly as Hugging Face transformers GPT2Model (Radford et al., "Language Models are
/// Unsupervised Multitask Learners", 2019): token and position embeddings, pre-norm blocks, final layer norm, no
/// LM head (its weight is tied to wte, so every parameter is counted once). Configurations of gpt2 and
/// gpt2-medium (vocabulary 50257, 1024 positions); samples are 1024 tokens, the full context, unless
/// model.sequence_length says otherwise. Projections are HF Conv1D with [in, out] weights. Attention is the
/// eager implementation (scores and probabilities are materialised).
///
/// GPT-3 (Brown et al., "Language Models are Few-Shot Learners", NeurIPS 2020, table 2.1): GPT-2's architecture
/// (the paper's locally banded sparse layers are not modelled: every layer is dense) at the paper's sizes, context
/// 2048, vocabulary 50257, with the language-model head tied to the token embedding and the cross-entropy, as
/// Megatron-LM trains it: parameters P = 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h)) and forward FLOPs per token
/// 24 l h^2 (1 + s/(6h) + V/(12 l h)) in matrix multiplies (Narayanan et al., "Efficient Large-Scale Language
/// Model Training on GPU Clusters Using Megatron-LM", SC 2021, section 5.1), plus biases and element-wise work.
/// GPT-3 13B: the table's d_model 5140 is not n_heads x d_head = 40 x 128; 5120 is used (as Megatron-LM does).
/// Heads are the table's n_heads (XL: 24, though 24 x d_head 128 is not its d_model 2048); they set the
/// attention activations only.
#include <string>

#include "models/op_costs.hpp"
#include "models/sequence_builder.hpp"
#include "models/zoo_builders.hpp"

namespace dtsim::models {
namespace {

constexpr std::int64_t vocabulary = 50257;
constexpr std::int64_t gpt2_context = 1024;
constexpr std::int64_t gpt3_context = 2048;

void block(SequenceBuilder& b, const std::string& p, const TransformerShape& c) {
  const std::int64_t t = b.tokens();
  const std::int64_t activations = t * c.hidden;
  b.layer_norm(p + "ln_1", c.hidden, false);
  b.conv1d(p + "attn.c_attn", c.hidden, 3 * c.hidden).split = TensorSplit::column;
  b.attention_scores(p + "attn.scores", c.hidden, c.heads);
  b.attention_softmax(p + "attn.softmax", c.heads);
  b.attention_dropout(p + "attn.attn_dropout", c.heads);
  b.attention_context(p + "attn.context", c.hidden, c.heads);
  b.conv1d(p + "attn.c_proj", c.hidden, c.hidden).split = TensorSplit::row;
  b.elementwise(p + "attn.resid_dropout", activations, pointwise_flops_per_element, 1, Keeps::mask).kernel =
      Kernel::dropout;
  b.elementwise(p + "attn_residual", activations, pointwise_flops_per_element, 2, Keeps::nothing).kernel =
      Kernel::residual_add;
  b.layer_norm(p + "ln_2", c.hidden, false);
  b.conv1d(p + "mlp.c_fc", c.hidden, 4 * c.hidden).split = TensorSplit::column;
  b.elementwise(p + "mlp.act", 4 * activations, gelu_flops_per_element, 1, Keeps::operand).split = TensorSplit::sharded;
  b.conv1d(p + "mlp.c_proj", 4 * c.hidden, c.hidden).split = TensorSplit::row;
  b.elementwise(p + "mlp.dropout", activations, pointwise_flops_per_element, 1, Keeps::mask).kernel = Kernel::dropout;
  b.elementwise(p + "mlp_residual", activations, pointwise_flops_per_element, 2, Keeps::nothing).kernel =
      Kernel::residual_add;
}

/// Embeddings, blocks and the final norm of a GPT with `positions` learned positions.
void trunk(SequenceBuilder& b, const TransformerShape& c, std::int64_t positions) {
  const std::int64_t activations = b.tokens() * c.hidden;
  b.embedding("wte", vocabulary, c.hidden);
  b.embedding("wpe", positions, c.hidden).split = TensorSplit::replicated;
  b.elementwise("embeddings_add", activations, pointwise_flops_per_element, 2, Keeps::nothing);
  b.elementwise("drop", activations, pointwise_flops_per_element, 1, Keeps::mask);
  for (std::int64_t i = 0; i < c.layers; ++i) {
    b.begin_block(static_cast<int>(i));
    block(b, "h." + std::to_string(i) + ".", c);
  }
  b.end_block();
  b.layer_norm("ln_f", c.hidden, false);
}

Model gpt2(const std::string& name, const std::string& reference, const TransformerShape& c,
           std::int64_t tokens) {
  SequenceBuilder b(
      name, "Hugging Face GPT2Model " + reference + " (Radford et al. 2019), " + std::to_string(tokens) + " tokens",
      tokens);
  trunk(b, c, gpt2_context);
  Model m = std::move(b).finish();
  m.causal = true;  // a decoder: causal self-attention
  return m;
}

Model gpt3(const std::string& name, const TransformerShape& c, std::int64_t tokens) {
  SequenceBuilder b(name, "GPT-3 " + name.substr(5) + " (Brown et al. 2020, table 2.1), tied head, " +
                              std::to_string(tokens) + " tokens",
                    tokens);
  trunk(b, c, gpt3_context);
  b.tied_projection("lm_head", c.hidden, vocabulary);
  b.cross_entropy("loss", vocabulary);
  Model m = std::move(b).finish();
  m.causal = true;  // a decoder: causal self-attention
  return m;
}

}  // namespace

Model build_gpt3_125m(std::int64_t tokens) { return gpt3("gpt3_125m", {768, 12, 12}, tokens); }
Model build_gpt3_350m(std::int64_t tokens) { return gpt3("gpt3_350m", {1024, 24, 16}, tokens); }
Model build_gpt3_760m(std::int64_t tokens) { return gpt3("gpt3_760m", {1536, 24, 16}, tokens); }
Model build_gpt3_1_3b(std::int64_t tokens) { return gpt3("gpt3_1_3b", {2048, 24, 24}, tokens); }
Model build_gpt3_2_7b(std::int64_t tokens) { return gpt3("gpt3_2_7b", {2560, 32, 32}, tokens); }
Model build_gpt3_6_7b(std::int64_t tokens) { return gpt3("gpt3_6_7b", {4096, 32, 32}, tokens); }
Model build_gpt3_13b(std::int64_t tokens) { return gpt3("gpt3_13b", {5120, 40, 40}, tokens); }
Model build_gpt3_175b(std::int64_t tokens) { return gpt3("gpt3_175b", {12288, 96, 96}, tokens); }

Model build_gpt2_small(std::int64_t tokens) { return gpt2("gpt2_small", "gpt2", {768, 12, 12}, tokens); }
Model build_gpt2_medium(std::int64_t tokens) {
  return gpt2("gpt2_medium", "gpt2-medium", {1024, 24, 16}, tokens);
}

}  // namespace dtsim::models
