// Contracts of the all-gather(v), reduce-scatter and gather algorithms (per-rank block sizes) and of the
// broadcast and reduce algorithms, plus nccl-tests' bandwidth definitions.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/collectives/block_collective.hpp"
#include "sim/collectives/bus_bandwidth.hpp"
#include "sim/collectives/phases.hpp"
#include "sim/collectives/rank_traffic.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/collectives/traced_collective.hpp"
#include "sim/core/error.hpp"
#include "sim/platform/fabric.hpp"
#include "tests/sim/collectives/replay.hpp"
#include "tests/sim/star.hpp"

namespace dtsim::collectives {
namespace {

using namespace collectives::testing;

const AlphaBeta kAb = dtsim::testing::star_alpha_beta();
const LinkCosts kStar = LinkCosts::uniform(kAb);

enum class Kind { allgatherv, reduce_scatter, gather };

struct BlockCase {
  Kind kind;
  std::string name;
};

std::unique_ptr<BlockCollective> make(const BlockCase& c) {
  switch (c.kind) {
    case Kind::allgatherv:
      return make_allgatherv(c.name);
    case Kind::reduce_scatter:
      return make_reduce_scatter(c.name);
    case Kind::gather:
      return make_gather(c.name);
  }
  return nullptr;
}

std::vector<BlockCase> all_block_cases() {
  std::vector<BlockCase> cases;
  for (const auto& n : allgatherv_names()) cases.push_back({Kind::allgatherv, n});
  for (const auto& n : reduce_scatter_names()) cases.push_back({Kind::reduce_scatter, n});
  for (const auto& n : gather_names()) cases.push_back({Kind::gather, n});
  return cases;
}

// Equal, near-equal and very uneven (some empty) blocks, as sparse gradients give.
std::vector<std::vector<std::int64_t>> block_patterns(int p) {
  std::vector<std::int64_t> skewed(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) skewed[static_cast<std::size_t>(r)] = r % 3 == 1 ? 0 : (r * 37) % 11 + 1 + (r == p - 1 ? 40 : 0);
  return {equal_blocks(p, 8 * p), equal_blocks(p, 8 * p + 3), skewed};
}

class BlockContract : public ::testing::TestWithParam<BlockCase> {};

TEST_P(BlockContract, ReplayOnDataDeliversTheBlocks) {
  const auto c = make(GetParam());
  for (int p : kRanks)
    for (const auto& sizes : block_patterns(p)) {
      const std::vector<Block> blocks = consecutive(sizes);
      const std::int64_t n = blocks.back().offset + blocks.back().bytes;
      Data data = contributions(p, n);
      if (GetParam().kind != Kind::reduce_scatter)  // rank r holds only its own block
        for (int r = 0; r < p; ++r)
          for (std::int64_t i = 0; i < n; ++i) {
            const Block& own = blocks[static_cast<std::size_t>(r)];
            if (i < own.offset || i >= own.offset + own.bytes) data[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)] = -1;
          }
      replay(c->moves({p, 1}, sizes), data);
      for (int r = 0; r < p; ++r)
        for (int owner = 0; owner < p; ++owner) {
          const Block& b = blocks[static_cast<std::size_t>(owner)];
          for (std::int64_t i = b.offset; i < b.offset + b.bytes; ++i) {
            const std::int64_t got = data[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)];
            switch (GetParam().kind) {
              case Kind::allgatherv:
                ASSERT_EQ(got, value(owner, i)) << GetParam().name << " p=" << p << " rank " << r;
                break;
              case Kind::reduce_scatter:
                if (owner == r) {
                  ASSERT_EQ(got, sum(p, i)) << GetParam().name << " p=" << p << " rank " << r;
                }
                break;
              case Kind::gather:
                if (r == 0) {
                  ASSERT_EQ(got, value(owner, i)) << GetParam().name << " p=" << p;
                }
                break;
            }
          }
        }
    }
}

TEST_P(BlockContract, AnalyticOnStarEqualsClosedFormForAnyBlocks) {
  const auto c = make(GetParam());
  for (int p : kRanks) {
    const platform::Fabric star(dtsim::testing::star(p));
    auto patterns = block_patterns(p);
    patterns.push_back(equal_blocks(p, 1000003 * static_cast<std::int64_t>(p)));
    for (auto& sizes : patterns) {
      for (auto& s : sizes) s *= 1000;
      const double closed = c->closed_form_s({p, 1}, sizes, kStar);
      EXPECT_NEAR(schedule_time_s(c->plan({p, 1}, sizes), star), closed, 1e-9 * closed) << GetParam().name << " p=" << p;
      EXPECT_LE(max_messages_per_rank_and_step(c->plan({p, 1}, sizes)), 1);
    }
  }
}

TEST_P(BlockContract, EqualBlocksOfPowersOfTwoMatchMpichFormulas) {
  const auto c = make(GetParam());
  for (int p : {2, 4, 8, 16, 32, 64}) {
    const double n = 1000.0 * p;
    const double lg = std::log2(p);
    const double steps = GetParam().name == "ring" ? p - 1 : lg;
    const double mpich = steps * kAb.alpha_s + (p - 1.0) / p * n * kAb.beta_s_per_byte;
    EXPECT_NEAR(c->closed_form_s({p, 1}, equal_blocks(p, 1000 * p), kStar), mpich, 1e-12 * mpich) << GetParam().name;
  }
}

TEST_P(BlockContract, EveryByteCrossesTheNetworkAsOftenAsTheAlgorithmSays) {
  const auto c = make(GetParam());
  for (int p : {4, 8, 16}) {
    const std::int64_t n = 96 * p;
    std::int64_t total = 0;
    for (const RankTraffic& t : traffic_by_rank(c->plan({p, 1}, equal_blocks(p, n)))) total += t.sent;
    // All-gather and reduce-scatter: p - 1 blocks to or from every rank. Gather: lg p levels of n/2.
    const std::int64_t expected = GetParam().kind == Kind::gather ? n * floor_log2(p) / 2 : (p - 1) * n;
    EXPECT_EQ(total, expected) << GetParam().name << " p=" << p;
  }
}

