// Every collective's closed form against the analytic replay of its plan on a star (alpha-beta, no
// contention), over 2 to 64 ranks and sizes that divide evenly: one validation row per algorithm in
// docs/VALIDATION.md. The WFBP recurrence row is tests/sim/run/iteration_test.cpp (Wfbp.*).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "sim/collectives/block_collective.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/platform/fabric.hpp"
#include "tests/sim/star.hpp"

namespace dtsim::collectives {
namespace {

constexpr int kRanks[] = {2, 3, 4, 5, 7, 8, 16, 31, 64};
constexpr std::int64_t kMultiples[] = {1, 37, 1000};  // of 2048 p bytes: every chunk and tree segment equal
constexpr double kBound = 1e-9;                       // relative; SimGrid itself resolves 1 ns
/// The star's costs; its switch sums (sharp_star, for in_network): one 5 us, 12.5 GB/s link from a rank to it.
LinkCosts star_costs() {
  LinkCosts costs = LinkCosts::uniform(dtsim::testing::star_alpha_beta());
  costs.to_switch = AlphaBeta{5e-6, 1 / 12.5e9};
  return costs;
}
const LinkCosts kStar = star_costs();

/// Largest |replay - closed form| / closed form over kRanks and kMultiples; (replay, closed) of p ranks, n bytes.
double max_relative_error(const std::function<std::pair<double, double>(int, std::int64_t)>& times) {
  double worst = 0;
  for (int p : kRanks)
    for (std::int64_t k : kMultiples) {
      const auto [replay, closed] = times(p, 2048 * p * k);
      worst = std::max(worst, std::abs(replay - closed) / closed);
    }
  return worst;
}

void report(const std::string& family, const std::string& name, double error) {
  std::printf("| %s %s | %.1e |\n", family.c_str(), name.c_str(), error);
  EXPECT_LE(error, kBound) << family << " " << name;
}

void check_vector_collectives(const std::string& family, const std::vector<std::string>& names,
                              const std::function<std::unique_ptr<Collective>(const std::string&)>& make) {
  for (const std::string& name : names) {
    const auto c = make(name);
    report(family, name, max_relative_error([&](int p, std::int64_t n) {
             return std::pair{schedule_time_s(c->plan({p, 1}, n), platform::Fabric(dtsim::testing::sharp_star(p))),
                              c->closed_form_s({p, 1}, static_cast<double>(n), kStar)};
           }));
  }
}

void check_block_collectives(const std::string& family, const std::vector<std::string>& names,
                             const std::function<std::unique_ptr<BlockCollective>(std::string_view)>& make) {
  for (const std::string& name : names) {
    const auto c = make(name);
    report(family, name, max_relative_error([&](int p, std::int64_t n) {
             const std::vector<std::int64_t> blocks = equal_blocks(p, n);
             return std::pair{schedule_time_s(c->plan({p, 1}, blocks), platform::Fabric(dtsim::testing::star(p))),
                              c->closed_form_s({p, 1}, blocks, kStar)};
           }));
  }
}

TEST(ClosedForms, AllreduceReplayOnAStarEqualsTheClosedForm) {
  check_vector_collectives("all-reduce", collective_names(), [](const std::string& n) { return make_collective(n); });
}

TEST(ClosedForms, BroadcastAndReduceReplayOnAStarEqualTheClosedForm) {
  check_vector_collectives("broadcast", broadcast_names(), [](const std::string& n) { return make_broadcast(n); });
  check_vector_collectives("reduce", reduce_names(), [](const std::string& n) { return make_reduce(n); });
}

TEST(ClosedForms, BlockCollectivesReplayOnAStarEqualTheClosedForm) {
  check_block_collectives("all-gather", allgatherv_names(), make_allgatherv);
  check_block_collectives("reduce-scatter", reduce_scatter_names(), make_reduce_scatter);
  check_block_collectives("gather", gather_names(), make_gather);
}

}  // namespace
}  // namespace dtsim::collectives
