// Iteration times against closed forms: no overlap, the WFBP recurrence, and agreement of the levels.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "sim/run/run_simulation.hpp"
#include "tests/sim/run/scenario_fixture.hpp"

namespace dtsim::run {
namespace {

using scenario::Fidelity;

double ring_s(int p, std::int64_t bytes) { return testing::ring_formula_s(p, bytes, testing::star_alpha_beta()); }

struct Sums {
  double forward = 0, backward = 0, update = 0;
};

Sums sums(const scheduling::IterationPlan& plan) {
  Sums s;
  for (const auto& l : plan.layers) {
    s.forward += l.forward_s;
    s.backward += l.backward_s;
    s.update += l.update_s;
  }
  return s;
}

/// Shi et al.'s recurrence, written independently: taob, taoc over tensors with per-tensor cost tc.
double wfbp_recurrence_s(const scenario::Scenario& s, const scheduling::IterationPlan& plan) {
  const int L = static_cast<int>(plan.layers.size());
  std::vector<double> ready(static_cast<std::size_t>(L));
  double t = sums(plan).forward;
  for (int l = L - 1; l >= 0; --l) ready[static_cast<std::size_t>(l)] = (t += plan.layers[static_cast<std::size_t>(l)].backward_s);
  double taoc_end = 0;  // taoc[l+1] + tc[l+1]
  for (int l = L - 1; l >= 0; --l)
    for (const auto& tensor : s.model.layers[static_cast<std::size_t>(l)].tensors) {
      const double taoc = std::max(taoc_end, ready[static_cast<std::size_t>(l)]);
      taoc_end = taoc + ring_s(s.workers, tensor.numel() * 4);
    }
  return std::max(taoc_end, t) + sums(plan).update;
}

void expect_all_iterations(const RunResult& r, double expected) {
  ASSERT_EQ(r.iterations.size(), 3u);
  for (const auto& it : r.iterations) EXPECT_NEAR(it.time_s, expected, 1e-9 * expected) << "iteration " << it.index;
  EXPECT_NEAR(r.mean_iteration_s, expected, 1e-9 * expected);
}

TEST(NoOverlap, AnalyticIsForwardPlusBackwardPlusAllreducePlusUpdate) {
  const auto s = testing::five_layers(8, "none", Fidelity::analytic);
  const Sums c = sums(make_iteration_plan(s));
  const double expected = c.forward + c.backward + ring_s(8, s.model.parameter_count() * 4) + c.update;
  const RunResult r = run_simulation(s);
  expect_all_iterations(r, expected);
  EXPECT_NEAR(r.iterations[1].per_worker[3].exposed_comm_s, ring_s(8, s.model.parameter_count() * 4), 1e-12);
}

TEST(NoOverlap, MessageLevelMatchesTheClosedForm) {
  const auto s = testing::five_layers(8, "none", Fidelity::message);
  const Sums c = sums(make_iteration_plan(s));
  expect_all_iterations(run_simulation(s), c.forward + c.backward + ring_s(8, s.model.parameter_count() * 4) + c.update);
}

TEST(Wfbp, AnalyticFollowsTheRecurrence) {
  const auto s = testing::five_layers(4, "wfbp", Fidelity::analytic);
  expect_all_iterations(run_simulation(s), wfbp_recurrence_s(s, make_iteration_plan(s)));
}

TEST(Wfbp, MessageLevelFollowsTheRecurrence) {
  const auto s = testing::five_layers(4, "wfbp", Fidelity::message);
  expect_all_iterations(run_simulation(s), wfbp_recurrence_s(s, make_iteration_plan(s)));
}

TEST(Wfbp, NeverSlowerThanNoOverlapAndHidesCommunication) {
  const auto wfbp = run_simulation(testing::five_layers(4, "wfbp", Fidelity::analytic));
  const auto none = run_simulation(testing::five_layers(4, "none", Fidelity::analytic));
  EXPECT_LT(wfbp.mean_iteration_s, none.mean_iteration_s);
  EXPECT_LT(wfbp.iterations[0].per_worker[0].exposed_comm_s, none.iterations[0].per_worker[0].exposed_comm_s);
}

TEST(Report, BreakdownAddsUpAndEfficiencyIsAgainstOneWorker) {
  const auto s = testing::five_layers(4, "wfbp", Fidelity::analytic);
  const RunResult r = run_simulation(s);
  const Sums c = sums(make_iteration_plan(s));
  EXPECT_DOUBLE_EQ(r.single_worker_iteration_s, c.forward + c.backward + c.update);
  EXPECT_NEAR(r.scaling_efficiency, r.single_worker_iteration_s / r.mean_iteration_s, 1e-12);
  EXPECT_NEAR(r.samples_per_s, 4 * 32 / r.mean_iteration_s, 1e-9);
  for (const auto& it : r.iterations)
    for (const Breakdown& b : it.per_worker) {
      EXPECT_NEAR(b.forward_s, c.forward, 1e-15);
      EXPECT_NEAR(b.backward_s, c.backward, 1e-15);
      EXPECT_NEAR(b.forward_s + b.backward_s + b.update_s + b.exposed_comm_s + b.idle_s, it.time_s, 1e-12);
      EXPECT_NEAR(b.idle_s, 0.0, 1e-12);
    }
  // Each worker sends and receives 2(p-1)/p of every gradient per iteration.
  for (const WorkerTraffic& t : r.traffic) {
    EXPECT_EQ(t.bytes_sent, 3 * 2 * 3 * s.model.parameter_count() * 4 / 4);
    EXPECT_EQ(t.bytes_received, t.bytes_sent);
  }
}

TEST(Report, OneWorkerScalesPerfectly) {
  const RunResult r = run_simulation(testing::five_layers(1, "wfbp", Fidelity::analytic));
  EXPECT_DOUBLE_EQ(r.scaling_efficiency, 1.0);
  EXPECT_EQ(r.traffic[0].bytes_sent, 0);
}

TEST(Report, MessageLevelTrafficAndEventsMatchAnalytic) {
  RunResult message = run_simulation(testing::five_layers(4, "wfbp", Fidelity::message));
  RunResult analytic = run_simulation(testing::five_layers(4, "wfbp", Fidelity::analytic));
  // Within one worker's lane events are sequential, so this order does not depend on rounding of ties.
  for (RunResult* r : {&message, &analytic})
    std::stable_sort(r->events.begin(), r->events.end(), [](const TraceEvent& a, const TraceEvent& b) {
      return std::tie(a.worker, a.lane, a.start_s) < std::tie(b.worker, b.lane, b.start_s);
    });
  ASSERT_EQ(message.events.size(), analytic.events.size());
  for (std::size_t i = 0; i < message.events.size(); ++i) {
    EXPECT_EQ(message.events[i].name, analytic.events[i].name);
    EXPECT_NEAR(message.events[i].end_s, analytic.events[i].end_s, 1e-9);
  }
  for (std::size_t w = 0; w < 4; ++w) EXPECT_EQ(message.traffic[w].bytes_sent, analytic.traffic[w].bytes_sent);
}

double path_time_s(const RunResult& r) {
  double t = 0;
  for (const TraceEvent& e : r.critical_path) t += e.end_s - e.start_s;
  return t;
}

TEST(CriticalPath, NoOverlapIsEveryComputeTaskAndTheOneAllreduce) {
  const auto s = testing::five_layers(4, "none", Fidelity::analytic);
  const RunResult r = run_simulation(s);
  ASSERT_EQ(r.critical_path.size(), 5u + 5u + 1u + 1u);
  EXPECT_EQ(r.critical_path[10].category, "comm");
  EXPECT_NEAR(path_time_s(r), r.iterations.back().time_s, 1e-12);
  ASSERT_EQ(r.exposed_comm_per_bucket_s.size(), 1u);
  EXPECT_NEAR(r.exposed_comm_per_bucket_s[0], r.iterations.back().per_worker[0].exposed_comm_s, 1e-12);
}

TEST(CriticalPath, WfbpPathIsContiguousAndExposedCommunicationAddsUp) {
  auto s = testing::five_layers(4, "wfbp", Fidelity::analytic);
  s.platform = testing::star(4, 1.25e9, 5e-6);  // communication-bound
  const RunResult r = run_simulation(s);
  EXPECT_NEAR(path_time_s(r), r.iterations.back().time_s, 1e-12);
  for (std::size_t i = 1; i < r.critical_path.size(); ++i)
    EXPECT_NEAR(r.critical_path[i].start_s, r.critical_path[i - 1].end_s, 1e-12) << r.critical_path[i].name;
  double exposed = 0;
  for (double e : r.exposed_comm_per_bucket_s) exposed += e;
  EXPECT_NEAR(exposed, r.iterations.back().per_worker[0].exposed_comm_s, 1e-12);
  int comm_on_path = 0;
  for (const auto& e : r.critical_path) comm_on_path += e.category == "comm";
  EXPECT_GT(comm_on_path, 1);
}

}  // namespace
}  // namespace dtsim::run