std::string block_case_name(const ::testing::TestParamInfo<BlockCase>& info) {
  const char* kind[] = {"allgatherv", "reduce_scatter", "gather"};
  return std::string(kind[static_cast<int>(info.param.kind)]) + "_" + info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Registered, BlockContract, ::testing::ValuesIn(all_block_cases()), block_case_name);

// Broadcast and reduce: one vector, root rank 0.
struct RootedCase {
  bool broadcast;
  std::string name;
};

std::vector<RootedCase> all_rooted_cases() {
  std::vector<RootedCase> cases;
  for (const auto& n : broadcast_names()) cases.push_back({true, n});
  for (const auto& n : reduce_names()) cases.push_back({false, n});
  return cases;
}

class RootedContract : public ::testing::TestWithParam<RootedCase> {
 protected:
  std::unique_ptr<Collective> algorithm() const {
    return GetParam().broadcast ? make_broadcast(GetParam().name) : make_reduce(GetParam().name);
  }
};

TEST_P(RootedContract, ReplayOnDataGivesTheRootsVectorOrTheSum) {
  const auto c = algorithm();
  for (int p : kRanks)
    for (std::int64_t n : kReplaySizes) {
      Data data = contributions(p, n);
      replay(dynamic_cast<const TracedCollective&>(*c).moves({p, 1}, n), data);
      for (int r = 0; r < p; ++r)
        for (std::int64_t i = 0; i < n; ++i) {
          if (GetParam().broadcast) {
            ASSERT_EQ(data[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)], value(0, i)) << GetParam().name;
          } else if (r == 0) {
            ASSERT_EQ(data[0][static_cast<std::size_t>(i)], sum(p, i)) << GetParam().name;
          }
        }
    }
}

TEST_P(RootedContract, AnalyticOnStarEqualsClosedForm) {
  const auto c = algorithm();
  for (int p : kRanks) {
    const platform::Fabric star(dtsim::testing::star(p));
    for (std::int64_t n : even_sizes(p)) {
      const double closed = c->closed_form_s({p, 1}, static_cast<double>(n), kStar);
      EXPECT_NEAR(schedule_time_s(c->plan({p, 1}, n), star), closed, 1e-9 * closed) << GetParam().name << " p=" << p;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registered, RootedContract, ::testing::ValuesIn(all_rooted_cases()), [](const auto& info) {
  return std::string(info.param.broadcast ? "broadcast_" : "reduce_") + info.param.name;
});

TEST(ScatterAllgatherBroadcast, MatchesMpichsFormula) {
  for (int p : {2, 4, 8, 16, 64}) {
    const double n = 1000.0 * p;
    const double mpich = (std::log2(p) + p - 1) * kAb.alpha_s + 2.0 * (p - 1) / p * n * kAb.beta_s_per_byte;
    EXPECT_NEAR(make_broadcast("scatter_allgather")->closed_form_s({p, 1}, n, kStar), mpich, 1e-12 * mpich);
  }
}

TEST(Bruck, NonPowerOfTwoTakesCeilLgPSteps) {
  for (int p : {3, 5, 7, 31}) {
    const auto sizes = equal_blocks(p, 100 * p);
    EXPECT_EQ(make_allgatherv("bruck")->plan({p, 1}, sizes).steps.size(), static_cast<std::size_t>(std::ceil(std::log2(p))));
    const double n = 100.0 * p;
    const double mpich = std::ceil(std::log2(p)) * kAb.alpha_s + (p - 1.0) / p * n * kAb.beta_s_per_byte;
    EXPECT_NEAR(make_allgatherv("bruck")->closed_form_s({p, 1}, sizes, kStar), mpich, 1e-12 * mpich);
  }
}

TEST(BlockRegistries, RejectUnknownNames) {
  EXPECT_THROW(make_allgatherv("brook"), core::InputError);
  EXPECT_THROW(make_reduce_scatter("halving"), core::InputError);
  EXPECT_THROW(make_gather("ring"), core::InputError);
  EXPECT_THROW(make_broadcast("ring"), core::InputError);
  EXPECT_THROW(make_reduce("ring"), core::InputError);
}

TEST(BusBandwidth, NcclTestsFactors) {
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Operation::allreduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Operation::allreduce_in_network, 8), 7.0 / 9);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Operation::allgather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Operation::reduce_scatter, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Operation::alltoall, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Operation::broadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Operation::reduce, 8), 1.0);
  EXPECT_DOUBLE_EQ(algorithm_bandwidth_Bps(1e9, 0.5), 2e9);
}

TEST(BusBandwidth, RingAllreduceRunsAtTheLinkBandwidth) {
  // Ring's bandwidth term is 2(p-1)/p n beta: its bus bandwidth is the link's, 12.5 GB/s, once alpha is small.
  const double n = 1e10;
  const double t = make_collective("ring")->closed_form_s({16, 1}, n, LinkCosts::uniform({0, 1 / 12.5e9}));
  EXPECT_NEAR(bus_bandwidth_Bps(Operation::allreduce, 16, n, t), 12.5e9, 1e-3);
}

TEST(BusBandwidth, ParsesOperationNames) {
  for (const std::string& name : operation_names()) EXPECT_EQ(operation_names()[static_cast<std::size_t>(parse_operation(name))], name);
  EXPECT_THROW(parse_operation("allreduc"), core::InputError);
}

}  // namespace
}  // namespace dtsim::collectives
