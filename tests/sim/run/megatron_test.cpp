// framework = "megatron" end to end (Megatron-LM's DDP buckets and distributed optimizer): each bucket's
// reduce-scatter and all-gather against their closed forms on GPT-2 small over 4 GPUs, what overlap_grad_reduce and
// overlap_param_gather change, and the memory per parameter against Megatron-LM's table (docs/user-guide/features/
// dist_optimizer.md). The bucket layout's own closed forms: tests/sim/parallel/framework_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sim/collectives/collective.hpp"
#include "sim/core/error.hpp"
#include "sim/parallel/framework.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/scenario/load.hpp"

namespace dtsim::run {
namespace {

constexpr double kLaunch_s = 10e-6;

scenario::Scenario megatron(std::vector<std::string> overrides) {
  for (const char* o : {"model.name=gpt2_small", "workers=4", "batch_size=1", "gpu.precision=fp32",
                        "gpu.collective_launch=10us", "strategy.fidelity=analytic", "parallel.framework=megatron"})
    overrides.insert(overrides.begin(), o);
  return scenario::load_default_scenario(overrides);
}

std::vector<TraceEvent> events(const RunResult& r, const std::string& lane, const std::string& category) {
  std::vector<TraceEvent> out;
  for (const TraceEvent& e : r.events)
    if (e.worker == 0 && e.lane == lane && e.category == category) out.push_back(e);
  std::sort(out.begin(), out.end(), [](const TraceEvent& a, const TraceEvent& b) { return a.start_s < b.start_s; });
  return out;
}

void expect_time(double simulated, double expected) { EXPECT_NEAR(simulated, expected, 1e-9 * std::abs(expected)); }

/// The model's parameter tensors in forward order, and each one's unit (the layers before the first block, each
/// block, the layers after the last).
struct Tensors {
  std::vector<std::int64_t> elements;
  std::vector<int> unit;
  int units = 0;
};
Tensors tensors_of(const models::Model& m) {
  Tensors t;
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    if (i == 0 || m.layers[i].block != m.layers[i - 1].block) ++t.units;
    for (const models::Tensor& x : m.layers[i].tensors) {
      t.elements.push_back(x.numel());
      t.unit.push_back(t.units - 1);
    }
  }
  return t;
}

/// Ring reduce-scatter or all-gather of `bytes` over the 4 GPUs of one node: half a ring all-reduce.
double half_ring_s(const scenario::Scenario& s, double bytes) {
  return collectives::make_collective("ring")->closed_form_s({4, 4}, bytes, platform::link_costs(s.platform)) / 2;
}

// Distributed optimizer, overlap_grad_reduce with 20M-element buckets: each bucket (fp32 gradients, padded as
// Megatron lays it out) is reduce-scattered once the backward of its first tensor's unit ends, the data stream
// running them in order; after the step each bucket's fp32 parameters are all-gathered, back to back.
TEST(Megatron, ReduceScatterAndAllGatherPerBucketInClosedForm) {
  const scenario::Scenario s = megatron({"parallel.sharding=zero1", "parallel.overlap_grad_reduce=true",
                                         "parallel.bucket_size=20000000", "iterations=1"});
  const RunResult r = run_simulation(s);
  const Tensors t = tensors_of(s.model);
  const std::vector<parallel::MegatronBucket> buckets = parallel::megatron_buckets(t.elements, 20'000'000, 4, true);
  ASSERT_GT(buckets.size(), 2u);
  const std::vector<TraceEvent> backward = events(r, "compute", "backward");
  ASSERT_EQ(backward.size(), static_cast<std::size_t>(t.units));  // last unit first
  const std::vector<TraceEvent> dp = events(r, "data", "dp");
  ASSERT_EQ(dp.size(), buckets.size());
  double free_s = 0;
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    const double bytes = 4.0 * static_cast<double>(buckets[b].elements);
    EXPECT_EQ(dp[b].bytes, static_cast<std::int64_t>(bytes)) << b;
    const int ready_unit = t.unit[static_cast<std::size_t>(buckets[b].first_tensor)];
    const double ready_s = backward[static_cast<std::size_t>(t.units - 1 - ready_unit)].end_s;
    expect_time(dp[b].start_s, std::max(free_s, ready_s));
    free_s = dp[b].start_s + half_ring_s(s, bytes) + kLaunch_s;
    expect_time(dp[b].end_s, free_s);
  }
  const std::vector<TraceEvent> update = events(r, "compute", "update");
  ASSERT_EQ(update.size(), 1u);
  expect_time(update[0].start_s, free_s);
  const std::vector<TraceEvent> gathers = events(r, "gather", "gather");
  ASSERT_EQ(gathers.size(), buckets.size());
  double at = update[0].end_s;
  for (std::size_t g = 0; g < gathers.size(); ++g) {
    const double bytes = 4.0 * static_cast<double>(buckets[buckets.size() - 1 - g].elements);  // forward order
    EXPECT_EQ(gathers[g].bytes, static_cast<std::int64_t>(bytes)) << g;
    expect_time(gathers[g].start_s, at);
    at += half_ring_s(s, bytes) + kLaunch_s;
    expect_time(gathers[g].end_s, at);
  }
  expect_time(r.iterations[0].end_s, at);
}

