// Every all-reduce plan executed on SimGrid at the message and flow levels equals its analytic replay (and so
// its closed form) on an uncongested star, for worker counts up to 64.
#include <gtest/gtest.h>

#include "sim/actors/simgrid_run.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/collectives/nccl_allreduce.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/platform/fabric.hpp"
#include "tests/sim/star.hpp"

namespace dtsim::actors {
namespace {

class EveryPlanOnSimGrid : public ::testing::TestWithParam<std::tuple<std::string, int, bool>> {};

TEST_P(EveryPlanOnSimGrid, EqualsTheAnalyticReplay) {
  const auto [name, p, fuse] = GetParam();
  const auto spec = testing::sharp_star(p);  // its switch sums: in_network and NCCL's CollNet have it
  // Divisible by p, by every power of two up to 2^20 and by the largest power of two below p: equal chunks
  // and segments, so SimGrid's 1 ns time resolution rounds nothing.
  const std::int64_t bytes = std::int64_t{p} * 3 * (1 << 20);
  const auto collective = collectives::make_collective(name, platform::link_costs(spec));
  const collectives::Schedule plan = collective->plan({p, 1}, bytes);
  const double analytic = collectives::schedule_time_s(plan, platform::Fabric(spec));
  EXPECT_NEAR(simulate_schedules_s(spec, {plan}, fuse)[0], analytic, 1e-9 * analytic);
  EXPECT_NEAR(collective->closed_form_s({p, 1}, static_cast<double>(bytes), platform::link_costs(spec)), analytic,
              1e-9 * analytic);
}

INSTANTIATE_TEST_SUITE_P(All, EveryPlanOnSimGrid,
                         ::testing::Combine(::testing::ValuesIn(collectives::collective_names()),
                                            ::testing::Values(2, 3, 5, 8, 16, 33, 64), ::testing::Bool()),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_p" + std::to_string(std::get<1>(info.param)) +
                                  (std::get<2>(info.param) ? "_flow" : "_message");
                         });

class NcclPairOnSimGrid : public ::testing::TestWithParam<std::tuple<int, int, bool>> {};

TEST_P(NcclPairOnSimGrid, EqualsItsClosedForm) {
  // Every (algorithm, protocol) NCCL can be forced to, with its wire bytes and step latencies, on 12 hosts.
  const auto [algorithm, protocol, fuse] = GetParam();
  const int p = 12;
  const auto spec = testing::star(p, 12.5e9, 0.5e-6);  // links faster than NCCL's latencies: step latency shows
  const collectives::LinkCosts costs = platform::link_costs(spec);
  const collectives::NcclAllreduce nccl("nccl", costs,
                                        {static_cast<collectives::NcclAlgorithm>(algorithm),
                                         static_cast<collectives::NcclProtocol>(protocol)});
  const std::int64_t bytes = std::int64_t{p} * 3 * (1 << 20);
  const double closed = nccl.closed_form_s({p, 1}, static_cast<double>(bytes), costs);
  // Step latencies (NCCL's latency term spread over steps) are not whole nanoseconds: SimGrid's timing
  // precision (1e-9 s) rounds them, by well under a nanosecond in all.
  EXPECT_NEAR(simulate_schedules_s(spec, {nccl.plan({p, 1}, bytes)}, fuse)[0], closed, 1e-9 * closed + 1e-9);
}

INSTANTIATE_TEST_SUITE_P(All, NcclPairOnSimGrid,
                         ::testing::Combine(::testing::Values(0, 1), ::testing::Values(0, 1, 2), ::testing::Bool()),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) == 0 ? "tree" : "ring") + "_" +
                                  std::to_string(std::get<1>(info.param)) +
                                  (std::get<2>(info.param) ? "_flow" : "_message");
                         });

}  // namespace
}  // namespace dtsim::actors
