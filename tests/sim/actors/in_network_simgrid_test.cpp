// The in-network all-reduce and NCCL's NVLS on SimGrid: the flow and message levels, the reduction unit a host
// at the switch's place, equal the analytic replay and the closed form on a star, a one-level fat tree and an
// NVSwitch node.
#include <gtest/gtest.h>

#include "sim/actors/simgrid_run.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/collectives/nccl_allreduce.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/platform/fabric.hpp"
#include "tests/sim/star.hpp"

namespace dtsim::actors {
namespace {

platform::PlatformSpec platform_called(const std::string& name) {
  if (name == "star") return testing::sharp_star(16);
  if (name == "fat_tree") {
    platform::PlatformSpec spec = testing::star(16);
    spec.topology = platform::Topology::fat_tree;
    spec.fat_tree = {{16}, {1}, {1}};
    spec.intra = {50e9, 1e-6};
    spec.inter = {12.5e9, 2e-6};
    spec.network = {12.5e9, 1e-6};
    spec.sharp = true;
    return spec;
  }
  platform::PlatformSpec spec = testing::two_level(1, 8);  // "nvswitch": an H100 node with NVLink SHARP
  spec.gpu = "h100";
  spec.node = {true, platform::NodeFabric::nvswitch, {450e9, 2.8e-6}, {}, {63e9, 1e-6}, 8, 8, {0, 1, 2, 3, 4, 5, 6, 7},
               true, false, true};
  spec.inter = {50e9, 1.5e-6};
  return spec;
}

class InNetworkOnSimGrid : public ::testing::TestWithParam<std::tuple<std::string, bool>> {};

TEST_P(InNetworkOnSimGrid, EqualsTheAnalyticReplayAndTheClosedForm) {
  const auto [name, fuse] = GetParam();
  const platform::PlatformSpec spec = platform_called(name);
  const collectives::LinkCosts costs = platform::link_costs(spec);
  const collectives::Group group{spec.hosts(), spec.gpus_per_node};
  const std::int64_t bytes = std::int64_t{3} << 24;
  // The in-network collective, and NCCL forced to the in-network algorithm the platform has.
  const auto in_network = collectives::make_collective("in_network", costs);
  const collectives::NcclAllreduce nccl(
      "nccl", costs, {spec.sharp ? collectives::NcclAlgorithm::collnet_chain : collectives::NcclAlgorithm::nvls, {}});
  const std::vector<collectives::Schedule> plans{in_network->plan(group, bytes), nccl.plan(group, bytes)};
  const std::vector<double> simulated = simulate_schedules_s(spec, plans, fuse);
  const platform::Fabric fabric(spec);
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const double analytic = collectives::schedule_time_s(plans[i], fabric);
    const double closed = i == 0 ? in_network->closed_form_s(group, static_cast<double>(bytes), costs)
                                 : nccl.closed_form_s(group, static_cast<double>(bytes), costs);
    EXPECT_NEAR(analytic, closed, 1e-9 * closed) << i;
    // NCCL's step latencies are not whole nanoseconds: SimGrid rounds them by under a nanosecond in all.
    EXPECT_NEAR(simulated[i], analytic, 1e-9 * analytic + (i == 0 ? 0 : 1e-9)) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(All, InNetworkOnSimGrid,
                         ::testing::Combine(::testing::Values("star", "fat_tree", "nvswitch"), ::testing::Bool()),
                         [](const auto& info) {
                           return std::get<0>(info.param) + (std::get<1>(info.param) ? "_flow" : "_message");
                         });

}  // namespace
}  // namespace dtsim::actors
