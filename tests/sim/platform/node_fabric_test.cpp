// Structured nodes on the analytic level: the route of each kind of GPU pair and its closed-form time
// (route latency + bytes / bottleneck), sharing where two flows meet, rails, GPUDirect, and ring orders on
// the hybrid cube-mesh.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "sim/collectives/phases.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/platform/describe_platform.hpp"
#include "sim/platform/fabric.hpp"
#include "tests/sim/platform/structured_nodes.hpp"

namespace dtsim::platform {
namespace {

using namespace testing;
constexpr std::int64_t kBytes = 64'000'000;

/// Names of the directed links from GPU a to GPU b.
std::vector<std::string> route(const Fabric& f, int a, int b) {
  std::vector<std::string> names;
  for (int l : f.path(a, b).links) names.push_back(f.link_name(l));
  return names;
}

/// Analytic time of the transfers (from, to) of kBytes each, all at once.
double together_s(const Fabric& f, const std::vector<std::pair<int, int>>& pairs) {
  collectives::Schedule s{f.spec().hosts(), {{}}};
  for (const auto& [a, b] : pairs) s.steps[0].transfers.push_back({a, b, kBytes});
  return collectives::schedule_time_s(s, f);
}

TEST(NodeFabric, NvswitchHopIsTwoPorts) {
  const Fabric f(structured(NodeFabric::nvswitch, 1, 4, 2, 2));
  EXPECT_EQ(route(f, 0, 3), (std::vector<std::string>{"gpu0_nvlink_UP", "gpu3_nvlink_DOWN"}));
  EXPECT_DOUBLE_EQ(together_s(f, {{0, 3}}), 2 * kNvlinkS + kBytes / kNvlinkBps);
}

TEST(NodeFabric, NvlinkPairWithKLinksRunsKTimesOneLink) {
  const Fabric f(cube_mesh(1));
  EXPECT_EQ(route(f, 0, 3), (std::vector<std::string>{"node0_nvlink0-3_UP"}));
  EXPECT_EQ(route(f, 3, 0), (std::vector<std::string>{"node0_nvlink0-3_DOWN"}));
  EXPECT_DOUBLE_EQ(together_s(f, {{0, 3}}), kNvlinkS + kBytes / (2 * kNvlinkBps));  // two NVLinks
  EXPECT_DOUBLE_EQ(together_s(f, {{0, 1}}), kNvlinkS + kBytes / kNvlinkBps);        // one
}

TEST(NodeFabric, PairWithoutNvlinkRelaysThroughAGpuWithNvlinksToBoth) {
  // GPUs 0 and 5 share no NVLink; GPUs 1 (0-1 x1, 1-5 x2) and 4 (0-4 x2, 4-5 x1) both reach them over one link
  // at least: NCCL's P2P takes such a path (PATH_NVB), the lowest such GPU here.
  const Fabric f(cube_mesh(1));
  EXPECT_EQ(route(f, 0, 5), (std::vector<std::string>{"node0_nvlink0-1_UP", "node0_nvlink1-5_UP"}));
  EXPECT_DOUBLE_EQ(together_s(f, {{0, 5}}), 2 * kNvlinkS + kBytes / kNvlinkBps);
  // 3 -> 4: through GPU 0 (3-0 x2, 0-4 x2) rather than GPU 7 (3-7 x1): two links' bandwidth.
  EXPECT_EQ(route(f, 3, 4), (std::vector<std::string>{"node0_nvlink0-3_DOWN", "node0_nvlink0-4_UP"}));
  EXPECT_DOUBLE_EQ(together_s(f, {{3, 4}}), 2 * kNvlinkS + kBytes / (2 * kNvlinkBps));
}

TEST(NodeFabric, PairWithoutAnyNvlinkPathGoesThroughThePcieSwitchesAndTheHost) {
  PlatformSpec spec = cube_mesh(1);  // only the pairs 0-1 and 4-5 keep their NVLinks
  for (auto& row : spec.node.nvlinks) std::fill(row.begin(), row.end(), 0);
  spec.node.nvlinks[0][1] = spec.node.nvlinks[1][0] = spec.node.nvlinks[4][5] = spec.node.nvlinks[5][4] = 1;
  const Fabric f(spec);  // GPU 0 on switch 0, GPU 5 on switch 2
  EXPECT_EQ(route(f, 0, 5), (std::vector<std::string>{"gpu0_pcie_UP", "node0_pcie0_host_UP", "node0_pcie2_host_DOWN",
                                                      "gpu5_pcie_DOWN"}));
  EXPECT_DOUBLE_EQ(together_s(f, {{0, 5}}), 4 * kPcieS + kBytes / kPcieBps);
  const Fabric pcie(structured(NodeFabric::pcie, 1, 4, 2, 1));
  EXPECT_EQ(route(pcie, 0, 1), (std::vector<std::string>{"gpu0_pcie_UP", "gpu1_pcie_DOWN"}));  // one switch
}

TEST(NodeFabric, PcieUplinkSharedByTwoGpusGivesEachHalf) {
  // GPUs 0 and 1 (switch 0) send to GPUs 2 and 3 (switch 1) together: both cross node0_pcie0_host_UP.
  const Fabric f(structured(NodeFabric::pcie, 1, 4, 2, 1));
  EXPECT_DOUBLE_EQ(together_s(f, {{0, 2}}), 4 * kPcieS + kBytes / kPcieBps);
  EXPECT_DOUBLE_EQ(together_s(f, {{0, 2}, {1, 3}}), 4 * kPcieS + kBytes / (kPcieBps / 2));
}

TEST(NodeFabric, GpuDirectOffAddsTheHostHop) {
  PlatformSpec spec = structured(NodeFabric::nvswitch, 2, 2, 1, 1);
  const std::vector<std::string> direct{"gpu0_pcie_UP",    "node0_nic0_pcie_UP",   "node0_nic0_UP",
                                        "node1_nic0_DOWN", "node1_nic0_pcie_DOWN", "gpu2_pcie_DOWN"};
  EXPECT_EQ(route(Fabric(spec), 0, 2), direct);
  const double nic_bound = kBytes / kNicBps;
  EXPECT_DOUBLE_EQ(together_s(Fabric(spec), {{0, 2}}), 4 * kPcieS + 2 * kNicS + nic_bound);
  spec.node.gpudirect = false;
  EXPECT_EQ(route(Fabric(spec), 0, 2),
            (std::vector<std::string>{"gpu0_pcie_UP", "node0_pcie0_host_UP", "node0_pcie0_host_DOWN",
                                      "node0_nic0_pcie_UP", "node0_nic0_UP", "node1_nic0_DOWN", "node1_nic0_pcie_DOWN",
                                      "node1_pcie0_host_UP", "node1_pcie0_host_DOWN", "gpu2_pcie_DOWN"}));
  EXPECT_DOUBLE_EQ(together_s(Fabric(spec), {{0, 2}}), 8 * kPcieS + 2 * kNicS + nic_bound);
}

TEST(NodeFabric, RailOptimisedGpuIToGpuICrossesOnlyRailI) {
  PlatformSpec spec = structured(NodeFabric::nvswitch, 3, 4, 2, 4);
  spec.node.rails = true;
  const Fabric f(spec);
  const std::vector<std::string> same = route(f, 2, 4 + 2);  // GPU 2 of node 0 -> GPU 2 of node 1
  EXPECT_EQ(same, (std::vector<std::string>{"gpu2_pcie_UP", "node0_nic2_pcie_UP", "node0_nic2_UP", "node1_nic2_DOWN",
                                            "node1_nic2_pcie_DOWN", "gpu6_pcie_DOWN"}));
  EXPECT_DOUBLE_EQ(together_s(f, {{2, 6}}), 4 * kPcieS + 2 * kNicS + kBytes / kNicBps);
  const std::vector<std::string> cross = route(f, 2, 8 + 1);  // GPU 2 of node 0 -> GPU 1 of node 2
  EXPECT_NE(std::find(cross.begin(), cross.end(), "rail2_spine_UP"), cross.end());
  EXPECT_NE(std::find(cross.begin(), cross.end(), "rail1_spine_DOWN"), cross.end());
  EXPECT_DOUBLE_EQ(together_s(f, {{2, 9}}), 4 * kPcieS + 2 * kNicS + 2 * kSpineS + kBytes / kNicBps);
  // Every GPU i of node 0 to GPU i of node 1 at once: four rails, no shared link, no slowdown.
  EXPECT_DOUBLE_EQ(together_s(f, {{0, 4}, {1, 5}, {2, 6}, {3, 7}}), together_s(f, {{2, 6}}));
}

/// Bandwidth of rail 0's link to the spine on `nodes` rail-optimised nodes, `per_leaf` nodes to a leaf.
double rail_spine_Bps(int nodes, int per_leaf) {
  PlatformSpec spec = structured(NodeFabric::nvswitch, nodes, 4, 2, 4);
  spec.node.rails = true;
  spec.node.nodes_per_leaf = per_leaf;
  const Fabric f(spec);
  const int id = f.graph().find_link("rail0_spine_UP");
  if (id >= 0) return f.link_bandwidth_Bps(id);
  ADD_FAILURE() << "no rail0_spine_UP";
  return 0;
}

TEST(NodeFabric, RailSpineUplinkIsOneNetworkLinkPerLeaf) {
  const double uplink = 4 * kNicBps;  // structured(): network_link
  EXPECT_EQ(rail_spine_Bps(4, 20), uplink);
  EXPECT_EQ(rail_spine_Bps(20, 20), uplink);
  EXPECT_EQ(rail_spine_Bps(21, 20), 2 * uplink);
  EXPECT_EQ(rail_spine_Bps(192, 20), 10 * uplink);
  EXPECT_EQ(rail_spine_Bps(192, 32), 6 * uplink);
  EXPECT_EQ(rail_spine_Bps(192, 0), uplink);  // nodes_per_leaf not set: one uplink for the whole rail
}

/// GPU 0 of each of `nodes` nodes (rail 0) to GPU 1 of the next node (rail 1), all at once: every flow crosses
/// rail0_spine_UP and rail1_spine_DOWN.
double across_rails_s(int nodes, int per_leaf) {
  PlatformSpec spec = structured(NodeFabric::nvswitch, nodes, 4, 2, 4);
  spec.node.rails = true;
  spec.node.nodes_per_leaf = per_leaf;
  std::vector<std::pair<int, int>> pairs;
  for (int a = 0; a < nodes; ++a) pairs.emplace_back(4 * a, 4 * ((a + 1) % nodes) + 1);
  return together_s(Fabric(spec), pairs);
}

TEST(NodeFabric, FlowsAcrossRailsShareTheLeavesUplinks) {
  const double latency_s = 4 * kPcieS + 2 * kNicS + 2 * kSpineS;
  const auto near = [](double got, double want) { EXPECT_NEAR(got, want, 1e-9 * want); };
  // One uplink of 4 NICs' bandwidth for the whole rail: 8 flows get half a NIC each.
  near(across_rails_s(8, 0), latency_s + kBytes / (4 * kNicBps / 8));
  // Four leaves of 2 nodes: 16 NICs' worth of uplinks, more than the 8 flows' NICs: NIC-bound.
  near(across_rails_s(8, 2), latency_s + kBytes / kNicBps);
  // Two leaves of up to 8 nodes (8 NICs of uplink, oversubscribed 2:1) and 12 flows: 2/3 of a NIC each.
  near(across_rails_s(12, 8), latency_s + kBytes / (2 * 4 * kNicBps / 12));
}

TEST(NodeFabric, GpusSharingANicShareItsBandwidth) {
  const Fabric f(cube_mesh(2));  // GPUs 0 and 1 use NIC 0
  EXPECT_DOUBLE_EQ(together_s(f, {{0, 8}, {1, 9}}), 4 * kPcieS + 2 * kNicS + kBytes / (kNicBps / 2));
}

/// Ring all-reduce of `bytes` over `order` on one cube-mesh node, analytic.
double ring_s(const std::vector<int>& order, std::int64_t bytes) {
  using namespace collectives;
  const std::vector<Block> blocks = split({0, bytes}, static_cast<int>(order.size()));
  PlanBuilder b(8);
  ring_all_gather(b, ring_reduce_scatter(b, 0, order, blocks), order, blocks);
  return schedule_time_s(std::move(b).finish().schedule(), Fabric(cube_mesh(1)));
}

TEST(NodeFabric, RingSpeedOnTheCubeMeshFollowsTheLinkCountsOfItsOrder) {
  // 0-3-2-1-5-6-7-4: every neighbour pair has 2 NVLinks; 0-1-3-7-5-4-6-2: every pair has 1 (DGX-1 matrix).
  const std::vector<int> doubled{0, 3, 2, 1, 5, 6, 7, 4};
  const std::vector<int> single{0, 1, 3, 7, 5, 4, 6, 2};
  const std::int64_t n = 8 * kBytes;
  const double steps = 2 * (8 - 1);
  EXPECT_NEAR(ring_s(doubled, n), steps * (kNvlinkS + kBytes / (2 * kNvlinkBps)), 1e-9 * ring_s(doubled, n));
  EXPECT_NEAR(ring_s(single, n), steps * (kNvlinkS + kBytes / kNvlinkBps), 1e-9 * ring_s(single, n));
  // Rank order 0..7: 3-4 and 7-0 have no NVLink and relay through GPUs 0 and 4 over doubled links (two
  // latencies, two links' bandwidth); the single links 0-1, 4-5 set the pace unless the relay's latency does.
  const std::vector<int> ranks{0, 1, 2, 3, 4, 5, 6, 7};
  const double step_s = std::max(kNvlinkS + kBytes / kNvlinkBps, 2 * kNvlinkS + kBytes / (2 * kNvlinkBps));
  EXPECT_NEAR(ring_s(ranks, n), steps * step_s, 1e-9 * ring_s(ranks, n));
}

TEST(NodeFabric, LinkCostsAreTheRoutesOfGpu0ToGpu1AndToTheNextNode) {
  const auto costs = link_costs(cube_mesh(2));
  EXPECT_DOUBLE_EQ(costs.intra.alpha_s, kNvlinkS);
  EXPECT_DOUBLE_EQ(costs.intra.beta_s_per_byte, 1 / kNvlinkBps);
  EXPECT_DOUBLE_EQ(costs.inter.alpha_s, 4 * kPcieS + 2 * kNicS);
  EXPECT_DOUBLE_EQ(costs.inter.beta_s_per_byte, 1 / kNicBps);
}

TEST(NodeFabric, ShowListsTheNodeStructure) {
  PlatformSpec spec = cube_mesh(2);
  spec.node.rails = true;
  const PlatformDescription d = describe_platform(spec);
  EXPECT_EQ(d.switches, 4 + 1);  // rails and the spine
  EXPECT_NE(d.node.find("  gpu0 -> gpu1 x1 gpu2 x1 gpu3 x2 gpu4 x2\n"), std::string::npos);
  EXPECT_NE(d.node.find("pcie0 [gpu0 gpu1 nic0]"), std::string::npos);
  EXPECT_NE(d.node.find("gpu7->nic3"), std::string::npos);
  EXPECT_NE(d.node.find("rail-optimised"), std::string::npos);
  EXPECT_NE(d.node.find("one leaf uplink per rail at any node count, nodes_per_leaf not set"), std::string::npos);
  EXPECT_NE(format_description(d).find("node links    gpu<h>_pcie"), std::string::npos);
}

TEST(NodeFabric, ShowGivesTheRailLeavesAndTheirUplinks) {
  PlatformSpec spec = structured(NodeFabric::nvswitch, 5, 4, 2, 4);
  spec.node.rails = true;
  spec.node.nodes_per_leaf = 2;
  // 3 x 4 NICs of 12.5 GB/s = 150 GB/s = 139.70 GiB/s.
  EXPECT_NE(describe_platform(spec).node.find("rails joined by spine (rail<k>_spine 139.70 GiB/s, 0.500 us: 3 leaves "
                                              "of up to 2 nodes, each with an uplink of 46.57 GiB/s, 0.500 us)"),
            std::string::npos);
}

}  // namespace
}  // namespace dtsim::platform
