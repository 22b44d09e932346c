/// One builder for every decoder-only transformer. The two module styles follow Hugging Face transformers:
/// GPT2Model (Radford et al. 2019; modeling_gpt2.py) and LlamaForCausalLM (modeling_llama.py). Element-wise work
/// after Korthikanti et al. 2023 (what each module keeps) and the op_costs.hpp conventions: rotary embeddings 3 FLOPs
/// per element of Q and K (two products and a sum), SiLU 5 (negate, exp, add, divide, multiply), ALiBi one addition
/// per attention score (BLOOM adds it inside the scores' baddbmm, so it launches no kernel of its own).
#include "models/transformer.hpp"

#include <algorithm>
#include <array>
#include <functional>

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
      layer(std::string(n_.layer) + std::to_string(i) + ".", i);
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

  void layer(const std::string& p, std::int64_t index) {
    norm(p + std::string(n_.norm_1));
    if (s_.kv_lora_rank > 0) latent_attention(p);
    else attention(p);
    residual(p, n_.out_dropout, n_.attention_residual);
    norm(p + std::string(n_.norm_2));
    if (s_.moe_layer(index)) mixture_of_experts(p);
    else mlp(p, "", s_.ffn_hidden, TensorSplit::column, TensorSplit::row);
    residual(p, n_.mlp_dropout, n_.mlp_residual);
  }

  void attention(const std::string& p) {
    const std::int64_t h = s_.hidden, q = s_.q_width(), kv = s_.kv_width();
    if (s_.modules == ModuleStyle::gpt2) {
      projection(p + std::string(n_.qkv), h, q + 2 * kv, TensorSplit::column);
    } else {
      projection(p + std::string(n_.q), h, q, TensorSplit::column);
      projection(p + std::string(n_.k), h, kv, TensorSplit::column, false);  // q's input, kept once
      projection(p + std::string(n_.v), h, kv, TensorSplit::column, false);
    }
    if (s_.position == PositionScheme::rotary)
      b_.elementwise(p + std::string(n_.rotary), t_ * (q + kv), rope_flops_per_element, 1, Keeps::nothing).split =
          TensorSplit::sharded;
    core(p, q, q, s_.kv_heads);
    projection(p + std::string(n_.out), q, h, TensorSplit::row);
  }

  /// DeepSeek-V3's attention (modeling_deepseek.py DeepseekV3Attention): q_a_proj, q_a_layernorm, q_b_proj to every
  /// head's head_dim + rope_head_dim; kv_a_proj_with_mqa to the kv_lora_rank latent and one rotary key, kv_a_layernorm,
  /// kv_b_proj to every head's head_dim key and v_head_dim value; attention; o_proj. The down projections and their
  /// norms are replicated over the tensor group (Megatron-LM's MLA), the up projections column-parallel.
  void latent_attention(const std::string& p) {
    const std::int64_t h = s_.hidden, n = s_.heads, qk = s_.head_width() + s_.rope_head_dim, v = s_.v_head_dim;
    if (s_.q_lora_rank > 0) {
      projection(p + "self_attn.q_a_proj", h, s_.q_lora_rank, TensorSplit::replicated);
      b_.rms_norm(p + "self_attn.q_a_layernorm", s_.q_lora_rank);
      projection(p + "self_attn.q_b_proj", s_.q_lora_rank, n * qk, TensorSplit::column);
    } else {
      projection(p + "self_attn.q_proj", h, n * qk, TensorSplit::column);
    }
    projection(p + "self_attn.kv_a_proj_with_mqa", h, s_.kv_lora_rank + s_.rope_head_dim, TensorSplit::replicated,
               false);
    b_.rms_norm(p + "self_attn.kv_a_layernorm", s_.kv_lora_rank);
    projection(p + "self_attn.kv_b_proj", s_.kv_lora_rank, n * (s_.head_width() + v), TensorSplit::column);
    b_.elementwise(p + std::string(n_.rotary), t_ * (n + 1) * s_.rope_head_dim, rope_flops_per_element, 1,
                   Keeps::nothing)
        .split = TensorSplit::sharded;
    core(p, n * qk, n * v, n);
    projection(p + std::string(n_.out), n * v, h, TensorSplit::row);
  }

  /// Scores over `qk` query/key features, softmax, dropout, and attention over `values` value features.
  void core(const std::string& p, std::int64_t qk, std::int64_t values, std::int64_t kv_heads) {
    Layer& scores = b_.attention_scores(p + std::string(n_.scores), qk, s_.heads);
    if (s_.position == PositionScheme::alibi) scores.forward_flops += static_cast<double>(s_.heads * t_ * t_);
    b_.attention_softmax(p + std::string(n_.softmax), s_.heads);
    if (s_.dropout) b_.attention_dropout(p + std::string(n_.attention_dropout), s_.heads);
    b_.attention_context(p + std::string(n_.context), values, s_.heads, s_.dropout, kv_heads);
  }

  /// An MLP of intermediate width `f` on `rows` token rows (0: every token) named `prefix` after the layer's mlp
  /// modules; its in- and out-projections split as `in` and `out`; `mark` applied to each module as it is made.
  void mlp(const std::string& p, const std::string& prefix, std::int64_t f, TensorSplit in, TensorSplit out,
           std::int64_t rows = 0, const std::function<void(Layer&)>& mark = [](Layer&) {}) {
    const std::int64_t h = s_.hidden, r = rows > 0 ? rows : t_;
    auto name = [&](std::string_view module) {
      std::string n(module);
      return p + (prefix.empty() ? n : prefix + n.substr(n.find('.') + 1));
    };
    auto linear = [&](std::string_view module, std::int64_t a, std::int64_t b, TensorSplit split, bool keeps = true) {
      if (rows == 0) return mark(projection(name(module), a, b, split, keeps));
      Layer& l = b_.linear(name(module), a, b, r, false, keeps);
      l.split = split;
      mark(l);
    };
    auto pointwise = [&](std::string_view module, double flops, int inputs, Keeps keeps) {
      Layer& l = b_.elementwise(name(module), r * f, flops, inputs, keeps);
      l.split = TensorSplit::sharded;
      mark(l);
    };
    if (!s_.gated) {
      linear(n_.fc, h, f, in);
      pointwise(n_.act, gelu_flops_per_element, 1, Keeps::operand);
    } else {
      if (s_.modules == ModuleStyle::gpt2) {
        linear(n_.fc, h, 2 * f, in);  // gate and up fused (Megatron's fc1)
      } else {
        linear(n_.gate, h, f, in);
        linear(n_.up, h, f, in, false);
      }
      pointwise(n_.act, silu_flops_per_element, 1, Keeps::operand);
      pointwise(n_.gate_times_up, pointwise_flops_per_element, 2, Keeps::operands);
    }
    linear(n_.down, f, h, out);
  }

  /// A mixture-of-experts MLP as Megatron-LM's MoELayer runs it (megatron/core/transformer/moe/): the router (a linear
  /// of one logit per expert, replicated over the tensor group, then softmax and top-k), the permutation of each
  /// token's top_k copies by expert (the dispatch all-to-all follows), the shared experts on every token, the routed
  /// experts as one grouped GEMM each over tokens x top_k rows (each tensor [experts, ...]), and the inverse
  /// permutation weighting and summing each token's copies (after the combine all-to-all).
  void mixture_of_experts(const std::string& p) {
    const std::int64_t h = s_.hidden, e = s_.experts, routed = t_ * s_.top_k;
    b_.linear(p + "mlp.gate", h, e, t_, false);
    b_.elementwise(p + "mlp.gate.topk", t_ * e, softmax_flops_per_element, 1, Keeps::operand);
    b_.elementwise(p + "mlp.permute", routed * h, 0, 1, Keeps::nothing).kernel = Kernel::moe_permute;
    if (s_.shared_experts > 0)
      mlp(p, "mlp.shared_experts.", s_.shared_experts * s_.expert_ffn_hidden, TensorSplit::column, TensorSplit::row);
    const double imbalance =
        s_.capacity_factor > 0 ? std::min(s_.router_imbalance, s_.capacity_factor) : s_.router_imbalance;
    mlp(p, "mlp.experts.", s_.expert_ffn_hidden, TensorSplit::column, TensorSplit::row, routed, [&](Layer& l) {
      for (Tensor& w : l.tensors) w.shape.insert(w.shape.begin(), e);
      l.experts = static_cast<int>(e);
      l.top_k = static_cast<int>(s_.top_k);
      l.expert_imbalance = imbalance;
    });
    Layer& unpermute = b_.elementwise(p + "mlp.unpermute", routed * h, 2 * pointwise_flops_per_element, 1,
                                      Keeps::nothing);
    unpermute.kernel = Kernel::moe_unpermute;
    unpermute.output_elements = t_ * h;
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
  if (s.kv_heads < s.heads && s.head_dim == 0 && s.hidden % s.heads != 0)
    return "heads = " + std::to_string(s.heads) + " does not divide hidden = " + std::to_string(s.hidden) +
           ", and kv_heads < heads needs the width of one head (hidden / heads) for the keys and values";
  if (s.heads % s.kv_heads != 0)
    return "kv_heads = " + std::to_string(s.kv_heads) + " does not divide heads = " + std::to_string(s.heads) +
           "; each key/value head serves heads / kv_heads query heads (grouped-query attention)";
  if (s.kv_lora_rank > 0 && (s.rope_head_dim < 1 || s.v_head_dim < 1 || s.head_dim < 1))
    return "kv_lora_rank = " + std::to_string(s.kv_lora_rank) +
           " (multi-head latent attention) needs head_dim, rope_head_dim and v_head_dim of at least 1";
  if (s.experts == 0) return "";
  if (s.top_k < 1 || s.top_k > s.experts)
    return "top_k = " + std::to_string(s.top_k) + " routes each token to 1 .. experts = " + std::to_string(s.experts) +
           " experts";
  if (s.expert_ffn_hidden < 1)
    return "expert_ffn_hidden = " + std::to_string(s.expert_ffn_hidden) + "; an expert's MLP width is at least 1";
  if (s.moe_every < 1) return "moe_every = " + std::to_string(s.moe_every) + "; it must be at least 1";
  if (s.router_imbalance < 1 || s.router_imbalance > static_cast<double>(s.experts))
    return "router_imbalance = " + std::to_string(s.router_imbalance) +
           "; the busiest expert holds 1 (balanced) to experts times the mean of the routed tokens";
  if (s.capacity_factor != 0 && s.capacity_factor < 1)
    return "capacity_factor = " + std::to_string(s.capacity_factor) +
           "; 0 (dropless) or at least 1 (an expert's tokens at most that times the mean)";
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
