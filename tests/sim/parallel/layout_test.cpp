// Rank placement of a 3D layout: coordinates, groups, their leaders and how groups sit on nodes.
#include "sim/parallel/layout.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"

namespace dtsim::parallel {
namespace {

Layout layout(int t, int p, int d) {
  Layout l;
  l.tensor = t;
  l.pipeline = p;
  l.data = d;
  return l;
}

TEST(Placement, TensorInnermostThenPipelineThenData) {
  const Placement place(layout(2, 2, 2), 4);
  EXPECT_EQ(place.coordinate(5, "tensor"), 1);
  EXPECT_EQ(place.coordinate(5, "pipeline"), 0);
  EXPECT_EQ(place.stage(5), 0);
  EXPECT_EQ(place.coordinate(5, "data"), 1);
  EXPECT_EQ(place.moved(5, "data", 0), 1);
  EXPECT_EQ(place.moved(5, "tensor", 0), 4);
  EXPECT_EQ(place.members(5, "tensor"), (std::vector<int>{4, 5}));
  EXPECT_EQ(place.members(5, "pipeline"), (std::vector<int>{5, 7}));
  EXPECT_EQ(place.members(5, "data"), (std::vector<int>{1, 5}));
  EXPECT_EQ(place.stage_rank(5, 1), 7);
  EXPECT_EQ(place.representative(1), 2);
  EXPECT_TRUE(place.leads(4, "tensor"));
  EXPECT_FALSE(place.leads(5, "tensor"));
  EXPECT_TRUE(place.leads(1, "data"));
  EXPECT_FALSE(place.leads(5, "data"));
  EXPECT_THROW(place.members(0, "sequence"), core::InputError);
}

TEST(Placement, AnotherOrderPutsDataInnermost) {
  Layout l = layout(2, 1, 4);
  l.order = parse_order("data,tensor,pipeline", l);
  const Placement place(l, 8);
  EXPECT_EQ(place.members(0, "data"), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(place.members(0, "tensor"), (std::vector<int>{0, 4}));
  EXPECT_EQ(order_name(l.order), "data,tensor,pipeline,context");  // context = 1 left out: put outermost
  Layout piped = layout(2, 2, 2);
  EXPECT_THROW(parse_order("tensor,data", piped), core::InputError);  // leaves out pipeline = 2
  EXPECT_THROW(parse_order("tensor,data,data", piped), core::InputError);
  EXPECT_THROW(parse_order("tensor,data,pipeline,expert", piped), core::InputError);
  EXPECT_EQ(order_name(Layout{}.order), "tensor,context,pipeline,data");
}

TEST(Placement, EveryRegisteredDimensionIsAGroupAndAnOrderEntry) {
  // Extents 2, 3, 4, ... in registry order, placed innermost first: each dimension's group has its extent, its
  // members differ from the rank along that dimension only, and the first of them leads it. (The folded dimensions
  // re-divide these ranks: expert_parallel_test.cpp.)
  Layout l;
  int extent = 2;
  for (const DimensionEntry& d : dimension_registry())
    if (!d.folded) l.*d.extent = extent++;
  const Placement place(l, 4);
  // "data" names the replicas' group (data x context), checked below.
  EXPECT_EQ(static_cast<int>(place.members(l.ranks() - 1, "data").size()), l.replicas());
  for (const DimensionEntry& d : dimension_registry()) {
    if (d.name == "data" || d.folded) continue;
    const std::vector<int> m = place.members(l.ranks() - 1, d.name);
    EXPECT_EQ(static_cast<int>(m.size()), l.*d.extent) << d.name;
    for (std::size_t i = 0; i < m.size(); ++i) {
      EXPECT_EQ(place.coordinate(m[i], d.name), static_cast<int>(i)) << d.name;
      for (const DimensionEntry& other : dimension_registry()) {
        if (other.name == d.name || other.folded) continue;
        EXPECT_EQ(place.coordinate(m[i], other.name), place.coordinate(l.ranks() - 1, other.name)) << d.name;
      }
    }
    EXPECT_TRUE(place.leads(m.front(), d.name));
    EXPECT_FALSE(place.leads(m.back(), d.name));
  }
}

TEST(Placement, HybridShardsAreTheDataRanksOfANode) {
  // Tensor 2, data 8 on nodes of 4 GPUs: rank 1's data group is 1, 3, ..., 15, two to a node.
  Layout l = layout(2, 1, 8);
  l.sharding = Sharding::hybrid;
  const Placement place(l, 4);
  EXPECT_EQ(place.members(1, "shard"), (std::vector<int>{1, 3}));
  EXPECT_EQ(place.members(3, "replica"), (std::vector<int>{3, 7, 11, 15}));
  EXPECT_EQ(place.members(1, "replica"), (std::vector<int>{1, 5, 9, 13}));
  EXPECT_TRUE(place.leads(1, "shard"));
  EXPECT_FALSE(place.leads(3, "shard"));
  EXPECT_TRUE(place.leads(3, "replica"));
  EXPECT_FALSE(place.leads(7, "replica"));
}

TEST(Placement, RanksPerNodeOfAGroup) {
  EXPECT_EQ(ranks_per_node({0, 1, 2, 3, 4, 5, 6, 7}, 4), 4);
  EXPECT_EQ(ranks_per_node({1, 5, 9}, 4), 1);
  EXPECT_EQ(ranks_per_node({0, 2, 4, 6}, 4), 2);
  EXPECT_EQ(ranks_per_node({0, 1, 2, 4}, 4), 1);  // 3 on the first node, 1 on the next: not node by node
}

TEST(Sharding, NamesRoundTrip) {
  for (const std::string& name : sharding_names()) EXPECT_EQ(sharding_name(parse_sharding(name)), name);
  EXPECT_THROW(parse_sharding("zero4"), core::InputError);
}

}  // namespace
}  // namespace dtsim::parallel
