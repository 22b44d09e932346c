// Every all-reduce algorithm inside the iteration: the analytic, flow and message levels agree on an
// uncongested star, and the message level replays exactly the plan's closed form.
#include <gtest/gtest.h>

#include "sim/collectives/collective.hpp"
#include "sim/collectives/nccl_tuning.hpp"
#include "sim/run/run_simulation.hpp"
#include "tests/sim/run/scenario_fixture.hpp"

namespace dtsim::run {
namespace {

using scenario::Fidelity;

class EveryAllreduce : public ::testing::TestWithParam<std::tuple<std::string, Fidelity>> {};

/// 4 workers: every gradient of five_layers divides into equal chunks, so SimGrid's 1 ns time resolution
/// does not round uneven chunk sizes.
void expect_levels_agree(scenario::Scenario analytic, Fidelity fidelity) {
  auto simulated = analytic;
  simulated.fidelity = fidelity;
  const double a = run_simulation(analytic).mean_iteration_s;
  EXPECT_NEAR(run_simulation(simulated).mean_iteration_s, a, 1e-9 * a);
}

TEST_P(EveryAllreduce, SimulatedLevelEqualsAnalyticOnAStar) {
  const auto [collective, fidelity] = GetParam();
  auto s = testing::five_layers(4, "mg_wfbp", Fidelity::analytic);
  s.collective = collective;
  s.platform.sharp = collective == "in_network";  // in_network needs a switch that sums (the loader refuses it elsewhere)
  expect_levels_agree(s, fidelity);
}

TEST_P(EveryAllreduce, SimulatedLevelEqualsAnalyticOnTwoNodesOfTwo) {
  const auto [collective, fidelity] = GetParam();
  if (collective == "binary_tree")
    GTEST_SKIP() << "contention: the pipelined tree's segments from ranks at different steps share the NIC "
                    "at the same time; the analytic level shares bandwidth only among transfers of one step "
                    "(see DifferUnderContention)";
  auto s = testing::five_layers(4, "wfbp", Fidelity::analytic);
  s.collective = collective;
  s.platform = testing::two_level(2, 2, {50e9, 1e-6}, {12.5e9, 2e-6});
  s.platform.sharp = collective == "in_network";
  expect_levels_agree(s, fidelity);
}

TEST(EveryAllreduce, DifferUnderContention) {
  // Pipelined binary tree, 2 nodes of 2 GPUs: segments of different steps cross the NIC together in SimGrid.
  auto analytic = testing::five_layers(4, "wfbp", Fidelity::analytic);
  analytic.collective = "binary_tree";
  analytic.platform = testing::two_level(2, 2, {50e9, 1e-6}, {12.5e9, 2e-6});
  auto message = analytic;
  message.fidelity = Fidelity::message;
  const double a = run_simulation(analytic).mean_iteration_s;
  const double m = run_simulation(message).mean_iteration_s;
  EXPECT_GT(m, a * 1.05) << "analytic " << a << " s, message " << m << " s";
}

TEST(NcclOverrides, ChangeTheIterationAndTheReportNamesEachBucketsChoice) {
  // 8 workers as 2 nodes of 4: NCCL's tuner picks per bucket; forcing ring/LL makes the large buckets slower.
  auto tuned = testing::five_layers(8, "wfbp", Fidelity::analytic);
  tuned.platform = testing::two_level(2, 4, {50e9, 1e-6}, {12.5e9, 2e-6});
  tuned.collective = "nccl";
  auto forced = tuned;
  forced.nccl = {collectives::NcclAlgorithm::ring, collectives::NcclProtocol::ll};
  const RunResult a = run_simulation(tuned), b = run_simulation(forced);
  EXPECT_GT(b.mean_iteration_s, a.mean_iteration_s * 1.01);
  ASSERT_EQ(a.nccl_choice_per_bucket.size(), static_cast<std::size_t>(a.info.buckets));
  for (const std::string& choice : b.nccl_choice_per_bucket) EXPECT_EQ(choice, "ring/LL");
  auto ring = tuned;
  ring.collective = "ring";
  EXPECT_TRUE(run_simulation(ring).nccl_choice_per_bucket.empty());
}

INSTANTIATE_TEST_SUITE_P(All, EveryAllreduce,
                         ::testing::Combine(::testing::ValuesIn(collectives::collective_names()),
                                            ::testing::Values(Fidelity::flow, Fidelity::message)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + scenario::fidelity_name(std::get<1>(info.param));
                         });

}  // namespace
}  // namespace dtsim::run
