/// One builder for every decoder-only transformer. The two module styles follow Hugging Face transformers:
/// GPT2Model (Radford et al. 2019; modeling_gpt2.py) and LlamaForCausalLM (modeling_llama.py). Element-wise work
/// after Korthikanti et al. 2023 (what each module keeps) and the op_costs.hpp conventions: rotary embeddings 3 FLOPs
/// per element of Q and K (two products and a sum), SiLU 5 (negate, exp, add, divide, multiply), ALiBi one addition
/// per attention score (BLOOM adds it inside the scores' baddbmm, so it launches no kernel of its own).
#include "models/transformer.hpp"

#include <array>

#include "models/op_costs.hpp"
#include "models/sequence_builder.hpp"
#include "sim/core/error.hpp"

namespace dtsim::models {
namespace {

constexpr std::array<std::string_view, 3> kPositions{"learned", "rotary", "alibi"};
constexpr std::array<std::string_view, 2> kNorms{"layernorm", "rmsnorm"};
constexpr std::array<std::string_view, 2> kStyles{"gpt2", "llama"};

/// FLOPs per element of SiLU (x sigmoid(x): negate, exp, add, divide, multiply).
constexpr double silu_flops_per_element = 5;
/// FLOPs per element of a rotary embedding: two products and a sum per element.
constexpr double rope_flops_per_element = 3;

/// The modules' names in one style; a layer's are prefixed with `layer` and its index.
struct ModuleNames {
  std::string_view embedding, positions, embedding_norm, embedding_add, embedding_dropout, layer;
  std::string_view norm_1, qkv, q, k, v, rotary, scores, softmax, attention_dropout, context, out;
  std::string_view out_dropout, attention_residual, norm_2, fc, gate, up, act, gate_times_up, down;
  std::string_view mlp_dropout, mlp_residual, final_norm;
};

constexpr ModuleNames kGpt2{"wte", "wpe", "ln_emb", "embeddings_add", "drop", "h.",
                            "ln_1", "attn.c_attn", "", "", "", "attn.rotary", "attn.scores", "attn.softmax",
                            "attn.attn_dropout", "attn.context", "attn.c_proj", "attn.resid_dropout", "attn_residual",
                            "ln_2", "mlp.c_fc", "", "", "mlp.act", "mlp.gate_times_up", "mlp.c_proj", "mlp.dropout",
                            "mlp_residual", "ln_f"};
constexpr ModuleNames kLlama{"model.embed_tokens", "model.embed_positions", "model.embed_norm", "model.embed_add",
                             "model.embed_dropout", "model.layers.", "input_layernorm", "", "self_attn.q_proj",
                             "self_attn.k_proj", "self_attn.v_proj", "self_attn.rotary", "self_attn.scores",
                             "self_attn.softmax", "self_attn.attn_dropout", "self_attn.context", "self_attn.o_proj",
                             "self_attn.resid_dropout", "attn_residual", "post_attention_layernorm", "mlp.up_proj",
                             "mlp.gate_proj", "mlp.up_proj", "mlp.act_fn", "mlp.gate_times_up", "mlp.down_proj",
                             "mlp.dropout", "mlp_residual", "model.norm"};

template <typename Enum, std::size_t N>
Enum parse(const std::array<std::string_view, N>& names, std::string_view what, std::string_view name) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<Enum>(i);
  throw core::unknown_name(what, name, {names.begin(), names.end()});
}

class Builder {
 public:
  Builder(SequenceBuilder& b, const TransformerShape& s)
      : b_(b), s_(s), n_(s.modules == ModuleStyle::gpt2 ? kGpt2 : kLlama), t_(b.tokens()) {}

  void build() {
    b_.embedding(std::string(n_.embedding), s_.vocabulary, s_.hidden);
    if (s_.embedding_norm) norm(std::string(n_.embedding_norm));
    if (s_.position == PositionScheme::learned) {
      b_.embedding(std::string(n_.positions), s_.max_positions, s_.hidden).split = TensorSplit::replicated;
      b_.elementwise(std::string(n_.embedding_add), t_ * s_.hidden, pointwise_flops_per_element, 2, Keeps::nothing);
    }
    if (s_.dropout)
      b_.elementwise(std::string(n_.embedding_dropout), t_ * s_.hidden, pointwise_flops_per_element, 1, Keeps::mask);
    for (std::int64_t i = 0; i < s_.layers; ++i) {
      b_.begin_block(static_cast<int>(i));
      layer(std::string(n_.layer) + std::to_string(i) + ".");
    }
    b_.end_block();
    norm(std::string(n_.final_norm));
    if (!s_.head) return;
    if (s_.tied_embeddings) b_.tied_projection("lm_head", s_.hidden, s_.vocabulary);
    else b_.linear("lm_head", s_.hidden, s_.vocabulary, t_, false).split = TensorSplit::column;
    b_.cross_entropy("loss", s_.vocabulary);
  }

 private:
  void norm(const std::string& name) {
    if (s_.norm == NormKind::rmsnorm) b_.rms_norm(name, s_.hidden);
    else b_.layer_norm(name, s_.hidden, false);
  }

  /// A projection on every token: Conv1D in the GPT-2 style, Linear in the Llama style.
  Layer& projection(const std::string& name, std::int64_t in, std::int64_t out, TensorSplit split,
                    bool keeps_input = true) {
    Layer& l = s_.modules == ModuleStyle::gpt2 ? b_.conv1d(name, in, out, s_.bias)
                                               : b_.linear(name, in, out, t_, s_.bias, keeps_input);
    l.split = split;
    return l;
  }

