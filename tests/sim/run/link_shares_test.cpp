// The analytic level times a layout's communication task with the stage's other instances of its group on the
// same links: every instance runs it at the same moment, so k instances whose routes cross one NIC each get 1/k of
// it. Closed forms on two nodes of two_level(nodes, gpus) (GPU links 50 GB/s and 1 us, one 12.5 GB/s NIC of 5 us
// per node): a route between nodes is L = 2 x 1 + 2 x 5 = 12 us, its narrowest link the NIC.
#include <gtest/gtest.h>

#include "sim/run/comm_costs.hpp"
#include "tests/sim/star.hpp"

namespace dtsim::run {
namespace {

constexpr double kLaunch_s = 7e-6, kRoute_s = 12e-6, kNic_Bps = 12.5e9, kGpuLink_Bps = 50e9;
constexpr std::int64_t kBytes = std::int64_t{64} << 20;

scenario::Scenario on_two_level(int nodes, int gpus) {
  scenario::Scenario s;
  s.platform = testing::two_level(nodes, gpus);
  s.workers = nodes * gpus;
  s.gpu.collective_launch_s = kLaunch_s;
  s.collective = "ring";
  return s;
}

taskgraph::Task task(taskgraph::Op op, const std::string& group, int peer = -1) {
  taskgraph::Task t;
  t.op = op;
  t.bytes = kBytes;
  t.group = group;
  t.peer = peer;
  return t;
}

/// The layout tensor x pipeline x data.
parallel::Layout layout_of(int tensor, int pipeline, int data) {
  parallel::Layout layout;
  layout.tensor = tensor;
  layout.pipeline = pipeline;
  layout.data = data;
  return layout;
}

/// The analytic level's time of `t` of stage `role` on layout `layout` over the platform of `s`.
double time_s(const scenario::Scenario& s, const parallel::Layout& layout, const taskgraph::Task& t, int role = 0) {
  const parallel::Placement placement(layout, s.platform.gpus_per_node);
  const platform::Fabric fabric(s.platform);
  CommCosts costs(s, fabric, placement);
  return costs(role, t);
}

TEST(LinkShares, DataGroupsOnOneNicEachGetItsShare) {
  // TP k x DP 2 on 2 nodes of k GPUs: the data groups (i, k + i) of the k tensor ranks all cross both NICs. A ring
  // all-reduce of n bytes over 2 ranks is 2 steps of n / 2 bytes, each transfer at B / k: launch + 2 L + k n / B
  // (k = 1: one group, the NIC its own).
  for (const int k : {1, 2, 4}) {
    const parallel::Layout layout = layout_of(k, 1, 2);
    const double n = static_cast<double>(kBytes);
    EXPECT_NEAR(time_s(on_two_level(2, k), layout, task(taskgraph::Op::allreduce, "data")),
                kLaunch_s + 2 * kRoute_s + k * n / kNic_Bps, 1e-15)
        << "tensor " << k;
  }
}

TEST(LinkShares, RingWithHalfItsHopsAcrossTheNics) {
  // TP 2 x DP 4 on 2 nodes of 4: data groups (0, 2, 4, 6) and (1, 3, 5, 7); each ring crosses from node 0 to 1 at
  // 2 -> 4 and back at 6 -> 0, so each NIC direction carries one hop of each group. Every one of the ring's
  // 2 (p - 1) = 6 steps waits for its crossing hops: 6 (L + (n / 4) / (B / 2)).
  const parallel::Layout layout = layout_of(2, 1, 4);
  const double n = static_cast<double>(kBytes);
  EXPECT_NEAR(time_s(on_two_level(2, 4), layout, task(taskgraph::Op::allreduce, "data")),
              kLaunch_s + 6 * (kRoute_s + (n / 4) / (kNic_Bps / 2)), 1e-15);
}

TEST(LinkShares, PipelineSendsOfAStageShareItsNic) {
  // TP 2 x PP 2 on 2 nodes of 2: stage 0 is node 0, stage 1 node 1; ranks 0 -> 2 and 1 -> 3 send their activations
  // at once over one NIC: launch + L + 2 n / B.
  const parallel::Layout layout = layout_of(2, 2, 1);
  EXPECT_NEAR(time_s(on_two_level(2, 2), layout, task(taskgraph::Op::send, "", 1)),
              kLaunch_s + kRoute_s + 2 * static_cast<double>(kBytes) / kNic_Bps, 1e-15);
  // The same stage-1 sends backward.
  EXPECT_NEAR(time_s(on_two_level(2, 2), layout, task(taskgraph::Op::send, "", 0), 1),
              kLaunch_s + kRoute_s + 2 * static_cast<double>(kBytes) / kNic_Bps, 1e-15);
}

TEST(LinkShares, GroupsOnTheirOwnLinksAreTimedAlone) {
  // TP 2 x DP 2 on one node of 4: tensor groups (0, 1) and (2, 3), each GPU on its own link to the node's switch:
  // nothing shared, the ring of one group alone, 2 steps of (2 x 1 us + (n / 2) / 50 GB/s).
  const parallel::Layout layout = layout_of(2, 1, 2);
  const double n = static_cast<double>(kBytes);
  EXPECT_NEAR(time_s(on_two_level(1, 4), layout, task(taskgraph::Op::allreduce, "tensor")),
              kLaunch_s + 2 * (2e-6 + (n / 2) / kGpuLink_Bps), 1e-15);
}

TEST(LinkShares, DivisorsCountEveryInstancesTransfersPerStep) {
  // Two instances (0, 2) and (1, 3) of a two-rank plan on 2 nodes of 2: in a step with both directions each NIC
  // direction carries one transfer of each instance (divisor 2), each GPU link one (absent); a step 0 -> 1 alone
  // loads only the UP direction of node 0's NIC and the DOWN direction of node 1's.
  const platform::Fabric fabric(testing::two_level(2, 2));
  ConcurrentInstances instances(fabric, 2, {0, 2, 1, 3}, 0);
  const auto flow = [](int from, int to) { return actors::Flow{{from, to, kBytes}, 1, 0}; };
  const LinkDivisors both = instances.divisors({{flow(0, 1), flow(1, 0)}});
  ASSERT_EQ(both.size(), 4u);
  for (const auto& [link, divisor] : both) {
    EXPECT_NE(fabric.link_name(link).find("nic"), std::string::npos) << fabric.link_name(link);
    EXPECT_EQ(divisor, 2.0);
  }
  EXPECT_EQ(instances.divisors({{flow(0, 1)}}).size(), 2u);
  const std::vector<int> mine{0, 2};
  GroupPaths paths(fabric, mine);
  const SharedLinks shared(paths, both);
  for (int link = 0; link < fabric.link_count(); ++link)
    EXPECT_EQ(shared.link_bandwidth_Bps(link), fabric.link_bandwidth_Bps(link) / (both.count(link) ? 2.0 : 1.0));
  // One instance alone shares nothing.
  EXPECT_TRUE(ConcurrentInstances(fabric, 2, {0, 2}, 0).divisors({{flow(0, 1), flow(1, 0)}}).empty());
}

}  // namespace
}  // namespace dtsim::run
