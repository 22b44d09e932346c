#include <gtest/gtest.h>

#include "input_error.hpp"
#include "models/fused_kernels.hpp"
#include "models/gpu_profile.hpp"
#include "models/zoo.hpp"

namespace dtsim::models {
namespace {

const Layer& named(const Model& m, const std::string& name) {
  for (const Layer& l : m.layers)
    if (l.name == name) return l;
  throw std::runtime_error("no layer " + name);
}

// Memory-bound element-wise layers: 1 TB/s reached, compute 1 PFLOP/s.
GpuProfile memory_gpu() {
  GpuProfile g;
  g.name = "memory";
  g.fp16_flops = 2e15;
  g.memory_Bps = 1.25e12;
  g.sm_count = 1;
  g.compute_efficiency = 0.5;
  g.gemm_efficiency = 0.5;
  g.memory_efficiency = 0.8;
  return g;
}

TEST(FusedKernels, SoftmaxAndBiasDropoutAddBytesByHand) {
  // GPT-2 small on 16 tokens: scores 12 heads x 16 x 16 = 3072 elements; activations 16 x 768 = 12288.
  const Model eager = make_model("gpt2_small", 16);
  const Model fused = with_fused_kernels(eager);
  // Two dropout + residual pairs per block merge into one kernel each.
  EXPECT_EQ(eager.layers.size() - fused.layers.size(), 2u * 12);
  EXPECT_EQ(named(eager, "h.0.attn.softmax").passes, 3);
  EXPECT_EQ(named(fused, "h.0.attn.softmax").passes, 1);
  const Layer& bda = named(fused, "h.0.attn.bias_dropout_add");
  EXPECT_EQ(bda.input_elements, 2 * 12288);
  EXPECT_EQ(bda.output_elements, 12288);
  EXPECT_EQ(bda.saved.bytes, 12288);  // the dropout mask
  EXPECT_EQ(named(fused, "h.0.attn.attn_dropout").passes, 1);  // Megatron-LM keeps the attention dropout apart
  EXPECT_DOUBLE_EQ(fused.forward_flops(), eager.forward_flops());

  GpuProfile g = memory_gpu();
  g.launch = LaunchMode::cuda_graphs;  // no CPU dispatch; 0.5 us between kernels
  const double gap = 0.5e-6;
  const std::vector<LayerTime> te = layer_times(eager, g, 1, Precision::fp16);
  const std::vector<LayerTime> tf = layer_times(fused, g, 1, Precision::fp16);
  auto time = [](const Model& m, const std::vector<LayerTime>& t, const std::string& name) {
    for (std::size_t i = 0; i < m.layers.size(); ++i)
      if (m.layers[i].name == name) return t[i].forward_s;
    return -1.0;
  };
  // Eager scale, mask, softmax: 3 kernels, 3 x 2 B x (3072 + 3072) = 36,864 B at 1 TB/s; fused: one, 12,288 B.
  EXPECT_NEAR(time(eager, te, "h.0.attn.softmax"), 36864e-12 + 3 * gap, 1e-18);
  EXPECT_NEAR(time(fused, tf, "h.0.attn.softmax"), 12288e-12 + gap, 1e-18);
  // Eager dropout 2 B x (12288 + 12288) and add 2 B x (2 x 12288 + 12288): 122,880 B in 2 kernels; fused: 73,728 B
  // in one.
  EXPECT_NEAR(time(eager, te, "h.0.attn.resid_dropout") + time(eager, te, "h.0.attn_residual"),
              122880e-12 + 2 * gap, 1e-18);
  EXPECT_NEAR(time(fused, tf, "h.0.attn.bias_dropout_add"), 73728e-12 + gap, 1e-18);
}

TEST(FusedKernels, RefusedOnAModelWithNothingToFuse) {
  EXPECT_EQ(input_error([] { with_fused_kernels(make_model("resnet50")); }),
            "kernels = \"fused\" on model 'resnet50', which has no kernels Megatron-LM fuses; \"eager\" (fused applies "
            "to the transformers of the zoo)");
}

TEST(FusedKernels, DefaultsFollowTheReferenceImplementations) {
  EXPECT_EQ(default_kernels("gpt3_175b"), "fused");
  EXPECT_EQ(default_kernels("gpt2_small"), "eager");
  EXPECT_EQ(default_kernels("bert_large"), "eager");
  EXPECT_EQ(default_kernels("resnet50"), "eager");
}

}  // namespace
}  // namespace dtsim::models
