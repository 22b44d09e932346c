// Stragglers, failures and measured times on parallel layouts: closed forms on a free network (every transfer
// takes no time, so an iteration is its computation and its waits), the analytic level against the flow level,
// the same seed giving the same times. SimGrid allows one engine per process: a test runs at most one simulated
// level.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "sim/run/run_simulation.hpp"
#include "sim/scenario/load.hpp"
#include "tests/sim/star.hpp"

namespace dtsim::run {
namespace {

void expect_same_time(double simulated, double expected) {
  EXPECT_NEAR(simulated, expected, 1e-9 * std::abs(expected));
}

/// GPT-2 small on `workers` hosts of a star whose links take no time, with no launch cost and no slowdown under
/// overlap: the closed forms are sums of compute times.
scenario::Scenario free(std::vector<std::string> overrides, const std::string& fidelity = "analytic") {
  overrides.insert(overrides.begin(), {"model.name=gpt2_small", "iterations=1"});
  overrides.insert(overrides.end(), {"strategy.fidelity=" + fidelity, "gpu.overlap_slowdown=1",
                                     "gpu.collective_launch=\"0s\""});
  scenario::Scenario s = scenario::load_default_scenario(overrides);
  s.platform = testing::star(s.workers, 1e30, 0);
  return s;
}

const Breakdown& of(const RunResult& r, int worker) { return r.iterations.at(0).per_worker.at(static_cast<std::size_t>(worker)); }

// Pipeline 2 x data 2, one micro-batch: stage 0 forward (F0), stage 1 forward and backward (F1, B1), stage 0
// backward (B0), then every stage's step (U0, U1) once the gradient norm went round. Rank 3 (stage 1 of replica 1)
// computes f times slower: T = F0 + f (F1 + B1) + B0 + max(U0, f U1), and every rank waits for it (its data group
// at stage 1's reductions, the other replica's stage 0 through its own reductions with stage 0 of replica 1).
TEST(LayoutStragglers, OneSlowRankStretchesItsStageOfThePipeline) {
  const std::vector<std::string> layout{"workers=4", "batch_size=4", "parallel.pipeline=2"};
  const RunResult nominal = run_simulation(free(layout));
  std::vector<std::string> slow = layout;
  slow.insert(slow.end(), {"stragglers.slow_workers=[3]", "stragglers.slow_factor=1.5"});
  const RunResult r = run_simulation(free(slow));
  const double f = 1.5;
  const Breakdown& s0 = of(nominal, 0);
  const Breakdown& s1 = of(nominal, 1);
  const double expected = s0.forward_s + f * (s1.forward_s + s1.backward_s) + s0.backward_s +
                          std::max(s0.update_s, f * s1.update_s);
  expect_same_time(r.iterations.at(0).time_s, expected);
  expect_same_time(of(r, 3).forward_s, f * s1.forward_s);
  expect_same_time(of(r, 1).forward_s, s1.forward_s);  // its data-parallel partner computes at nominal speed
  EXPECT_GT(of(r, 1).exposed_comm_s, of(nominal, 1).exposed_comm_s);
}

/// The end of `worker`'s first tensor-parallel collective.
double first_tp_end(const RunResult& r, int worker) {
  const auto at = std::find_if(r.events.begin(), r.events.end(),
                               [&](const TraceEvent& e) { return e.worker == worker && e.lane == "tensor"; });
  EXPECT_NE(at, r.events.end());
  return at == r.events.end() ? -1 : at->end_s;
}

// Tensor 2 x data 2, one micro-batch: rank 0 computes f times slower. Its tensor partner (rank 1) waits for it at
// every tensor-parallel all-reduce; the other tensor group (ranks 2, 3) runs its own at nominal speed, and only its
// data-parallel reductions and so its step wait: rank 2 ends f (F + B) + U after the start, rank 0 f (F + B + U).
TEST(LayoutStragglers, SlowRankDelaysOnlyItsTensorGroupButTheReductionWaitsForIt) {
  const std::vector<std::string> layout{"workers=4", "batch_size=4", "parallel.tensor=2"};
  const RunResult nominal = run_simulation(free(layout));
  std::vector<std::string> slow = layout;
  slow.insert(slow.end(), {"stragglers.slow_workers=[0]", "stragglers.slow_factor=2"});
  const RunResult r = run_simulation(free(slow));
  const double f = 2;
  const Breakdown& n = of(nominal, 0);
  expect_same_time(r.iterations.at(0).time_s, f * (n.forward_s + n.backward_s + n.update_s));
  expect_same_time(first_tp_end(r, 0), f * first_tp_end(nominal, 0));
  expect_same_time(first_tp_end(r, 1), first_tp_end(r, 0));
  expect_same_time(first_tp_end(r, 2), first_tp_end(nominal, 2));
  expect_same_time(of(r, 2).forward_s, n.forward_s);
  expect_same_time(of(r, 2).exposed_comm_s, (f - 1) * (n.forward_s + n.backward_s));
  expect_same_time(of(r, 2).idle_s, (f - 1) * n.update_s);
}

// Noise on every rank of tensor 2 x pipeline 2 x data 2 with 4 micro-batches: the analytic level's classes of ranks
// and the flow level's every rank agree where no transfer shares a link (a star of private links).
const std::vector<std::string> kNoisy{"workers=8", "batch_size=4", "parallel.tensor=2", "parallel.pipeline=2",
                                      "parallel.micro_batch=1", "iterations=2", "stragglers.noise=\"lognormal\"",
                                      "stragglers.noise_scale=0.2", "stragglers.seed=7",
                                      "stragglers.slow_workers=[5]"};

/// Every rank's breakdown and summary in both iterations: the analytic level's marks are one list per class of ranks
/// (Timeline::marks_of), the flow level's one per rank.
void expect_same_ranks(const RunResult& analytic, const RunResult& flow) {
  ASSERT_EQ(analytic.iterations.size(), 2u);
  ASSERT_EQ(flow.iterations.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) expect_same_time(flow.iterations[i].end_s, analytic.iterations[i].end_s);
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t w = 0; w < 8; ++w) {
      const Breakdown& a = analytic.iterations[i].per_worker[w];
      const Breakdown& f = flow.iterations[i].per_worker[w];
      expect_same_time(f.forward_s, a.forward_s);
      expect_same_time(f.backward_s, a.backward_s);
      expect_same_time(f.update_s, a.update_s);
      expect_same_time(f.exposed_comm_s, a.exposed_comm_s);
      expect_same_time(f.idle_s, a.idle_s);
    }
  for (std::size_t w = 0; w < 8; ++w) {
    EXPECT_EQ(flow.workers[w].iterations, analytic.workers[w].iterations);
    expect_same_time(flow.workers[w].waiting_s, analytic.workers[w].waiting_s);
  }
}

TEST(LayoutStragglers, AnalyticAgreesWithFlow) {
  expect_same_ranks(run_simulation(free(kNoisy)), run_simulation(free(kNoisy, "flow")));
}

// One slow rank and no noise: the analytic level runs classes of ranks (rank_classes), ranks of one class sharing
// one list of marks, and every rank still has the flow level's breakdown.
const std::vector<std::string> kOneSlow{"workers=8", "batch_size=4", "parallel.tensor=2", "parallel.pipeline=2",
                                        "parallel.micro_batch=1", "iterations=2", "stragglers.slow_workers=[5]",
                                        "stragglers.slow_factor=1.5"};

TEST(LayoutStragglers, SharedMarksOfClassesAgreeWithFlowsEveryRank) {
  expect_same_ranks(run_simulation(free(kOneSlow)), run_simulation(free(kOneSlow, "flow")));
}

TEST(LayoutStragglers, SameSeedSameTimesAnotherSeedOthers) {
  const RunResult a = run_simulation(free(kNoisy));
  const RunResult b = run_simulation(free(kNoisy));
  std::vector<std::string> other = kNoisy;
  other.push_back("stragglers.seed=8");
  const RunResult c = run_simulation(free(other));
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(a.iterations[i].end_s, b.iterations[i].end_s);
    EXPECT_NE(a.iterations[i].end_s, c.iterations[i].end_s);
  }
  const RunResult nominal = run_simulation(free({"workers=8", "batch_size=4", "parallel.tensor=2",
                                                 "parallel.pipeline=2", "parallel.micro_batch=1", "iterations=2"}));
  EXPECT_GT(a.iterations[0].time_s, nominal.iterations[0].time_s);
}

