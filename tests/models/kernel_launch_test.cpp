// Launch costs on one stream fed by one CPU thread (models/kernel_launch.hpp).
#include "models/kernel_launch.hpp"

#include <gtest/gtest.h>

#include "input_error.hpp"
#include "models/gpu_profile.hpp"
#include "models/zoo.hpp"

namespace dtsim::models {
namespace {

TEST(KernelLaunch, CudaGraphsBlogFigures) {
  // NVIDIA's "Getting Started with CUDA Graphs": 20 kernels of 2.9 us take 3.8 us each on a stream (when the CPU
  // keeps ahead) and 3.4 us each replayed as a graph.
  KernelStream graph(launch_costs(LaunchMode::cuda_graphs));
  EXPECT_NEAR(graph.issue(20, 20 * 2.9e-6), 20 * 3.4e-6, 1e-15);
  KernelStream stream(LaunchCosts{launch_costs(LaunchMode::eager).gap_s, 0});
  EXPECT_NEAR(stream.issue(20, 20 * 2.9e-6), 20 * 3.8e-6, 1e-15);
}

TEST(KernelLaunch, EagerShortKernelsAreLaunchBound) {
  // Eager PyTorch issues a kernel every 8 us: 20 kernels of 2.9 us finish 8 us after the last is issued plus their
  // own 3.8 us; 20 of 20 us keep the GPU busy, the first waiting for its dispatch only.
  const LaunchCosts eager = launch_costs(LaunchMode::eager);
  EXPECT_DOUBLE_EQ(eager.dispatch_s, 8e-6);
  KernelStream small(eager);
  EXPECT_NEAR(small.issue(20, 20 * 2.9e-6), 20 * 8e-6 + 3.8e-6, 1e-15);
  KernelStream large(eager);
  EXPECT_NEAR(large.issue(20, 20 * 20e-6), 8e-6 + 20 * 20.9e-6, 1e-15);
  // Slack built up by long kernels hides later short ones: one 100 us kernel, then 5 of 1 us each.
  KernelStream mixed(eager);
  EXPECT_NEAR(mixed.issue(1, 100e-6), 108.9e-6, 1e-15);
  EXPECT_NEAR(mixed.issue(5, 5e-6), 5 * 1.9e-6, 1e-15);
  EXPECT_EQ(mixed.issue(0, 0), 0);
}

TEST(KernelLaunch, SmallModelsAtSmallBatchesAreLaunchBoundInEagerMode) {
  // GPT-2 small, one sample of 128 tokens (fine-tuning), on an A100 in bf16: eager dispatch makes the forward longer
  // than with CUDA graphs; a large micro-batch hides most of it.
  const Model m = make_model("gpt2_small", 128);
  GpuProfile eager = gpu_profile("a100"), graphs = eager;
  graphs.launch = LaunchMode::cuda_graphs;
  auto forward = [&](const GpuProfile& g, int batch) {
    double s = 0;
    for (const LayerTime& t : layer_times(m, g, batch, Precision::bf16)) s += t.forward_s;
    return s;
  };
  EXPECT_GT(forward(eager, 1) / forward(graphs, 1), 3);  // 3.24
  EXPECT_LT(forward(eager, 16) / forward(graphs, 16), 1.05);  // 1.027
}

TEST(KernelLaunch, Names) {
  EXPECT_EQ(parse_launch_mode("cuda_graphs"), LaunchMode::cuda_graphs);
  EXPECT_EQ(launch_mode_names(), (std::vector<std::string>{"eager", "cuda_graphs"}));
  EXPECT_EQ(input_error([] { parse_launch_mode("lazy"); }).substr(0, 26), "unknown launch mode 'lazy'");
}

}  // namespace
}  // namespace dtsim::models
