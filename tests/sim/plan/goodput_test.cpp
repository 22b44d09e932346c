// Goodput under failures and checkpoints: Young/Daly and the exact optimum against their closed forms, the
// expected segment time and its breakdown against the formula, the cluster's failure rate from its component
// counts, and a failure simulated in a run against the analytic lost work.
#include "sim/plan/goodput.hpp"

#include <cmath>

#include <gtest/gtest.h>

#include "sim/run/run_simulation.hpp"
#include "tests/sim/run/scenario_fixture.hpp"

namespace dtsim::plan {
namespace {

TEST(Goodput, YoungDalyIsSqrtOfTwiceCheckpointTimesMtbf) {
  EXPECT_DOUBLE_EQ(young_daly_interval(60, 3 * 3600.0), std::sqrt(2 * 60 * 3 * 3600.0));
  const Goodput g = goodput({1 / 10800.0, 60, 600}, std::nullopt);
  EXPECT_DOUBLE_EQ(g.young_daly_s, std::sqrt(2 * 60 * 10800.0));
}

TEST(Goodput, OptimumIsTheRootOfItsClosedForm) {
  // Choose x = lambda tau, then C from (1 - x) e^(x + lambda C) = 1: the optimum must give back x.
  const double lambda = 1 / 10800.0;
  for (double x : {1e-3, 0.05, 0.3, 0.9}) {
    const double c = -(std::log1p(-x) + x) / lambda;
    EXPECT_NEAR(optimal_interval(lambda, c), x / lambda, 1e-12 * x / lambda) << x;
  }
}

TEST(Goodput, OptimumMaximisesGoodputAndBeatsYoungDaly) {
  const GoodputInputs in{1 / 7200.0, 300, 900};
  const Goodput best = goodput(in, std::nullopt);
  EXPECT_DOUBLE_EQ(best.interval_s, best.optimum_s);
  for (double f : {0.9, 0.99, 1.01, 1.1}) EXPECT_LT(goodput(in, best.optimum_s * f).fraction, best.fraction) << f;
  EXPECT_LE(goodput(in, best.young_daly_s).fraction, best.fraction);
  EXPECT_NE(best.optimum_s, best.young_daly_s);
}

TEST(Goodput, OptimumTendsToYoungDalyWhenCheckpointsAreShort) {
  // Second order: tau* = sqrt(2 C / lambda) - 2 C / 3 + O(C^1.5), so the relative gap is about sqrt(2 lambda C) / 3.
  const double lambda = 1 / 3600.0, c = 3600.0 * 1e-6;
  const double yd = young_daly_interval(c, 1 / lambda);
  const double gap = (yd - optimal_interval(lambda, c)) / yd;
  EXPECT_GT(gap, 0);
  EXPECT_NEAR(gap, std::sqrt(2 * lambda * c) / 3, 1e-5);
}

TEST(Goodput, SegmentTimeAndBreakdownAreTheModelsClosedForms) {
  const double lambda = 1 / 3600.0, tau = 1800, c = 60, r = 300;
  const GoodputInputs in{lambda, c, r};
  const double e = std::exp(lambda * r) * (std::exp(lambda * (tau + c)) - 1) / lambda;
  EXPECT_NEAR(expected_segment_s(in, tau), e, 1e-9 * e);
  const Goodput g = goodput(in, tau);
  EXPECT_NEAR(g.fraction, tau / e, 1e-12);
  EXPECT_NEAR(g.checkpoint, c / e, 1e-12);
  EXPECT_NEAR(g.lost_work, ((std::exp(lambda * (tau + c)) - 1) / lambda - (tau + c)) / e, 1e-12);
  EXPECT_NEAR(g.restart, (std::exp(lambda * (tau + c)) - 1) * (std::exp(lambda * r) - 1) / lambda / e, 1e-12);
  EXPECT_NEAR(g.fraction + g.checkpoint + g.lost_work + g.restart, 1, 1e-12);
}

TEST(Goodput, NothingFailsNothingIsLost) {
  const Goodput g = goodput({0, 60, 600}, std::nullopt);
  EXPECT_TRUE(std::isinf(g.interval_s));
  EXPECT_EQ(g.fraction, 1);
  // A fixed interval still pays its checkpoints.
  EXPECT_DOUBLE_EQ(goodput({0, 60, 600}, 3540.0).fraction, 3540.0 / 3600.0);
}

TEST(Goodput, TheLlama3ClusterFailsAsOftenAsItsReportSays) {
  // 16,384 GPUs in 2,048 nodes of 8 NICs, 1,024 rack switches: the defaults give back the 419 interruptions of
  // 1,296 hours they were counted from.
  Bounds b;
  b.gpus = 16384;
  b.nodes = 2048;
  b.fabric.nics_per_node = 8;
  b.fabric.switches = 1024;
  b.nic_Bps = 8 * 50e9;
  b.checkpoint_bytes = 405e9 * 14;       // bf16 weights (2 B) + fp32 master weights and Adam's moments (12 B)
  b.checkpoint_node_bytes = 405e9 * 14 / 128;
  const scenario::PlanGoodput g;
  const GoodputInputs in = goodput_inputs(b, g);
  EXPECT_NEAR(in.failures_per_s * 3600, 419.0 / 1296.0, 1e-15);
  EXPECT_DOUBLE_EQ(in.checkpoint_s, 405e9 * 14 / 2e12);  // the storage, not the NICs, bounds it
  EXPECT_DOUBLE_EQ(in.restart_s, 600 + 405e9 * 14 / 2e12);
  b.nic_Bps = 1e9;  // a node's share through a slow NIC bounds it instead
  EXPECT_DOUBLE_EQ(goodput_inputs(b, g).checkpoint_s, 405e9 * 14 / 128 / 1e9);
  // One node uses no NIC nor switch.
  b.nodes = 1;
  b.gpus = 8;
  b.fabric.nics_per_node = 0;
  b.fabric.switches = 0;
  EXPECT_NEAR(goodput_inputs(b, g).failures_per_s * 3600, 8 * g.gpu_per_hour + g.node_per_hour, 1e-18);
}

TEST(Goodput, ASimulatedFailureLosesTheWorkSinceTheLastCheckpoint) {
  // A worker crash in a BSP all-reduce run stops the job; with a checkpoint every 2 iterations (written
  // instantly: C = 0) the work lost is the time since the end of the last even iteration, as lost_at() says.
  auto s = testing::five_layers(4, "wfbp", scenario::Fidelity::flow);
  s.platform = testing::star(4, 1e30, 0);
  s.architecture = "allreduce";
  s.iterations = 6;
  const double t = testing::compute_s(s);
  scenario::Failure crash;
  crash.worker = 1;
  crash.at_s = 3.5 * t;
  s.failures = {crash};
  const run::RunResult r = run::run_simulation(s);
  ASSERT_FALSE(r.stopped.empty());
  ASSERT_EQ(r.iterations.size(), 3u);
  const int every = 2;
  const std::size_t checkpointed = r.iterations.size() / every * every;  // iterations saved by the last checkpoint
  const double simulated_lost = r.stopped_at_s - r.iterations[checkpointed - 1].end_s;
  EXPECT_NEAR(simulated_lost, lost_at(r.stopped_at_s, every * t, 0), 1e-9 * t);
  EXPECT_NEAR(simulated_lost, 1.5 * t, 1e-9 * t);
}

}  // namespace
}  // namespace dtsim::plan