// A crash stops a layout's job at once (every group needs all its ranks, as an all-reduce does): the iterations
// that ended before it count, and the report says when and why.
TEST(LayoutFailures, CrashStopsTheJob) {
  const std::vector<std::string> layout{"workers=8", "batch_size=4", "parallel.tensor=2", "parallel.pipeline=2",
                                        "parallel.micro_batch=1", "iterations=3"};
  const RunResult nominal = run_simulation(free(layout));  // analytic: no engine
  scenario::Scenario s = free(layout, "flow");
  scenario::Failure crash;
  crash.worker = 5;
  crash.at_s = 1.5 * nominal.iterations[0].time_s;
  s.failures = {crash};
  const RunResult r = run_simulation(s);
  ASSERT_EQ(r.iterations.size(), 1u);
  expect_same_time(r.iterations[0].end_s, nominal.iterations[0].end_s);
  EXPECT_NE(r.stopped.find("worker 5 crashed; the job cannot go on without worker 5"), std::string::npos) << r.stopped;
  EXPECT_DOUBLE_EQ(r.stopped_at_s, crash.at_s);
  ASSERT_EQ(r.failures.size(), 1u);
  // The critical path is the completed iteration's, not the one the crash cut short.
  ASSERT_FALSE(r.critical_path.empty());
  expect_same_time(r.critical_path.back().end_s, r.iterations[0].end_s);
}

