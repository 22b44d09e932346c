#include "sim/platform/fabric.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "sim/core/error.hpp"
#include "tests/sim/platform/small_platforms.hpp"

namespace dtsim::platform {
namespace {

std::vector<std::string> names(const Fabric& fabric, const std::vector<int>& links) {
  std::vector<std::string> out;
  for (int l : links) out.push_back(fabric.link_name(l));
  return out;
}

using Names = std::vector<std::string>;

TEST(Fabric, EveryRouteOfEveryTopologyIsAChainFromGpuToGpu) {
  for (Topology t : testing::all_topologies()) {
    const PlatformSpec spec = testing::small_platform(t);
    const Fabric fabric(spec);
    for (int a = 0; a < spec.hosts(); ++a)
      for (int b = 0; b < spec.hosts(); ++b) {
        if (a == b) continue;
        const core::Path p = fabric.path(a, b);
        int at = a;
        double latency_s = 0;
        std::set<int> seen{a};
        for (int l : p.links) {
          const DirectedLink& d = fabric.links()[static_cast<std::size_t>(l)];
          ASSERT_EQ(d.from, at) << topology_name(t) << " " << a << "->" << b;
          at = d.to;
          ASSERT_TRUE(seen.insert(at).second) << topology_name(t) << " route revisits " << at;
          latency_s += d.latency_s;
        }
        EXPECT_EQ(at, b) << topology_name(t);
        EXPECT_DOUBLE_EQ(p.latency_s, latency_s);
      }
  }
}

TEST(Fabric, FindsEveryLinkByItsNameAndNoOther) {
  for (Topology t : testing::all_topologies()) {
    const Fabric fabric(testing::small_platform(t));
    for (int id = 0; id < fabric.link_count(); ++id)
      EXPECT_EQ(fabric.graph().find_link(fabric.link_name(id)), id) << topology_name(t) << " " << fabric.link_name(id);
    const std::string up = fabric.link_name(0);
    EXPECT_EQ(fabric.graph().find_link(up.substr(0, up.size() - 3)), -1) << "no direction";
    EXPECT_EQ(fabric.graph().find_link("nosuch0_UP"), -1);
  }
}

TEST(Fabric, StarAndTwoLevelKeepTheirLinkIdsAndNames) {
  const Fabric star(testing::small_platform(Topology::star));
  EXPECT_EQ(names(star, star.path(1, 3).links), (Names{"link1_UP", "link3_DOWN"}));
  EXPECT_EQ(star.path(1, 3).links, (std::vector<int>{2, 7}));
  const Fabric two(testing::small_platform(Topology::two_level));
  EXPECT_EQ(names(two, two.path(0, 1).links), (Names{"gpu0_UP", "gpu1_DOWN"}));
  EXPECT_EQ(names(two, two.path(1, 9).links), (Names{"gpu1_UP", "nic0_UP", "nic4_DOWN", "gpu9_DOWN"}));
  EXPECT_EQ(two.path(1, 9).links, (std::vector<int>{2, 20, 29, 19}));  // nic n UP = 2 * hosts + 2n
  EXPECT_DOUBLE_EQ(two.path(1, 9).latency_s, 1e-6 + 2e-6 + 2e-6 + 1e-6);
}

TEST(Fabric, FatTreeRoutesDModKThroughTheLowestCommonLevel) {
  const Fabric f(testing::small_platform(Topology::fat_tree));  // down {2,2,2} up {1,2,2} parallel {1,1,2}
  EXPECT_EQ(names(f, f.node_route(0, 1)), (Names{"nic0_UP", "nic1_DOWN"}));
  // To node 3 (odd): up port 3 mod 2 = 1 at level 2; down the unique way.
  EXPECT_EQ(names(f, f.node_route(0, 3)), (Names{"nic0_UP", "sw1_0-sw2_1_UP", "sw1_1-sw2_1_DOWN", "nic3_DOWN"}));
  // To node 6: level 2 port 0, level 3 port floor(6 / 2) mod (2 * 2) = 3: parent 1, parallel link 1.
  EXPECT_EQ(names(f, f.node_route(1, 6)), (Names{"nic1_UP", "sw1_0-sw2_0_UP", "sw2_0-sw3_2_p1_UP",
                                                 "sw2_2-sw3_2_p1_DOWN", "sw1_3-sw2_2_DOWN", "nic6_DOWN"}));
  // Destination-based: every source reaches node 6 through the same top switch.
  for (int a = 0; a < 4; ++a) EXPECT_EQ(names(f, f.node_route(a, 6))[2].substr(6), "sw3_2_p1_UP");
}

TEST(Fabric, TorusRoutesInDimensionOrderTheShortWayRound) {
  const Fabric f(testing::small_platform(Topology::torus));                                          // dims {3, 2, 2}
  EXPECT_EQ(names(f, f.node_route(0, 2)), (Names{"nic0_UP", "router2-router0_DOWN", "nic2_DOWN"}));  // wrap
  EXPECT_EQ(names(f, f.node_route(0, 11)),
            (Names{"nic0_UP", "router2-router0_DOWN", "router2-router5_UP", "router5-router11_UP", "nic11_DOWN"}));
  EXPECT_EQ(names(f, f.node_route(11, 0)),
            (Names{"nic11_UP", "router11-router9_UP", "router6-router9_DOWN", "router0-router6_DOWN", "nic0_DOWN"}));
}

TEST(Fabric, RingTakesTheShorterWayAndThePositiveOneAtHalfway) {
  auto spec = testing::small_platform(Topology::ring);
  spec.nodes = 4;
  const Fabric f(spec);
  EXPECT_EQ(names(f, f.node_route(0, 3)), (Names{"nic0_UP", "router3-router0_DOWN", "nic3_DOWN"}));
  EXPECT_EQ(names(f, f.node_route(0, 2)), (Names{"nic0_UP", "router0-router1_UP", "router1-router2_UP", "nic2_DOWN"}));
  EXPECT_EQ(names(f, f.node_route(2, 0)), (Names{"nic2_UP", "router2-router3_UP", "router3-router0_UP", "nic0_DOWN"}));
}

TEST(Fabric, FullMeshIsOneNetworkHop) {
  const Fabric f(testing::small_platform(Topology::full_mesh));
  EXPECT_EQ(names(f, f.node_route(4, 1)), (Names{"nic4_UP", "router1-router4_DOWN", "nic1_DOWN"}));
  EXPECT_EQ(f.link_count() / 2, 10 + 5 + 10);  // GPU links, NICs, 5 * 4 / 2 router pairs
}

TEST(Fabric, DragonflyRoutesMinimallyAcrossGroupsWithAnyGroupCount) {
  const Fabric f(testing::small_platform(Topology::dragonfly));  // 3 groups, 2 chassis, 2 routers, 1 node each
  // Group 0 -> group 2: the link to group 2 sits on router index (2 - 1) = 1 of group 0 (chassis 0, router 1),
  // and the link to group 0 on router index 0 of group 2.
  EXPECT_EQ(names(f, f.node_route(0, 8)),
            (Names{"nic0_UP", "router0_0_0-router0_0_1_UP", "router0_0_1-router2_0_0_UP", "nic8_DOWN"}));
  EXPECT_EQ(names(f, f.node_route(3, 11)),
            (Names{"nic3_UP", "router0_0_1-router0_1_1_DOWN", "router0_0_1-router2_0_0_UP",
                   "router2_0_0-router2_0_1_UP", "router2_0_1-router2_1_1_UP", "nic11_DOWN"}));
  for (int a = 0; a < 12; ++a)
    for (int b = 0; b < 12; ++b)
      if (a != b) {
        EXPECT_LE(f.node_route(a, b).size(), 2u + 5u);
      }
}

TEST(Fabric, GraphRoutesByLeastLatencyThenFewestHops) {
  auto spec = testing::small_platform(Topology::graph);
  const Fabric f(spec);
  // node0 -> node2: e0, e2, e3 (3 us) beats e5, e3 (6 us).
  EXPECT_EQ(names(f, f.node_route(0, 2)), (Names{"e0_UP", "e2_UP", "e3_DOWN"}));
  EXPECT_EQ(names(f, f.node_route(3, 1)), (Names{"e4_DOWN", "e2_DOWN", "e1_DOWN"}));
  // Equal latency (3 us): the 1-hop shortcut wins over the 3-hop route.
  spec.graph.edges[5].link.latency_s = 2e-6;
  const Fabric tie(spec);
  EXPECT_EQ(names(tie, tie.node_route(0, 2)), (Names{"e5_UP", "e3_DOWN"}));
}

TEST(Fabric, GraphRefusesDisconnectedNodes) {
  auto spec = testing::small_platform(Topology::graph);
  spec.graph.edges.pop_back();
  spec.graph.edges.erase(spec.graph.edges.begin() + 2);  // no a - b link
  try {
    const Fabric f(spec);
    FAIL() << "accepted";
  } catch (const core::InputError& e) {
    EXPECT_STREQ(e.what(), "node2 cannot be reached from node0; the edges must connect every node to every other");
  }
}

TEST(Fabric, LinkCostsUseTheRouteBetweenNodesZeroAndOne) {
  const collectives::LinkCosts two = link_costs(testing::small_platform(Topology::two_level));
  EXPECT_DOUBLE_EQ(two.intra.alpha_s, 2e-6);
  EXPECT_DOUBLE_EQ(two.inter.alpha_s, 6e-6);
  EXPECT_DOUBLE_EQ(two.inter.beta_s_per_byte, 1 / 25e9);
  const collectives::LinkCosts ring = link_costs(testing::small_platform(Topology::ring));
  EXPECT_DOUBLE_EQ(ring.inter.alpha_s, 1e-6 + 2e-6 + 3e-6 + 2e-6 + 1e-6);
}

TEST(Fabric, LinkCostsOfTheFirstTwoNodesAreThoseOfTheWholeFabric) {
  // link_costs builds only what holds nodes 0 and 1 of a fat tree or a two-level cluster: the same costs as
  // the route on the whole fabric, whether the two nodes share a leaf (down[0] > 1) or meet at the spine.
  const auto expect_whole = [](const PlatformSpec& spec) {
    const Fabric fabric(spec);
    const core::Path path = fabric.path(0, spec.gpus_per_node);
    double bandwidth_Bps = INFINITY;
    for (int l : path.links) bandwidth_Bps = std::min(bandwidth_Bps, fabric.link_bandwidth_Bps(l));
    const collectives::LinkCosts costs = link_costs(spec);
    EXPECT_EQ(costs.inter.alpha_s, path.latency_s) << spec.fat_tree.down.size() << " " << spec.fat_tree.down[0];
    EXPECT_EQ(costs.inter.beta_s_per_byte, 1 / bandwidth_Bps);
  };
  expect_whole(testing::small_platform(Topology::fat_tree));  // 3 levels, parallel top links
  for (const std::vector<int>& down : {std::vector<int>{4, 6}, {1, 5}, {1, 1, 3}, {2, 3, 4}}) {
    PlatformSpec spec = testing::small_platform(Topology::fat_tree);
    spec.fat_tree.down = down;
    spec.fat_tree.up.assign(down.size(), 2);
    spec.fat_tree.up.front() = 1;
    spec.fat_tree.parallel.assign(down.size(), 1);
    spec.nodes = static_cast<int>(fat_tree_nodes(spec.fat_tree));
    expect_whole(spec);
  }
  PlatformSpec two = testing::small_platform(Topology::two_level);
  const collectives::LinkCosts few = link_costs(two);
  two.nodes = 1000;
  const collectives::LinkCosts many = link_costs(two);
  EXPECT_EQ(many.inter.alpha_s, few.inter.alpha_s);
  EXPECT_EQ(many.inter.beta_s_per_byte, few.inter.beta_s_per_byte);
  EXPECT_EQ(many.intra.alpha_s, few.intra.alpha_s);
}

}  // namespace
}  // namespace dtsim::platform
