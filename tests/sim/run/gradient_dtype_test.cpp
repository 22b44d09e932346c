// strategy.gradient_dtype end to end: its default by the framework a layout stands for, the bytes of every
// gradient exchange against closed forms (all-reduce, parameter server, ZeRO), and the memory line.
#include <gtest/gtest.h>

#include <algorithm>

#include "sim/run/memory_check.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/scenario/load.hpp"
#include "tests/sim/run/run_in_child.hpp"
#include "tests/sim/run/scenario_fixture.hpp"

namespace dtsim::run {
namespace {

using models::Precision;
using scenario::Fidelity;

/// The default scenario (ResNet-50 on 16 V100s) with `overrides`, at the analytic level unless they name another.
scenario::Scenario with(std::vector<std::string> overrides) {
  if (std::none_of(overrides.begin(), overrides.end(),
                   [](const std::string& o) { return o.starts_with("strategy.fidelity"); }))
    overrides.push_back("strategy.fidelity=analytic");
  return scenario::load_default_scenario(overrides);
}

/// GPT-2 small on the built-in 64 A100s (bf16 units), batch 4, with `overrides`.
scenario::Scenario gpt(std::vector<std::string> overrides) {
  for (const char* o : {"platform=a100_8x8_200gbib", "workers=8", "model.name=gpt2_small", "batch_size=4"})
    overrides.insert(overrides.begin(), o);
  return with(overrides);
}

double item(const memory::MemoryBreakdown& b, const std::string& name) {
  for (const memory::MemoryItem& i : b.items)
    if (i.name == name) return i.bytes;
  ADD_FAILURE() << "no item " << name;
  return -1;
}

TEST(GradientDtype, TheDefaultFollowsTheFrameworkOfTheLayout) {
  // PyTorch DDP with automatic mixed precision: fp32 parameters, fp32 gradients.
  EXPECT_EQ(with({}).gradient_dtype, Precision::fp32);
  EXPECT_EQ(with({"gpu.precision=fp16"}).gradient_dtype, Precision::fp32);
  EXPECT_EQ(gpt({"gpu.precision=bf16"}).gradient_dtype, Precision::fp32);
  // Megatron-LM: fp32 for bf16 (accumulate_allreduce_grads_in_fp32 forced), fp16 for fp16.
  EXPECT_EQ(gpt({"gpu.precision=bf16", "parallel.tensor=2"}).gradient_dtype, Precision::fp32);
  EXPECT_EQ(gpt({"gpu.precision=fp16", "parallel.pipeline=2"}).gradient_dtype, Precision::fp16);
  // DeepSpeed's communication_data_type and FSDP's reduce_dtype: the training dtype.
  EXPECT_EQ(gpt({"gpu.precision=bf16", "parallel.sharding=zero2"}).gradient_dtype, Precision::bf16);
  EXPECT_EQ(gpt({"gpu.precision=fp16", "parallel.sharding=zero3"}).gradient_dtype, Precision::fp16);
  EXPECT_EQ(gpt({"gpu.precision=tf32", "parallel.sharding=zero3"}).gradient_dtype, Precision::fp32);
  // Set, it wins; the resolved scenario records the value either way.
  const scenario::Scenario set = gpt({"gpu.precision=bf16", "parallel.tensor=2", "strategy.gradient_dtype=bf16"});
  EXPECT_EQ(set.gradient_dtype, Precision::bf16);
  EXPECT_NE(gpt({"gpu.precision=bf16", "parallel.sharding=zero2"}).provenance.resolved_toml.find(
                "gradient_dtype = \"bf16\""),
            std::string::npos);
}

TEST(GradientDtype, Bf16HalvesTheAllReduceAndTheIterationFollowsTheRingFormula) {
  // No overlap: forward + backward + one ring all-reduce of 2 bytes a parameter + update, at both levels; each
  // worker sends 2 (p - 1) / p of the gradient per iteration.
  for (const Fidelity f : {Fidelity::analytic, Fidelity::message}) {
    auto s = testing::five_layers(8, "none", f);
    const std::int64_t parameters = s.model.parameter_count();
    const RunResult fp32 = testing::run_in_child(s);  // SimGrid: one engine per process
    s.gradient_dtype = Precision::bf16;
    const RunResult bf16 = testing::run_in_child(s);
    const double expected = testing::compute_s(s) + testing::ring_formula_s(8, 2.0 * parameters,
                                                                            testing::star_alpha_beta());
    for (const IterationResult& it : bf16.iterations) EXPECT_NEAR(it.time_s, expected, 1e-9 * expected);
    for (std::size_t w = 0; w < 8; ++w) {
      EXPECT_EQ(bf16.traffic[w].bytes_sent, 3 * 2 * 7 * parameters * 2 / 8) << w;
      EXPECT_EQ(fp32.traffic[w].bytes_sent, 2 * bf16.traffic[w].bytes_sent) << w;
    }
    EXPECT_LT(bf16.mean_iteration_s, fp32.mean_iteration_s);
  }
}

TEST(GradientDtype, ParameterServerPushesAndPullsHalve) {
  const std::vector<std::string> ps{"workers=8", "strategy.architecture=ps", "strategy.fidelity=flow",
                                    "strategy.ps.servers=2"};
  std::vector<std::string> half = ps;
  half.push_back("strategy.gradient_dtype=bf16");
  const RunResult fp32 = testing::run_in_child(with(ps)), bf16 = testing::run_in_child(with(half));
  for (std::size_t w = 0; w < 8; ++w) {
    ASSERT_GT(bf16.traffic[w].bytes_sent, 0);
    EXPECT_EQ(fp32.traffic[w].bytes_sent, 2 * bf16.traffic[w].bytes_sent) << w;
    EXPECT_EQ(fp32.traffic[w].bytes_received, 2 * bf16.traffic[w].bytes_received) << w;
  }
}

TEST(GradientDtype, ZeroTwoReduceScattersGradientsInTheirDtypeAndGathersFp32Parameters) {
  // At fp32, ZeRO-2's reduce-scatter of the gradients and all-gather of the updated parameters move as many
  // bytes; bf16 gradients halve the first only: 3/4 of the traffic.
  const RunResult fp32 = run_simulation(gpt({"parallel.sharding=zero2"}));
  const RunResult bf16 = run_simulation(gpt({"parallel.sharding=zero2", "strategy.gradient_dtype=bf16"}));
  ASSERT_GT(fp32.traffic[0].bytes_sent, 0);
  EXPECT_EQ(4 * bf16.traffic[0].bytes_sent, 3 * fp32.traffic[0].bytes_sent);
}

TEST(GradientDtype, TheMemoryLineCountsGradientsInTheirDtype) {
  constexpr double parameters = 25'557'032;
  // Mixed precision under DDP (AMP) keeps fp32 gradients: 2 + 4 + 12 = 18 bytes a parameter with AdamW.
  const memory::MemoryBreakdown amp = check_memory(with({"gpu.precision=fp16", "memory.optimizer=adamw"}));
  EXPECT_EQ(item(amp, "gradients"), 4 * parameters);
  EXPECT_EQ(item(amp, "weights") + item(amp, "gradients") + item(amp, "optimizer state"), 18 * parameters);
  const memory::MemoryBreakdown half =
      check_memory(with({"gpu.precision=fp16", "memory.optimizer=adamw", "strategy.gradient_dtype=fp16"}));
  EXPECT_EQ(item(half, "gradients"), 2 * parameters);
  EXPECT_EQ(item(half, "weights") + item(half, "gradients") + item(half, "optimizer state"), 16 * parameters);
  // A layout's stage: Megatron-LM's bf16 gradients are fp32, twice those of --set strategy.gradient_dtype=bf16.
  const RunResult megatron = run_simulation(gpt({"gpu.precision=bf16", "parallel.tensor=2"}));
  const RunResult bf16 = run_simulation(gpt({"gpu.precision=bf16", "parallel.tensor=2", "strategy.gradient_dtype=bf16"}));
  EXPECT_EQ(item(megatron.memory, "gradients"), 2 * item(bf16.memory, "gradients"));
  EXPECT_EQ(item(megatron.memory, "weights"), item(bf16.memory, "weights"));
}

}  // namespace
}  // namespace dtsim::run
