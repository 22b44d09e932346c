// Stragglers: per-worker compute slowdown under BSP, reproducible per seed, at every level.
#include <gtest/gtest.h>

#include "sim/run/run_simulation.hpp"
#include "sim/run/stragglers.hpp"
#include "tests/sim/run/scenario_fixture.hpp"

namespace dtsim::run {
namespace {

using scenario::Fidelity;

scenario::Scenario noisy(Fidelity fidelity, std::uint64_t seed = 7) {
  auto s = testing::five_layers(4, "wfbp", fidelity);
  s.stragglers.slow_workers = {2};
  s.stragglers.slow_factor = 1.5;
  s.stragglers.noise = "lognormal";
  s.stragglers.noise_scale = 0.2;
  s.stragglers.seed = seed;
  return s;
}

double compute_s(const scheduling::IterationPlan& plan) {
  double t = 0;
  for (const auto& l : plan.layers) t += l.forward_s + l.backward_s + l.update_s;
  return t;
}

TEST(Stragglers, BspIterationIsTheSlowestWorkerWhenCommunicationIsFree) {
  for (Fidelity fidelity : {Fidelity::analytic, Fidelity::flow}) {
    auto s = noisy(fidelity);
    s.platform = testing::star(4, 1e30, 0);
    const RunResult r = run_simulation(s);
    const Slowdown slowdown = slowdown_of(s.stragglers, 4);
    const double compute = compute_s(make_iteration_plan(s));
    for (int it = 0; it < s.iterations; ++it) {
      double slowest = 0;
      for (int w = 0; w < 4; ++w) slowest = std::max(slowest, slowdown(w, it, 0.0, 1.0));
      EXPECT_NEAR(r.iterations[static_cast<std::size_t>(it)].time_s, slowest * compute, 1e-9) << it;
    }
  }
}

TEST(Stragglers, FixedSlowWorkerStretchesTheIteration) {
  auto s = testing::five_layers(4, "none", Fidelity::analytic);
  s.platform = testing::star(4, 1e30, 0);
  s.stragglers.slow_workers = {1};
  s.stragglers.slow_factor = 2;
  const RunResult r = run_simulation(s);
  EXPECT_NEAR(r.mean_iteration_s, 2 * compute_s(make_iteration_plan(s)), 1e-12);
  // In the first iteration (all start together) a fast worker waits for the slow one's gradients (exposed
  // communication) and then for its slower update (idle): together its own compute time C again.
  const Breakdown& fast = r.iterations[0].per_worker[0];
  EXPECT_NEAR(fast.exposed_comm_s + fast.idle_s, compute_s(make_iteration_plan(s)), 1e-9);
}

TEST(Stragglers, SameSeedSameRunOtherSeedOtherRun) {
  const RunResult a = run_simulation(noisy(Fidelity::analytic, 7));
  const RunResult b = run_simulation(noisy(Fidelity::analytic, 7));
  const RunResult c = run_simulation(noisy(Fidelity::analytic, 8));
  EXPECT_EQ(a.mean_iteration_s, b.mean_iteration_s);
  EXPECT_NE(a.mean_iteration_s, c.mean_iteration_s);
}

TEST(Stragglers, FlowLevelAgreesWithAnalytic) {
  const double analytic = run_simulation(noisy(Fidelity::analytic)).mean_iteration_s;
  EXPECT_NEAR(run_simulation(noisy(Fidelity::flow)).mean_iteration_s, analytic, 1e-9 * analytic);
}

TEST(Stragglers, MessageLevelAgreesWithAnalytic) {
  const double analytic = run_simulation(noisy(Fidelity::analytic)).mean_iteration_s;
  EXPECT_NEAR(run_simulation(noisy(Fidelity::message)).mean_iteration_s, analytic, 1e-9 * analytic);
}

}  // namespace
}  // namespace dtsim::run

namespace dtsim::run {
namespace {

TEST(SpeedProfile, IntegratesWorkOverSpeedSteps) {
  scenario::Stragglers s;
  s.speed_profiles[0] = {{0.0, 1.0}, {1.0, 0.5}, {3.0, 2.0}};
  const SpeedProfile profile(s, 0);
  EXPECT_DOUBLE_EQ(profile.finish_s(0.5, 1.0), 2.0);   // 0.5 at full speed, 0.5 at half speed
  EXPECT_DOUBLE_EQ(profile.finish_s(2.0, 1.0), 3.25);  // 0.5 at half speed, 0.5 at double speed
  EXPECT_TRUE(SpeedProfile(s, 1).nominal());
}

TEST(SpeedProfile, PeriodicInterferenceSlowsOnlyInsideItsWindows) {
  scenario::Stragglers s;
  s.interference = scenario::Interference{1.0, 0.25, 0.0, 2.0, {1}};
  const SpeedProfile hit(s, 1);
  // [0, 0.25) at half speed: 0.125; [0.25, 1) at full: 0.75; [1, 1.25) at half: the last 0.125.
  EXPECT_DOUBLE_EQ(hit.finish_s(0.0, 1.0), 1.25);
  EXPECT_DOUBLE_EQ(hit.finish_s(0.5, 0.25), 0.75);
  EXPECT_TRUE(SpeedProfile(s, 0).nominal());
  s.interference->offset_s = 10;
  EXPECT_DOUBLE_EQ(SpeedProfile(s, 1).finish_s(9.5, 1.0), 10.625);  // 0.5, then 0.125 in [10, 10.25), then 0.375
}

TEST(Stragglers, TraceDrivenHalfSpeedDoublesTheBspIteration) {
  for (Fidelity fidelity : {Fidelity::analytic, Fidelity::flow}) {
    auto s = testing::five_layers(4, "wfbp", fidelity);
    s.platform = testing::star(4, 1e30, 0);
    s.stragglers.speed_profiles[2] = {{0.0, 0.5}};
    const RunResult r = run_simulation(s);
    for (const IterationResult& it : r.iterations) EXPECT_NEAR(it.time_s, 2 * compute_s(make_iteration_plan(s)), 1e-9);
  }
}

}  // namespace
}  // namespace dtsim::run

namespace dtsim::run {
namespace {

TEST(SlowLinks, OneSlowDirectionSlowsEveryRingStepToItsPace) {
  // A ring step waits for its slowest transfer: with link2_UP at half bandwidth the bandwidth term doubles.
  for (Fidelity fidelity : {Fidelity::analytic, Fidelity::flow}) {
    auto s = testing::synthetic(4, {1 << 22}, {1e-6}, {1e-6}, "none", fidelity);
    s.platform.link_slowdown["link2_UP"] = 2;
    const collectives::AlphaBeta ab = testing::star_alpha_beta();
    const double ring = testing::ring_formula_s(4, 4.0 * (1 << 22), {ab.alpha_s, 2 * ab.beta_s_per_byte});
    const RunResult r = run_simulation(s);
    EXPECT_NEAR(r.iterations[0].end_s - compute_s(make_iteration_plan(s)), ring, 1e-9 * ring);
  }
}

}  // namespace
}  // namespace dtsim::run
