// Launch cost of exchanges and compute slowed while they run (run::CommOverlap), against hand-worked closed
// forms at every level.
#include <gtest/gtest.h>

#include "sim/run/run_simulation.hpp"
#include "sim/run/stragglers.hpp"
#include "tests/sim/run/run_in_child.hpp"
#include "tests/sim/run/scenario_fixture.hpp"

namespace dtsim::run {
namespace {

using scenario::Fidelity;

constexpr Fidelity kLevels[] = {Fidelity::analytic, Fidelity::flow, Fidelity::message};

/// Each level in its own test (SimGrid allows one engine per process).
class CommOverlapAt : public ::testing::TestWithParam<Fidelity> {};

double ring_s(int p, std::int64_t bytes) { return testing::ring_formula_s(p, bytes, testing::star_alpha_beta()); }

/// Two layers on 2 workers: forward 1 ms each, backward b1 (layer 1, first) and b0, `params` parameters each.
scenario::Scenario two_layers(double b1, double b0, std::int64_t params, const std::string& scheduler,
                              Fidelity fidelity, double launch_s, double slowdown) {
  auto s = testing::synthetic(2, {params, params}, {1e-3, 1e-3}, {b0, b1}, scheduler, fidelity);
  s.gpu.collective_launch_s = launch_s;
  s.gpu.overlap_slowdown = slowdown;
  return s;
}

double forward_plus_update_s(const scenario::Scenario& s) {
  double t = 0;
  for (const auto& l : make_iteration_plan(s).layers) t += l.forward_s + l.update_s;
  return t;
}

void expect_iterations(const RunResult& r, const scenario::Scenario& s, double expected) {
  ASSERT_EQ(r.iterations.size(), 3u);
  for (const auto& it : r.iterations)
    EXPECT_NEAR(it.time_s, expected, 1e-9 * expected) << scenario::fidelity_name(s.fidelity) << " iteration " << it.index;
}

TEST(OverlapFinish, IntegratesWorkOverTheBusySpans) {
  EXPECT_DOUBLE_EQ(SpeedProfile().finish_s(0.5, 2.0, {}, 3.0), 2.5);
  // 1 s free, then 0.5 s of work at half speed fills [1, 2).
  EXPECT_DOUBLE_EQ(SpeedProfile().finish_s(0.0, 1.5, {{1.0, 2.0}}, 2.0), 2.0);
  // 1 free, 0.5 inside [1, 2), 0.5 free after it.
  EXPECT_DOUBLE_EQ(SpeedProfile().finish_s(0.0, 2.0, {{1.0, 2.0}}, 2.0), 2.5);
  // Starts inside a span, spans before the start are ignored, and a second span is crossed.
  // 0.25 in [1.5, 2), 0.25 in [2, 2.25), 0.375 in [2.25, 3), 0.125 after.
  EXPECT_DOUBLE_EQ(SpeedProfile().finish_s(1.5, 1.0, {{0.0, 1.0}, {1.0, 2.0}, {2.25, 3.0}}, 2.0), 3.125);
  EXPECT_DOUBLE_EQ(SpeedProfile().finish_s(1.5, 1.0, {{1.0, 2.0}}, 1.0), 2.5);
}

// With a straggler profile the two speeds multiply: half speed from t = 1 on, busy in [0.5, 1.5) at 1/2.
TEST(OverlapFinish, MultipliesWithTheStragglerProfile) {
  scenario::Stragglers s;
  s.speed_profiles[0] = {{1.0, 0.5}};
  const SpeedProfile half_from_one(s, 0);
  // 0.5 free (0.5 work), [0.5, 1): 0.25, [1, 1.5): 0.125, then 0.125 at 0.5 -> 0.25 s.
  EXPECT_DOUBLE_EQ(half_from_one.finish_s(0.0, 1.0, {{0.5, 1.5}}, 2.0), 1.75);
}

// One all-reduce after backward (scheduler none) pays the launch once and overlaps no compute: the slowdown
// leaves it alone.
TEST(CommOverlap, ExposedAllreducePaysTheLaunchAndIsNotSlowed) {
  const double launch = 20e-6, b1 = 3e-3, b0 = 2e-3;
  const std::int64_t params = 1000000;
  for (Fidelity level : kLevels)
    for (double slowdown : {1.0, 1.5}) {
      const auto s = two_layers(b1, b0, params, "none", level, launch, slowdown);
      expect_iterations(testing::run_in_child(s), s, forward_plus_update_s(s) + b1 + b0 + launch + ring_s(2, 2 * params * 4));
    }
}

// WFBP, bucket 1 issued at F + b1. When layer 0's backward outlasts bucket 1's exchange, bucket 0 is issued
// after it and pays its own launch: F + b1 + b0 + L + T.
TEST_P(CommOverlapAt, EachIsolatedExchangePaysTheLaunch) {
  const double launch = 20e-6, b1 = 3e-3, b0 = 5e-3;
  const std::int64_t params = 1000000;
  const double t = ring_s(2, params * 4);
  ASSERT_LT(launch + t, b0);
  const auto s = two_layers(b1, b0, params, "wfbp", GetParam(), launch, 1.0);
  expect_iterations(run_simulation(s), s, forward_plus_update_s(s) + b1 + b0 + launch + t);
}

// When bucket 0 is issued while bucket 1's exchange still runs, its launch hides behind it: only the first
// launch shows, F + b1 + L + 2 T.
TEST_P(CommOverlapAt, BackToBackExchangesHideTheLaterLaunches) {
  const double launch = 20e-6, b1 = 3e-3, b0 = 1e-4;
  const std::int64_t params = 1000000;
  const double t = ring_s(2, params * 4);
  ASSERT_GT(t, b0);
  const auto s = two_layers(b1, b0, params, "wfbp", GetParam(), launch, 1.0);
  expect_iterations(run_simulation(s), s, forward_plus_update_s(s) + b1 + launch + 2 * t);
}

// Bandwidth-bound overlap: bucket 1's exchange [F + b1 + L, + T) covers layer 0's backward after its first L,
// which then runs f times slower: L + f (b0 - L) inside T. The iteration stays F + b1 + L + 2 T, the backward
// grows to b1 + L + f (b0 - L).
TEST_P(CommOverlapAt, BackwardUnderAnExchangeSlowsByTheFactor) {
  const double launch = 20e-6, b1 = 3e-3, b0 = 1e-3, f = 1.5;
  const std::int64_t params = 10000000;
  const double t = ring_s(2, params * 4);
  ASSERT_GT(t, launch + f * (b0 - launch));
  const auto s = two_layers(b1, b0, params, "wfbp", GetParam(), launch, f);
  const RunResult r = run_simulation(s);
  expect_iterations(r, s, forward_plus_update_s(s) + b1 + launch + 2 * t);
  const double backward = b1 + launch + f * (b0 - launch);
  for (const auto& it : r.iterations)
    for (const Breakdown& worker : it.per_worker) EXPECT_NEAR(worker.backward_s, backward, 1e-9 * backward);
}

// Compute-bound overlap: bucket 1's exchange [F + b1 + L, + T) ends inside layer 0's backward, which does T / f
// of its work in it: backward ends at F + b1 + L + T + (b0 - L - T / f), and bucket 0 follows with its launch.
TEST_P(CommOverlapAt, ComputeBoundOverlapStretchesTheIteration) {
  const double launch = 20e-6, b1 = 3e-3, b0 = 5e-3, f = 1.25;
  const std::int64_t params = 1000000;
  const double t = ring_s(2, params * 4);
  ASSERT_LT(t, b0);
  const auto s = two_layers(b1, b0, params, "wfbp", GetParam(), launch, f);
  // Layer 0: L free, T busy (T / f of work), the rest free.
  const double backward_end = b1 + launch + t + (b0 - launch - t / f);
  expect_iterations(run_simulation(s), s, forward_plus_update_s(s) + backward_end + launch + t);
}

// The levels agree with the defaults on (published slowdown and launch) for every FIFO scheduler, with a slow
// worker too (constant-factor stragglers compose with the overlap).
TEST(CommOverlap, LevelsAgreeWithTheDefaults) {
  for (const char* scheduler : {"wfbp", "mg_wfbp", "ddp", "fusion"})
    for (bool straggler : {false, true}) {
      double analytic = 0;
      for (Fidelity level : kLevels) {
        auto s = testing::five_layers(4, scheduler, level);
        s.gpu.overlap_slowdown = models::kOverlapSlowdown;
        s.gpu.collective_launch_s = models::kCollectiveLaunch_s;
        if (straggler) s.stragglers.slow_workers = {2};
        const double mean = testing::run_in_child(s).mean_iteration_s;
        if (level == Fidelity::analytic) analytic = mean;
        EXPECT_NEAR(mean, analytic, 1e-9 * analytic) << scheduler << " " << scenario::fidelity_name(level);
      }
    }
}

// ByteScheduler's priority queue: one layer, one piece. Each iteration chains forward, backward, launch, the
// exchange and the update (forward waits for the layer's exchange and update), so the mean is F + B + L + T + U.
TEST(CommOverlap, PriorityExchangesPayTheLaunch) {
  const double launch = 20e-6;
  const std::int64_t params = 100000;
  auto s = testing::synthetic(2, {params}, {1e-3}, {2e-3}, "priority", Fidelity::message);
  s.gpu.collective_launch_s = launch;
  const double expected = forward_plus_update_s(s) + 2e-3 + launch + ring_s(2, params * 4);
  const double mean = run_simulation(s).mean_iteration_s;
  EXPECT_NEAR(mean, expected, 1e-9 * expected);
}

// Periodic straggler interference and the overlap slowdown together: the levels still agree.
TEST(CommOverlap, LevelsAgreeWithPeriodicInterference) {
  double analytic = 0;
  for (Fidelity level : kLevels) {
    auto s = testing::five_layers(4, "wfbp", level);
    s.gpu.overlap_slowdown = models::kOverlapSlowdown;
    s.gpu.collective_launch_s = models::kCollectiveLaunch_s;
    s.stragglers.interference = scenario::Interference{2e-3, 7e-4, 3e-4, 3.0, {1}};
    const double mean = testing::run_in_child(s).mean_iteration_s;
    if (level == Fidelity::analytic) analytic = mean;
    EXPECT_NEAR(mean, analytic, 1e-9 * analytic) << scenario::fidelity_name(level);
  }
}

// NCCL's model already charges its base latency on every call: the default launch is not added again, an
// explicit one is.
TEST(CommOverlap, NcclCallsAlreadyPayTheirLaunch) {
  auto s = two_layers(1e-3, 1e-3, 1000, "wfbp", Fidelity::analytic, 0, 1.0);
  s.gpu.collective_launch_s.reset();
  EXPECT_EQ(run_simulation(s).info.collective_launch_s, models::kCollectiveLaunch_s);
  for (const char* nccl : {"nccl", "auto"}) {
    s.collective = nccl;
    s.gpu.collective_launch_s.reset();
    EXPECT_EQ(run_simulation(s).info.collective_launch_s, 0.0) << nccl;
    s.gpu.collective_launch_s = 3e-6;
    EXPECT_EQ(run_simulation(s).info.collective_launch_s, 3e-6) << nccl;
  }
}

TEST(CommOverlap, ReportStatesTheSettingsInForce) {
  const auto s = two_layers(1e-3, 1e-3, 1000, "wfbp", Fidelity::analytic, 7e-6, 1.3);
  const RunResult r = run_simulation(s);
  EXPECT_EQ(r.info.overlap_slowdown, 1.3);
  EXPECT_EQ(r.info.collective_launch_s, 7e-6);
}

INSTANTIATE_TEST_SUITE_P(Levels, CommOverlapAt, ::testing::ValuesIn(kLevels),
                         [](const auto& info) { return std::string(scenario::fidelity_name(info.param)); });

}  // namespace
}  // namespace dtsim::run
