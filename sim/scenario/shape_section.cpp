#include "sim/scenario/shape_section.hpp"

#include <utility>
#include <vector>

#include "models/zoo.hpp"
#include "sim/core/error.hpp"
#include "sim/scenario/key_hints.hpp"
#include "sim/scenario/keys.hpp"

namespace dtsim::scenario {
namespace {

constexpr const char* kTable = "model.shape";
constexpr const char* kShapeAllowed = "widths of at least 1, kv_heads dividing heads (and heads dividing hidden when fewer)";
constexpr const char* kMoeAllowed = "top_k in 1 .. experts, an expert_ffn_hidden, router_imbalance in 1 .. experts, "
                                    "capacity_factor 0 or at least 1; multi-head latent attention with head_dim, "
                                    "rope_head_dim and v_head_dim";

/// Whether a shape refusal about `key` is about the mixture of experts or latent attention.
bool moe_key(const std::string& key) {
  for (const char* k : {"top_k", "expert_ffn_hidden", "moe_every", "router_imbalance", "capacity_factor", "kv_lora_rank"})
    if (key == k) return true;
  return false;
}

std::int64_t width(Section& s, const char* key, std::int64_t fallback) {
  const KeySpec& spec = key_spec(kTable, key);
  return s.integer(key, fallback, spec.min, spec.max);
}

/// A fresh shape: Megatron-LM's GPT defaults (learned positions, LayerNorm, biases, GeLU MLP of 4 x hidden, tied
/// embeddings, dropout, fused Q/K/V).
models::TransformerShape megatron_defaults() {
  models::TransformerShape s;
  s.tied_embeddings = true;
  s.dropout = true;
  s.modules = models::ModuleStyle::gpt2;
  return s;
}

}  // namespace

models::Model load_shape(Section& shape, const std::string& name, std::optional<std::int64_t> tokens,
                         const std::string& name_where, const std::string& tokens_where) {
  allow_keys(shape, kTable);
  std::optional<models::ZooTransformer> zoo = models::zoo_transformer(name);
  if (!zoo) {
    std::vector<std::string> decoders;
    for (const std::string& known : models::sequence_model_names())
      if (models::zoo_transformer(known)) decoders.push_back(known);
    for (const std::string& known : models::model_names())
      if (known == name)
        throw core::InputError(name_where, "[model.shape] with model '" + name + "', which is not a decoder transformer",
                               "a zoo decoder to change (" + core::join_names(decoders) +
                                   ") or a name of your own for a new shape");
    for (const char* key : {"layers", "hidden", "heads", "vocabulary"})
      if (!shape.has(key))
        throw core::InputError(shape.where_table(),
                               "missing key 'model.shape." + std::string(key) + "' of the new transformer '" + name + "'",
                               "a new shape gives layers, hidden, heads and vocabulary (or name a zoo decoder to start "
                               "from its shape)");
    if (!tokens)
      throw core::InputError(tokens_where, "model.sequence_length is missing for the new transformer '" + name + "'",
                             "the tokens per sample, e.g. sequence_length = 4096");
  }
  models::ZooTransformer t = zoo ? *zoo : models::ZooTransformer{megatron_defaults(), 0, ""};
  t.reference = zoo ? t.reference + ", shape changed by [model.shape] in " + shape.where_table()
                    : "transformer shape in " + shape.where_table();
  models::TransformerShape& s = t.shape;
  s.layers = width(shape, "layers", s.layers);
  s.hidden = width(shape, "hidden", s.hidden);
  s.heads = width(shape, "heads", s.heads);
  s.kv_heads = width(shape, "kv_heads", s.kv_heads > 0 ? s.kv_heads : s.heads);
  s.gated = shape.boolean("gated", s.gated);
  if (s.gated && s.ffn_hidden == 0 && !shape.has("ffn_hidden"))
    throw core::InputError(shape.where_table(), "ffn_hidden is missing for a gated MLP",
                           "its intermediate width, e.g. ffn_hidden = 14336 (Llama 3 8B); 4 x hidden applies to GeLU "
                           "MLPs only");
  s.ffn_hidden = width(shape, "ffn_hidden", s.ffn_hidden > 0 ? s.ffn_hidden : 4 * s.hidden);
  s.vocabulary = width(shape, "vocabulary", s.vocabulary);
  s.tied_embeddings = shape.boolean("tied_embeddings", s.tied_embeddings);
  s.position = models::parse_position_scheme(
      shape.choice("position", std::string(models::position_scheme_names()[static_cast<std::size_t>(s.position)]),
                   models::position_scheme_names()));
  s.max_positions = width(shape, "max_positions", s.max_positions > 0 ? s.max_positions : tokens.value_or(0));
  s.norm = models::parse_norm_kind(shape.choice(
      "norm", std::string(models::norm_kind_names()[static_cast<std::size_t>(s.norm)]), models::norm_kind_names()));
  s.bias = shape.boolean("bias", s.bias);
  s.dropout = shape.boolean("dropout", s.dropout);
  s.embedding_norm = shape.boolean("embedding_norm", s.embedding_norm);
  s.modules = models::parse_module_style(
      shape.choice("modules", std::string(models::module_style_names()[static_cast<std::size_t>(s.modules)]),
                   models::module_style_names()));
  if (shape.has("head_dim")) s.head_dim = width(shape, "head_dim", 0);
  for (auto [key, field] : {std::pair{"kv_lora_rank", &models::TransformerShape::kv_lora_rank},
                            {"q_lora_rank", &models::TransformerShape::q_lora_rank},
                            {"rope_head_dim", &models::TransformerShape::rope_head_dim},
                            {"v_head_dim", &models::TransformerShape::v_head_dim},
                            {"experts", &models::TransformerShape::experts},
                            {"top_k", &models::TransformerShape::top_k},
                            {"shared_experts", &models::TransformerShape::shared_experts},
                            {"expert_ffn_hidden", &models::TransformerShape::expert_ffn_hidden},
                            {"dense_layers", &models::TransformerShape::dense_layers},
                            {"moe_every", &models::TransformerShape::moe_every}})
    s.*field = width(shape, key, s.*field);
  for (auto [key, field] : {std::pair{"capacity_factor", &models::TransformerShape::capacity_factor},
                            {"router_imbalance", &models::TransformerShape::router_imbalance}})
    if (shape.has(key)) {
      const KeySpec& spec = key_spec(kTable, key);
      s.*field = shape.number(key, static_cast<double>(spec.min), static_cast<double>(spec.max));
    }
  shape.finish();
  // A refusal starts with the key it is about ("kv_heads = 5 does not divide ...").
  if (const std::string why = models::shape_refusal(s); !why.empty())
    throw core::InputError(shape.where_key(why.substr(0, why.find(' '))), "transformer shape of model '" + name + "': " + why,
                           moe_key(why.substr(0, why.find(' '))) ? kMoeAllowed : kShapeAllowed);
  try {
    return models::build_sequence_model(name, t, tokens);
  } catch (const core::InputError& e) {
    throw e.at(tokens_where);
  }
}

}  // namespace dtsim::scenario
