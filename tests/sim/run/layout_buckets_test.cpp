// The data dimension of a layout takes the scheduler's buckets and the compressor's work (issue 28): each
// bucket's exchange on the stage's data-parallel group timed in closed form, the refusals that keep physics, wfbp
// unchanged, and the flow level agreeing with the analytic one where no two groups share a link.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "compressors/registry.hpp"
#include "sim/collectives/block_collective.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/core/error.hpp"
#include "sim/memory/activations.hpp"
#include "sim/parallel/workload.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/run/stage_buckets.hpp"
#include "sim/scenario/load.hpp"
#include "sim/scenario/parallel_section.hpp"

namespace dtsim::run {
namespace {

scenario::Scenario at(std::vector<std::string> overrides, const std::string& fidelity = "analytic") {
  overrides.push_back("strategy.fidelity=" + fidelity);
  return scenario::load_default_scenario(overrides);
}

std::string refusal(std::vector<std::string> overrides, const std::string& fidelity = "analytic") {
  try {
    run_simulation(at(std::move(overrides), fidelity));
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "not refused";
}

/// Worker `w`'s events of `lane` whose category is `category`, in time order.
std::vector<TraceEvent> events(const RunResult& r, int w, const std::string& lane, const std::string& category) {
  std::vector<TraceEvent> out;
  for (const TraceEvent& e : r.events)
    if (e.worker == w && e.lane == lane && e.category == category) out.push_back(e);
  std::sort(out.begin(), out.end(), [](const TraceEvent& a, const TraceEvent& b) { return a.start_s < b.start_s; });
  return out;
}

void expect_time(double simulated, double expected) { EXPECT_NEAR(simulated, expected, 1e-9 * std::abs(expected)); }

/// Parameters of each unit of `m` (the layers before the first block, each block, the layers after the last).
std::vector<std::int64_t> unit_parameters(const models::Model& m) {
  std::vector<std::int64_t> units;
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    if (i == 0 || m.layers[i].block != m.layers[i - 1].block) units.push_back(0);
    units.back() += m.layers[i].parameter_count();
  }
  return units;
}

constexpr double kLaunch_s = 10e-6;

// GPT-2 small in fp32 on one node of 4 V100s, data parallelism only, 2 micro-batches of 1: a layout (micro_batch <
// batch_size). Horovod's fusion with a cycle longer than a backward pass and a 60 MiB buffer: every unit is ready
// in the first cycle, fused greedily from the last (the final layer norm with blocks 11 and 10, then pairs of
// blocks, then the embeddings alone), issued one cycle after the last backward pass starts and run back to back.
TEST(LayoutBuckets, FusionBucketsOfADataParallelLayoutInClosedForm) {
  const scenario::Scenario s =
      at({"model.name=gpt2_small", "workers=4", "batch_size=2", "parallel.micro_batch=1", "gpu.precision=fp32",
          "strategy.scheduler=fusion", "strategy.fusion.threshold=60MiB", "strategy.fusion.cycle_time=5s",
          "gpu.collective_launch=10us", "iterations=1"});
  const RunResult r = run_simulation(s);
  const std::vector<std::int64_t> units = unit_parameters(s.model);
  ASSERT_EQ(units.size(), 14u);  // embeddings, 12 blocks, final layer norm
  std::vector<std::int64_t> expected{4 * (units[13] + units[12] + units[11])};
  for (int b = 10; b > 0; b -= 2) expected.push_back(4 * (units[static_cast<std::size_t>(b)] + units[static_cast<std::size_t>(b - 1)]));
  expected.push_back(4 * units[0]);
  const std::vector<TraceEvent> dp = events(r, 0, "data", "dp");
  ASSERT_EQ(dp.size(), expected.size());
  EXPECT_EQ(r.info.buckets, static_cast<std::int64_t>(expected.size()));
  const auto ring = collectives::make_collective("ring");
  const collectives::LinkCosts costs = platform::link_costs(s.platform);
  // The last backward pass starts when the last micro-batch's forward ends.
  const std::vector<TraceEvent> backward = events(r, 0, "compute", "backward");
  const auto last_pass = std::find_if(backward.begin(), backward.end(),
                                      [](const TraceEvent& e) { return e.name.rfind("B1 ", 0) == 0; });
  ASSERT_NE(last_pass, backward.end());
  double start = last_pass->start_s + 5.0;
  for (std::size_t b = 0; b < dp.size(); ++b) {
    EXPECT_EQ(dp[b].bytes, expected[b]) << b;
    expect_time(dp[b].start_s, start);
    start += ring->closed_form_s({4, 4}, static_cast<double>(expected[b]), costs) + kLaunch_s;
    expect_time(dp[b].end_s, start);
  }
  const std::vector<TraceEvent> update = events(r, 0, "compute", "update");
  ASSERT_EQ(update.size(), 1u);
  expect_time(update[0].start_s, start);
  expect_time(r.iterations[0].end_s, update[0].end_s);
}

// GPT-2 small in fp32 on 8 V100s (two nodes of 4), pipeline 2 x data 4 (data groups {0, 2, 4, 6} and {1, 3, 5, 7}:
// two GPUs a node), top-k (1 %) with error feedback at a fixed 20 GB/s kernel throughput: per unit (wfbp), compress
// (one pass over its fp32 gradient), a ring all-gather of every rank's top-k payload, decompress and sum the 4
// payloads (4 passes).
TEST(LayoutBuckets, TopKOnAPipelineByDataLayoutInClosedForm) {
  const scenario::Scenario s =
      at({"model.name=gpt2_small", "workers=8", "batch_size=2", "parallel.micro_batch=1", "parallel.pipeline=2",
          "gpu.precision=fp32", "compression.compressor=topk", "compression.error_feedback=residual",
          "compression.kernel_time=20GBps", "gpu.collective_launch=10us", "gpu.overlap_slowdown=1",
          "iterations=1"});
  const RunResult r = run_simulation(s);
  EXPECT_NE(r.info.compression.find("topk"), std::string::npos);
  // The residual of error feedback is one fp32 gradient of the stage: at least the stage's largest unit.
  const auto buffers = std::find_if(r.memory.items.begin(), r.memory.items.end(),
                                    [](const memory::MemoryItem& i) { return i.name == "compression buffers"; });
  ASSERT_NE(buffers, r.memory.items.end());
  const std::vector<std::int64_t> units = unit_parameters(s.model);
  const auto ring = collectives::make_allgatherv("ring");
  const collectives::LinkCosts costs = platform::link_costs(s.platform);
  const auto topk = compressors::make_compressor("topk", {});
  EXPECT_GE(buffers->bytes, 4.0 * static_cast<double>(units[0]));
  for (const int worker : {0, 1}) {  // stage 0 (embeddings, blocks 0-5), stage 1 (blocks 6-11, final layer norm)
    const std::vector<TraceEvent> work = events(r, worker, "data", "compress");
    const std::vector<TraceEvent> dp = events(r, worker, "data", "dp");
    ASSERT_EQ(dp.size(), 7u);
    ASSERT_EQ(work.size(), 14u);
    for (std::size_t b = 0; b < dp.size(); ++b) {
      // Launch order: the stage's last unit first.
      const std::size_t unit = worker == 0 ? 6 - b : 13 - b;
      const std::int64_t n = units[unit];
      const double pass_s = 4.0 * static_cast<double>(n) / 20e9;
      const TraceEvent& compress = work[2 * b];
      const TraceEvent& decompress = work[2 * b + 1];
      expect_time(compress.end_s - compress.start_s, pass_s);
      expect_time(dp[b].start_s, compress.end_s);
      compressors::Compressed msg;
      topk->compress(std::vector<float>(static_cast<std::size_t>(n), 1.0f), 0, msg);
      EXPECT_EQ(dp[b].bytes, 4 * msg.wire_size);
      expect_time(dp[b].end_s - dp[b].start_s,
                  ring->closed_form_s({4, 2}, std::vector<std::int64_t>(4, msg.wire_size), costs) + kLaunch_s);
      expect_time(decompress.start_s, dp[b].end_s);
      expect_time(decompress.end_s - decompress.start_s, 4 * pass_s);
    }
  }
}

// The default scheduler keeps one reduction per unit after its last backward, as layouts always had.
TEST(LayoutBuckets, WfbpReducesEachUnitOnce) {
  const scenario::Scenario s = at({"model.name=gpt2_small", "workers=4", "batch_size=2", "parallel.micro_batch=1",
                                   "gpu.precision=fp32", "iterations=1"});
  const RunResult r = run_simulation(s);
  const std::vector<std::int64_t> units = unit_parameters(s.model);
  const std::vector<TraceEvent> dp = events(r, 0, "data", "dp");
  ASSERT_EQ(dp.size(), units.size());
  for (std::size_t b = 0; b < dp.size(); ++b) EXPECT_EQ(dp[b].bytes, 4 * units[units.size() - 1 - b]);
  EXPECT_EQ(r.info.buckets, static_cast<std::int64_t>(units.size()));
}

// The default scheduler through the planner builds the very graph of one reduction per unit (no planner) on a
// TP 2 x PP 2 layout with interleaved chunks and ZeRO-1: each unit one bucket, issued where it always was.
TEST(LayoutBuckets, WfbpPlannerBuildsTheGraphOfOneReductionPerUnit) {
  const scenario::Scenario s =
      at({"model.name=gpt2_small", "workers=16", "batch_size=8", "parallel.micro_batch=1", "parallel.tensor=2",
          "parallel.pipeline=2", "parallel.schedule=interleaved", "parallel.virtual_stages=2",
          "parallel.sharding=zero1", "gpu.precision=fp16"});
  const parallel::Layout layout = scenario::layout_of(s);
  const parallel::Placement placement(layout, s.platform.gpus_per_node);
  parallel::WorkloadInput in;
  in.model = &s.model;
  in.times = models::layer_times(s.model, s.gpu, layout.micro_batch, s.precision, std::nullopt,
                                 models::optimizer(s.memory.optimizer), layout.tensor);
  in.recomputed.assign(s.model.layers.size(), false);
  in.precision = s.precision;
  in.gradient_dtype = s.gradient_dtype;
  in.micro_batches = scenario::micro_batches(s);
  const parallel::Workload plain = parallel::build_workload(layout, in);
  in.data_planner = stage_planner(s, placement);
  const parallel::Workload planned = parallel::build_workload(layout, in);
  ASSERT_EQ(planned.graph.programs.size(), plain.graph.programs.size());
  for (std::size_t r = 0; r < plain.graph.programs.size(); ++r) {
    const auto& a = plain.graph.programs[r].tasks;
    const auto& b = planned.graph.programs[r].tasks;
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].op, b[i].op);
      EXPECT_EQ(a[i].stream, b[i].stream);
      EXPECT_EQ(a[i].name, b[i].name);
      EXPECT_EQ(a[i].bytes, b[i].bytes);
      EXPECT_EQ(a[i].group, b[i].group);
      ASSERT_EQ(a[i].deps.size(), b[i].deps.size());
      for (std::size_t d = 0; d < a[i].deps.size(); ++d) {
        EXPECT_EQ(a[i].deps[d].task, b[i].deps[d].task);
        EXPECT_EQ(a[i].deps[d].lag_s, b[i].deps[d].lag_s);
      }
    }
  }
}

