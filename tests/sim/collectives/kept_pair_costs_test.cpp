// A collective timed for many sizes over a KeptPairCosts walks its hops' paths once and gives the same times as over
// the network itself.
#include "sim/collectives/schedule_time.hpp"

#include <gtest/gtest.h>

#include "sim/collectives/ring_allreduce.hpp"

namespace dtsim::collectives {
namespace {

/// Ranks in nodes of 4 on a star of nodes: a link up and down per rank, a node link up and down per node; counts the
/// paths it is asked for.
class CountingNodes final : public core::PathModel {
 public:
  explicit CountingNodes(int ranks) : ranks_(ranks) {}
  core::Path path(int from, int to) const override {
    ++paths;
    if (from / 4 == to / 4) return {1e-6, {2 * from, 2 * to + 1}};
    return {5e-6, {2 * from, link_up(from / 4), link_down(to / 4), 2 * to + 1}};
  }
  double link_bandwidth_Bps(int link) const override { return link < 2 * ranks_ ? 100e9 : 12.5e9; }
  int link_count() const override { return 2 * ranks_ + 2 * (ranks_ / 4); }
  mutable int paths = 0;

 private:
  int link_up(int node) const { return 2 * ranks_ + 2 * node; }
  int link_down(int node) const { return 2 * ranks_ + 2 * node + 1; }
  int ranks_;
};

TEST(KeptPairCosts, WalksTheRingsHopsOnceForEverySizeWithTheSameTimes) {
  const int p = 64;
  const CountingNodes network(p), counted(p), replayed(p);
  const KeptPairCosts kept(counted);
  const RingAllreduce ring;
  for (const std::int64_t bytes : {std::int64_t{1}, std::int64_t{1000003}, std::int64_t{64} << 20}) {
    const double direct = *ring.plan_time_s({p, 4}, bytes, network);
    EXPECT_EQ(*ring.plan_time_s({p, 4}, bytes, kept), direct);
    EXPECT_NEAR(direct, schedule_time_s(ring.plan({p, 4}, bytes), replayed), 1e-12 * direct) << bytes;
  }
  EXPECT_EQ(network.paths, 3 * p);  // the network itself: every size walks every hop
  EXPECT_EQ(counted.paths, p);      // kept: the first size's walk
}

TEST(KeptPairCosts, KeepsEachListOfPairsApart) {
  const CountingNodes counted(8);
  const KeptPairCosts kept(counted);
  const std::vector<std::pair<int, int>> ring = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}, {7, 0}};
  const std::vector<std::pair<int, int>> across = {{0, 4}, {1, 5}};
  const std::vector<TransferCost> a = pair_costs(ring, kept), b = pair_costs(across, kept);
  ASSERT_EQ(a.size(), 8u);
  ASSERT_EQ(b.size(), 2u);
  // Two transfers share node 0's uplink: half its 12.5 GB/s each.
  EXPECT_EQ(b[0].share_Bps, 6.25e9);
  EXPECT_EQ(pair_costs(ring, kept)[3].latency_s, 5e-6);
  EXPECT_EQ(counted.paths, 10);
}

}  // namespace
}  // namespace dtsim::collectives
