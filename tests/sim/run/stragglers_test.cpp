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
    const Slowdown slowdown = slowdown_of(s.stragglers);
    const double compute = compute_s(make_iteration_plan(s));
    for (int it = 0; it < s.iterations; ++it) {
      double slowest = 0;
      for (int w = 0; w < 4; ++w) slowest = std::max(slowest, slowdown(w, it));
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
