#include "sim/actors/rank_steps.hpp"

#include <algorithm>

namespace dtsim::actors {

std::vector<std::vector<RankStep>> split_by_rank(const collectives::Schedule& schedule) {
  std::vector<std::vector<RankStep>> by_rank(static_cast<std::size_t>(schedule.ranks),
                                             std::vector<RankStep>(schedule.steps.size()));
  for (std::size_t s = 0; s < schedule.steps.size(); ++s)
    for (const collectives::Transfer& t : schedule.steps[s].transfers) {
      by_rank[static_cast<std::size_t>(t.from)][s].sends.push_back(t);
      by_rank[static_cast<std::size_t>(t.to)][s].receives.push_back(t);
    }
  return by_rank;
}

void add_pairs(const collectives::Schedule& schedule, std::vector<std::pair<int, int>>& pairs) {
  for (const collectives::Step& step : schedule.steps)
    for (const collectives::Transfer& t : step.transfers) pairs.emplace_back(t.from, t.to);
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
}

}  // namespace dtsim::actors
