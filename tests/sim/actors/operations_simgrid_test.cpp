// NCCL's all-gather, reduce-scatter, broadcast, all-to-all and send/recv run on SimGrid at the message and flow
// levels equal their analytic replay (and so their closed forms) where no link is shared unequally: a star, and a
// two-level cluster whose one NIC per node is the all-to-all's bottleneck.
#include <gtest/gtest.h>

#include "sim/actors/simgrid_run.hpp"
#include "sim/collectives/operations.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/platform/fabric.hpp"
#include "tests/sim/star.hpp"

namespace dtsim::actors {
namespace {

using collectives::Operation;

class OperationOnSimGrid : public ::testing::TestWithParam<std::tuple<Operation, bool, bool>> {};

TEST_P(OperationOnSimGrid, EqualsTheAnalyticReplay) {
  const auto [op, two_level, fuse] = GetParam();
  const auto spec = two_level ? testing::two_level(2, 4) : testing::star(6);
  const collectives::Group group{spec.hosts(), spec.gpus_per_node};
  const collectives::LinkCosts costs = platform::link_costs(spec);
  const auto collective = collectives::make_operation(op, "nccl", costs);
  // Divisible by the ranks and by the segments: equal chunks, so SimGrid's 1 ns resolution rounds nothing. Both sizes
  // in one engine (one per process).
  const std::vector<std::int64_t> sizes{std::int64_t{24} << 10, std::int64_t{24} << 20};
  std::vector<collectives::Schedule> plans;
  for (std::int64_t bytes : sizes) plans.push_back(collective->plan(group, bytes));
  const std::vector<double> simulated = simulate_schedules_s(spec, plans, fuse);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double analytic = collectives::schedule_time_s(plans[i], platform::Fabric(spec));
    EXPECT_NEAR(simulated[i], analytic, 1e-9 * analytic) << sizes[i];
    EXPECT_NEAR(collective->closed_form_s(group, static_cast<double>(sizes[i]), costs), analytic, 1e-9 * analytic)
        << sizes[i];
  }
}

INSTANTIATE_TEST_SUITE_P(All, OperationOnSimGrid,
                         ::testing::Combine(::testing::Values(Operation::allgather, Operation::reduce_scatter,
                                                              Operation::alltoall, Operation::broadcast,
                                                              Operation::sendrecv),
                                            ::testing::Bool(), ::testing::Bool()),
                         [](const auto& info) {
                           return collectives::operation_names()[static_cast<std::size_t>(std::get<0>(info.param))] +
                                  (std::get<1>(info.param) ? "_two_level" : "_star") +
                                  (std::get<2>(info.param) ? "_flow" : "_message");
                         });

}  // namespace
}  // namespace dtsim::actors
