// FedAvg's rounds in the timing simulation: only the round's sampled workers compute, and they exchange in a
// collective over their own hosts, against the closed form of the sampled ring at the analytic and flow levels.
#include <gtest/gtest.h>

#include <algorithm>

#include "sim/run/run_simulation.hpp"
#include "sim/sync/scheme.hpp"
#include "tests/sim/run/run_in_child.hpp"
#include "tests/sim/run/scenario_fixture.hpp"

namespace dtsim::run {
namespace {

using scenario::Fidelity;

constexpr std::int64_t kParameters = 1 << 20;

/// `workers` on a star, one bucket of 4 MiB after backward; FedAvg with rounds of 2 epochs over 64 examples in
/// mini-batches of 32: 4 local steps, the last exchanging; 3 rounds.
scenario::Scenario sampled(int workers, double fraction, Fidelity fidelity) {
  auto s = testing::synthetic(workers, {kParameters}, {1e-3}, {2e-3}, "none", fidelity);
  s.sync.scheme = "fedavg";
  s.sync.parameters = {{"fraction", fraction}, {"epochs", 2}, {"shard", 64}, {"seed", 5}};
  s.sync.rules().derive(s.sync, s.batch_size);
  s.iterations = 12;
  return s;
}

TEST(FedAvgRun, ARoundIsItsLocalStepsThenTheSampledRingOnAStar) {
  for (const Fidelity fidelity : {Fidelity::analytic, Fidelity::flow}) {
    const auto s = sampled(8, 0.5, fidelity);
    ASSERT_EQ(s.sync.period, 4);
    const int m = 4;
    const double N = 4.0 * kParameters;
    const double C = testing::compute_s(s);
    const double X = testing::ring_formula_s(m, N, testing::star_alpha_beta());
    const RunResult r = testing::run_in_child(s);
    ASSERT_EQ(r.iterations.size(), 12u);
    for (std::size_t it = 0; it < 12; ++it) {
      const double expected = it % 4 == 3 ? C + X : C;
      EXPECT_NEAR(r.iterations[it].time_s, expected, 1e-9 * expected) << it;
    }
    // A sampled worker sends and receives 2 (m - 1) / m N a round in the ring; the others move nothing.
    for (int w = 0; w < 8; ++w) {
      std::int64_t rounds = 0;
      for (int round = 0; round < 3; ++round) {
        const std::vector<int> clients = s.sync.participants(8, 4 * round);
        rounds += std::count(clients.begin(), clients.end(), w);
      }
      const auto bytes = static_cast<std::int64_t>(rounds * 2 * (m - 1) * N / m);
      EXPECT_EQ(r.traffic[static_cast<std::size_t>(w)].bytes_sent, bytes) << w;
      EXPECT_EQ(r.traffic[static_cast<std::size_t>(w)].bytes_received, bytes) << w;
    }
  }
}

TEST(FedAvgRun, SamplingEveryClientIsLocalSgd) {
  for (const Fidelity fidelity : {Fidelity::analytic, Fidelity::flow}) {
    const auto all = sampled(4, 1.0, fidelity);
    auto local = all;
    local.sync.scheme = "local_sgd";
    local.sync.parameters = {{"average_momentum", 0}};
    const RunResult a = testing::run_in_child(all), l = testing::run_in_child(local);
    ASSERT_EQ(a.iterations.size(), l.iterations.size());
    for (std::size_t it = 0; it < a.iterations.size(); ++it) EXPECT_EQ(a.iterations[it].end_s, l.iterations[it].end_s);
    EXPECT_EQ(a.traffic[2].bytes_sent, l.traffic[2].bytes_sent);
  }
}

TEST(FedAvgRun, TheSampleIsTheSameRunToRun) {
  const auto s = sampled(8, 0.25, Fidelity::flow);
  const RunResult a = testing::run_in_child(s), b = testing::run_in_child(s);
  for (std::size_t w = 0; w < 8; ++w) EXPECT_EQ(a.traffic[w].bytes_sent, b.traffic[w].bytes_sent);
  EXPECT_EQ(a.mean_iteration_s, b.mean_iteration_s);
}

}  // namespace
}  // namespace dtsim::run
