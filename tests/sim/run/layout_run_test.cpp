// Scenarios with a [parallel] layout: loading and refusals, ZeRO-3's traffic against data parallelism, and the
// memory refusal with its per-stage totals.
#include "sim/run/layout_run.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/scenario/load.hpp"

namespace dtsim::run {
namespace {

/// The default scenario (16 V100s, 4 a node) with `overrides`, at the analytic level.
scenario::Scenario with(std::vector<std::string> overrides) {
  overrides.push_back("strategy.fidelity=analytic");
  return scenario::load_default_scenario(overrides);
}

std::string refusal(std::vector<std::string> overrides) {
  try {
    run_simulation(with(std::move(overrides)));
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "not refused";
}

TEST(LayoutScenario, RefusesWhatDoesNotFit) {
  EXPECT_NE(refusal({"parallel.tensor=3"}).find("does not divide workers"), std::string::npos);
  EXPECT_NE(refusal({"parallel.tensor=2", "parallel.data=4"}).find("data = 8"), std::string::npos);
  EXPECT_NE(refusal({"parallel.micro_batch=5"}).find("does not divide batch_size"), std::string::npos);
  EXPECT_NE(refusal({"parallel.tensor=2"}).find("has none"), std::string::npos);  // resnet50 has no transformer layers
  EXPECT_NE(refusal({"model.name=gpt2_small", "parallel.pipeline=2", "parallel.sharding=zero3"}).find("pipeline"),
            std::string::npos);
  EXPECT_NE(refusal({"model.name=gpt2_small", "parallel.pipeline=5"}).find("does not divide"), std::string::npos);
  EXPECT_NE(refusal({"model.name=gpt2_small", "parallel.tensor=8"}).find("12 attention heads"), std::string::npos);
  EXPECT_NE(refusal({"model.name=gpt2_small", "parallel.pipeline=2", "parallel.schedule=interleaved",
                     "parallel.virtual_stages=2", "parallel.micro_batch=32"})
                .find("multiple of the pipeline stages"),
            std::string::npos);  // one micro-batch on two stages
  EXPECT_NE(refusal({"parallel.schedule=gpipe"}).find("schedule"), std::string::npos);  // no pipeline: not read
  EXPECT_NE(refusal({"model.name=gpt2_small", "parallel.sharding=zero2", "compression.compressor=topk"})
                .find("compress"),
            std::string::npos);
}

TEST(LayoutScenario, ZeroThreeMovesOneAndAHalfTimesDataParallelBytes) {
  // GPT-2 small in fp32 over 4 data-parallel ranks, one micro-batch: data parallelism all-reduces every
  // gradient once (a ring: 2 (d-1)/d of its bytes per rank), ZeRO-3 gathers every parameter twice and
  // reduce-scatters every gradient ((d-1)/d each).
  const std::vector<std::string> base{"model.name=gpt2_small", "workers=4", "batch_size=1", "iterations=1"};
  std::vector<std::string> zero3 = base;
  zero3.push_back("parallel.sharding=zero3");
  const RunResult dp = run_simulation(with(base));
  const RunResult z3 = run_simulation(with(zero3));
  EXPECT_EQ(2 * z3.traffic[0].bytes_sent, 3 * dp.traffic[0].bytes_sent);
  EXPECT_EQ(z3.memory.items[0].name, "weights");
  EXPECT_DOUBLE_EQ(z3.memory.items[0].bytes * 4, dp.memory.items[0].bytes);  // a quarter of the weights each
}

TEST(LayoutScenario, ReportsTheLayoutAndEveryStage) {
  const RunResult r = run_simulation(with({"model.name=gpt2_small", "parallel.tensor=2", "parallel.pipeline=2",
                                           "parallel.micro_batch=8", "gpu.precision=fp16"}));
  EXPECT_NE(r.info.architecture.find("tensor 2 x pipeline 2 x data 4"), std::string::npos);
  EXPECT_EQ(r.info.replicas, 4);
  EXPECT_DOUBLE_EQ(r.samples_per_s * r.mean_iteration_s, 4.0 * 32);
  // Stage 1's lowest rank (2) is traced besides the first workers.
  EXPECT_TRUE(std::any_of(r.events.begin(), r.events.end(), [](const TraceEvent& e) { return e.worker == 2; }));
  EXPECT_GT(r.mfu, 0);
  EXPECT_FALSE(r.critical_path.empty());
  for (const char* lane : {"compute", "tensor", "data", "pipeline"})
    EXPECT_TRUE(std::any_of(r.events.begin(), r.events.end(), [&](const TraceEvent& e) { return e.lane == lane; }))
        << lane;
}

// Without a timeline only worker 0's events are kept (the report's exchanges in flight read them, nothing else):
// the same events as with one, and the same times.
TEST(LayoutScenario, WithoutATimelineOnlyWorkerZerosEventsAreKept) {
  const std::vector<std::string> layout{"model.name=gpt2_small", "parallel.tensor=2", "parallel.pipeline=2",
                                        "parallel.micro_batch=8", "gpu.precision=fp16"};
  std::vector<std::string> off = layout;
  off.push_back("output.timeline=false");
  const RunResult with_timeline = run_simulation(with(layout)), without = run_simulation(with(off));
  using Event = std::tuple<std::string, std::string, double, double, std::int64_t>;
  const auto worker0 = [](const RunResult& r) {
    std::vector<Event> events;
    for (const TraceEvent& e : r.events)
      if (e.worker == 0) events.emplace_back(e.lane, e.name, e.start_s, e.end_s, e.bytes);
    std::sort(events.begin(), events.end());  // the order of ties is the sort's
    return events;
  };
  EXPECT_TRUE(
      std::all_of(without.events.begin(), without.events.end(), [](const TraceEvent& e) { return e.worker == 0; }));
  EXPECT_FALSE(without.events.empty());
  EXPECT_EQ(worker0(without), worker0(with_timeline));
  EXPECT_LT(without.events.size(), with_timeline.events.size());
  EXPECT_EQ(without.mean_iteration_s, with_timeline.mean_iteration_s);
}

TEST(LayoutScenario, ComputationBesideCollectivesSlowsByTheOverlapFactor) {
  // ZeRO-3's gathers run beside the computation they prefetch for: a slower overlap lengthens the iteration;
  // without overlap slowdown the computation alone is the same.
  const std::vector<std::string> base{"model.name=gpt2_small", "workers=4", "batch_size=2", "parallel.sharding=zero3"};
  std::vector<std::string> plain = base, slowed = base;
  plain.push_back("gpu.overlap_slowdown=1");
  slowed.push_back("gpu.overlap_slowdown=1.5");
  const RunResult a = run_simulation(with(plain)), b = run_simulation(with(slowed));
  EXPECT_GT(b.mean_iteration_s, a.mean_iteration_s);
  EXPECT_DOUBLE_EQ(b.info.overlap_slowdown, 1.5);
}

TEST(LayoutScenario, RefusesALayoutThatDoesNotFitWithEveryStage) {
  const std::string why = refusal({"model.name=gpt3_2_7b", "parallel.pipeline=2", "batch_size=8",
                                   "gpu.precision=fp16", "memory.optimizer=adam"});
  EXPECT_NE(why.find("per stage: stage 0:"), std::string::npos) << why;
  EXPECT_NE(why.find("more tensor, context or pipeline parallelism"), std::string::npos);
}

}  // namespace
}  // namespace dtsim::run
