// The memory model against closed forms: model states per parameter (ZeRO's accounting) and transformer
// activations (Korthikanti et al. 2022, equation 1), exactly.
#include <gtest/gtest.h>

#include "models/zoo.hpp"
#include "sim/core/error.hpp"
#include "sim/memory/activations.hpp"
#include "sim/memory/memory_breakdown.hpp"
#include "sim/memory/model_states.hpp"

namespace dtsim::memory {
namespace {

using models::Precision;

TEST(ModelStates, Fp32HoldsFourBytesOfWeightAndGradientAndTheOptimizersState) {
  const ModelStates sgd = model_states(1000, Precision::fp32, Precision::fp32, models::optimizer("sgd"));
  EXPECT_EQ(sgd.weights_bytes, 4000);
  EXPECT_EQ(sgd.gradients_bytes, 4000);
  EXPECT_EQ(sgd.optimizer_bytes, 0);
  EXPECT_EQ(model_states(1000, Precision::tf32, Precision::fp32, models::optimizer("momentum")).optimizer_bytes, 4000);
  EXPECT_EQ(model_states(1000, Precision::fp32, Precision::fp32, models::optimizer("adamw")).optimizer_bytes, 8000);
}

TEST(ModelStates, MixedPrecisionAdamIsSixteenBytesPerParameterAsInZero) {
  // ZeRO section 3.1: 2 (fp16 weights) + 2 (fp16 gradients) + K = 12 (fp32 weights, momentum, variance).
  for (Precision p : {Precision::fp16, Precision::bf16}) {
    const ModelStates s = model_states(1'500'000'000, p, p, models::optimizer("adam"));
    EXPECT_EQ(s.weights_bytes, 3e9);
    EXPECT_EQ(s.gradients_bytes, 3e9);
    EXPECT_EQ(s.optimizer_bytes, 18e9);
    EXPECT_EQ(s.weights_bytes + s.gradients_bytes + s.optimizer_bytes, 24e9);  // "at least 24 GB" (ZeRO 3.1)
  }
  EXPECT_EQ(model_states(10, Precision::fp16, Precision::fp16, models::optimizer("sgd")).optimizer_bytes, 40);  // the master copy
}

TEST(ModelStates, Fp8KeepsBf16WeightsFp32MastersAndTransformerEnginesFp8Copies) {
  // Megatron-LM with Transformer Engine's fp8: bf16 parameters (2), fp32 gradients (4), fp32 master weights and
  // Adam's two moments (12), and per Linear-layer weight its fp8 copy and transpose (2; MXFP8 2 x 33/32): 18 bytes a
  // parameter, 20 (20.0625) for the Linear layers' weights.
  const models::Optimizer& adam = models::optimizer("adam");
  const ModelStates delayed = model_states(1000, Precision::fp8, Precision::fp32, adam, 800, models::Fp8Recipe::delayed);
  EXPECT_EQ(delayed.weights_bytes + delayed.gradients_bytes + delayed.optimizer_bytes, 18 * 1000);
  EXPECT_EQ(delayed.fp8_weight_bytes, 2 * 800);
  const ModelStates mx = model_states(1000, Precision::fp8, Precision::fp32, adam, 1000, models::Fp8Recipe::mxfp8);
  EXPECT_EQ(mx.weights_bytes + mx.gradients_bytes + mx.optimizer_bytes + mx.fp8_weight_bytes, 20.0625 * 1000);
  // bf16 gradients (data parallelism without tensor or pipeline splits): 2 bytes less.
  EXPECT_EQ(model_states(1000, Precision::fp8, Precision::bf16, adam, 1000).gradients_bytes, 2000);
  EXPECT_EQ(model_states(1000, Precision::bf16, Precision::fp32, adam, 1000).fp8_weight_bytes, 0);  // fp8 only
}

TEST(ModelStates, GradientsTakeTheirOwnDtypeAsMegatronLmCountsThem) {
  // Megatron-LM docs/distrib_optimizer.md: "bf16 param, fp32 grads" 18 bytes a parameter with Adam; "fp32 param,
  // fp32 grads" 16. The weights and the optimizer state do not depend on the gradients' dtype.
  const ModelStates bf16 = model_states(1000, Precision::bf16, Precision::fp32, models::optimizer("adam"));
  EXPECT_EQ(bf16.gradients_bytes, 4000);
  EXPECT_EQ(bf16.weights_bytes + bf16.gradients_bytes + bf16.optimizer_bytes, 18000);
  const ModelStates fp32 = model_states(1000, Precision::fp32, Precision::fp32, models::optimizer("adam"));
  EXPECT_EQ(fp32.weights_bytes + fp32.gradients_bytes + fp32.optimizer_bytes, 16000);
  // fp32 training whose gradients are kept in bf16 (FSDP's reduce_dtype with fp32 parameters).
  const ModelStates mixed = model_states(1000, Precision::fp32, Precision::bf16, models::optimizer("adam"));
  EXPECT_EQ(mixed.gradients_bytes, 2000);
  EXPECT_EQ(mixed.weights_bytes, fp32.weights_bytes);
  EXPECT_EQ(mixed.optimizer_bytes, fp32.optimizer_bytes);
}

// Activations of one sample outside the transformer layers of a GPT-2: the embedding dropout's mask (s h bytes)
// and the final layer norm's input (s h elements).
double gpt2_outside_layers(double s, double h, double element) { return s * h + element * s * h; }

struct Gpt2Shape {
  const char* name;
  double layers, hidden, heads;
};

constexpr Gpt2Shape gpt2_medium{"gpt2_medium", 24, 1024, 16};
constexpr Gpt2Shape gpt2_small{"gpt2_small", 12, 768, 12};

TEST(Activations, Gpt2LayerKeepsKorthikantisThirtyFourSbhPlusFiveAsSquaredBInSixteenBit) {
  for (const Gpt2Shape& g : {gpt2_small, gpt2_medium}) {
    for (double s : {128.0, 1024.0}) {
      const double b = 4, h = g.hidden, a = g.heads;
      const models::Model m = models::make_model(g.name, static_cast<std::int64_t>(s));
      const double per_layer = s * b * h * (34 + 5 * a * s / h);  // equation 1
      EXPECT_EQ(activation_bytes(m, 4, Precision::fp16, Recomputation::none),
                g.layers * per_layer + b * gpt2_outside_layers(s, h, 2))
          << g.name << " s=" << s;
    }
  }
}

TEST(Activations, Fp32DoublesEverythingButTheOneByteMasks) {
  const double s = 1024, b = 2, h = 1024, a = 16;
  const models::Model m = models::make_model("gpt2_medium");
  // Of 34 s b h + 5 a s^2 b bytes, the masks are 2 s b h + a s^2 b; the rest doubles: 66 s b h + 9 a s^2 b.
  EXPECT_EQ(activation_bytes(m, 2, Precision::fp32, Recomputation::none),
            24 * (66 * s * b * h + 9 * a * s * s * b) + b * gpt2_outside_layers(s, h, 4));
}

TEST(Activations, SelectiveRecomputationKeepsThirtyFourSbh) {
  const double s = 1024, b = 3, h = 1024;
  const models::Model m = models::make_model("gpt2_medium");
  EXPECT_EQ(activation_bytes(m, 3, Precision::bf16, Recomputation::selective),
            24 * 34 * s * b * h + b * gpt2_outside_layers(s, h, 2));
}

TEST(Activations, FullRecomputationKeepsEachLayersInputAndRebuildsOneLayer) {
  const double s = 512, b = 8, h = 768, a = 12;
  const models::Model m = models::make_model("gpt2_small", 512);
  EXPECT_EQ(activation_bytes(m, 8, Precision::fp16, Recomputation::full),
            12 * 2 * s * b * h + s * b * h * (34 + 5 * a * s / h) + b * gpt2_outside_layers(s, h, 2));
}

TEST(Activations, LlamaLayerKeepsItsNormsProjectionsInputsSwigluOperandsAndProbabilities) {
  // Per layer, in elements: two RMSNorm inputs, the Q/K/V input, Q and the repeated K, V, the o_proj input, the
  // gate/up input (2 s b h + s b h + 2 s b h + s b h + s b h + s b h = 8 s b h); SiLU's input, the product's two
  // operands and the down_proj input (4 s b f); the softmax output (a s^2 b). No dropout. Outside the layers:
  // the final norm's input (s b h), the head's input (s b h) and the loss's fp32 logits (4 s b V bytes).
  const double s = 256, b = 2, h = 4096, f = 14336, a = 32, V = 128256, L = 32;
  const models::Model m = models::make_model("llama3_8b", 256);
  const double layer = 2 * (8 * s * b * h + 4 * s * b * f + a * s * s * b);
  EXPECT_EQ(activation_bytes(m, 2, Precision::bf16, Recomputation::none),
            L * layer + 2 * (2 * s * b * h) + 4 * s * b * V);
  EXPECT_EQ(activation_bytes(m, 2, Precision::bf16, Recomputation::selective),
            L * (layer - 2 * a * s * s * b) + 2 * (2 * s * b * h) + 4 * s * b * V);
}

TEST(Activations, CnnLayersKeepTheirOutputsButInPlaceReluKeepsNothing) {
  // mlp: fc1 512, relu1 (in place), dropout1 512 + a 512-byte mask, fc2 512, relu2, dropout2 512 + 512, fc3 10,
  // softmax 10 elements per sample.
  const models::Model m = models::make_model("mlp");
  const double elements = 512 + 512 + 512 + 512 + 10 + 10, masks = 512 + 512;
  EXPECT_EQ(activation_bytes(m, 3, Precision::fp32, Recomputation::none), 3 * (4 * elements + masks));
  EXPECT_EQ(activation_bytes(m, 3, Precision::fp16, Recomputation::none), 3 * (2 * elements + masks));
}

TEST(Activations, RecomputedLayersAreTheAttentionCoreOrWholeTransformerLayers) {
  const models::Model m = models::make_model("gpt2_small");
  const std::vector<bool> selective = recomputed_layers(m, Recomputation::selective);
  const std::vector<bool> full = recomputed_layers(m, Recomputation::full);
  int attention = 0, layers = 0;
  for (std::size_t l = 0; l < m.layers.size(); ++l) {
    attention += selective[l] ? 1 : 0;
    layers += full[l] ? 1 : 0;
    if (selective[l]) {
      EXPECT_NE(m.layers[l].name.find(".attn."), std::string::npos) << m.layers[l].name;
    }
  }
  EXPECT_EQ(attention, 12 * 4);  // Q K^T, softmax, dropout, attention over V
  EXPECT_EQ(layers, 12 * 15);    // every module of every block, not the embeddings and the final norm
  const std::vector<bool> none = recomputed_layers(m, Recomputation::none);
  EXPECT_EQ(std::count(none.begin(), none.end(), true), 0);
}

TEST(Activations, RecomputationIsRefusedOnAModelWithoutTransformerLayers) {
  const models::Model m = models::make_model("resnet50");
  for (Recomputation r : {Recomputation::selective, Recomputation::full}) {
    try {
      activation_bytes(m, 1, Precision::fp32, r);
      FAIL() << "accepted";
    } catch (const core::InputError& e) {
      EXPECT_NE(std::string(e.what()).find("model 'resnet50', which has no"), std::string::npos) << e.what();
    }
  }
}

TEST(Activations, UserLayerTablesDoNotSayWhatTheyKeep) {
  models::Model m;
  m.layers.push_back({});
  EXPECT_FALSE(knows_activations(m));
  EXPECT_TRUE(knows_activations(models::make_model("alexnet")));
}

TEST(MemoryBreakdown, PeakIsTheSumAndFitsAgainstTheCapacity) {
  MemoryBreakdown b;
  b.gpu = "v100";
  b.capacity_bytes = 100;
  b.items = {{"weights", 40, ""}, {"activations", 60, ""}};
  EXPECT_EQ(b.total_bytes(), 100);
  EXPECT_TRUE(b.fits());
  b.items.push_back({"workspace", 1, ""});
  EXPECT_FALSE(b.fits());
  EXPECT_EQ(b.lines().back(), "    peak                         101 B  of 100 B on v100 (101.0 %)");
}

}  // namespace
}  // namespace dtsim::memory
