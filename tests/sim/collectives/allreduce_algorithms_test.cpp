// Per-algorithm checks of the all-reduce plans: step counts, the non-power-of-two terms, the trees' shape,
// the two-level algorithms on a two-level platform, and auto's choice.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/collectives/auto_allreduce.hpp"
#include "sim/collectives/phases.hpp"
#include "sim/collectives/pipelined_tree.hpp"
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

double message(double bytes) { return kAb.alpha_s + bytes * kAb.beta_s_per_byte; }

TEST(RecursiveDoubling, NonPowerOfTwoAddsTheFoldAndTheReturn) {
  const auto c = make_collective("recursive_doubling");
  EXPECT_EQ(c->plan({8, 1}, 1000).steps.size(), 3u);
  EXPECT_EQ(c->plan({7, 1}, 1000).steps.size(), 4u);  // fold, 2 exchanges, return
  EXPECT_DOUBLE_EQ(c->closed_form_s({7, 1}, 1000, kStar), 4 * message(1000));
}

TEST(Rabenseifner, NonPowerOfTwoBandwidthTermUsesPof2NotP) {
  // p = 7: (2 lg 4 + 3) alpha + (2 * 3/4 + 2) n beta; MPICH's comment would say (2 * 6/7 + 2) n beta.
  const double n = 7 * 4 * 1000;
  const double derived = 7 * kAb.alpha_s + 3.5 * n * kAb.beta_s_per_byte;
  EXPECT_DOUBLE_EQ(make_collective("rabenseifner")->closed_form_s({7, 1}, n, kStar), derived);
  EXPECT_NEAR(schedule_time_s(make_collective("rabenseifner")->plan({7, 1}, 28000),
                              platform::Fabric(dtsim::testing::star(7))),
              derived, 1e-9 * derived);
}

TEST(Rabenseifner, NonPowerOfTwoFoldSwapsHalvesThenSendsOneBack) {
  // SMPI's rab (reduce-rab.cpp step 2): the pair swaps halves, one reduced half goes back, the whole returns
  // at the end; one start-up more than MPICH's one-message fold. Odd n: the swap waits for the longer half.
  const auto c = make_collective("rabenseifner");
  EXPECT_EQ(c->plan({6, 1}, 1001).steps.size(), 2u + 2u + 2u + 1u);
  for (int p : {3, 5, 6, 7, 12})
    for (double n : {1001.0, 65536.0, 1e8}) {
      const Fold fold(p);
      const double core = 2 * floor_log2(fold.pof2) * kAb.alpha_s +
                          2.0 * (fold.pof2 - 1) / fold.pof2 * n * kAb.beta_s_per_byte;
      const double folds = message(std::ceil(n / 2)) + message(std::floor(n / 2)) + message(n);
      EXPECT_NEAR(c->closed_form_s({p, 1}, n, kStar), core + folds, 1e-12 * (core + folds)) << p << " " << n;
    }
  const auto plan = c->plan({3, 1}, 1001);
  ASSERT_EQ(plan.steps[0].transfers.size(), 2u);
  EXPECT_EQ(plan.steps[0].transfers[0].bytes, 501);  // rank 0 sends the upper half
  EXPECT_EQ(plan.steps[0].transfers[1].bytes, 500);  // rank 1 the lower
  ASSERT_EQ(plan.steps[1].transfers.size(), 1u);
  EXPECT_EQ(plan.steps[1].transfers[0].from, 0);
  EXPECT_EQ(plan.steps[1].transfers[0].bytes, 500);
}

