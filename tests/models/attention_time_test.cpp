// FlashAttention timed from its published throughput (models/attention_time.hpp): at the papers' measured points the
// model reproduces the published TFLOP/s exactly; between them it interpolates in log2(sequence length).
#include "models/attention_time.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "input_error.hpp"

namespace dtsim::models {
namespace {

constexpr std::array<std::int64_t, 6> lengths = {512, 1024, 2048, 4096, 8192, 16384};

// The FlashAttention-3 paper's setup: batch x sequence = 16k tokens, hidden 2048 = 16 heads of 128 (32 of 64).
AttentionShape paper_shape(std::int64_t tokens, bool causal, std::int64_t head_dim) {
  return {(2048.0 / head_dim) * (16384 / tokens), tokens, head_dim, causal};
}

/// The rate the model achieves on the paper's shape, in TFLOP/s.
double achieved(const GpuProfile& g, Kernel k, AttentionPass pass, std::int64_t tokens, bool causal,
                std::int64_t head_dim = 128) {
  const AttentionShape s = paper_shape(tokens, causal, head_dim);
  return attention_flops(s, pass) / attention_time_s(s, g, Precision::bf16, k, pass) / 1e12;
}

TEST(AttentionTime, FlopsOfTheFlashAttentionPapers) {
  // Forward 4 s^2 d per head, half under a causal mask; backward 2.5 x.
  const AttentionShape s{3, 1000, 64, false};
  EXPECT_DOUBLE_EQ(attention_flops(s, AttentionPass::forward), 4.0 * 1000 * 1000 * 64 * 3);
  EXPECT_DOUBLE_EQ(attention_flops(s, AttentionPass::backward), 2.5 * 4.0 * 1000 * 1000 * 64 * 3);
  EXPECT_DOUBLE_EQ(attention_flops({3, 1000, 64, true}, AttentionPass::forward), 2.0 * 1000 * 1000 * 64 * 3);
}

/// A row of the FlashAttention-3 paper's H100 figures: TFLOP/s at each of `lengths`.
struct Row {
  Kernel kernel;
  AttentionPass pass;
  bool causal;
  std::array<double, 6> tflops;
};

/// Each row's figures reproduced by the H100's attention model at `head_dim`.
template <std::size_t N>
void expect_paper_figures(const Row (&rows)[N], int head_dim) {
  const GpuProfile h100 = gpu_profile("h100");
  for (const Row& r : rows)
    for (std::size_t i = 0; i < lengths.size(); ++i)
      EXPECT_NEAR(achieved(h100, r.kernel, r.pass, lengths[i], r.causal, head_dim), r.tflops[i], 1e-9 * r.tflops[i])
          << lengths[i] << " head dimension " << head_dim;
}

TEST(AttentionTime, H100ReproducesTheFlashAttention3PaperFigures) {
  // Shah et al. 2024, figures 5 and 6, head dimension 128, H100 SXM5, bf16: TFLOP/s at 512 ... 16k.
  const Row rows[] = {
      {Kernel::flash_attention3, AttentionPass::forward, false, {467, 565, 625, 638, 646, 648}},
      {Kernel::flash_attention3, AttentionPass::forward, true, {292, 423, 521, 579, 602, 616}},
      {Kernel::flash_attention3, AttentionPass::backward, false, {316, 424, 501, 542, 559, 561}},
      {Kernel::flash_attention2, AttentionPass::forward, false, {309, 350, 362, 368, 370, 370}},
      {Kernel::flash_attention2, AttentionPass::forward, true, {191, 260, 298, 319, 333, 335}},
      {Kernel::flash_attention2, AttentionPass::backward, false, {214, 260, 291, 310, 318, 322}},
  };
  expect_paper_figures(rows, 128);
}

TEST(AttentionTime, H100ReproducesTheFlashAttention3PaperFiguresAtHeadDimension64) {
  // Shah et al. 2024, figures 5 and 6, head dimension 64: the same kernels run 10-30 % slower than at 128 at the
  // lengths GPT-style models train at.
  const Row rows[] = {
      {Kernel::flash_attention3, AttentionPass::forward, false, {333, 392, 460, 476, 496, 497}},
      {Kernel::flash_attention3, AttentionPass::forward, true, {197, 265, 371, 420, 460, 473}},
      {Kernel::flash_attention3, AttentionPass::backward, false, {272, 363, 422, 453, 472, 474}},
      {Kernel::flash_attention2, AttentionPass::forward, false, {282, 306, 318, 321, 322, 324}},
      {Kernel::flash_attention2, AttentionPass::forward, true, {180, 229, 262, 284, 295, 299}},
      {Kernel::flash_attention2, AttentionPass::backward, false, {198, 238, 264, 279, 287, 291}},
  };
  expect_paper_figures(rows, 64);
}

TEST(AttentionTime, InterpolatesInLog2OfTheHeadDimensionAndHoldsTheEnds) {
  const GpuProfile h100 = gpu_profile("h100");
  auto rate = [&](std::int64_t head_dim) {
    return attention_flop_rate(h100, Precision::bf16, Kernel::flash_attention2, AttentionPass::forward, true, 2048,
                               head_dim);
  };
  // 2^6.5 = 90.5: halfway between the causal 2k forwards at 64 (262) and 128 (298); 96 is log2(1.5) of the way.
  EXPECT_NEAR(rate(96), (262 + (298 - 262) * std::log2(1.5)) * 1e12, 1e3);
  EXPECT_DOUBLE_EQ(rate(32), 262e12);
  EXPECT_DOUBLE_EQ(rate(256), 298e12);
  // The A100's derived table takes the same head-dimension shape: 262 / 298 of its causal 2k rate at 64.
  const GpuProfile a100 = gpu_profile("a100");
  EXPECT_NEAR(attention_flop_rate(a100, Precision::bf16, Kernel::flash_attention2, AttentionPass::forward, true, 2048,
                                  64),
              attention_flop_rate(a100, Precision::bf16, Kernel::flash_attention2, AttentionPass::forward, true, 2048,
                                  128) *
                  262 / 298,
              1e3);
}

TEST(AttentionTime, InterpolatesInLog2OfTheLengthAndHoldsTheEnds) {
  const GpuProfile h100 = gpu_profile("h100");
  // 2896 tokens is 2^11.5: halfway between the 2k (625) and 4k (638) points.
  EXPECT_NEAR(
      attention_flop_rate(h100, Precision::bf16, Kernel::flash_attention3, AttentionPass::forward, false, 2896, 128),
      (625 + (638 - 625) * (std::log2(2896.0) - 11)) * 1e12, 1e3);
  EXPECT_DOUBLE_EQ(
      attention_flop_rate(h100, Precision::bf16, Kernel::flash_attention3, AttentionPass::forward, false, 128, 128),
      467e12);
  EXPECT_DOUBLE_EQ(
      attention_flop_rate(h100, Precision::bf16, Kernel::flash_attention3, AttentionPass::forward, false, 65536, 128),
      648e12);
  // Causal backward: the non-causal backward x the forward's causal / non-causal ratio (no published figure).
  EXPECT_DOUBLE_EQ(
      attention_flop_rate(h100, Precision::bf16, Kernel::flash_attention3, AttentionPass::backward, true, 2048, 128),
      501e12 * 521 / 625);
}

TEST(AttentionTime, A100CeilingsOfTheFlashAttention2Paper) {
  // Dao 2023, section 4.1: up to 73 % (forward) and 63 % (backward) of 312 TFLOP/s, reached at the longest length.
  const GpuProfile a100 = gpu_profile("a100");
  EXPECT_NEAR(achieved(a100, Kernel::flash_attention2, AttentionPass::forward, 16384, false), 0.73 * 312, 1e-9);
  EXPECT_NEAR(achieved(a100, Kernel::flash_attention2, AttentionPass::backward, 16384, false), 0.63 * 312, 1e-9);
  // Shorter sequences follow FlashAttention-2's H100 curve: 309 / 370 of the ceiling at 512.
  EXPECT_NEAR(achieved(a100, Kernel::flash_attention2, AttentionPass::forward, 512, false), 0.73 * 312 * 309 / 370,
              1e-9);
}

TEST(AttentionTime, FallbackAndRefusals) {
  // A GPU without measurements runs at the A100's fraction of peak: the V100 at 125 / 312 of the A100's rate.
  const GpuProfile v100 = gpu_profile("v100"), a100 = gpu_profile("a100");
  EXPECT_DOUBLE_EQ(
      attention_flop_rate(v100, Precision::fp16, Kernel::flash_attention2, AttentionPass::forward, false, 2048, 128),
      attention_flop_rate(a100, Precision::fp16, Kernel::flash_attention2, AttentionPass::forward, false, 2048, 128) *
          125e12 / 312e12);
  EXPECT_EQ(input_error([&] {
              attention_flop_rate(a100, Precision::bf16, Kernel::flash_attention3, AttentionPass::forward, false, 2048,
                                  128);
            }),
            "FlashAttention-3 on GPU 'a100'; a Hopper GPU with its measurements (h100); attention = \"flash\" "
            "elsewhere");
}

}  // namespace
}  // namespace dtsim::models
