// Mixtures of experts and multi-head latent attention as transformer shapes: each MoE zoo entry's total and active
// parameters against its published figures, FLOPs per token against 2 x the active parameters, the layers that are
// MoE, and the shape refusals.
#include <gtest/gtest.h>

#include <cmath>

#include "models/transformer.hpp"
#include "models/zoo.hpp"

namespace dtsim::models {
namespace {

double billions(std::int64_t n) { return static_cast<double>(n) / 1e9; }
double rounded(double x, double unit) { return std::round(x / unit) * unit; }

/// Parameters of the token embedding and of every norm: parameters no matrix multiply uses.
std::int64_t outside_gemms(const Model& m) {
  std::int64_t n = 0;
  for (const Layer& l : m.layers)
    if (!l.gemm) n += l.parameter_count();
  return n;
}

std::int64_t input_embedding(const Model& m) { return m.layers.front().parameter_count(); }

// Mixtral: 46.7B and 12.9B (Jiang et al. 2024, section 2). DeepSeek-V3: 671B, of which 36.6B active without the
// input embedding (its report's 37B; the model card's README_WEIGHTS.md: "Activation parameters: 36.6B (including
// 0.9B for the output Head)"). Qwen3-235B-A22B: 235B, 22B (Qwen3 report, table 2). Llama 4 Maverick: 400B, 17B;
// Scout 17B active (its 109B counts the vision encoder, so its text model is checked below in closed form).
TEST(MoeZoo, ParametersRoundToThePublishedFigures) {
  struct Published {
    const char* name;
    double total, total_unit, active, active_unit;
    bool without_input_embedding;
  };
  const Published published[] = {{"mixtral_8x7b", 46.7, 0.1, 12.9, 0.1, false},
                                 {"deepseek_v3", 671, 1, 36.6, 0.1, true},
                                 {"qwen3_235b_a22b", 235, 1, 22, 1, false},
                                 {"llama4_maverick", 400, 5, 17, 1, false},
                                 {"llama4_scout", 110, 5, 17, 1, false}};
  for (const Published& p : published) {
    const Model m = make_model(p.name);
    const double active = billions(m.active_parameter_count() - (p.without_input_embedding ? input_embedding(m) : 0));
    EXPECT_NEAR(rounded(billions(m.parameter_count()), p.total_unit), p.total, 1e-9) << p.name;
    EXPECT_NEAR(rounded(active, p.active_unit), p.active, 1e-9) << p.name << " " << active;
  }
}

// Llama 4 Scout's text model in closed form: per layer attention h (q + 2 kv) + q h, a shared and 16 routed SwiGLU
// experts of 3 h f each, a router of 16 h, two norms of h; embedding and head V h each, a final norm.
TEST(MoeZoo, ScoutCountsItsTextModelExactly) {
  const std::int64_t h = 5120, q = 5120, kv = 1024, f = 8192, e = 16, V = 202048, layers = 48;
  const std::int64_t layer = h * (q + 2 * kv) + q * h + (e + 1) * 3 * h * f + e * h + 2 * h;
  EXPECT_EQ(make_model("llama4_scout").parameter_count(), layers * layer + 2 * V * h + h);
  EXPECT_EQ(make_model("llama4_scout").active_parameter_count(),
            layers * (layer - (e - 1) * 3 * h * f) + 2 * V * h + h);
}

// Every matrix multiply but the attention products multiplies a token by each of its weights once: 2 FLOPs per
// active parameter a token passes through (the routed experts' top_k of them), the embedding and norms aside.
TEST(MoeZoo, ForwardFlopsPerTokenAreTwiceTheActiveParameters) {
  for (const char* name : {"mixtral_8x7b", "deepseek_v3", "qwen3_235b_a22b", "llama4_scout", "llama4_maverick"}) {
    const Model m = make_model(name);
    double gemm_flops = 0;
    for (const Layer& l : m.layers)
      if (l.gemm && !l.attention_core)
        gemm_flops += 2.0 * static_cast<double>(l.gemm->m * l.gemm->n * l.gemm->k * l.gemm->count);
    const double active = static_cast<double>(m.active_parameter_count() - outside_gemms(m));
    EXPECT_NEAR(gemm_flops / static_cast<double>(m.tokens), 2 * active, 1e-9 * active) << name;
  }
}

TEST(MoeZoo, DenseAndMoeLayersFollowTheShape) {
  auto moe_layers = [](const char* name) {
    int n = 0;
    for (const Layer& l : make_model(name).layers) n += l.kernel == Kernel::moe_permute;
    return n;
  };
  EXPECT_EQ(moe_layers("deepseek_v3"), 58);      // first_k_dense_replace = 3 of 61
  EXPECT_EQ(moe_layers("llama4_maverick"), 24);  // every second of 48
  EXPECT_EQ(moe_layers("mixtral_8x7b"), 32);
  for (const Layer& l : make_model("mixtral_8x7b").layers)
    if (l.experts > 0) {
      EXPECT_EQ(l.experts, 8);
      EXPECT_EQ(l.top_k, 2);
      if (!l.tensors.empty()) {
        EXPECT_EQ(l.tensors.front().shape.front(), 8) << l.name;
      }
    }
}

// DeepSeek-V3's multi-head latent attention per layer: q_a 7168 x 1536, its norm, q_b 1536 x 128 x 192, kv_a 7168 x
// 576, its norm of 512, kv_b 512 x 128 x 256, o 128 x 128 x 7168.
TEST(MoeZoo, LatentAttentionParameters) {
  const Model m = make_model("deepseek_v3");
  std::int64_t attention = 0;
  for (const Layer& l : m.layers)
    if (l.block == 0 && l.name.find("self_attn") != std::string::npos) attention += l.parameter_count();
  EXPECT_EQ(attention, 7168 * 1536 + 1536 + 1536 * 128 * 192 + 7168 * 576 + 512 + 512 * 128 * 256 + 128 * 128 * 7168);
}

TEST(MoeShape, RouterImbalanceIsCappedByTheCapacityFactor) {
  TransformerShape s = zoo_transformer("mixtral_8x7b")->shape;
  s.router_imbalance = 1.6;
  auto imbalance = [&] {
    for (const Layer& l : build_transformer("m", "test", s, 128).layers)
      if (l.experts > 0) return l.expert_imbalance;
    return 0.0;
  };
  EXPECT_DOUBLE_EQ(imbalance(), 1.6);  // dropless
  s.capacity_factor = 1.25;
  EXPECT_DOUBLE_EQ(imbalance(), 1.25);
}

TEST(MoeShape, RefusesImpossibleRouting) {
  TransformerShape s = zoo_transformer("mixtral_8x7b")->shape;
  s.top_k = 9;
  EXPECT_EQ(shape_refusal(s).rfind("top_k = 9", 0), 0u);
  s.top_k = 2;
  s.router_imbalance = 0.5;
  EXPECT_EQ(shape_refusal(s).rfind("router_imbalance", 0), 0u);
  s.router_imbalance = 1;
  s.capacity_factor = 0.5;
  EXPECT_EQ(shape_refusal(s).rfind("capacity_factor", 0), 0u);
  s.capacity_factor = 0;
  s.expert_ffn_hidden = 0;
  EXPECT_EQ(shape_refusal(s).rfind("expert_ffn_hidden", 0), 0u);
}

}  // namespace
}  // namespace dtsim::models