// Without overlap_grad_reduce the chunk is one bucket (bucket_size None), reduce-scattered after the backward: the
// iteration is longer by what the buckets hid.
TEST(Megatron, OverlapGradReduceHidesTheReduceScatters) {
  const scenario::Scenario s = megatron({"parallel.sharding=zero1", "iterations=1"});
  EXPECT_FALSE(s.parallel.framework.overlap_grad_reduce);
  EXPECT_FALSE(s.parallel.framework.overlap_param_gather);
  const RunResult off = run_simulation(s);
  const Tensors t = tensors_of(s.model);
  const std::vector<parallel::MegatronBucket> one = parallel::megatron_buckets(t.elements, 0, 4, true);
  ASSERT_EQ(one.size(), 1u);
  const std::vector<TraceEvent> dp = events(off, "data", "dp");
  ASSERT_EQ(dp.size(), 1u);
  const double bytes = 4.0 * static_cast<double>(one[0].elements);
  EXPECT_EQ(dp[0].bytes, static_cast<std::int64_t>(bytes));
  expect_time(dp[0].start_s, events(off, "compute", "backward").back().end_s);
  expect_time(dp[0].end_s - dp[0].start_s, half_ring_s(s, bytes) + kLaunch_s);
  const RunResult on = run_simulation(megatron({"parallel.sharding=zero1", "parallel.overlap_grad_reduce=true",
                                                "iterations=1"}));
  // Megatron's default bucket at 4 ranks: 40M elements.
  EXPECT_EQ(events(on, "data", "dp").size(),
            parallel::megatron_buckets(t.elements, 40'000'000, 4, true).size());
  EXPECT_LT(on.mean_iteration_s, off.mean_iteration_s);
}

// overlap_param_gather: each bucket's all-gather runs in the next forward, the first when the first layer's forward
// is due and each next one behind it on the stream; the forward waits only for its own buckets.
TEST(Megatron, OverlapParamGatherMovesTheAllGathersIntoTheForward) {
  const std::vector<std::string> base{"parallel.sharding=zero1", "parallel.overlap_grad_reduce=true",
                                      "parallel.bucket_size=20000000", "iterations=2"};
  std::vector<std::string> with = base;
  with.push_back("parallel.overlap_param_gather=true");
  const RunResult off = run_simulation(megatron(base));
  const RunResult on = run_simulation(megatron(with));
  EXPECT_LT(on.mean_iteration_s, off.mean_iteration_s);
  const std::vector<TraceEvent> gathers = events(on, "gather", "gather");
  const std::vector<TraceEvent> forward = events(on, "compute", "forward");
  const std::vector<TraceEvent> update = events(on, "compute", "update");
  ASSERT_EQ(update.size(), 2u);
  ASSERT_EQ(gathers.size() % 2, 0u);
  const std::size_t per_iteration = gathers.size() / 2;
  // The second iteration's gathers: after the first step, in order on the stream, the first forward behind the first.
  expect_time(gathers[per_iteration].start_s, update[0].end_s);
  for (std::size_t g = per_iteration + 1; g < gathers.size(); ++g) EXPECT_GE(gathers[g].start_s, gathers[g - 1].end_s - 1e-12);
  const auto second = std::find_if(forward.begin(), forward.end(),
                                   [&](const TraceEvent& e) { return e.start_s >= update[0].end_s; });
  ASSERT_NE(second, forward.end());
  expect_time(second->start_s, gathers[per_iteration].end_s);
  EXPECT_LT(gathers.back().start_s, update[1].start_s);  // hidden behind the forward and backward, not after the step
}

// Bytes per parameter of the weights, gradients and optimizer state (Adam) with the distributed optimizer over d = 4
// ranks, against Megatron-LM's table: fp16 parameters and gradients 4 + 16/d, bf16 with fp32 gradients 6 + 12/d,
// fp32 8 + 8/d.
TEST(Megatron, MemoryPerParameterAsMegatronsTable) {
  const struct {
    const char* precision;
    double bytes;
  } table[] = {{"fp16", 4 + 16.0 / 4}, {"bf16", 6 + 12.0 / 4}, {"fp32", 8 + 8.0 / 4}};
  for (const auto& row : table) {
    const scenario::Scenario s = megatron({"platform=dgx_a100", "parallel.sharding=zero1",
                                           std::string("gpu.precision=") + row.precision,
                                           "iterations=1", "memory.optimizer=adam"});
    const RunResult r = run_simulation(s);
    double states = 0;
    for (const memory::MemoryItem& i : r.memory.items)
      if (i.name == "weights" || i.name == "gradients" || i.name == "optimizer state" ||
          i.name == "fp32 main-gradient shard")
        states += i.bytes;
    EXPECT_NEAR(states / static_cast<double>(s.model.parameter_count()), row.bytes, 1e-9) << row.precision;
  }
}

std::string refusal(std::vector<std::string> overrides) {
  try {
    megatron(std::move(overrides));
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "not refused";
}

TEST(Megatron, RefusesWhatMegatronCannotRun) {
  EXPECT_NE(refusal({"parallel.sharding=zero3"}).find("contiguous buffer"), std::string::npos);
  EXPECT_NE(refusal({"parallel.sharding=zero1", "parallel.overlap_param_gather=true"}).find("--overlap-grad-reduce"),
            std::string::npos);
  EXPECT_NE(refusal({"parallel.overlap_grad_reduce=true", "parallel.overlap_param_gather=true"})
                .find("no updated parameters are gathered"),
            std::string::npos);
  EXPECT_NE(refusal({"parallel.bucket_size=1000"}).find("one bucket"), std::string::npos);
  EXPECT_NE(refusal({"strategy.scheduler=fusion"}).find("its own gradient buckets"), std::string::npos);
}

}  // namespace
}  // namespace dtsim::run
