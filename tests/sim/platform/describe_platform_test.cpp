#include "sim/platform/describe_platform.hpp"

#include <gtest/gtest.h>

#include "sim/collectives/ring_allreduce.hpp"
#include "sim/platform/link_traffic.hpp"
#include "tests/sim/platform/small_platforms.hpp"

namespace dtsim::platform {
namespace {

TEST(DescribePlatform, StarAndTwoLevel) {
  const PlatformDescription star = describe_platform(testing::small_platform(Topology::star));
  EXPECT_EQ(star.hosts, 5);
  EXPECT_EQ(star.switches, 1);
  EXPECT_EQ(star.links, 5);
  EXPECT_EQ(star.diameter_hops, 2);
  EXPECT_DOUBLE_EQ(star.diameter_latency_s, 2e-6);
  EXPECT_DOUBLE_EQ(star.bisection_Bps, 2 * 100e9);  // GPUs 0, 1 on their own links
  auto spec = testing::small_platform(Topology::two_level);
  const PlatformDescription two = describe_platform(spec);
  EXPECT_EQ(two.diameter_hops, 4);
  EXPECT_DOUBLE_EQ(two.diameter_latency_s, 6e-6);
  // GPUs 0-4 are nodes 0, 1 and GPU 4 of node 2, which reaches GPU 5 inside node 2 at its link's 100 GB/s.
  EXPECT_DOUBLE_EQ(two.bisection_Bps, 2 * 25e9 + 100e9);
  spec.nodes = 6;
  EXPECT_DOUBLE_EQ(describe_platform(spec).bisection_Bps, 3 * 25e9);  // three NICs
}

TEST(DescribePlatform, RingDiameterAndBisection) {
  auto spec = testing::small_platform(Topology::ring);
  spec.nodes = 6;
  const PlatformDescription d = describe_platform(spec);
  EXPECT_EQ(d.diameter_hops, 2 + 2 + 3);
  EXPECT_DOUBLE_EQ(d.diameter_latency_s, 2e-6 + 4e-6 + 9e-6);
  EXPECT_DOUBLE_EQ(d.bisection_Bps, 2 * 25e9);  // a ring is cut in two places
}

TEST(DescribePlatform, LinkNamesByFamilyAsSlowLinksAndFailuresTakeThem) {
  const PlatformDescription star = describe_platform(testing::small_platform(Topology::star));
  EXPECT_EQ(star.link_names, (std::vector<std::string>{"link0_UP .. link4_UP (5)", "link0_DOWN .. link4_DOWN (5)"}));
  auto spec = testing::small_platform(Topology::two_level);
  spec.nodes = 3;
  const PlatformDescription two = describe_platform(spec);
  EXPECT_EQ(two.link_names, (std::vector<std::string>{"gpu0_UP .. gpu5_UP (6)", "gpu0_DOWN .. gpu5_DOWN (6)",
                                                      "nic0_UP .. nic2_UP (3)", "nic0_DOWN .. nic2_DOWN (3)"}));
  EXPECT_NE(format_description(two).find("\n  nic0_UP .. nic2_UP (3)\n"), std::string::npos);
}

TEST(DescribePlatform, SketchListsNodesAndSwitches) {
  const std::string text = format_description(describe_platform(testing::small_platform(Topology::fat_tree)));
  EXPECT_NE(text.find("oversubscribed level 1 1:1, level 2 0.5:1"), std::string::npos) << text;
  EXPECT_NE(text.find("node0_switch [gpu0 .. gpu1] -- sw1_0\n"), std::string::npos) << text;
  // Two parallel links to each child: listed twice.
  EXPECT_NE(text.find("sw3_0 -- sw2_0 sw2_0 sw2_2 sw2_2\n"), std::string::npos) << text;
}

TEST(LinkTraffic, BytesPerDirectedLinkAndClasses) {
  const Fabric f(testing::small_platform(Topology::two_level));
  collectives::Schedule s{10, {{{{0, 2, 100}, {1, 3, 100}}}, {{{2, 0, 50}}}}};
  std::vector<double> bytes;
  add_link_bytes(s, 2, f, bytes);
  EXPECT_DOUBLE_EQ(bytes[static_cast<std::size_t>(2 * 10)], 400);  // nic0_UP: both transfers, twice
  EXPECT_DOUBLE_EQ(bytes[static_cast<std::size_t>(2 * 10 + 2 + 1)], 400);
  EXPECT_DOUBLE_EQ(bytes[static_cast<std::size_t>(2 * 10 + 1)], 100);
  // nic0_UP and nic1_DOWN carry 400 bytes each, nic0_DOWN and nic1_UP 100; gpu0 and gpu1 UP 200, gpu2 and gpu3
  // DOWN 200, gpu0 DOWN and gpu2 UP 100: classes of one kind and one load, busiest first, then by first id.
  const std::vector<LinkClass> classes = link_classes(f, bytes, 1e-6);
  const std::vector<std::pair<std::string, int>> expected = {{"nic0_UP", 1},   {"nic1_DOWN", 1}, {"nic0_DOWN", 1},
                                                             {"nic1_UP", 1},   {"gpu0_UP", 2},   {"gpu2_DOWN", 2},
                                                             {"gpu0_DOWN", 1}, {"gpu2_UP", 1}};
  ASSERT_EQ(classes.size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) {
    EXPECT_EQ(classes[k].first.name, expected[k].first) << k;
    EXPECT_EQ(classes[k].count, expected[k].second) << k;
  }
  EXPECT_EQ(classes[0].first.utilisation, 400 / (25e9 * 1e-6));
  EXPECT_EQ(classes[4].first.bytes, 200);
  EXPECT_EQ(classes[7].first.bytes, 100);
}

// Links grouped by class carry what the links carry one by one: every loaded link in exactly one class, with its
// bytes, bandwidth and kind, and the classes' totals the links' totals.
TEST(LinkTraffic, ClassesHoldEveryLinkWithItsLoad) {
  for (const Topology topology : {Topology::two_level, Topology::fat_tree, Topology::torus}) {
    const Fabric f(testing::small_platform(topology));
    const int hosts = f.spec().hosts();
    std::vector<int> ring(static_cast<std::size_t>(hosts));
    for (int h = 0; h < hosts; ++h) ring[static_cast<std::size_t>(h)] = h;
    std::vector<double> bytes;
    add_link_bytes(collectives::ring_allreduce_plan({ring}, hosts, 1000 * hosts), 1, f, bytes);
    const std::vector<LinkClass> classes = link_classes(f, bytes, 1e-3);
    double class_bytes = 0, link_bytes = 0;
    int members = 0, loaded = 0;
    for (const LinkClass& c : classes) {
      class_bytes += c.count * c.first.bytes;
      members += c.count;
      EXPECT_EQ(c.first.bytes, bytes[static_cast<std::size_t>(c.first.link)]);
      EXPECT_EQ(c.first.utilisation, c.first.bytes / (c.first.bandwidth_Bps * 1e-3));
    }
    for (const double b : bytes)
      if (b > 0) {
        link_bytes += b;
        ++loaded;
      }
    EXPECT_EQ(members, loaded) << topology_name(topology);
    EXPECT_EQ(class_bytes, link_bytes) << topology_name(topology);
    for (std::size_t k = 1; k < classes.size(); ++k)
      EXPECT_GE(classes[k - 1].first.utilisation, classes[k].first.utilisation);
  }
  // A ring of the 10 GPUs of two_level's 5 nodes: 2 x 9 steps of 1,000 bytes on every GPU link and NIC, each way.
  const Fabric f(testing::small_platform(Topology::two_level));
  std::vector<double> bytes;
  add_link_bytes(collectives::ring_allreduce_plan({{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}, 10, 10000), 1, f, bytes);
  const std::vector<LinkClass> classes = link_classes(f, bytes, 1e-3);
  ASSERT_EQ(classes.size(), 4u);
  const std::vector<std::pair<std::string, int>> expected = {{"nic0_UP", 5}, {"nic0_DOWN", 5}, {"gpu0_UP", 10},
                                                             {"gpu0_DOWN", 10}};
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(classes[k].first.name, expected[k].first);
    EXPECT_EQ(classes[k].count, expected[k].second);
    EXPECT_EQ(classes[k].first.bytes, 18000);
  }
  EXPECT_EQ(classes[0].first.utilisation, 18000 / (25e9 * 1e-3));
}

}  // namespace
}  // namespace dtsim::platform
