#include "sim/collectives/ring_allreduce.hpp"

#include <gtest/gtest.h>

#include "sim/collectives/rank_traffic.hpp"
#include "sim/core/error.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/platform/fabric.hpp"
#include "tests/sim/star.hpp"

namespace dtsim::collectives {
namespace {

constexpr int kRanks[] = {2, 3, 4, 7, 8, 16, 64};
// Multiples of lcm(2, 3, 4, 7, 8, 16, 64) = 1344, so every chunk has the same size.
constexpr std::int64_t kBytes[] = {1344, 1344 * 1000, 1344 * 74403};

TEST(RingAllreduce, PlanHasTwoPMinusOneStepsOfOneSendPerRank) {
  for (int p : kRanks) {
    const Schedule s = RingAllreduce().plan({p, 1}, 1344 * 10);
    ASSERT_EQ(s.steps.size(), static_cast<std::size_t>(2 * (p - 1)));
    for (const Step& step : s.steps) {
      ASSERT_EQ(step.transfers.size(), static_cast<std::size_t>(p));
      for (int r = 0; r < p; ++r) {
        EXPECT_EQ(step.transfers[static_cast<std::size_t>(r)].from, r);
        EXPECT_EQ(step.transfers[static_cast<std::size_t>(r)].to, (r + 1) % p);
      }
    }
    for (const RankTraffic& t : traffic_by_rank(s)) {
      EXPECT_EQ(t.sent, 2 * (p - 1) * 1344 * 10 / p);
      EXPECT_EQ(t.received, t.sent);
    }
  }
}

TEST(RingAllreduce, ReduceScatterGivesEachRankOneFullyReducedChunk) {
  // Replays the plan on real vectors: after 2(p-1) steps every rank holds the sum of all inputs.
  const int p = 5;
  const std::int64_t n = 5 * 3 + 2;  // uneven chunks: 4, 4, 3, 3, 3 bytes
  std::vector<std::vector<long>> data(p, std::vector<long>(n));
  for (int r = 0; r < p; ++r)
    for (int i = 0; i < n; ++i) data[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)] = (r + 1) * 100 + i;
  const Schedule s = RingAllreduce().plan({p, 1}, n);
  auto chunk_of = [&](int c) {
    std::int64_t begin = 0;
    for (int k = 0; k < c; ++k) begin += n / p + (k < n % p ? 1 : 0);
    return std::pair{begin, begin + n / p + (c < n % p ? 1 : 0)};
  };
  for (std::size_t step = 0; step < s.steps.size(); ++step) {
    const bool reduce = step < static_cast<std::size_t>(p - 1);
    auto before = data;
    for (const Transfer& t : s.steps[step].transfers) {
      const int sp = static_cast<int>(step % static_cast<std::size_t>(p - 1));
      const int c = (((reduce ? t.from - sp : t.from + 1 - sp) % p) + p) % p;
      const auto [b, e] = chunk_of(c);
      ASSERT_EQ(t.bytes, e - b);
      for (std::int64_t i = b; i < e; ++i) {
        auto& dst = data[static_cast<std::size_t>(t.to)][static_cast<std::size_t>(i)];
        const long v = before[static_cast<std::size_t>(t.from)][static_cast<std::size_t>(i)];
        dst = reduce ? dst + v : v;
      }
    }
  }
  for (int i = 0; i < n; ++i) {
    long sum = 0;
    for (int r = 0; r < p; ++r) sum += (r + 1) * 100 + i;
    for (int r = 0; r < p; ++r) EXPECT_EQ(data[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)], sum);
  }
}

TEST(RingAllreduce, AnalyticOnStarEqualsClosedForm) {
  for (int p : kRanks) {
    const platform::Fabric fabric(testing::star(p));
    for (std::int64_t n : kBytes) {
      const double expected = testing::ring_formula_s(p, static_cast<double>(n), testing::star_alpha_beta());
      const double analytic = schedule_time_s(RingAllreduce().plan({p, 1}, n), fabric);
      EXPECT_NEAR(analytic, expected, 1e-9 * expected) << "p=" << p << " n=" << n;
      EXPECT_NEAR(RingAllreduce().closed_form_s({p, 1}, static_cast<double>(n), LinkCosts::uniform(testing::star_alpha_beta())), expected,
                  1e-9 * expected);
    }
  }
}

TEST(RingAllreduce, UnevenChunksCostTheLargestChunkPerStep) {
  const int p = 4;
  const std::int64_t n = 4001;  // chunks 1001, 1000, 1000, 1000: every step carries one 1001-byte chunk
  const auto ab = testing::star_alpha_beta();
  const double expected = 2.0 * (p - 1) * (ab.alpha_s + 1001 * ab.beta_s_per_byte);
  EXPECT_NEAR(schedule_time_s(RingAllreduce().plan({p, 1}, n), platform::Fabric(testing::star(p))), expected,
              1e-12 * expected);
}

TEST(RingAllreduce, OneRankHasNothingToDo) {
  EXPECT_TRUE(RingAllreduce().plan({1, 1}, 1000).steps.empty());
  EXPECT_EQ(RingAllreduce().closed_form_s({1, 1}, 1000, LinkCosts::uniform(testing::star_alpha_beta())), 0.0);
}

TEST(ScheduleTime, SharedLinkSplitsBandwidthEqually) {
  // Two transfers into the same host share its DOWN link: each gets half the bandwidth.
  Schedule s{3, {Step{{{0, 2, 1000000}, {1, 2, 1000000}}}}};
  const auto ab = testing::star_alpha_beta();
  EXPECT_DOUBLE_EQ(schedule_time_s(s, platform::Fabric(testing::star(3))), ab.alpha_s + 2e6 * ab.beta_s_per_byte);
}

TEST(CollectiveRegistry, KnowsRingAndRejectsOthers) {
  EXPECT_EQ(make_collective("ring")->name(), "ring");
  EXPECT_THROW(make_collective("ringg"), core::InputError);
}

}  // namespace
}  // namespace dtsim::collectives
