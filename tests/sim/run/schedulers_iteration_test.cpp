// Every scheduler inside the iteration: limits with free communication or free compute, agreement of the
// analytic and message levels, and priority scheduling overlapping the next forward pass.
#include <gtest/gtest.h>

#include <set>

#include "sim/run/run_simulation.hpp"
#include "tests/sim/run/scenario_fixture.hpp"

namespace dtsim::run {
namespace {

using scenario::Fidelity;

const std::vector<std::string> kFifoSchedulers{"none", "wfbp", "fusion", "ddp", "mg_wfbp", "optimal"};

double compute_s(const scenario::Scenario& s) {
  double t = 0;
  for (const auto& l : make_iteration_plan(s).layers) t += l.forward_s + l.backward_s + l.update_s;
  return t;
}

class FifoScheduler : public ::testing::TestWithParam<std::string> {};

TEST_P(FifoScheduler, FreeCommunicationGivesTheComputeTime) {
  auto s = testing::five_layers(4, GetParam(), Fidelity::analytic);
  s.platform = testing::star(4, 1e30, 0);
  s.scheduler_options.fusion_cycle_s = 1e-12;  // Horovod's cycle adds up to one cycle of latency
  const RunResult r = run_simulation(s);
  EXPECT_NEAR(r.mean_iteration_s, compute_s(s), 1e-9);
}

TEST_P(FifoScheduler, FreeComputeGivesTheSumOfCommunication) {
  auto s = testing::synthetic(4, {2000000, 0, 500000, 3000000, 1000}, {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, GetParam(),
                              Fidelity::analytic);
  s.gpu.memory_Bps = 1e30;  // no optimizer traffic time
  s.scheduler_options.fusion_cycle_s = 1e-12;
  const auto plan = make_iteration_plan(s);
  double sum = 0;
  for (const auto& b : plan.buckets) sum += testing::ring_formula_s(4, b.bytes, testing::star_alpha_beta());
  // The optimizer step is one multi-tensor launch (4 tensors, 5.5 M elements), bound by its eager CPU dispatch.
  sum += models::launch_costs(models::LaunchMode::eager).dispatch_s;
  EXPECT_NEAR(run_simulation(s).mean_iteration_s, sum, 1e-9 * sum);
}

TEST_P(FifoScheduler, AnalyticLevelIsExact) {
  // Run in its own process; the message level is compared in MessageLevelEqualsAnalytic.
  const auto s = testing::five_layers(4, GetParam(), Fidelity::analytic);
  const RunResult r = run_simulation(s);
  EXPECT_GE(r.mean_iteration_s, compute_s(s));
}

TEST_P(FifoScheduler, FlowLevelEqualsAnalytic) {
  auto analytic = testing::five_layers(4, GetParam(), Fidelity::analytic);
  analytic.scheduler_options.fusion_cycle_s = 2e-3;
  auto flow = analytic;
  flow.fidelity = Fidelity::flow;
  const double a = run_simulation(analytic).mean_iteration_s;
  EXPECT_NEAR(run_simulation(flow).mean_iteration_s, a, 1e-9 * a);
}

TEST_P(FifoScheduler, MessageLevelEqualsAnalytic) {
  auto analytic = testing::five_layers(4, GetParam(), Fidelity::analytic);
  analytic.scheduler_options.fusion_cycle_s = 2e-3;
  auto message = analytic;
  message.fidelity = Fidelity::message;
  const double a = run_simulation(analytic).mean_iteration_s;
  const double m = run_simulation(message).mean_iteration_s;
  EXPECT_NEAR(m, a, 1e-9 * a);
}

INSTANTIATE_TEST_SUITE_P(All, FifoScheduler, ::testing::ValuesIn(kFifoSchedulers),
                         [](const auto& info) { return info.param; });

TEST(Fusion, CycleTimeDelaysTheFirstBuffer) {
  auto s = testing::five_layers(4, "fusion", Fidelity::analytic);
  s.scheduler_options.fusion_cycle_s = 1e-12;
  const double fast = run_simulation(s).mean_iteration_s;
  s.scheduler_options.fusion_cycle_s = 5e-3;
  EXPECT_GT(run_simulation(s).mean_iteration_s, fast);
}

TEST(Priority, NextForwardStartsBeforeTheLastBucketOfThisIteration) {
  // Large gradients near the output are ready first and fill the credit; the small first layer is ready
  // last but goes first, so iteration 1 starts while iteration 0's large partitions are still in flight.
  auto s = testing::synthetic(4, {1000, 0, 1000, 3000000, 3000000}, {1e-3, 1e-3, 1e-3, 1e-3, 1e-3},
                              {1e-3, 1e-3, 1e-3, 1e-3, 1e-3}, "priority", Fidelity::message);
  s.platform = testing::star(4, 1.25e9, 5e-6);
  const RunResult r = run_simulation(s);
  double forward0_of_iteration1 = -1;
  int forwards = 0;
  for (const auto& e : r.events)
    if (e.worker == 0 && e.name == "forward layer0" && ++forwards == 2) forward0_of_iteration1 = e.start_s;
  // The first event of each bucket name belongs to iteration 0.
  std::set<std::string> seen;
  double last_comm_of_iteration0 = 0;
  for (const auto& e : r.events)
    if (e.worker == 0 && e.lane == "comm" && seen.insert(e.name).second)
      last_comm_of_iteration0 = std::max(last_comm_of_iteration0, e.end_s);
  ASSERT_EQ(seen.size(), make_iteration_plan(s).buckets.size());
  ASSERT_GT(forward0_of_iteration1, 0);
  EXPECT_LT(forward0_of_iteration1, last_comm_of_iteration0);
}

TEST(Priority, BeatsWfbpWhenCommunicationOverlapsTheNextForward) {
  auto wfbp = testing::five_layers(4, "wfbp", Fidelity::message);
  wfbp.platform = testing::star(4, 1.25e9, 5e-6);
  auto priority = wfbp;
  priority.scheduler = "priority";
  // Separate engines are not allowed in one process: compare against the analytic WFBP, which is exact.
  wfbp.fidelity = Fidelity::analytic;
  EXPECT_LT(run_simulation(priority).mean_iteration_s, run_simulation(wfbp).mean_iteration_s);
}

TEST(Priority, CreditChangesTheResult) {
  auto one = testing::five_layers(4, "priority", Fidelity::message);
  one.platform = testing::star(4, 1.25e9, 5e-6);
  one.scheduler_options.credit_bytes = 1;  // one partition in flight at a time
  one.scheduler_options.partition_bytes = 400000;
  const RunResult r = run_simulation(one);
  // With one partition in flight, comm events of worker 0 never overlap.
  double previous_end = 0;
  for (const auto& e : r.events)
    if (e.worker == 0 && e.lane == "comm") {
      EXPECT_GE(e.start_s, previous_end - 1e-12);
      previous_end = e.end_s;
    }
}

// ByteScheduler's critical path on its graph: one layer, one partition, a 20 us launch. The last iteration applies
// the previous one's exchange (its carried update), runs forward and backward, launches and runs its exchange and
// applies it (its epilogue); each task starts when the one before ends (the exchange a launch later), and the path
// ends with the run. A single iteration has nothing to apply first. (The ring: 100,000 fp32 gradients.)
void expect_priority_critical_path(int iterations) {
  const double launch = 20e-6;
  auto s = testing::synthetic(2, {100000}, {1e-3}, {2e-3}, "priority", Fidelity::message);
  s.gpu.collective_launch_s = launch;
  s.iterations = iterations;
  const RunResult r = run_simulation(s);
  std::vector<std::string> names;
  for (const auto& e : r.critical_path) names.push_back(e.name);
  std::vector<std::string> expected = {"forward layer0", "backward layer0", "exchange bucket 0", "update layer0"};
  if (iterations > 1) expected.insert(expected.begin(), "update layer0");
  ASSERT_EQ(names, expected);
  const auto& path = r.critical_path;
  for (std::size_t k = 1; k < path.size(); ++k) {
    const double gap = path[k].name == "exchange bucket 0" ? launch : 0.0;
    EXPECT_NEAR(path[k].start_s, path[k - 1].end_s + gap, 1e-12) << path[k].name;
  }
  EXPECT_NEAR(path.back().end_s, r.iterations.back().end_s, 1e-12);
  // The last iteration starts when the previous backward ends; its update waits for that iteration's exchange.
  const double wait = iterations > 1 ? launch + testing::ring_formula_s(2, 400000, testing::star_alpha_beta()) : 0.0;
  EXPECT_NEAR(path.front().start_s, r.iterations.back().start_s + wait, 1e-12);
}

TEST(Priority, CriticalPathRunsThroughTheCarriedUpdates) { expect_priority_critical_path(3); }

TEST(Priority, CriticalPathOfASingleIterationStartsAtItsForward) { expect_priority_critical_path(1); }

}  // namespace
}  // namespace dtsim::run
