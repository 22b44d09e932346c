// FlashAttention as a model transformation: the same FLOPs, one fused module per layer, no score matrices kept
// (Korthikanti et al.'s selective-recomputation count plus the log-sum-exp), backward 2.5 x forward.
#include "models/flash_attention.hpp"

#include <gtest/gtest.h>

#include "models/zoo.hpp"
#include "sim/core/error.hpp"
#include "sim/memory/activations.hpp"

namespace dtsim::models {
namespace {

TEST(FlashAttention, SameFlopsOneModuleAndNoScoreMatrices) {
  const Model eager = make_model("gpt2_small");
  const Model flash = with_flash_attention(eager);
  EXPECT_DOUBLE_EQ(flash.forward_flops(), eager.forward_flops());
  EXPECT_EQ(flash.parameter_count(), eager.parameter_count());
  EXPECT_EQ(eager.layers.size() - flash.layers.size(), 12u * 3);  // scores, softmax, dropout, context -> 1
  // fp16, one sample of 1024 tokens, 12 heads: eager keeps 5 a s^2 bytes of scores per layer (Korthikanti et al.,
  // equation 1), flash 4 a s bytes of log-sum-exp.
  const double a = 12, s = 1024;
  EXPECT_DOUBLE_EQ(memory::activation_bytes(eager, 1, Precision::fp16, memory::Recomputation::none) -
                       memory::activation_bytes(flash, 1, Precision::fp16, memory::Recomputation::none),
                   12 * (5 * a * s * s - 4 * a * s));
  for (const Layer& l : flash.layers)
    if (l.attention_core) {
      EXPECT_EQ(l.heads, 12);
      EXPECT_DOUBLE_EQ(l.backward_ratio, 2.5);
    }
}

TEST(FlashAttention, RefusesModelsWithoutAttentionAndSelectiveRecomputation) {
  EXPECT_THROW(with_flash_attention(make_model("resnet50")), core::InputError);
  EXPECT_THROW(memory::recomputed_layers(with_flash_attention(make_model("gpt2_small")),
                                         memory::Recomputation::selective),
               core::InputError);
}

}  // namespace
}  // namespace dtsim::models
