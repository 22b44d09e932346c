#pragma once
/// Decoder-only transformers as data: one shape (layers, widths, attention, MLP, vocabulary, positions, norm) and
/// one builder for every one of them, the zoo's (GPT-2, GPT-3, Megatron-LM's, BLOOM, MT-NLG, Llama) and a scenario's.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/model.hpp"

namespace dtsim::models {

/// How a token's position enters the model.
enum class PositionScheme {
  learned,  ///< a learned table of max_positions rows added to the token embedding (GPT-2, GPT-3)
  rotary,   ///< rotary embeddings of Q and K in every layer (Su et al. 2021; Llama)
  alibi,    ///< linear biases added to the attention scores (Press et al. 2022; BLOOM)
};

/// The normalisation of every layer and of the final hidden state.
enum class NormKind {
  layernorm,  ///< LayerNorm (Ba et al. 2016): weight and bias
  rmsnorm,    ///< RMSNorm (Zhang and Sennrich 2019): weight only
};

/// Whose modules the layer table follows: their names, weight layouts and projections.
enum class ModuleStyle {
  gpt2,   ///< Hugging Face GPT2Model: Conv1D weights [in, out], one fused Q/K/V projection (c_attn), as Megatron-LM
  llama,  ///< Hugging Face LlamaForCausalLM: Linear weights [out, in], separate q/k/v_proj (and gate/up_proj)
};

/// The shape of a pre-norm decoder-only transformer. Field names are the scenario keys of [model.shape] (all but
/// `head`, which only the zoo's GPT-2 backbones clear).
struct TransformerShape {
  std::int64_t layers = 0;
  std::int64_t hidden = 0;
  std::int64_t heads = 0;
  std::int64_t kv_heads = 0;    ///< key/value heads: heads (multi-head), fewer (grouped-query), 1 (multi-query)
  std::int64_t ffn_hidden = 0;  ///< the MLP's intermediate width (of each of gate and up when gated)
  bool gated = false;           ///< SwiGLU (Shazeer 2020): SiLU(x W_gate) * (x W_up); else GeLU(x W_fc)
  std::int64_t vocabulary = 0;
  bool tied_embeddings = false;  ///< the language-model head multiplies by the token embedding's weight
  PositionScheme position = PositionScheme::learned;
  std::int64_t max_positions = 0;  ///< the longest sequence (rows of a learned table)
  NormKind norm = NormKind::layernorm;
  bool bias = true;             ///< linear layers have biases (the language-model head never does)
  bool dropout = false;         ///< dropout after attention probabilities and before each residual add
  bool embedding_norm = false;  ///< a norm after the token embedding (BLOOM's word_embeddings_layernorm)
  bool head = true;             ///< a language-model head and cross-entropy (false: a backbone, as GPT2Model)
  ModuleStyle modules = ModuleStyle::llama;
  std::int64_t head_dim = 0;  ///< features per query/key/value head; 0: hidden / heads (Qwen3-MoE: 128 at 4096 / 64)
  /// Multi-head latent attention (DeepSeek-V2/V3, when kv_lora_rank > 0): the keys and values come up from a
  /// kv_lora_rank latent (plus one shared rotary key of rope_head_dim), the queries from a q_lora_rank latent (0: a
  /// full projection); each query/key head has head_dim + rope_head_dim features, each value head v_head_dim.
  std::int64_t q_lora_rank = 0;
  std::int64_t kv_lora_rank = 0;
  std::int64_t rope_head_dim = 0;
  std::int64_t v_head_dim = 0;
  /// Mixture of experts (Shazeer et al. 2017; Fedus et al., Switch Transformer, 2022): `experts` routed experts
  /// (0: dense MLPs), each token sent to its top_k, plus shared_experts every token passes through, each a (gated)
  /// MLP of expert_ffn_hidden. Layer i is an MoE layer when i >= dense_layers and (i + 1) % moe_every == 0; the
  /// others keep the dense MLP of ffn_hidden.
  std::int64_t experts = 0;
  std::int64_t top_k = 0;
  std::int64_t shared_experts = 0;
  std::int64_t expert_ffn_hidden = 0;
  std::int64_t dense_layers = 0;  ///< DeepSeek-V3's first_k_dense_replace
  std::int64_t moe_every = 1;     ///< Llama 4's interleave_moe_layer_step
  double capacity_factor = 0;     ///< an expert's tokens at most this x the mean, the rest dropped; 0: dropless
  double router_imbalance = 1;    ///< the busiest expert's routed tokens over the mean (1: perfectly balanced)
  /// Features of one query head (and key head, but for MLA's rotary part).
  std::int64_t head_width() const { return head_dim > 0 ? head_dim : hidden / heads; }
  /// The width of the queries: hidden with multi-head attention and no head_dim (GPT-3 XL's 24 heads do not divide
  /// its 2048 features, Brown et al. table 2.1), heads x head_width() otherwise.
  std::int64_t q_width() const { return head_dim > 0 ? heads * head_dim : hidden; }
  /// The width of the keys (and of the values): q_width() with multi-head attention, kv_heads heads otherwise.
  std::int64_t kv_width() const { return kv_heads == heads ? q_width() : kv_heads * head_width(); }
  /// Whether layer `layer` has a mixture of experts instead of the dense MLP.
  constexpr bool moe_layer(std::int64_t layer) const {
    return experts > 0 && layer >= dense_layers && (layer + 1) % moe_every == 0;
  }
};

/// Names of the position schemes, norms and module styles, in the order of their enums (scenario choices).
std::vector<std::string> position_scheme_names();
std::vector<std::string> norm_kind_names();
std::vector<std::string> module_style_names();
/// Parse one of those names; throw core::InputError listing the names.
PositionScheme parse_position_scheme(std::string_view name);
NormKind parse_norm_kind(std::string_view name);
ModuleStyle parse_module_style(std::string_view name);

/// Why `shape` is not a transformer (empty when it is), starting with the field it is about: a width < 1, kv_heads above heads or not dividing them,
/// heads not dividing hidden with grouped-query attention and no head_dim; with experts: top_k not in 1 .. experts, no
/// expert_ffn_hidden, moe_every < 1, router_imbalance below 1 or above experts, a capacity_factor in (0, 1).
std::string shape_refusal(const TransformerShape& shape);

/// The layer table of `shape` on samples of `tokens` tokens (1 .. max_positions), named `name`, whose source reads
/// "`reference`, <tokens> tokens". Pre-norm layers: norm, attention (eager: scores and probabilities materialised,
/// K and V repeated to every query head), residual add, norm, MLP, residual add.
Model build_transformer(std::string name, const std::string& reference, const TransformerShape& shape,
                        std::int64_t tokens);

}  // namespace dtsim::models
