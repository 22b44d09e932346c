// The ring-based all-reduces' fused plans and plan times, computed without the plans, equal what the plans
// give: the ring, and the hierarchical (grid) all-reduce, on every built-in platform and the test fixtures.
#include <gtest/gtest.h>

#include "sim/actors/rank_steps.hpp"
#include "sim/collectives/block_collective.hpp"
#include "sim/collectives/nccl_allreduce.hpp"
#include "sim/collectives/nccl_ring.hpp"
#include "sim/collectives/ring_allreduce.hpp"
#include "sim/collectives/ring_steps.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/scenario/load.hpp"
#include "tests/sim/star.hpp"

namespace dtsim::collectives {
namespace {

/// collective.fused_plan equals flow_steps(plan, fused) transfer for transfer.
void expect_fused_plan_exact(const Collective& collective, const Group& group) {
  for (std::int64_t bytes : {0, 1, 5, 1000, 1001, 1 << 20, (1 << 20) + 13}) {
      const int p = group.ranks;
      const auto expected = actors::flow_steps(collective.plan(group, bytes), true);
      const auto fused = collective.fused_plan(group, bytes);
      ASSERT_TRUE(fused);
      const auto got = actors::flow_steps(*fused);
      ASSERT_EQ(got.size(), expected.size()) << p << " " << bytes;
      for (std::size_t s = 0; s < got.size(); ++s) {
        ASSERT_EQ(got[s].size(), expected[s].size());
        for (std::size_t i = 0; i < got[s].size(); ++i) {
          EXPECT_EQ(got[s][i].transfer.from, expected[s][i].transfer.from);
          EXPECT_EQ(got[s][i].transfer.to, expected[s][i].transfer.to);
          EXPECT_EQ(got[s][i].transfer.bytes, expected[s][i].transfer.bytes) << p << " " << bytes << " " << i;
          EXPECT_EQ(got[s][i].steps, expected[s][i].steps);
          EXPECT_EQ(got[s][i].latency_s, expected[s][i].latency_s);
        }
      }
    }
}

TEST(RingCompact, FusedPlanEqualsTheFusedPlan) {
  for (int p : {1, 2, 3, 4, 7, 16}) expect_fused_plan_exact(RingAllreduce(), {p, 1});
}

TEST(GridCompact, FusedPlanEqualsTheFusedPlan) {
  for (const char* name : {"hierarchical", "torus2d"})
    for (const auto& [nodes, per_node] : {std::pair{1, 1}, {1, 4}, {2, 1}, {5, 1}, {2, 2}, {3, 4}, {4, 3}, {2, 8}})
      expect_fused_plan_exact(*make_collective(name), {nodes * per_node, per_node});
}

/// plan_time_s equals schedule_time_s of the plan to 1e-9 on `spec` for groups of whole nodes (`whole`) or any
/// size; returns how many groups it compared.
int expect_plan_time_close(const Collective& collective, const platform::PlatformSpec& spec, bool whole) {
  const platform::Fabric fabric(spec);
  int compared = 0;
  const int g = spec.gpus_per_node, hosts = spec.hosts();
  for (int p : {2, 3, g, g + 1, 2 * g, 3 * g - 1, 3 * g, 5 * g, 17 * g, hosts}) {
    if (p > hosts || p > 272 || p < 2 || (whole && p % g != 0 && p > g)) continue;
    ++compared;
    for (std::int64_t bytes : {0, 1, 4099, (1 << 22) + 5}) {
      const Group group{p, g};
      const auto time = collective.plan_time_s(group, bytes, fabric);
      EXPECT_TRUE(time) << spec.name << " " << p;
      if (!time) return compared;
      const double expected = schedule_time_s(collective.plan(group, bytes), fabric);
      EXPECT_NEAR(*time, expected, 1e-9 * expected) << collective.name() << " " << spec.name << " " << p << " " << bytes;
    }
  }
  return compared;
}

/// Every built-in platform, and the fixtures' star and two-level cluster.
std::vector<platform::PlatformSpec> platforms() {
  std::vector<platform::PlatformSpec> specs{testing::star(16), testing::two_level(4, 4), testing::two_level(9, 2)};
  for (const std::string& name : scenario::builtin_platform_names())
    specs.push_back(scenario::load_platform_reference(name));
  return specs;
}

TEST(RingCompact, PlanTimeEqualsTheRecurrenceOnAUniformStar) {
  // Every ring transfer costs the same: the closed form (the largest chunk 2(p-1) times).
  EXPECT_EQ(*RingAllreduce().plan_time_s({1, 1}, 1000, platform::Fabric(testing::star(16))), 0.0);
  EXPECT_GE(expect_plan_time_close(RingAllreduce(), testing::star(16), false), 4);
}

TEST(RingCompact, PlanTimeEqualsTheRecurrenceOnTwoLevelNodes) {
  // Transfers inside a node and across nodes cost differently.
  int compared = 0;
  for (const platform::PlatformSpec& spec : platforms()) compared += expect_plan_time_close(RingAllreduce(), spec, false);
  EXPECT_GE(compared, 80);
}

TEST(GridCompact, PlanTimeEqualsTheRecurrenceOnEveryPlatform) {
  int compared = 0;
  for (const platform::PlatformSpec& spec : platforms())
    for (const char* name : {"hierarchical", "torus2d"})
      compared += expect_plan_time_close(*make_collective(name), spec, true);
  EXPECT_GE(compared, 80);
}

TEST(RingCompact, ClosedFormHoldsOnAFatTree) {
  // 1,024 DGX A100 GPUs: the ring's hops between nodes and over the spine stand apart from its NVLink hops, so
  // its time is the closed form, O(p), not the replay.
  const platform::Fabric fabric(scenario::load_platform_reference("fat_tree_1024_a100_hdr"));
  std::vector<std::pair<int, int>> ring;
  for (int r = 0; r < 1024; ++r) ring.emplace_back(r, (r + 1) % 1024);
  const std::vector<TransferCost> hops = pair_costs(ring, fabric);
  for (std::int64_t bytes : {0LL, 1LL, 1000LL, 102'760'448LL, 102'760'448LL + 1023})
    EXPECT_TRUE(ring_steps_closed_form_s(hops, {2 * 1023, bytes / 1024, bytes / 1024 + 1, static_cast<int>(bytes % 1024), 0}))
        << bytes;
}

/// NCCL's all-reduce on `spec` with its ring forced.
NcclAllreduce nccl_ring_on(const platform::PlatformSpec& spec) {
  return NcclAllreduce("nccl", platform::link_costs(spec), {NcclAlgorithm::ring, std::nullopt});
}

TEST(NcclRingCompact, FusedPlanEqualsTheFusedPlan) {
  for (const platform::PlatformSpec& spec : platforms())
    for (int p : {1, 2, 3, spec.gpus_per_node, 2 * spec.gpus_per_node + 1})
      if (p <= spec.hosts()) expect_fused_plan_exact(nccl_ring_on(spec), {p, spec.gpus_per_node});
}

TEST(NcclRingCompact, PlanTimeEqualsTheRecurrenceOnEveryPlatform) {
  // Structured DGX nodes run one ring per NIC (several rings sharing ranks), stars and two-level clusters one.
  int compared = 0, several = 0;
  for (const platform::PlatformSpec& spec : platforms()) {
    const NcclAllreduce nccl = nccl_ring_on(spec);
    compared += expect_plan_time_close(nccl, spec, false);
    const platform::Fabric fabric(spec);
    const int g = spec.gpus_per_node, p = std::min(spec.hosts(), 4 * g);
    const Group group{p, g};
    const auto rings = static_cast<std::int64_t>(nccl_rings(group, platform::link_costs(spec)).size());
    several += rings > 1;
    // Every ring's chunks alike on the wire (the costliest transfer every step), and one byte more.
    for (std::int64_t bytes : {rings * p * 4096, rings * p * 4096 + 1}) {
      const double expected = schedule_time_s(nccl.plan(group, bytes), fabric);
      EXPECT_NEAR(*nccl.plan_time_s(group, bytes, fabric), expected, 1e-9 * expected) << spec.name << " " << bytes;
    }
  }
  EXPECT_GE(compared, 80);
  EXPECT_GE(several, 3);
}

TEST(NcclRingCompact, PlanTimeEqualsTheRecurrenceOnManyStructuredNodes) {
  // DGX nodes with several NICs (a ring per NIC, 4 to 8 rings sharing ranks), widened to many nodes: odd counts,
  // a power of two and one past it (the replay it is checked against is quadratic in the ranks: 33 nodes cost about
  // four times 17 and walk no path that 17 does not).
  int compared = 0;
  for (const platform::PlatformSpec& base : platforms()) {
    if (platform::link_costs(base).gpu_nic.empty()) continue;
    for (int nodes : {5, 9, 16, 17}) {
      platform::PlatformSpec spec = base;
      spec.nodes = nodes;
      const platform::Fabric fabric(spec);
      const NcclAllreduce nccl = nccl_ring_on(spec);
      const Group group{spec.hosts(), spec.gpus_per_node};
      for (std::int64_t bytes : {1LL, 4099LL, 1'000'003LL, 102'760'448LL, 102'760'448LL + 1023}) {
        const double expected = schedule_time_s(nccl.plan(group, bytes), fabric);
        EXPECT_NEAR(*nccl.plan_time_s(group, bytes, fabric), expected, 1e-9 * expected) << spec.name << " " << nodes << " " << bytes;
        ++compared;
      }
    }
  }
  EXPECT_GE(compared, 60);
}

TEST(NcclRingCompact, TreeKeepsItsPlan) {
  // Small vectors across nodes go by NCCL's tree, whose plan is still built.
  const platform::PlatformSpec spec = scenario::load_platform_reference("fat_tree_1024_a100_hdr");
  const NcclAllreduce nccl("nccl", platform::link_costs(spec), {NcclAlgorithm::tree, std::nullopt});
  EXPECT_FALSE(nccl.fused_plan({64, 8}, 1000));
  EXPECT_FALSE(nccl.plan_time_s({64, 8}, 1000, platform::Fabric(spec)));
  // The capacity check counts its transfers without building it.
  for (const Group group : {Group{2, 1}, Group{5, 1}, Group{64, 8}, Group{100, 8}})
    for (std::int64_t bytes : {0LL, 1000LL, 3'000'000LL, 400'000'000LL}) {
      std::int64_t transfers = 0;
      for (const Step& step : nccl.plan(group, bytes).steps) transfers += static_cast<std::int64_t>(step.transfers.size());
      EXPECT_EQ(nccl.analytic_plan_transfers(group, bytes), transfers) << group.ranks << " " << bytes;
    }
  EXPECT_EQ(nccl_ring_on(spec).analytic_plan_transfers({64, 8}, 1000), 0);
}

}  // namespace
}  // namespace dtsim::collectives

