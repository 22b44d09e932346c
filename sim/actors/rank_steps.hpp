#pragma once
/// A plan seen from one rank: per step, whom it sends to and whom it receives from.
#include <utility>
#include <vector>

#include "sim/collectives/schedule.hpp"

namespace dtsim::actors {

/// One rank's part of one step.
struct RankStep {
  std::vector<collectives::Transfer> sends;
  std::vector<collectives::Transfer> receives;
};

/// steps_by_rank[r][s]: rank r's transfers in step s (steps where r is idle are kept, empty).
std::vector<std::vector<RankStep>> split_by_rank(const collectives::Schedule& schedule);

/// Adds every (from, to) pair of `schedule` to `pairs` (sorted, without duplicates).
void add_pairs(const collectives::Schedule& schedule, std::vector<std::pair<int, int>>& pairs);

}  // namespace dtsim::actors
