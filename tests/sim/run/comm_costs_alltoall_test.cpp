// The cost preparer times an all-to-all task on a layout's rank group as NCCL's grouped point-to-point sends
// (make_alltoall("nccl")): its closed form plus the layout's launch cost, and counts each rank's traffic.
#include <gtest/gtest.h>

#include "sim/collectives/operations.hpp"
#include "sim/run/comm_costs.hpp"
#include "tests/sim/star.hpp"

namespace dtsim::run {
namespace {

TEST(CommCosts, TimesAnAlltoallOnARankGroupAsNcclsGroupedSends) {
  scenario::Scenario s;
  s.platform = testing::two_level(2, 4);
  s.workers = 8;
  s.gpu.collective_launch_s = 7e-6;
  parallel::Layout layout;
  layout.data = 8;
  const parallel::Placement placement(layout, s.platform.gpus_per_node);
  const platform::Fabric fabric(s.platform);
  CommCosts costs(s, fabric, placement);
  const std::int64_t bytes = std::int64_t{8} << 20;
  taskgraph::Task t;
  t.op = taskgraph::Op::alltoall;
  t.bytes = bytes;
  t.group = "data";
  // 2 nodes of 4: a GPU's 50 GB/s link carries its 7 chunks of 1 MiB, a node's 12.5 GB/s NIC 4 x 4 of them.
  const double chunk = static_cast<double>(bytes) / 8;
  const double expected = 7e-6 + std::max(2e-6 + 7 * chunk / 50e9, 12e-6 + chunk * std::max(7 / 50e9, 16 / 12.5e9));
  EXPECT_NEAR(costs(0, t), expected, 1e-12);
  EXPECT_NEAR(costs(0, t), costs.launch_s(0, t) + collectives::make_alltoall("nccl", platform::link_costs(s.platform))
                                                      ->closed_form_s({8, 4}, static_cast<double>(bytes),
                                                                      platform::link_costs(s.platform)),
              1e-12);
  EXPECT_EQ(costs.traffic(0, t).sent, 7 * bytes / 8);
  EXPECT_EQ(costs.traffic(0, t).received, 7 * bytes / 8);
}

}  // namespace
}  // namespace dtsim::run