// ZeRO-2 reduce-scatters DDP-style buckets (DeepSpeed's reduce_bucket_size): fewer, larger reduce-scatters than
// one per unit, the same bytes in all.
TEST(LayoutBuckets, ZeroTwoReduceScattersTheSchedulersBuckets) {
  const std::vector<std::string> base{"model.name=gpt2_small", "workers=4", "batch_size=2", "gpu.precision=fp32",
                                      "parallel.sharding=zero2", "iterations=1"};
  std::vector<std::string> ddp = base;
  ddp.push_back("strategy.scheduler=ddp");
  const RunResult a = run_simulation(at(base)), b = run_simulation(at(ddp));
  const std::vector<TraceEvent> per_unit = events(a, 0, "data", "dp"), buckets = events(b, 0, "data", "dp");
  EXPECT_LT(buckets.size(), per_unit.size());
  std::int64_t x = 0, y = 0;
  for (const TraceEvent& e : per_unit) x += e.bytes;
  for (const TraceEvent& e : buckets) y += e.bytes;
  EXPECT_EQ(x, y);
  EXPECT_EQ(a.traffic[0].bytes_sent, b.traffic[0].bytes_sent);
}

TEST(LayoutBuckets, RefusesWhatPhysicsForbidsWithTheReason) {
  const std::vector<std::string> gpt2{"model.name=gpt2_small", "workers=4", "batch_size=2", "parallel.micro_batch=1"};
  auto with = [&](std::vector<std::string> more, const std::string& fidelity = "analytic") {
    more.insert(more.begin(), gpt2.begin(), gpt2.end());
    return refusal(std::move(more), fidelity);
  };
  // Priority runs only at the message level (its credit); a layout refuses it there for clipping's sake.
  EXPECT_NE(with({"strategy.scheduler=priority"}, "message").find("global norm"), std::string::npos);
  EXPECT_NE(with({"strategy.scheduler=fusion", "parallel.sharding=zero3"}).find("unsharded gradients"), std::string::npos);
  EXPECT_NE(with({"compression.compressor=topk", "parallel.sharding=zero1", "gpu.precision=fp32"})
                .find("shard of the sum"),
            std::string::npos);
  for (const char* scheduler : {"none", "wfbp", "fusion", "ddp", "mg_wfbp", "optimal"})
    EXPECT_EQ(with({std::string("strategy.scheduler=") + scheduler}), "not refused") << scheduler;
}

