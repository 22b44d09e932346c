#include "sim/platform/describe_platform.hpp"

#include <gtest/gtest.h>

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

TEST(LinkTraffic, BytesPerDirectedLinkAndHottest) {
  const Fabric f(testing::small_platform(Topology::two_level));
  collectives::Schedule s{10, {{{{0, 2, 100}, {1, 3, 100}}}, {{{2, 0, 50}}}}};
  std::vector<double> bytes;
  add_link_bytes(s, 2, f, bytes);
  EXPECT_DOUBLE_EQ(bytes[static_cast<std::size_t>(2 * 10)], 400);  // nic0_UP: both transfers, twice
  EXPECT_DOUBLE_EQ(bytes[static_cast<std::size_t>(2 * 10 + 2 + 1)], 400);
  EXPECT_DOUBLE_EQ(bytes[static_cast<std::size_t>(2 * 10 + 1)], 100);
  const std::vector<LinkLoad> hot = hottest_links(f, bytes, 1e-6, 2);
  ASSERT_EQ(hot.size(), 2u);
  EXPECT_EQ(hot[0].name, "nic0_UP");
  EXPECT_EQ(hot[1].name, "nic1_DOWN");
  EXPECT_DOUBLE_EQ(hot[0].utilisation, 400 / (25e9 * 1e-6));
}

}  // namespace
}  // namespace dtsim::platform
