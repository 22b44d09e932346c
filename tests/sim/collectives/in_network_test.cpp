// In-network aggregation (in_network.hpp, nccl_in_network.hpp): the plan's closed form, the bytes on each link,
// NCCL's choice of CollNet and NVLS where the platform has their switch, and the refusals where it has not.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "sim/collectives/in_network.hpp"
#include "sim/collectives/nccl_allreduce.hpp"
#include "sim/collectives/nccl_in_network.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/platform/link_traffic.hpp"
#include "tests/sim/star.hpp"

namespace dtsim::collectives {
namespace {

/// A fat tree of one switch level: `nodes` nodes of one GPU under one switch, 100 Gb/s NICs.
platform::PlatformSpec one_level_fat_tree(int nodes) {
  platform::PlatformSpec spec;
  spec.name = "test-fat-tree";
  spec.topology = platform::Topology::fat_tree;
  spec.nodes = nodes;
  spec.gpus_per_node = 1;
  spec.fat_tree = {{nodes}, {1}, {1}};
  spec.intra = {50e9, 1e-6};
  spec.inter = {12.5e9, 2e-6};
  spec.network = {12.5e9, 1e-6};
  spec.sharp = true;
  return spec;
}

/// An NVSwitch node of 8 GPUs as the built-in dgx_h100 has it (450 GB/s ports, 2.8 us), NVLink SHARP on or off.
platform::PlatformSpec h100_node(bool nvls) {
  platform::PlatformSpec spec = dtsim::testing::two_level(1, 8);
  spec.gpu = "h100";
  spec.node.structured = true;
  spec.node.fabric = platform::NodeFabric::nvswitch;
  spec.node.nvlink = {450e9, 2.8e-6};
  spec.node.pcie = {63e9, 1e-6};
  spec.node.pcie_switches = 8;
  spec.node.nics = 8;
  spec.node.gpu_nic = {0, 1, 2, 3, 4, 5, 6, 7};
  spec.node.nvls = nvls;
  spec.inter = {50e9, 1.5e-6};
  return spec;
}

TEST(InNetwork, EachRankSendsNUpAndReceivesNDownOnItsOwnLink) {
  for (const platform::PlatformSpec& spec : {dtsim::testing::sharp_star(8), one_level_fat_tree(8)}) {
    const platform::Fabric fabric(spec);
    const std::int64_t n = 3 << 20;
    const Schedule plan = make_collective("in_network", platform::link_costs(spec))->plan({8, 1}, n);
    std::vector<double> bytes;
    platform::add_link_bytes(plan, 1.0, fabric, bytes);
    for (int h = 0; h < 8; ++h) {
      EXPECT_EQ(bytes[static_cast<std::size_t>(fabric.host_link(h))], n) << spec.name << " GPU " << h << " up";
      EXPECT_EQ(bytes[static_cast<std::size_t>(fabric.host_link(h) + 1)], n) << spec.name << " GPU " << h << " down";
    }
    // The reduction unit takes every rank's n and gives the sum back to each.
    EXPECT_EQ(bytes[static_cast<std::size_t>(fabric.endpoint_link(0) + 1)], 8.0 * n);
    EXPECT_EQ(bytes[static_cast<std::size_t>(fabric.endpoint_link(0))], 8.0 * n);
  }
}

TEST(InNetwork, AnalyticEqualsTheClosedFormOnAStarAndAOneLevelFatTree) {
  for (const platform::PlatformSpec& spec : {dtsim::testing::sharp_star(16), one_level_fat_tree(16)}) {
    const platform::Fabric fabric(spec);
    const LinkCosts costs = platform::link_costs(spec);
    const auto in_network = make_collective("in_network", costs);
    for (std::int64_t n : {std::int64_t{1}, std::int64_t{4096}, std::int64_t{1000003}, std::int64_t{64} << 20}) {
      const double closed = in_network->closed_form_s({16, 1}, static_cast<double>(n), costs);
      EXPECT_NEAR(schedule_time_s(in_network->plan({16, 1}, n), fabric), closed, 1e-9 * closed)
          << spec.name << " n=" << n;
    }
  }
}

TEST(InNetwork, ClosedFormIsTheChunkPipeline) {
  // Star: 5 us a link, 12.5 GB/s. 64 MiB: k = round(sqrt(n beta / alpha)) chunks, k + 1 steps of one link each.
  const LinkCosts costs = platform::link_costs(dtsim::testing::sharp_star(16));
  ASSERT_TRUE(costs.to_switch.has_value());
  EXPECT_DOUBLE_EQ(costs.to_switch->alpha_s, 5e-6);
  const double n = 64 << 20, beta = 1 / 12.5e9;
  const int k = in_network_chunks(n, {5e-6, beta});
  EXPECT_EQ(k, 33);  // sqrt(67108864 / 12.5e9 / 5e-6) = 32.8
  // 64 MiB = 31 chunks of 2033602 bytes, then 2 of 2033601: steps 0-31 move 2033602 bytes, steps 32 and 33 2033601.
  const double expected = 34 * 5e-6 + (32 * 2033602.0 + 2 * 2033601.0) * beta;
  EXPECT_NEAR(make_collective("in_network", costs)->closed_form_s({16, 1}, n, costs), expected, 1e-9 * expected);
}

TEST(InNetwork, TheSwitchSummingRateCapsTheInputs) {
  platform::PlatformSpec spec = dtsim::testing::sharp_star(8);
  spec.switch_reduce_bandwidth_Bps = 50e9;  // 8 inputs: 6.25 GB/s each, below the 12.5 GB/s links
  const platform::Fabric fabric(spec);
  const LinkCosts costs = platform::link_costs(spec);
  EXPECT_DOUBLE_EQ(switch_cost({8, 1}, costs).beta_s_per_byte, 8 / 50e9);  // the sums go back at 12.5 GB/s
  const auto in_network = make_collective("in_network", costs);
  const std::int64_t n = 8 << 20;
  const double closed = in_network->closed_form_s({8, 1}, static_cast<double>(n), costs);
  EXPECT_NEAR(schedule_time_s(in_network->plan({8, 1}, n), fabric), closed, 1e-9 * closed);
}

/// The enabled (algorithm, protocol) with the least predicted time, as nccl_tune must find it.
NcclChoice least(const Group& group, const LinkCosts& network, double bytes) {
  NcclChoice best;
  double best_s = std::numeric_limits<double>::infinity();
  for (int a = 0; a < 5; ++a)
    for (int p = 0; p < 3; ++p) {
      const NcclChoice c{static_cast<NcclAlgorithm>(a), static_cast<NcclProtocol>(p)};
      if (!nccl_enabled(c, group, network)) continue;
      if (const double t = nccl_predicted_s(c, group, network, bytes); t < best_s) {
        best = c;
        best_s = t;
      }
    }
  return best;
}

TEST(NcclInNetwork, PicksNvlsWhereItsPredictedTimeIsLeastAndOnlyWhereTheNvSwitchSums) {
  const Group group{8, 8};
  const LinkCosts with = platform::link_costs(h100_node(true));
  const LinkCosts without = platform::link_costs(h100_node(false));
  bool picked = false;
  for (double bytes = 1024; bytes <= (1 << 30); bytes *= 4) {
    const NcclChoice c = nccl_tune(group, with, bytes);
    EXPECT_EQ(c.name(), least(group, with, bytes).name()) << bytes;
    picked = picked || c.algorithm == NcclAlgorithm::nvls;
    EXPECT_NE(nccl_tune(group, without, bytes).algorithm, NcclAlgorithm::nvls) << bytes;
  }
  EXPECT_TRUE(picked);
  // 1 GiB: NVLS at 5/6 of the 450 GB/s port against the ring's 16 channels of 20 GB/s x 8/14.
  EXPECT_EQ(nccl_tune(group, with, 1 << 30).name(), "nvls/Simple");
  EXPECT_NEAR(nccl_predicted_s({NcclAlgorithm::nvls, NcclProtocol::simple}, group, with, 1 << 30),
              23e-6 + (1 << 30) / (450e9 * 5 / 6), 1e-12);
  // Small messages keep the ring's or tree's low latency: NVLS costs 23 us.
  EXPECT_NE(nccl_tune(group, with, 1024).algorithm, NcclAlgorithm::nvls);
}

TEST(NcclInNetwork, PicksCollNetChainWhereItsPredictedTimeIsLeastAndOnlyWhereTheNetworkSums) {
  const Group group{64, 1};
  const LinkCosts with = platform::link_costs(dtsim::testing::sharp_star(64));
  const LinkCosts without = platform::link_costs(dtsim::testing::star(64));
  bool picked = false;
  for (double bytes = 1024; bytes <= (1 << 30); bytes *= 4) {
    const NcclChoice c = nccl_tune(group, with, bytes);
    EXPECT_EQ(c.name(), least(group, with, bytes).name()) << bytes;
    picked = picked || c.algorithm == NcclAlgorithm::collnet_chain;
    EXPECT_FALSE(nccl_in_network(nccl_tune(group, without, bytes).algorithm)) << bytes;
  }
  EXPECT_TRUE(picked);
  EXPECT_DOUBLE_EQ(nccl_in_network_latency_s(NcclAlgorithm::collnet_chain, group), 30e-6);
  // No CollNet Direct without NVSwitch nodes, nor CollNet on one node.
  EXPECT_FALSE(nccl_enabled({NcclAlgorithm::collnet_direct, NcclProtocol::simple}, group, with));
  EXPECT_FALSE(nccl_enabled({NcclAlgorithm::collnet_chain, NcclProtocol::ll}, group, with));
}

TEST(NcclInNetwork, ItsPlanIsTheInNetworkPlanWithNcclsLatencySpreadOverTheSteps) {
  const platform::PlatformSpec spec = h100_node(true);
  const LinkCosts costs = platform::link_costs(spec);
  const NcclAllreduce nccl("nccl", costs, {NcclAlgorithm::nvls, {}});
  const std::int64_t n = 1 << 28;
  const Schedule plan = nccl.plan({8, 8}, n);
  EXPECT_EQ(plan.switches, 1);
  const double closed = nccl.closed_form_s({8, 8}, static_cast<double>(n), costs);
  EXPECT_NEAR(schedule_time_s(plan, platform::Fabric(spec)), closed, 1e-9 * closed);
  // The whole latency paid is NCCL's 23 us (above the steps' 2.8 us path latencies), the rest is the pipeline.
  const int k = static_cast<int>(plan.steps.size()) - 1;
  LinkCosts no_latency = costs;
  no_latency.to_switch->alpha_s = 0;
  EXPECT_NEAR(closed, std::max(23e-6, (k + 1) * 2.8e-6) + in_network_time_s(n, k, {8, 8}, no_latency), 1e-9 * closed);
}

TEST(InNetworkRefusals, PlatformsWhoseSwitchCannotSum) {
  platform::PlatformSpec a100 = h100_node(true);
  a100.gpu = "a100";
  EXPECT_NE(platform::reduction_refusal(a100).find("third-generation NVSwitch"), std::string::npos);
  platform::PlatformSpec mesh = h100_node(true);
  mesh.node.fabric = platform::NodeFabric::pcie;
  EXPECT_NE(platform::reduction_refusal(mesh).find("without an NVSwitch"), std::string::npos);
  platform::PlatformSpec torus = dtsim::testing::sharp_star(8);
  torus.topology = platform::Topology::torus;
  EXPECT_NE(platform::reduction_refusal(torus).find("one switch joins all nodes"), std::string::npos);
  platform::PlatformSpec two_levels = one_level_fat_tree(8);
  two_levels.fat_tree = {{4, 2}, {1, 2}, {1, 1}};
  EXPECT_NE(platform::reduction_refusal(two_levels).find("fat_tree"), std::string::npos);
  EXPECT_EQ(platform::reduction_refusal(h100_node(true)), "");
  EXPECT_EQ(platform::reduction_refusal(one_level_fat_tree(8)), "");
  // Collectives: no switch at all, and an NVSwitch asked to sum across nodes.
  EXPECT_NE(in_network_refusal({8, 1}, platform::link_costs(dtsim::testing::star(8))), "");
  EXPECT_NE(in_network_refusal({16, 8}, platform::link_costs(h100_node(true))), "");
  EXPECT_EQ(in_network_refusal({8, 8}, platform::link_costs(h100_node(true))), "");
}

}  // namespace
}  // namespace dtsim::collectives