// TP 2 x PP 2 x DP 2 of GPT-3 125M on one DGX-1, where every group's pair has NVLinks of its own: the flow level
// runs the buckets (DDP) and top-k's compress, all-gather and decompress exactly as the analytic level times them.
// Without the overlap slowdown: the analytic level slows a computation only by the communication placed before it
// in list order, and a compressed bucket's exchange starts after its compress, inside a backward already placed;
// with the V100's default slowdown the flow level's iteration is 29 us (3.7e-5) longer here.
const std::vector<std::string> kThreeD{"platform=dgx1_v100", "workers=8", "model.name=gpt3_125m", "batch_size=4",
                                       "gpu.precision=fp32", "parallel.tensor=2", "parallel.pipeline=2",
                                       "parallel.micro_batch=1", "iterations=2", "strategy.scheduler=ddp",
                                       "compression.compressor=topk", "compression.kernel_time=20GBps"};

TEST(LayoutBuckets, FlowAgreesWithAnalyticOnBucketsAndCompression) {
  std::vector<std::string> plain = kThreeD;
  plain.push_back("gpu.overlap_slowdown=1");
  const RunResult analytic = run_simulation(at(plain, "analytic"));
  const RunResult flow = run_simulation(at(plain, "flow"));
  ASSERT_EQ(flow.iterations.size(), analytic.iterations.size());
  for (std::size_t i = 0; i < flow.iterations.size(); ++i) expect_time(flow.iterations[i].end_s, analytic.iterations[i].end_s);
  ASSERT_EQ(flow.events.size(), analytic.events.size());
  for (std::size_t i = 0; i < flow.events.size(); ++i) {
    EXPECT_EQ(flow.events[i].name, analytic.events[i].name);
    expect_time(flow.events[i].end_s, analytic.events[i].end_s);
  }
  EXPECT_EQ(flow.traffic[0].bytes_sent, analytic.traffic[0].bytes_sent);
}

TEST(LayoutBuckets, FlowAgreesWithAnalyticWithinTheOverlapLagOnBucketsAndCompression) {
  const RunResult analytic = run_simulation(at(kThreeD, "analytic"));
  const RunResult flow = run_simulation(at(kThreeD, "flow"));
  EXPECT_GE(flow.mean_iteration_s, analytic.mean_iteration_s);
  EXPECT_LT(flow.mean_iteration_s - analytic.mean_iteration_s, 1e-4 * analytic.mean_iteration_s);
}

}  // namespace
}  // namespace dtsim::run
