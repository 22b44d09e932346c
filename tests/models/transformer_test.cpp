// Decoder transformers as data: every zoo entry's parameters and forward FLOPs per token against the published
// figures and closed forms, and the builder's shape fields one by one.
#include "models/transformer.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "input_error.hpp"
#include "models/zoo.hpp"

namespace dtsim::models {
namespace {

/// FLOPs of the matrix multiplies of one sample (2 per multiply-add of every GEMM).
double matmul_flops(const Model& m, bool attention = true) {
  double sum = 0;
  for (const Layer& l : m.layers)
    if (l.gemm && (attention || !l.attention_core))
      sum += 2.0 * static_cast<double>(l.gemm->m) * static_cast<double>(l.gemm->n) * static_cast<double>(l.gemm->k) *
             static_cast<double>(l.gemm->count);
  return sum;
}

double rounded(double x, double unit) { return std::round(x / unit) * unit; }

struct Published {
  const char* name;
  double billions;  // as the source prints it
  double unit;      // its last digit
};

// Narayanan et al., SC 2021, table 1 ("Number of parameters (billion)"); MT-NLG is its 529.6 row, 530B in Smith et
// al. 2022; BLOOM 176B (BigScience 2022); Llama 3.2 1.23B and 3.21B (model cards). Llama 3's names (8B, 70B, 405B)
// are not roundings; zoo_test.cpp has their exact counts.
TEST(DecoderZoo, ParametersRoundToThePublishedFigures) {
  const Published published[] = {{"megatron_1_7b", 1.7, 0.1},   {"megatron_3_6b", 3.6, 0.1},
                                 {"megatron_7_5b", 7.5, 0.1},   {"megatron_18b", 18.4, 0.1},
                                 {"megatron_39b", 39.1, 0.1},   {"megatron_76b", 76.1, 0.1},
                                 {"megatron_146b", 145.6, 0.1}, {"megatron_310b", 310.1, 0.1},
                                 {"mtnlg_530b", 529.6, 0.1},    {"mtnlg_530b", 530, 1},
                                 {"megatron_1t", 1008.0, 0.1},  {"bloom_176b", 176, 1},
                                 {"llama3_2_1b", 1.2, 0.1},     {"llama3_2_3b", 3.2, 0.1}};
  for (const Published& p : published) {
    const double billions = static_cast<double>(make_model(p.name).parameter_count()) / 1e9;
    EXPECT_NEAR(rounded(billions, p.unit), p.billions, 1e-9) << p.name << " " << billions;
  }
}

// Narayanan et al. 2021, section 5.1: a GPT layer's forward matrix multiplies take 24 s h^2 + 4 s^2 h per sample,
// the logits 2 s h V: 24 s l h^2 (1 + s/(6h) + V/(12 l h)) per sample, multiplied out so that it is exact. The
// attention products' width is the heads' a (h / a), which is h but for GPT-3 XL (24 heads of 85 features, 2040).
TEST(DecoderZoo, GptStyleModelsFollowMegatronsFlopsPerToken) {
  for (const char* name : {"gpt3_125m", "gpt3_350m", "gpt3_760m", "gpt3_1_3b", "gpt3_2_7b", "gpt3_6_7b", "gpt3_13b",
                           "gpt3_175b", "megatron_1_7b", "megatron_3_6b", "megatron_7_5b", "megatron_18b",
                           "megatron_39b", "megatron_76b", "megatron_146b", "megatron_310b", "mtnlg_530b",
                           "megatron_1t", "bloom_176b"}) {
    const TransformerShape sh = zoo_transformer(name)->shape;
    const double l = static_cast<double>(sh.layers), h = static_cast<double>(sh.hidden),
                 V = static_cast<double>(sh.vocabulary), heads = static_cast<double>(sh.heads * (sh.hidden / sh.heads));
    for (double s : {2048.0, 512.0}) {
      const Model m = make_model(name, static_cast<std::int64_t>(s));
      EXPECT_EQ(matmul_flops(m), 24 * s * l * h * h + 4 * s * s * l * heads + 2 * s * h * V) << name << " s=" << s;
    }
  }
}

// Dubey et al. 2024 ("The Llama 3 Herd of Models", section 1 and 3.2.1): Llama 3 405B was pre-trained on 15.6T tokens
// with 3.8 x 10^25 FLOPs, 6 FLOPs per parameter and token (forward 2, backward 4) without the attention's products.
TEST(DecoderZoo, Llama3405BsTrainingFlopsAreThePublishedOnes) {
  const Model m = make_model("llama3_405b");
  const double per_token = matmul_flops(m, false) / static_cast<double>(m.tokens);
  EXPECT_NEAR(rounded(3 * per_token * 15.6e12, 0.1e25), 3.8e25, 1e10);
  // Every weight but the embedding's (a lookup) and the norms' is one multiply-add per token.
  const double norms = 16384.0 * (2 * 126 + 1), embedding = 128256.0 * 16384;
  EXPECT_EQ(per_token, 2 * (static_cast<double>(m.parameter_count()) - embedding - norms));
}

// Every decoder of the zoo: 2 FLOPs per weight of its projections and head per token, plus Q K^T and P V (2 s h
// each over the heads' width), from its shape alone.
TEST(DecoderZoo, MatrixMultipliesFollowTheShape) {
  for (const std::string& name : sequence_model_names()) {
    const auto t = zoo_transformer(name);
    if (!t || t->shape.experts > 0) continue;  // BERT, an encoder; mixtures of experts: moe_shape_test.cpp
    const TransformerShape& sh = t->shape;
    const auto s = static_cast<double>(t->tokens), h = static_cast<double>(sh.hidden),
               kv = static_cast<double>(sh.kv_width()), f = static_cast<double>(sh.ffn_hidden),
               l = static_cast<double>(sh.layers), V = static_cast<double>(sh.vocabulary),
               heads = static_cast<double>(sh.heads * (sh.hidden / sh.heads));
    const double layer = 2 * s * h * (2 * h + 2 * kv + (sh.gated ? 3 : 2) * f) + 4 * s * s * heads;
    EXPECT_EQ(matmul_flops(make_model(name)), l * layer + (sh.head ? 2 * s * h * V : 0)) << name;
  }
}

TransformerShape small() {
  TransformerShape s;
  s.layers = 2;
  s.hidden = 64;
  s.heads = s.kv_heads = 4;
  s.ffn_hidden = 256;
  s.vocabulary = 1000;
  s.max_positions = 128;
  return s;
}

std::int64_t parameters(const TransformerShape& s) { return build_transformer("t", "test", s, 32).parameter_count(); }

TEST(TransformerShapes, EachFieldChangesWhatItShould) {
  const std::int64_t h = 64, f = 256, V = 1000, P = 128;
  // Llama-style Linear layers with biases, LayerNorm, learned positions, untied head.
  const std::int64_t layer = 4 * (h * h + h) + 2 * (h * f) + f + h + 4 * h;
  const TransformerShape base = small();
  EXPECT_EQ(parameters(base), V * h + P * h + 2 * layer + 2 * h + V * h);
  TransformerShape s = base;
  s.kv_heads = 1;  // multi-query: K and V of one head of 16 features
  EXPECT_EQ(parameters(s), parameters(base) - 2 * 2 * (h * h + h - (16 * h + 16)));
  s = base;
  s.tied_embeddings = true;
  EXPECT_EQ(parameters(s), parameters(base) - V * h);
  s = base;
  s.position = PositionScheme::rotary;
  EXPECT_EQ(parameters(s), parameters(base) - P * h);
  s = base;
  s.norm = NormKind::rmsnorm;
  EXPECT_EQ(parameters(s), parameters(base) - 5 * h);  // two per layer and the final one lose their bias
  s = base;
  s.bias = false;
  EXPECT_EQ(parameters(s), parameters(base) - 2 * (4 * h + f + h));
  s = base;
  s.gated = true;
  EXPECT_EQ(parameters(s), parameters(base) + 2 * (h * f + f));
  s = base;
  s.embedding_norm = true;
  EXPECT_EQ(parameters(s), parameters(base) + 2 * h);
  s = base;
  s.head = false;
  EXPECT_EQ(parameters(s), parameters(base) - V * h);
  s.modules = ModuleStyle::gpt2;  // Conv1D weights, fused Q/K/V: the same parameters
  EXPECT_EQ(parameters(s), parameters(base) - V * h);
}

TEST(TransformerShapes, AlibiAddsOneAdditionPerScoreAndDropoutItsKernels) {
  TransformerShape s = small();
  s.position = PositionScheme::rotary;
  const Model rotary = build_transformer("t", "test", s, 32);
  s.position = PositionScheme::alibi;
  const Model alibi = build_transformer("t", "test", s, 32);
  // Rotary: 3 FLOPs per element of Q and K (32 x (64 + 64)) per layer; ALiBi: one per score (4 heads x 32 x 32).
  EXPECT_EQ(alibi.forward_flops() - rotary.forward_flops(), 2 * (4.0 * 32 * 32 - 3.0 * 32 * 128));
  s.dropout = true;
  const Model dropout = build_transformer("t", "test", s, 32);
  // Dropout of the attention probabilities and of two outputs a layer, and of the embedding.
  EXPECT_EQ(dropout.layers.size(), alibi.layers.size() + 2 * 3 + 1);
  EXPECT_EQ(dropout.source, "test, 32 tokens");
}

TEST(TransformerShapes, RefusalsSayWhatIsAllowed) {
  TransformerShape s = small();
  EXPECT_EQ(shape_refusal(s), "");
  s.kv_heads = 3;
  EXPECT_EQ(shape_refusal(s), "kv_heads = 3 does not divide heads = 4; each key/value head serves heads / kv_heads "
                              "query heads (grouped-query attention)");
  s.kv_heads = 8;
  EXPECT_EQ(shape_refusal(s), "kv_heads = 8 exceeds heads = 4; key/value heads are shared by query heads");
  s = small();
  s.heads = 6;
  s.kv_heads = 2;
  EXPECT_EQ(shape_refusal(s), "heads = 6 does not divide hidden = 64, and kv_heads < heads needs the width of one "
                              "head (hidden / heads) for the keys and values");
  s = small();
  s.layers = 0;
  EXPECT_EQ(shape_refusal(s), "layers = 0; it must be at least 1");
  EXPECT_EQ(input_error([] { parse_norm_kind("batchnorm"); }), "unknown norm 'batchnorm'; known: layernorm, rmsnorm");
}

}  // namespace
}  // namespace dtsim::models
