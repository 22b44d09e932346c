#include "models/fp8_recipe.hpp"

#include <gtest/gtest.h>

#include "input_error.hpp"
#include "models/gemm_time.hpp"

namespace dtsim::models {
namespace {

TEST(Fp8Recipe, NamesRoundTripAndTheDefaultIsTransformerEnginesChoice) {
  for (const std::string& name : fp8_recipe_names()) EXPECT_EQ(fp8_recipe_name(parse_fp8_recipe(name)), name);
  EXPECT_EQ(input_error([] { parse_fp8_recipe("block"); }),
            "unknown fp8 recipe 'block'; known: delayed, current, mxfp8");
  EXPECT_EQ(default_fp8_recipe(gpu_profile("h100")), Fp8Recipe::delayed);
  EXPECT_EQ(default_fp8_recipe(gpu_profile("b200")), Fp8Recipe::mxfp8);
  EXPECT_EQ(fp8_recipe_refusal(Fp8Recipe::mxfp8, gpu_profile("gb200")), "");
  EXPECT_NE(fp8_recipe_refusal(Fp8Recipe::mxfp8, gpu_profile("h100")).find("Blackwell"), std::string::npos);
}

TEST(Fp8Recipe, QuantizationBytesPerElement) {
  EXPECT_EQ(fp8_quantize_bytes(Fp8Recipe::delayed), 2 + 1 + 1);      // read bf16, write fp8 and its transpose
  EXPECT_EQ(fp8_quantize_bytes(Fp8Recipe::current), 2 + 2 + 1 + 1);  // an amax read first
  EXPECT_EQ(fp8_quantize_bytes(Fp8Recipe::mxfp8), 2 + 2 * (1 + 1.0 / 32));
  EXPECT_EQ(fp8_weight_copy_bytes(Fp8Recipe::delayed), 2);
  EXPECT_EQ(fp8_weight_copy_bytes(Fp8Recipe::mxfp8), 2.0625);
}

TEST(Fp8Recipe, CastBytesOfOneGemmLayer) {
  const Gemm g{4096, 1024, 512, 1, false};  // X 4096 x 512, W 512 x 1024, dY 4096 x 1024
  const Fp8CastBytes delayed = fp8_cast_bytes(g, Fp8Recipe::delayed);
  EXPECT_EQ(delayed.forward, 4.0 * (4096 * 512 + 512 * 1024) + 2 * 4 * 3 * 1024);  // + the amax history, read and written
  EXPECT_EQ(delayed.backward, 4.0 * 4096 * 1024);
  const Fp8CastBytes current = fp8_cast_bytes(g, Fp8Recipe::current);
  EXPECT_EQ(current.forward, 6.0 * (4096 * 512 + 512 * 1024));
  EXPECT_EQ(current.backward, 6.0 * 4096 * 1024);
}

Model one_linear() {
  Model m;
  m.name = "linear";
  Layer l;
  l.name = "fc";
  l.tensors.push_back({"fc.weight", {4096 * 4096}});
  l.forward_flops = 2.0 * 2048 * 4096 * 4096;
  l.input_elements = 2048 * 4096;
  l.output_elements = 2048 * 4096;
  l.gemm = Gemm{2048, 4096, 4096, 1, false};
  m.layers.push_back(l);
  Layer norm;
  norm.name = "norm";
  norm.forward_flops = 5.0 * 2048 * 4096;
  norm.input_elements = 2048 * 4096;
  norm.output_elements = 2048 * 4096;
  m.layers.push_back(norm);
  return m;
}

TEST(Fp8Recipe, LayerTimesRunLinearGemmsAtTheFp8PeakPlusTheirCastsAndTheRestAtBf16) {
  // Kernels replayed from a CUDA graph (no CPU dispatch): a pass takes its work and a launch gap per kernel; the
  // quantization is one more kernel each way.
  GpuProfile h100 = gpu_profile("h100");
  h100.launch = LaunchMode::cuda_graphs;
  const double gap = launch_costs(LaunchMode::cuda_graphs).gap_s;
  const Model m = one_linear();
  const double rate = h100.memory_Bps * h100.memory_efficiency;
  for (Fp8Recipe r : {Fp8Recipe::delayed, Fp8Recipe::current}) {
    const std::vector<LayerTime> fp8 = layer_times(m, h100, 1, Precision::fp8, std::nullopt, optimizer("adam"), 1, r);
    const Gemm g = *m.layers[0].gemm;
    const Fp8CastBytes cast = fp8_cast_bytes(g, r);
    EXPECT_DOUBLE_EQ(fp8[0].forward_s, gemm_time_s(g, h100, Precision::fp8) + cast.forward / rate + 2 * gap);
    EXPECT_DOUBLE_EQ(fp8[0].backward_s, gemm_time_s({g.m, g.k, g.n, 1, false}, h100, Precision::fp8) +
                                            gemm_time_s({g.k, g.n, g.m, 1, false}, h100, Precision::fp8) +
                                            cast.backward / rate + 3 * gap);
    const std::vector<LayerTime> bf16 = layer_times(m, h100, 1, Precision::bf16, std::nullopt, optimizer("adam"));
    EXPECT_NEAR(fp8[1].forward_s, bf16[1].forward_s, 1e-12 * bf16[1].forward_s);  // the norm stays bf16
  }
  // The fp8 GEMM itself: 2 m n (k + the pipeline fill) at the fp8 peak x its measured efficiency (whole waves of
  // 256 x 128 tiles: 256 of them on 132 SMs, 2 waves).
  EXPECT_DOUBLE_EQ(gemm_time_s(*m.layers[0].gemm, h100, Precision::fp8),
                   2 * 2.0 * 256 * 128 * (4096 + kPipelineFill_k) / (1978.9e12 * 0.683 / 132));
  EXPECT_EQ(input_error([&] {
              layer_times(m, h100, 1, Precision::fp8, std::nullopt, optimizer("adam"), 1, Fp8Recipe::mxfp8);
            }),
            "fp8_recipe = \"mxfp8\" on GPU 'h100': MXFP8's block scales need fifth-generation tensor cores (Blackwell: "
            "b200, gb200); gpu.fp8_recipe = \"delayed\" or \"current\"");
}

TEST(Fp8Recipe, BatchedAttentionProductsAndPlainLayersStayOutOfFp8) {
  Layer scores;
  scores.gemm = Gemm{128, 128, 64, 16, true};
  EXPECT_FALSE(runs_in_fp8(scores));
  EXPECT_FALSE(runs_in_fp8(Layer{}));
  EXPECT_EQ(fp8_parameter_count(one_linear()), 4096 * 4096);
}

}  // namespace
}  // namespace dtsim::models