namespace dtsim::collectives {
namespace {

// The registered ring all-gather and reduce-scatter (what a layout's groups run under every collective but NCCL's)
// fuse and time blocks of one size without their plans, exactly as their plans give; other blocks keep their plans
// (a vector that does not divide by the ranks among them).
TEST(RingHalvesCompact, FusedPlanAndPlanTimeEqualThePlansOnEveryPlatform) {
  int compared = 0;
  for (const auto& block : {make_allgatherv("ring"), make_reduce_scatter("ring")}) {
    for (int p : {1, 2, 3, 4, 7, 16})
      for (std::int64_t bytes : {0, 5, 1000, 1001, (1 << 20) + 13}) {
        if (bytes % p != 0) continue;
        const Group group{p, 1};
        const std::vector<std::int64_t> blocks = equal_blocks(p, bytes);
        const auto expected = actors::flow_steps(block->plan(group, blocks), true);
        const auto fused = block->fused_plan(group, blocks);
        ASSERT_TRUE(fused);
        const auto got = actors::flow_steps(*fused);
        ASSERT_EQ(got.size(), expected.size()) << block->name() << " " << p << " " << bytes;
        for (std::size_t s = 0; s < got.size(); ++s) {
          ASSERT_EQ(got[s].size(), expected[s].size());
          for (std::size_t i = 0; i < got[s].size(); ++i) {
            EXPECT_EQ(got[s][i].transfer.from, expected[s][i].transfer.from);
            EXPECT_EQ(got[s][i].transfer.to, expected[s][i].transfer.to);
            EXPECT_EQ(got[s][i].transfer.bytes, expected[s][i].transfer.bytes) << block->name() << " " << p << " " << bytes;
            EXPECT_EQ(got[s][i].steps, expected[s][i].steps);
          }
        }
      }
    for (const platform::PlatformSpec& spec : platforms()) {
      const platform::Fabric fabric(spec);
      for (int p : {2, 3, spec.gpus_per_node + 1, 2 * spec.gpus_per_node}) {
        if (p > spec.hosts() || p > 272) continue;
        ++compared;
        for (std::int64_t each : {1, 4099, (1 << 22) + 5}) {
          const std::int64_t bytes = each * p;
          const Group group{p, spec.gpus_per_node};
          const std::vector<std::int64_t> blocks = equal_blocks(p, bytes);
          const auto time = block->plan_time_s(group, blocks, fabric);
          ASSERT_TRUE(time);
          const double expected = schedule_time_s(block->plan(group, blocks), fabric);
          EXPECT_NEAR(*time, expected, 1e-9 * expected) << block->name() << " " << spec.name << " " << p << " " << bytes;
        }
      }
    }
    EXPECT_FALSE(block->fused_plan({3, 1}, equal_blocks(3, 1001)));
    EXPECT_FALSE(block->plan_time_s({3, 1}, {1, 2, 3}, platform::Fabric(testing::star(16))));
  }
  EXPECT_GE(compared, 40);
}

}  // namespace
}  // namespace dtsim::collectives