// A link that goes down under a transfer breaks it: the sending rank's process aborts and the job stops then.
TEST(LayoutFailures, LinkDownUnderATransferStopsTheJob) {
  scenario::Scenario s = free({"workers=4", "batch_size=4", "parallel.tensor=2", "iterations=2"}, "flow");
  s.platform = testing::star(4, 1e6, 0);  // 1 MB/s: the first tensor-parallel all-reduce takes seconds
  scenario::Failure down;
  down.link = "link1_UP";
  down.at_s = 1.0;
  s.failures = {down};
  const RunResult r = run_simulation(s);
  EXPECT_TRUE(r.iterations.empty());
  EXPECT_NE(r.stopped.find("connection of worker"), std::string::npos) << r.stopped;
  EXPECT_DOUBLE_EQ(r.stopped_at_s, 1.0);
}

// Measured layer times (scenarios/layers/measured_cnn.csv, measured at batch 128) under gradient accumulation over
// micro-batches of 32: each micro-batch takes 32 / 128 of the measured times, so an iteration computes exactly the
// measured forward and backward.
TEST(LayoutMeasuredTimes, MeasuredLayersScaleWithTheMicroBatch) {
  scenario::Scenario s = scenario::load_scenario(
      std::string(DTSIM_SOURCE_DIR) + "/scenarios/measured_layers.toml",
      {"iterations=1", "parallel.micro_batch=32", "strategy.fidelity=analytic", "gpu.overlap_slowdown=1"});
  s.platform = testing::star(s.workers, 1e30, 0);
  double forward = 0, backward = 0;
  for (const models::Layer& l : s.model.layers) forward += l.measured->forward_s, backward += l.measured->backward_s;
  const RunResult r = run_simulation(s);
  expect_same_time(of(r, 0).forward_s, forward);
  expect_same_time(of(r, 0).backward_s, backward);
  EXPECT_NE(r.info.architecture.find("measured layer times x micro_batch / batch = 32 / 128"), std::string::npos)
      << r.info.architecture;
}

// A measured single-GPU iteration calibrates the modelled times at batch_size: under ZeRO-2 at that batch each of
// the 4 ranks computes the whole forward and backward and a quarter of the step, which add up to it.
TEST(LayoutMeasuredTimes, MeasuredIterationCalibratesAtTheBatch) {
  const RunResult r = run_simulation(free({"workers=4", "batch_size=4", "parallel.sharding=\"zero2\"",
                                           "gpu.measured_iteration_time=\"2s\""}));
  expect_same_time(of(r, 0).forward_s + of(r, 0).backward_s + 4 * of(r, 0).update_s, 2.0);
  expect_same_time(r.single_worker_iteration_s, 2.0);
}

}  // namespace
}  // namespace dtsim::run