TEST(Rabenseifner, LargestHalvesTravelTheShortestDistanceAsInMpich) {
  // MPICH (allreduce_intra_reduce_scatter_allgather.c, mask = 1 first) and SMPI's rab: distances 1, 2, 4, 8
  // with n/2, n/4, n/8, n/16, then the all-gather back at 8, 4, 2, 1. On 2 nodes of 8 only the n/16 steps
  // cross the network.
  const std::int64_t n = 16 * 1024;
  const auto plan = make_collective("rabenseifner")->plan({16, 8}, n);
  ASSERT_EQ(plan.steps.size(), 8u);
  const std::vector<int> distance{1, 2, 4, 8, 8, 4, 2, 1};
  const std::vector<std::int64_t> bytes{n / 2, n / 4, n / 8, n / 16, n / 16, n / 8, n / 4, n / 2};
  for (std::size_t s = 0; s < plan.steps.size(); ++s)
    for (const Transfer& t : plan.steps[s].transfers) {
      EXPECT_EQ(t.from ^ t.to, distance[s]) << s;
      EXPECT_EQ(t.bytes, bytes[s]) << s;
    }
}

TEST(BinomialTree, TwoCeilLgPFullMessages) {
  EXPECT_DOUBLE_EQ(make_collective("binomial_tree")->closed_form_s({5, 1}, 1000, kStar), 6 * message(1000));
}

TEST(PipelinedTree, StepCountsFollowTheHoles) {
  EXPECT_EQ(tree_phase_steps(2, 4), 4);
  EXPECT_EQ(tree_phase_steps(3, 1), 2);
  EXPECT_EQ(tree_phase_steps(4, 1), 3);   // depth 2, position 3 is a lone left child
  EXPECT_EQ(tree_phase_steps(5, 1), 4);
  EXPECT_EQ(tree_phase_steps(7, 8), 2 * (2 + 7));
}

TEST(PipelinedTree, SegmentsArePowersOfTwoGrowingWithSize) {
  int previous = 1;
  for (double n : {1e3, 1e5, 1e6, 1e7, 1e8, 1e9}) {
    const int k = tree_segments(16, n, kAb);
    EXPECT_EQ(k & (k - 1), 0) << n;
    EXPECT_GE(k, previous);
    previous = k;
  }
  EXPECT_EQ(tree_segments(16, 1e3, kAb), 1);
  EXPECT_GT(tree_segments(16, 1e9, kAb), 16);
  EXPECT_LE(tree_segments(16, 1e12, kAb), 1024);
}

TEST(DoubleBinaryTree, IsTwiceAsFastAsOneTreeForLargeMessages) {
  const double n = 1e9;
  const double one = make_collective("binary_tree")->closed_form_s({16, 1}, n, kStar);
  const double two = make_collective("double_binary_tree")->closed_form_s({16, 1}, n, kStar);
  EXPECT_NEAR(one / two, 2.0, 0.1);
  const double ring = make_collective("ring")->closed_form_s({16, 1}, n, kStar);
  EXPECT_LT(two, 1.15 * ring);  // k <= 1024 segments: the pipeline fill costs a few percent
}

TEST(DoubleBinaryTree, EveryRankIsInteriorInAtMostOneTree) {
  // Interior = receives reduce data; a rank receives from at most two children per segment pair.
  for (int p : {3, 4, 5, 6, 7, 8, 31, 32}) {
    const auto c = make_collective("double_binary_tree");
    const MovePlan plan = dynamic_cast<const TracedCollective&>(*c).moves({p, 1}, 2 * 1000);
    std::vector<int> reduced_into(static_cast<std::size_t>(p));
    for (const MoveStep& s : plan.steps)
      for (const Move& m : s.moves)
        if (m.combine == Combine::reduce) ++reduced_into[static_cast<std::size_t>(m.to)];
    for (int r = 0; r < p; ++r) EXPECT_LE(reduced_into[static_cast<std::size_t>(r)], 2) << "p=" << p << " rank " << r;
  }
}

TEST(GridAllreduce, AnalyticOnTwoLevelEqualsClosedForm) {
  for (const char* name : {"hierarchical", "torus2d"})
    for (int nodes : {1, 2, 3, 4, 8})
      for (int gpus : {1, 2, 4, 8}) {
        const auto spec = dtsim::testing::two_level(nodes, gpus);
        const int p = nodes * gpus;
        const auto c = make_collective(name);
        for (std::int64_t n : even_sizes(p)) {
          const double closed = c->closed_form_s({p, gpus}, static_cast<double>(n), platform::link_costs(spec));
          EXPECT_NEAR(schedule_time_s(c->plan({p, gpus}, n), platform::Fabric(spec)), closed, 1e-9 * closed)
              << name << " " << nodes << "x" << gpus << " n=" << n;
        }
      }
}

