// [parallel] framework and its knobs end to end: parsed into the layout with the frameworks' defaults, and each
// knob changing the iteration of GPT-3 1.3B under ZeRO-3 on two DGX A100 (closed forms: tests/sim/parallel/
// framework_test.cpp).
#include <gtest/gtest.h>

#include "sim/run/run_simulation.hpp"
#include "sim/scenario/load.hpp"

namespace dtsim::run {
namespace {

using parallel::BackwardPrefetch;
using parallel::Framework;

scenario::Scenario zero3(std::vector<std::string> overrides) {
  for (const char* o : {"platform=dgx_a100", "platform.nodes=2", "workers=16", "model.name=gpt3_1_3b", "batch_size=1",
                        "gpu.precision=bf16", "parallel.sharding=zero3", "strategy.fidelity=analytic"})
    overrides.insert(overrides.begin(), o);
  return scenario::load_default_scenario(overrides);
}

double iteration_s(std::vector<std::string> overrides) {
  return run_simulation(zero3(std::move(overrides))).mean_iteration_s;
}

TEST(FrameworkOptions, ParsedWithTheFrameworksDefaults) {
  EXPECT_EQ(zero3({}).parallel.framework.framework, Framework::generic);
  const parallel::FrameworkOptions fsdp = zero3({"parallel.framework=fsdp"}).parallel.framework;
  EXPECT_EQ(fsdp.framework, Framework::fsdp);
  EXPECT_TRUE(fsdp.limit_all_gathers);
  EXPECT_EQ(fsdp.backward_prefetch, BackwardPrefetch::backward_pre);
  EXPECT_FALSE(zero3({"parallel.framework=fsdp", "parallel.limit_all_gathers=false"}).parallel.framework.limit_all_gathers);
  const parallel::FrameworkOptions ds = zero3({"parallel.framework=deepspeed"}).parallel.framework;
  EXPECT_EQ(ds.prefetch_bucket_size, 50'000'000);
  EXPECT_EQ(ds.param_persistence_threshold, 100'000);
  EXPECT_EQ(ds.reduce_bucket_size, 500'000'000);
  EXPECT_EQ(zero3({"parallel.framework=deepspeed", "parallel.reduce_bucket_size=1000"}).parallel.framework.reduce_bucket_size,
            1000);
}

TEST(FrameworkOptions, EachChangesTheIteration) {
  // Communication-bound (one sample per GPU over two nodes): FSDP's one NCCL stream and copies cost more than the
  // generic model; a later backward prefetch more still; DeepSpeed's prefetch bucket, persistence and reduce buckets
  // each move it. (limit_all_gathers binds only where a layer's computation is long beside short ones:
  // Framework.RateLimiterBoundsForwardPrefetch.)
  const double generic = iteration_s({});
  const double fsdp = iteration_s({"parallel.framework=fsdp"});
  EXPECT_GT(fsdp, generic);
  const double post = iteration_s({"parallel.framework=fsdp", "parallel.backward_prefetch=backward_post"});
  const double none = iteration_s({"parallel.framework=fsdp", "parallel.backward_prefetch=none"});
  EXPECT_GT(post, fsdp);
  EXPECT_GT(none, post);
  const double deepspeed = iteration_s({"parallel.framework=deepspeed"});
  EXPECT_NE(deepspeed, generic);
  EXPECT_GT(iteration_s({"parallel.framework=deepspeed", "parallel.prefetch_bucket_size=0"}), deepspeed);
  EXPECT_LT(iteration_s({"parallel.framework=deepspeed", "parallel.param_persistence_threshold=1000000000"}), deepspeed);
  EXPECT_NE(iteration_s({"parallel.framework=deepspeed", "parallel.reduce_bucket_size=1000000"}), deepspeed);
}

}  // namespace
}  // namespace dtsim::run
