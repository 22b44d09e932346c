// Where worker 0's iteration goes by kind of kernel: the parts sum to the iteration, the GEMM and attention parts
// are the closed forms of their kernel models, and a pipeline stage's wait for its neighbour is the bubble.
#include "sim/run/time_by_class.hpp"

#include <gtest/gtest.h>

#include "models/attention_time.hpp"
#include "models/gemm_time.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/scenario/load.hpp"

namespace dtsim::run {
namespace {

double part(const RunResult& r, const std::string& name) {
  for (const TimeShare& t : r.time_by_class)
    if (t.name == name) return t.seconds;
  return 0;
}

double sum(const RunResult& r) {
  double total = 0;
  for (const TimeShare& t : r.time_by_class) total += t.seconds;
  return total;
}

TEST(TimeByClass, OneGpuSplitsItsComputeByTheKernelModels) {
  // GPT-2 small with FlashAttention on one A100 in bf16, 4 sequences: no communication, so the iteration is its
  // compute, and the GEMM and attention parts are the sums of gemm_time_s and attention_time_s over its layers.
  const scenario::Scenario s = scenario::load_default_scenario(
      {"model.name=gpt2_small", "model.attention=flash", "workers=1", "batch_size=4", "iterations=1",
       "platform=dgx_a100", "gpu.precision=bf16", "strategy.fidelity=analytic"});
  const RunResult r = run_simulation(s);
  ASSERT_FALSE(r.time_by_class.empty());
  EXPECT_NEAR(sum(r), r.mean_iteration_s, 1e-12 * r.mean_iteration_s);
  double gemm = 0, attention = 0;
  for (const models::Layer& l : s.model.layers) {
    if (l.gemm) {
      const models::Gemm g = models::gpu_share(l, 4, 1);
      gemm += models::gemm_time_s(g, s.gpu, s.precision) +
              models::gemm_time_s({g.m, g.k, g.n, g.count, g.batched}, s.gpu, s.precision) +
              models::gemm_time_s({g.k, g.n, g.m, g.count, g.batched}, s.gpu, s.precision);
    }
    if (l.kernel == models::Kernel::flash_attention2) {
      const std::int64_t width = l.output_elements / s.model.tokens;
      const models::AttentionShape shape{4.0 * l.heads, s.model.tokens, width / l.heads, s.model.causal};
      for (auto pass : {models::AttentionPass::forward, models::AttentionPass::backward})
        attention += models::attention_time_s(shape, s.gpu, s.precision, l.kernel, pass);
    }
  }
  ASSERT_GT(gemm, 0);
  ASSERT_GT(attention, 0);
  EXPECT_NEAR(part(r, "GEMM"), gemm, 1e-9 * gemm);
  EXPECT_NEAR(part(r, "attention"), attention, 1e-9 * attention);
  EXPECT_GT(part(r, "launch/CPU"), 0);
  EXPECT_GT(part(r, "element-wise"), 0);
  EXPECT_GT(part(r, "optimizer"), 0);
  EXPECT_EQ(part(r, "exposed communication"), 0);
}

TEST(TimeByClass, APipelineStageWaitsInTheBubble) {
  const RunResult r = run_simulation(scenario::load_default_scenario(
      {"model.name=gpt2_small", "workers=2", "batch_size=4", "iterations=2", "parallel.pipeline=2",
       "parallel.micro_batch=1", "gpu.precision=fp16", "strategy.fidelity=analytic"}));
  EXPECT_NEAR(sum(r), r.iterations.back().time_s, 1e-12 * r.iterations.back().time_s);
  EXPECT_GT(part(r, "pipeline bubble"), 0);
  EXPECT_GT(part(r, "GEMM"), 0);
}

TEST(TimeByClass, TheBubbleIsTheIdleTimeNoCommunicationCovers) {
  // compute [0, 1], a receive waiting [1, 3], compute [3, 4], an all-reduce [4, 6]; the iteration ends at 7:
  // idle [1, 3] and [4, 7], of which the all-reduce covers [4, 6]: bubble 2 + 1.
  taskgraph::Program p;
  p.tasks.resize(4);
  p.tasks[1].op = taskgraph::Op::recv;
  p.tasks[3].op = taskgraph::Op::allreduce;
  p.tasks[3].stream = taskgraph::Stream::data;
  const std::vector<taskgraph::Span> spans{{0, 1}, {1, 3}, {3, 4}, {4, 6}};
  EXPECT_DOUBLE_EQ(pipeline_bubble_s(p, spans, 0, 3, 0, 7), 3);
  // The parts of a worker's breakdown: its compute by the shares, its exposed communication less the bubble.
  PassShares shares;
  shares.forward[0] = 1;  // GEMM
  shares.backward[1] = 0.5, shares.backward[2] = 0.5;
  const std::vector<TimeShare> parts = time_by_class({1, 2, 0, 5, 0.5}, shares, 3);
  ASSERT_EQ(parts.size(), 6u);
  EXPECT_EQ(parts[0].name, "GEMM");
  EXPECT_DOUBLE_EQ(parts[0].seconds, 1);
  EXPECT_DOUBLE_EQ(parts[1].seconds, 1);
  EXPECT_EQ(parts[3].name, "exposed communication");
  EXPECT_DOUBLE_EQ(parts[3].seconds, 2);
  EXPECT_DOUBLE_EQ(parts[4].seconds, 3);
  EXPECT_EQ(parts[5].name, "waiting for other workers");
}

}  // namespace
}  // namespace dtsim::run