TEST(GridAllreduce, SumsOnTwoLevelGroups) {
  for (const char* name : {"hierarchical", "torus2d"})
    for (auto [nodes, gpus] : {std::pair{2, 2}, {3, 4}, {4, 3}, {1, 5}}) {
      const int p = nodes * gpus;
      const auto c = make_collective(name);
      Data data = contributions(p, 101);
      replay(dynamic_cast<const TracedCollective&>(*c).moves({p, gpus}, 101), data);
      for (int r = 0; r < p; ++r)
        for (std::int64_t i = 0; i < 101; ++i)
          ASSERT_EQ(data[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)], sum(p, i)) << name;
    }
}

TEST(GridAllreduce, UsesFewerStepsThanTheRingAndBeatsItAcrossSlowNics) {
  const auto spec = dtsim::testing::two_level(4, 8);
  const LinkCosts costs = platform::link_costs(spec);
  EXPECT_EQ(make_collective("torus2d")->plan({32, 8}, 32 * 1000).steps.size(), 2u * 7 + 2u * 3);
  const double n = 256e6;
  EXPECT_LT(make_collective("hierarchical")->closed_form_s({32, 8}, n, costs),
            make_collective("ring")->closed_form_s({32, 8}, n, costs));
}

TEST(GridAllreduce, RejectsAPartialLastNode) {
  EXPECT_THROW(make_collective("hierarchical")->plan({6, 4}, 1000), core::InputError);
}

TEST(AutoAllreduce, ShortMessagesUseRecursiveDoubling) {
  const AutoAllreduce a(kStar);
  EXPECT_EQ(a.chosen({16, 1}, 2048), "recursive_doubling");
  EXPECT_EQ(a.chosen({64, 1}, 40), "recursive_doubling");
  EXPECT_NE(a.chosen({16, 1}, 2049), "recursive_doubling");
}

TEST(AutoAllreduce, LongMessagesUseTheFastestCandidate) {
  const auto spec = dtsim::testing::two_level(4, 8);
  const LinkCosts costs = platform::link_costs(spec);
  const AutoAllreduce a(costs);
  for (double n : {1e4, 1e6, 1e8}) {
    const std::string pick = a.chosen({32, 8}, n);
    const double t = a.closed_form_s({32, 8}, n, costs);
    EXPECT_DOUBLE_EQ(t, make_collective(pick, costs)->closed_form_s({32, 8}, n, costs));
    for (const char* other : {"rabenseifner", "ring", "double_binary_tree", "hierarchical"})
      EXPECT_LE(t, make_collective(other, costs)->closed_form_s({32, 8}, n, costs)) << n << " " << other;
  }
  EXPECT_EQ(a.chosen({32, 8}, 1e8), "hierarchical");
  EXPECT_EQ(AutoAllreduce(kStar).chosen({16, 1}, 1e8), "rabenseifner");
  EXPECT_EQ(AutoAllreduce(kStar).chosen({12, 1}, 1e8), "ring");
}

TEST(AutoAllreduce, PlanIsTheChosenAlgorithmsPlan) {
  const AutoAllreduce a(kStar);
  for (std::int64_t n : {100, 100000, 10000000}) {
    const Schedule mine = a.plan({12, 1}, n);
    const Schedule theirs = make_collective(a.chosen({12, 1}, static_cast<double>(n)), kStar)->plan({12, 1}, n);
    ASSERT_EQ(mine.steps.size(), theirs.steps.size());
    EXPECT_EQ(mine.total_bytes(), theirs.total_bytes());
  }
}

}  // namespace
}  // namespace dtsim::collectives