  /// Dropout (when the shape has it) and the residual add after a projection: Megatron-LM's bias-dropout-add.
  void residual(const std::string& p, std::string_view dropout, std::string_view add) {
    const std::int64_t n = t_ * s_.hidden;
    if (s_.dropout)
      b_.elementwise(p + std::string(dropout), n, pointwise_flops_per_element, 1, Keeps::mask).kernel = Kernel::dropout;
    b_.elementwise(p + std::string(add), n, pointwise_flops_per_element, 2, Keeps::nothing).kernel =
        s_.dropout ? Kernel::residual_add : Kernel::other;
  }

  void layer(const std::string& p) {
    const std::int64_t h = s_.hidden, kv = s_.kv_width(), f = s_.ffn_hidden;
    norm(p + std::string(n_.norm_1));
    if (s_.modules == ModuleStyle::gpt2) {
      projection(p + std::string(n_.qkv), h, h + 2 * kv, TensorSplit::column);
    } else {
      projection(p + std::string(n_.q), h, h, TensorSplit::column);
      projection(p + std::string(n_.k), h, kv, TensorSplit::column, false);  // q's input, kept once
      projection(p + std::string(n_.v), h, kv, TensorSplit::column, false);
    }
    if (s_.position == PositionScheme::rotary)
      b_.elementwise(p + std::string(n_.rotary), t_ * (h + kv), rope_flops_per_element, 1, Keeps::nothing).split =
          TensorSplit::sharded;
    Layer& scores = b_.attention_scores(p + std::string(n_.scores), h, s_.heads);
    if (s_.position == PositionScheme::alibi) scores.forward_flops += static_cast<double>(s_.heads * t_ * t_);
    b_.attention_softmax(p + std::string(n_.softmax), s_.heads);
    if (s_.dropout) b_.attention_dropout(p + std::string(n_.attention_dropout), s_.heads);
    b_.attention_context(p + std::string(n_.context), h, s_.heads, s_.dropout, s_.kv_heads);
    projection(p + std::string(n_.out), h, h, TensorSplit::row);
    residual(p, n_.out_dropout, n_.attention_residual);
    norm(p + std::string(n_.norm_2));
    if (!s_.gated) {
      projection(p + std::string(n_.fc), h, f, TensorSplit::column);
      b_.elementwise(p + std::string(n_.act), t_ * f, gelu_flops_per_element, 1, Keeps::operand).split =
          TensorSplit::sharded;
    } else {
      if (s_.modules == ModuleStyle::gpt2) {
        projection(p + std::string(n_.fc), h, 2 * f, TensorSplit::column);  // gate and up fused (Megatron's fc1)
      } else {
        projection(p + std::string(n_.gate), h, f, TensorSplit::column);
        projection(p + std::string(n_.up), h, f, TensorSplit::column, false);
      }
      b_.elementwise(p + std::string(n_.act), t_ * f, silu_flops_per_element, 1, Keeps::operand).split =
          TensorSplit::sharded;
      b_.elementwise(p + std::string(n_.gate_times_up), t_ * f, pointwise_flops_per_element, 2, Keeps::operands)
          .split = TensorSplit::sharded;
    }
    projection(p + std::string(n_.down), f, h, TensorSplit::row);
    residual(p, n_.mlp_dropout, n_.mlp_residual);
  }

  SequenceBuilder& b_;
  const TransformerShape& s_;
  const ModuleNames& n_;
  std::int64_t t_;
};

}  // namespace

std::vector<std::string> position_scheme_names() { return {kPositions.begin(), kPositions.end()}; }
std::vector<std::string> norm_kind_names() { return {kNorms.begin(), kNorms.end()}; }
std::vector<std::string> module_style_names() { return {kStyles.begin(), kStyles.end()}; }

PositionScheme parse_position_scheme(std::string_view name) {
  return parse<PositionScheme>(kPositions, "position scheme", name);
}
NormKind parse_norm_kind(std::string_view name) { return parse<NormKind>(kNorms, "norm", name); }
ModuleStyle parse_module_style(std::string_view name) { return parse<ModuleStyle>(kStyles, "module style", name); }

std::string shape_refusal(const TransformerShape& s) {
  const std::pair<const char*, std::int64_t> widths[] = {{"layers", s.layers},       {"hidden", s.hidden},
                                                         {"heads", s.heads},         {"kv_heads", s.kv_heads},
                                                         {"ffn_hidden", s.ffn_hidden}, {"vocabulary", s.vocabulary},
                                                         {"max_positions", s.max_positions}};
  for (const auto& [key, value] : widths)
    if (value < 1) return std::string(key) + " = " + std::to_string(value) + "; it must be at least 1";
  if (s.kv_heads > s.heads)
    return "kv_heads = " + std::to_string(s.kv_heads) + " exceeds heads = " + std::to_string(s.heads) +
           "; key/value heads are shared by query heads";
  if (s.kv_heads < s.heads && s.hidden % s.heads != 0)
    return "heads = " + std::to_string(s.heads) + " does not divide hidden = " + std::to_string(s.hidden) +
           ", and kv_heads < heads needs the width of one head (hidden / heads) for the keys and values";
  if (s.heads % s.kv_heads != 0)
    return "kv_heads = " + std::to_string(s.kv_heads) + " does not divide heads = " + std::to_string(s.heads) +
           "; each key/value head serves heads / kv_heads query heads (grouped-query attention)";
  return "";
}

Model build_transformer(std::string name, const std::string& reference, const TransformerShape& shape,
                        std::int64_t tokens) {
  const std::string why = shape_refusal(shape);
  DTSIM_CHECK(why.empty(), "build_transformer on a refused shape");
  SequenceBuilder b(std::move(name), reference + ", " + std::to_string(tokens) + " tokens", tokens);
  Builder(b, shape).build();
  Model m = std::move(b).finish();
  m.causal = true;  // a decoder: causal self-attention
  return m;
}

}  // namespace dtsim::models
