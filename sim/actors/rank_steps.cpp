#include "sim/actors/rank_steps.hpp"

#include <algorithm>

namespace dtsim::actors {
namespace {

bool same_pattern(const std::vector<Flow>& fused, const collectives::Step& step) {
  if (fused.size() != step.transfers.size()) return false;
  for (std::size_t i = 0; i < fused.size(); ++i)
    if (fused[i].transfer.from != step.transfers[i].from || fused[i].transfer.to != step.transfers[i].to) return false;
  return true;
}

}  // namespace

std::vector<std::vector<Flow>> flow_steps(const collectives::Schedule& schedule, bool fuse) {
  std::vector<std::vector<Flow>> steps;
  for (const collectives::Step& step : schedule.steps) {
    if (fuse && !steps.empty() && same_pattern(steps.back(), step)) {
      for (std::size_t i = 0; i < step.transfers.size(); ++i) {
        steps.back()[i].transfer.bytes += step.transfers[i].bytes;
        ++steps.back()[i].steps;
      }
      continue;
    }
    std::vector<Flow> flows;
    for (const collectives::Transfer& t : step.transfers) flows.push_back({t, 1});
    steps.push_back(std::move(flows));
  }
  return steps;
}

collectives::Schedule as_schedule(const std::vector<std::vector<Flow>>& steps, int ranks) {
  collectives::Schedule schedule{ranks, {}};
  for (const std::vector<Flow>& flows : steps) {
    collectives::Step step;
    for (const Flow& f : flows) step.transfers.push_back(f.transfer);
    schedule.steps.push_back(std::move(step));
  }
  return schedule;
}

std::vector<std::vector<RankStep>> split_by_rank(const std::vector<std::vector<Flow>>& steps, int ranks) {
  std::vector<std::vector<RankStep>> by_rank(static_cast<std::size_t>(ranks), std::vector<RankStep>(steps.size()));
  for (std::size_t s = 0; s < steps.size(); ++s)
    for (const Flow& f : steps[s]) {
      by_rank[static_cast<std::size_t>(f.transfer.from)][s].sends.push_back(f);
      by_rank[static_cast<std::size_t>(f.transfer.to)][s].receives.push_back(f);
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
