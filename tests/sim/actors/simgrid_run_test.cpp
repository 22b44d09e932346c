#include "sim/actors/simgrid_run.hpp"

#include "sim/actors/rank_steps.hpp"

#include <gtest/gtest.h>

#include "sim/collectives/ring_allreduce.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/platform/fabric.hpp"
#include "tests/sim/star.hpp"

namespace dtsim::actors {
namespace {

// Each test case runs in its own process (gtest_discover_tests): SimGrid allows one engine per process.
class RingOnStar : public ::testing::TestWithParam<std::tuple<int, std::int64_t>> {};

TEST_P(RingOnStar, MessageLevelEqualsClosedFormAndAnalytic) {
  const auto [p, n] = GetParam();
  const auto spec = testing::star(p);
  const collectives::Schedule plan = collectives::RingAllreduce().plan({p, 1}, n);
  const double expected = testing::ring_formula_s(p, static_cast<double>(n), testing::star_alpha_beta());
  const double simulated = simulate_schedules_s(spec, {plan}, false)[0];
  EXPECT_NEAR(simulated, expected, 1e-9 * expected);
  EXPECT_NEAR(simulated, collectives::schedule_time_s(plan, platform::Fabric(spec)), 1e-9 * expected);
}

TEST_P(RingOnStar, FlowLevelEqualsClosedForm) {
  const auto [p, n] = GetParam();
  const collectives::Schedule plan = collectives::RingAllreduce().plan({p, 1}, n);
  const double expected = testing::ring_formula_s(p, static_cast<double>(n), testing::star_alpha_beta());
  EXPECT_NEAR(simulate_schedules_s(testing::star(p), {plan}, true)[0], expected, 1e-9 * expected);
}

INSTANTIATE_TEST_SUITE_P(Sizes, RingOnStar,
                         ::testing::Combine(::testing::Values(2, 3, 4, 7, 8, 16, 64),
                                            ::testing::Values(std::int64_t{1344}, std::int64_t{1344 * 1000},
                                                              std::int64_t{1344 * 74403})));

TEST(MessageLevel, UnevenChunksMatchAnalyticToSimGridsTimingPrecision) {
  // Chunks of 142858 and 142857 bytes differ by 0.08 ns at 12.5 GB/s, below SimGrid's surf/precision (1 ns),
  // so SimGrid may finish each of the 12 steps up to that much earlier than the exact analytic replay.
  const auto spec = testing::star(7);
  const collectives::Schedule plan = collectives::RingAllreduce().plan({7, 1}, 1000003);
  const double analytic = collectives::schedule_time_s(plan, platform::Fabric(spec));
  EXPECT_NEAR(simulate_schedules_s(spec, {plan}, false)[0], analytic, 1e-9 * static_cast<double>(plan.steps.size()));
}

TEST(MessageLevel, TwoLevelRingIsBoundByTheNicHop) {
  const auto spec = testing::two_level(4, 4, {50e9, 1e-6}, {1.25e9, 12.5e-6});
  const std::int64_t n = 16 * 1000000;
  // Every step has one transfer per node boundary: GPU link, NIC up, NIC down, GPU link.
  const double alpha = 2 * 1e-6 + 2 * 12.5e-6;
  const double expected = 2.0 * 15 * (alpha + (n / 16.0) / 1.25e9);
  EXPECT_NEAR(collectives::RingAllreduce().closed_form_s({16, 4}, n, platform::link_costs(spec)), expected,
              1e-12 * expected);
  EXPECT_NEAR(simulate_schedules_s(spec, {collectives::RingAllreduce().plan({16, 4}, n)}, false)[0], expected, 1e-9 * expected);
}

TEST(FlowLevel, FusesTheRingIntoOneStepAndMatchesTheMessageLevelOnTwoLevel) {
  const auto spec = testing::two_level(4, 4, {50e9, 1e-6}, {1.25e9, 12.5e-6});
  const collectives::Schedule plan = collectives::RingAllreduce().plan({16, 4}, 16 * 1000000);
  EXPECT_EQ(flow_steps(plan, true).size(), 1u);
  EXPECT_EQ(flow_steps(plan, true)[0][0].steps, 30);
  EXPECT_EQ(flow_steps(plan, false).size(), 30u);
  const double expected = collectives::RingAllreduce().closed_form_s({16, 4}, 16e6, platform::link_costs(spec));
  const auto times = simulate_schedules_s(spec, {plan, plan}, true);
  EXPECT_NEAR(times[0], expected, 1e-9 * expected);
  EXPECT_NEAR(times[1], expected, 1e-9 * expected);  // plans run one after another from a common start
}

class StepLatency : public ::testing::TestWithParam<bool> {};

TEST_P(StepLatency, EveryLevelWaitsItOncePerStepAndRank) {
  // A ring whose steps each carry 3 us of their own (a protocol's per-hop cost) and a lone last step of 5 us.
  const int p = 8;
  const auto spec = testing::star(p);
  collectives::Schedule plan = collectives::RingAllreduce().plan({p, 1}, 8 * 1000000);
  for (collectives::Step& step : plan.steps) step.latency_s = 3e-6;
  plan.steps.push_back({{{0, 1, 1000}}, 5e-6});
  const collectives::AlphaBeta ab = testing::star_alpha_beta();
  const double expected =
      testing::ring_formula_s(p, 8e6, ab) + 2 * (p - 1) * 3e-6 + 5e-6 + ab.alpha_s + 1000 * ab.beta_s_per_byte;
  EXPECT_NEAR(collectives::schedule_time_s(plan, platform::Fabric(spec)), expected, 1e-9 * expected);
  EXPECT_NEAR(flow_steps(plan, true)[0][0].latency_s, 2 * (p - 1) * 3e-6, 1e-18);
  EXPECT_NEAR(as_schedule(flow_steps(plan, true), p).steps[0].latency_s, 2 * (p - 1) * 3e-6, 1e-18);
  EXPECT_NEAR(simulate_schedules_s(spec, {plan}, GetParam())[0], expected, 1e-9 * expected);
}

INSTANTIATE_TEST_SUITE_P(Levels, StepLatency, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "flow" : "message"; });

TEST(MessageLevel, Lv08ModelIsSlowerThanAlphaBeta) {
  auto spec = testing::star(4);
  spec.network_model = platform::NetworkModel::lv08;
  const double formula = testing::ring_formula_s(4, 4e6, testing::star_alpha_beta());
  EXPECT_GT(simulate_schedules_s(spec, {collectives::RingAllreduce().plan({4, 1}, 4000000)}, false)[0], 1.01 * formula);
}

}  // namespace
}  // namespace dtsim::actors
