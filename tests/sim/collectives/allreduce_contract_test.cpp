// One contract over every registered all-reduce: plans sum correctly, the analytic replay on a star equals
// the closed form, and each rank moves the bytes its algorithm should.
#include <gtest/gtest.h>

#include <algorithm>

#include "sim/collectives/auto_allreduce.hpp"
#include "sim/collectives/collective.hpp"
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

/// The star's costs; its switch sums (sharp_star): one link (5 us, 12.5 GB/s) from a rank to it.
LinkCosts star_costs() {
  LinkCosts costs = LinkCosts::uniform(dtsim::testing::star_alpha_beta());
  costs.to_switch = AlphaBeta{5e-6, 1 / 12.5e9};
  return costs;
}
const LinkCosts kStar = star_costs();

class AllreduceContract : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<Collective> algorithm() const { return make_collective(GetParam(), kStar); }
};

TEST_P(AllreduceContract, NameIsTheRegistryKey) { EXPECT_EQ(algorithm()->name(), GetParam()); }

TEST_P(AllreduceContract, ReplayOnDataGivesEveryRankTheSum) {
  const auto c = algorithm();
  const auto* selector = dynamic_cast<const AutoAllreduce*>(c.get());
  std::vector<std::int64_t> sizes = kReplaySizes;
  if (selector != nullptr) sizes.insert(sizes.end(), {3001, 100003});  // past auto's short-message rule
  for (int p : kRanks)
    for (std::int64_t n : sizes) {
      const auto chosen = selector ? make_collective(selector->chosen({p, 1}, static_cast<double>(n)), kStar) : nullptr;
      const auto* traced = dynamic_cast<const TracedCollective*>(chosen ? chosen.get() : c.get());
      if (traced == nullptr) continue;  // ring has no data ranges: ring_allreduce_test replays it
      Data data = contributions(p, n);
      replay(traced->moves({p, 1}, n), data);
      for (int r = 0; r < p; ++r)
        for (std::int64_t i = 0; i < n; ++i)
          ASSERT_EQ(data[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)], sum(p, i))
              << GetParam() << " p=" << p << " n=" << n << " rank " << r << " byte " << i;
    }
}

TEST_P(AllreduceContract, AnalyticOnStarEqualsClosedFormForEvenSizes) {
  const auto c = algorithm();
  for (int p : kRanks) {
    const platform::Fabric star(dtsim::testing::sharp_star(p));
    for (std::int64_t n : even_sizes(p)) {
      const double closed = c->closed_form_s({p, 1}, static_cast<double>(n), kStar);
      EXPECT_NEAR(schedule_time_s(c->plan({p, 1}, n), star), closed, 1e-9 * closed)
          << GetParam() << " p=" << p << " n=" << n;
    }
  }
}

TEST_P(AllreduceContract, UnevenSizesCostLessThanPBytesPerStepMore) {
  // Closed forms are continuous in n; plans cut whole bytes, so a step's largest message is off by < p bytes.
  const auto c = algorithm();
  for (int p : kRanks) {
    const platform::Fabric star(dtsim::testing::sharp_star(p));
    for (std::int64_t n : kUnevenSizes) {
      const Schedule s = c->plan({p, 1}, n);
      const double closed = c->closed_form_s({p, 1}, static_cast<double>(n), kStar);
      const double slack = static_cast<double>(s.steps.size()) * p * kStar.intra.beta_s_per_byte + 1e-9 * closed;
      EXPECT_NEAR(schedule_time_s(s, star), closed, slack) << GetParam() << " p=" << p << " n=" << n;
    }
  }
}

TEST_P(AllreduceContract, NoRankSendsOrReceivesTwoMessagesInOneStep) {
  const auto c = algorithm();
  for (int p : kRanks) EXPECT_LE(max_messages_per_rank_and_step(c->plan({p, 1}, 2048 * p)), 1) << "p=" << p;
}

TEST_P(AllreduceContract, OneRankHasNothingToDo) {
  EXPECT_TRUE(algorithm()->plan({1, 1}, 1000).steps.empty());
  EXPECT_EQ(algorithm()->closed_form_s({1, 1}, 1000, kStar), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Registered, AllreduceContract, ::testing::ValuesIn(collective_names()),
                         [](const auto& info) { return info.param; });

// Bytes all ranks send together, n divisible by every chunk count.
std::int64_t expected_total_bytes(const std::string& name, int p, std::int64_t n) {
  const Fold fold(p);
  if (name == "recursive_doubling") return fold.pof2 * floor_log2(fold.pof2) * n + 2 * fold.rem * n;
  if (name == "rabenseifner") return 2 * (fold.pof2 - 1) * n + 5 * fold.rem * n / 2;  // fold: n swapped, n/2 in, n out
  if (name == "in_network") return p > 1 ? p * n : 0;  // n up from each rank (and n down to each: received)
  // ring, hierarchical, torus2d: 2 (p-1)/p n per rank; the trees: every non-root sends n up and gets n back.
  return 2 * (p - 1) * n;
}

TEST(AllreduceTraffic, EachAlgorithmMovesItsBytes) {
  for (const std::string& name : collective_names()) {
    // The selectors delegate; nccl's wire bytes depend on its protocol (nccl_allreduce_test checks them).
    if (name == "mpich_auto" || name == "nccl" || name == "auto") continue;
    for (int p : kRanks) {
      const std::int64_t n = 2048 * p * 3;
      const auto traffic = traffic_by_rank(make_collective(name, kStar)->plan({p, 1}, n));
      std::int64_t sent = 0, received = 0;
      for (const RankTraffic& t : traffic) {
        sent += t.sent;
        received += t.received;
      }
      EXPECT_EQ(sent, expected_total_bytes(name, p, n)) << name << " p=" << p;
      EXPECT_EQ(received, sent);
    }
  }
}

TEST(AllreduceTraffic, BandwidthOptimalOnesSendTwoPMinusOneOverPOfTheVectorPerRank) {
  for (const char* name : {"ring", "rabenseifner", "hierarchical", "torus2d"})
    for (int p : {2, 4, 8, 16, 32, 64}) {
      const std::int64_t n = 2048 * p;
      for (int per_node : {1, 2, 4}) {
        if (p % per_node != 0) continue;
        for (const RankTraffic& t : traffic_by_rank(make_collective(name)->plan({p, per_node}, n))) {
          EXPECT_EQ(t.sent, 2 * (p - 1) * n / p) << name << " p=" << p << " per node " << per_node;
          EXPECT_EQ(t.received, t.sent);
        }
      }
    }
}

TEST(AllreduceRegistry, ListsEveryAlgorithmAndRejectsOthers) {
  EXPECT_EQ(collective_names(),
            (std::vector<std::string>{"ring", "recursive_doubling", "rabenseifner", "binomial_tree", "binary_tree",
                                      "double_binary_tree", "hierarchical", "torus2d", "in_network", "nccl", "mpich_auto",
                                      "auto"}));
  EXPECT_THROW(make_collective("rabenseifer"), core::InputError);
}

}  // namespace
}  // namespace dtsim::collectives
