// Structured nodes on SimGrid: the message and flow levels replay the Fabric routes, so on uncongested plans
// they equal the analytic level (1e-9), and where two flows share a PCIe uplink each gets half. Every route
// compared here has the latency of its competitors, so SimGrid's RTT-weighted sharing plays no part. Each test
// runs SimGrid once: one engine per process (gtest_discover_tests runs each test on its own).
#include <gtest/gtest.h>

#include "sim/actors/simgrid_run.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/collectives/phases.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/platform/fabric.hpp"
#include "tests/sim/platform/structured_nodes.hpp"

namespace dtsim::platform {
namespace {

using namespace testing;
constexpr std::int64_t kBytes = 64'000'000;

/// Simulated times (message level, then flow level) and the analytic time of `plan` on `spec`.
void expect_levels_agree(const PlatformSpec& spec, const collectives::Schedule& plan, bool fuse) {
  const double analytic = collectives::schedule_time_s(plan, Fabric(spec));
  const double simulated = actors::simulate_schedules_s(spec, {plan}, fuse)[0];
  EXPECT_NEAR(simulated, analytic, 1e-9 * analytic);
}

PlatformSpec two_rail_nodes() {
  PlatformSpec spec = structured(NodeFabric::nvswitch, 2, 8, 4, 8);
  spec.node.rails = true;
  return spec;
}

collectives::Schedule ring_16() { return collectives::make_collective("ring")->plan({16, 8}, 16 * kBytes); }

TEST(NodeFabricSimGrid, RingOverNvswitchAndRailsMessageLevelEqualsAnalytic) {
  expect_levels_agree(two_rail_nodes(), ring_16(), false);
}

TEST(NodeFabricSimGrid, RingOverNvswitchAndRailsFlowLevelEqualsAnalytic) {
  expect_levels_agree(two_rail_nodes(), ring_16(), true);
}

TEST(NodeFabricSimGrid, RingOnTheCubeMeshInBothOrdersEqualsAnalytic) {
  using namespace collectives;
  std::vector<Schedule> plans;
  for (const std::vector<int>& order :
       {std::vector<int>{0, 3, 2, 1, 5, 6, 7, 4}, std::vector<int>{0, 1, 3, 7, 5, 4, 6, 2}}) {
    const std::vector<Block> blocks = split({0, 8 * kBytes}, 8);
    PlanBuilder b(8);
    ring_all_gather(b, ring_reduce_scatter(b, 0, order, blocks), order, blocks);
    plans.push_back(std::move(b).finish().schedule());
  }
  const std::vector<double> simulated = actors::simulate_schedules_s(cube_mesh(1), plans, false);
  const double steps = 2 * (8 - 1);
  EXPECT_NEAR(simulated[0], steps * (kNvlinkS + kBytes / (2 * kNvlinkBps)), 1e-9 * simulated[0]);
  EXPECT_NEAR(simulated[1], steps * (kNvlinkS + kBytes / kNvlinkBps), 1e-9 * simulated[1]);
}

TEST(NodeFabricSimGrid, PcieUplinkSharedByTwoGpusGivesEachHalf) {
  collectives::Schedule both{4, {{}}};
  both.steps[0].transfers = {{0, 2, kBytes}, {1, 3, kBytes}};
  const double simulated = actors::simulate_schedules_s(structured(NodeFabric::pcie, 1, 4, 2, 1), {both}, false)[0];
  EXPECT_NEAR(simulated, 4 * kPcieS + kBytes / (kPcieBps / 2), 1e-9 * simulated);
}

TEST(NodeFabricSimGrid, GpuDirectOffCrossesHostMemory) {
  PlatformSpec spec = structured(NodeFabric::nvswitch, 2, 2, 1, 1);
  spec.node.gpudirect = false;
  collectives::Schedule one{4, {{}}};
  one.steps[0].transfers = {{0, 2, kBytes}};
  const double simulated = actors::simulate_schedules_s(spec, {one}, false)[0];
  EXPECT_NEAR(simulated, 8 * kPcieS + 2 * kNicS + kBytes / kNicBps, 1e-9 * simulated);
}

}  // namespace
}  // namespace dtsim::platform
