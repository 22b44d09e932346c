// Failures: a crashed worker stops BSP all-reduce (the report says when and why), while a parameter server with
// backup workers and gossip go on; a link that goes down breaks the connections across it. Nothing hangs.
// One simulated run per test: SimGrid allows one engine per process.
#include <gtest/gtest.h>

#include "sim/run/run_simulation.hpp"
#include "tests/sim/run/scenario_fixture.hpp"

namespace dtsim::run {
namespace {

using scenario::Fidelity;

/// Free network: an iteration is exactly the compute time T.
scenario::Scenario free_network(const std::string& architecture, int extra_hosts = 0) {
  auto s = testing::five_layers(4, "wfbp", Fidelity::flow);
  s.platform = testing::star(4 + extra_hosts, 1e30, 0);
  s.architecture = architecture;
  s.iterations = 6;
  s.ps.summation_Bps.reset();
  return s;
}

using testing::compute_s;

scenario::Failure crash(int worker, double at_s) {
  scenario::Failure f;
  f.worker = worker;
  f.at_s = at_s;
  return f;
}

TEST(Failures, CrashStopsBspAllReduceAndTheReportSaysWhenAndWhy) {
  auto s = free_network("allreduce");
  s.failures = {crash(1, 2.5 * compute_s(s))};
  const RunResult r = run_simulation(s);
  ASSERT_EQ(r.iterations.size(), 2u);  // iterations 0 and 1 ended before the crash
  EXPECT_NEAR(r.iterations[1].end_s, 2 * compute_s(s), 1e-9);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_NE(r.failures[0].find("worker 1 crashed"), std::string::npos);
  EXPECT_NE(r.stopped.find("cannot go on without worker 1"), std::string::npos);
  EXPECT_NEAR(r.stopped_at_s, 2.5 * compute_s(s), 1e-9);
}

TEST(Failures, ParameterServerWithABackupWorkerGoesOn) {
  auto s = free_network("ps", 1);
  s.sync.backup_workers = 1;
  s.failures = {crash(2, 2.5 * compute_s(s))};
  const RunResult r = run_simulation(s);
  EXPECT_TRUE(r.stopped.empty()) << r.stopped;
  ASSERT_EQ(r.iterations.size(), 6u);
  for (const IterationResult& it : r.iterations) EXPECT_NEAR(it.time_s, compute_s(s), 1e-9);
  EXPECT_LT(r.workers[2].iterations, 6);
}

TEST(Failures, ParameterServerWithoutBackupStops) {
  auto s = free_network("ps", 1);
  s.failures = {crash(2, 2.5 * compute_s(s))};
  const RunResult r = run_simulation(s);
  EXPECT_EQ(r.iterations.size(), 2u);
  EXPECT_FALSE(r.stopped.empty());
}

TEST(Failures, GossipNeighboursDropACrashedWorker) {
  auto s = free_network("gossip");
  s.failures = {crash(0, 1.5 * compute_s(s))};
  const RunResult r = run_simulation(s);
  EXPECT_TRUE(r.stopped.empty()) << r.stopped;
  ASSERT_EQ(r.iterations.size(), 6u);
  for (int w = 1; w < 4; ++w) EXPECT_EQ(r.workers[static_cast<std::size_t>(w)].iterations, 6);
  EXPECT_EQ(r.workers[0].iterations, 1);
}

TEST(Failures, LinkDownBreaksTheAllReduceAcrossIt) {
  auto s = free_network("allreduce");
  s.platform = testing::star(4, 1.25e9, 5e-6);
  scenario::Failure down;
  down.link = "link2_UP";
  down.at_s = 0.5 * compute_s(s);
  down.duration_s = 1.0;
  s.failures = {down};
  const RunResult r = run_simulation(s);
  EXPECT_TRUE(r.iterations.empty());
  ASSERT_GE(r.failures.size(), 2u);
  EXPECT_NE(r.failures[0].find("link link2_UP down"), std::string::npos);
  EXPECT_NE(r.stopped.find("connection"), std::string::npos);
}

TEST(Failures, LinkDownAndBackUpBeforeAnyTransferChangesNothing) {
  auto s = free_network("allreduce");
  s.platform = testing::star(4, 1.25e9, 5e-6);
  scenario::Failure down;
  down.link = "link2_UP";
  down.at_s = 0.1 * compute_s(s);  // during the first forward pass: no transfer in flight
  down.duration_s = 0.2 * compute_s(s);
  s.failures = {down};
  const RunResult r = run_simulation(s);
  EXPECT_TRUE(r.stopped.empty()) << r.stopped;
  EXPECT_EQ(r.iterations.size(), 6u);
  EXPECT_EQ(r.failures.size(), 2u);  // down, back up
}

}  // namespace
}  // namespace dtsim::run
