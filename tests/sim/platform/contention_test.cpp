// An oversubscribed fat tree slows the transfers that cross its spine by the oversubscription ratio, at the
// message level (SimGrid's max-min sharing) and in the analytic equal-share replay alike; transfers that do
// not share an uplink are not slowed. Every cross-leaf route has the same latency (6 links, 4 of 1 us) and every
// intra-leaf route too, so SimGrid's RTT-unfair sharing (flows weighted by route latency) plays no part.
#include <gtest/gtest.h>

#include "sim/actors/simgrid_run.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/platform/describe_platform.hpp"
#include "sim/platform/fabric.hpp"

namespace dtsim::platform {
namespace {

constexpr double kBandwidth = 12.5e9;  // 100 Gb/s NICs and switch links
constexpr double kLatency = 1e-6;
constexpr std::int64_t kBytes = 100'000'000;
constexpr double kTransfer = kBytes / kBandwidth;  // 8 ms alone on a link

/// 8 single-GPU nodes, 4 per leaf; each leaf has `spines` uplinks: 2 = 2:1 oversubscribed, 4 = full bisection.
PlatformSpec fat_tree(int spines) {
  PlatformSpec s;
  s.name = "fat-tree-" + std::to_string(spines);
  s.topology = Topology::fat_tree;
  s.nodes = 8;
  s.gpus_per_node = 1;
  s.intra = {1e15, 0};  // the GPU link never limits
  s.inter = {kBandwidth, kLatency};
  s.network = {kBandwidth, kLatency};
  s.fat_tree = {{4, 2}, {1, spines}, {1, 1}};
  return s;
}

/// One step: node i and node i + 4 exchange kBytes both ways, for i = 0 .. 3 (every pair crosses the spine).
collectives::Schedule bisection_exchange() {
  collectives::Schedule s{8, {{}}};
  for (int i = 0; i < 4; ++i) {
    s.steps[0].transfers.push_back({i, i + 4, kBytes});
    s.steps[0].transfers.push_back({i + 4, i, kBytes});
  }
  return s;
}

collectives::Schedule recursive_doubling() {
  return collectives::make_collective("recursive_doubling")->plan({8, 1}, kBytes);
}

collectives::Schedule ring() { return collectives::make_collective("ring")->plan({8, 1}, kBytes); }

double message_level_s(const PlatformSpec& spec, const collectives::Schedule& plan) {
  return actors::simulate_schedules_s(spec, {plan}, false)[0];
}

TEST(FatTreeContention, DescriptionShowsTheOversubscription) {
  EXPECT_EQ(describe_platform(fat_tree(2)).oversubscription, std::vector<double>{2.0});
  EXPECT_EQ(describe_platform(fat_tree(4)).oversubscription, std::vector<double>{1.0});
  EXPECT_DOUBLE_EQ(describe_platform(fat_tree(2)).bisection_Bps, 2 * kBandwidth);  // leaf 0's 2 uplinks
  EXPECT_DOUBLE_EQ(describe_platform(fat_tree(4)).bisection_Bps, 4 * kBandwidth);  // the 4 NICs of a half
}

TEST(FatTreeContention, AnalyticEqualShareSaysTheSame) {
  const double cross = 4 * kLatency;  // NIC, leaf-spine, spine-leaf, NIC
  const double local = 2 * kLatency;  // NIC, NIC
  EXPECT_NEAR(collectives::schedule_time_s(bisection_exchange(), Fabric(fat_tree(4))), cross + kTransfer, 1e-15);
  EXPECT_NEAR(collectives::schedule_time_s(bisection_exchange(), Fabric(fat_tree(2))), cross + 2 * kTransfer, 1e-15);
  EXPECT_NEAR(collectives::schedule_time_s(recursive_doubling(), Fabric(fat_tree(4))),
              2 * local + cross + 3 * kTransfer, 1e-15);
  EXPECT_NEAR(collectives::schedule_time_s(recursive_doubling(), Fabric(fat_tree(2))),
              2 * local + cross + 4 * kTransfer, 1e-15);
  EXPECT_DOUBLE_EQ(collectives::schedule_time_s(ring(), Fabric(fat_tree(2))),
                   collectives::schedule_time_s(ring(), Fabric(fat_tree(4))));
}

// Each test below runs SimGrid: one engine per process (gtest_discover_tests runs each test on its own).
TEST(FatTreeContention, ExchangeAtFullBisection) {
  EXPECT_NEAR(message_level_s(fat_tree(4), bisection_exchange()), 4 * kLatency + kTransfer, 1e-9);
}

TEST(FatTreeContention, ExchangeOversubscribedTwoToOneTakesTwiceTheTransferTime) {
  EXPECT_NEAR(message_level_s(fat_tree(2), bisection_exchange()), 4 * kLatency + 2 * kTransfer, 1e-9);
}

TEST(FatTreeContention, RecursiveDoublingAtFullBisection) {
  EXPECT_NEAR(message_level_s(fat_tree(4), recursive_doubling()), 8 * kLatency + 3 * kTransfer, 1e-9);
}

TEST(FatTreeContention, RecursiveDoublingOversubscribedSlowsOnlyItsSpineStep) {
  EXPECT_NEAR(message_level_s(fat_tree(2), recursive_doubling()), 8 * kLatency + 4 * kTransfer, 1e-9);
}

TEST(FatTreeContention, RingIsNotSlowedBecauseNoUplinkCarriesTwoFlows) {
  EXPECT_NEAR(message_level_s(fat_tree(2), ring()), collectives::schedule_time_s(ring(), Fabric(fat_tree(4))), 1e-9);
}

}  // namespace
}  // namespace dtsim::platform
