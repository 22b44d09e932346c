#include "sim/actors/rank_steps.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_set>

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
        steps.back()[i].latency_s += step.latency_s;
      }
      continue;
    }
    std::vector<Flow> flows;
    for (const collectives::Transfer& t : step.transfers) flows.push_back({t, 1, step.latency_s});
    steps.push_back(std::move(flows));
  }
  return steps;
}

std::vector<std::vector<Flow>> flow_steps(const std::vector<collectives::FusedStep>& fused) {
  std::vector<std::vector<Flow>> steps;
  for (const collectives::FusedStep& step : fused) {
    std::vector<Flow>& flows = steps.emplace_back();
    flows.reserve(step.transfers.size());
    for (const collectives::Transfer& t : step.transfers) flows.push_back({t, step.steps, step.latency_s});
  }
  return steps;
}

collectives::Schedule as_schedule(const std::vector<std::vector<Flow>>& steps, int ranks) {
  collectives::Schedule schedule{ranks, {}};
  for (const std::vector<Flow>& flows : steps) {
    collectives::Step step;
    for (const Flow& f : flows) step.transfers.push_back(f.transfer);
    if (!flows.empty()) step.latency_s = flows.front().latency_s;
    schedule.steps.push_back(std::move(step));
  }
  return schedule;
}

std::vector<std::vector<RankStep>> split_by_rank(const std::vector<std::vector<Flow>>& steps, int ranks) {
  std::vector<std::vector<RankStep>> by_rank(static_cast<std::size_t>(ranks), std::vector<RankStep>(steps.size()));
  std::vector<std::size_t> flow_count(static_cast<std::size_t>(ranks), 0);  // of the current step
  std::vector<int> with_switch;  // ranks exchanging with a switch endpoint in the current step
  for (std::size_t s = 0; s < steps.size(); ++s) {
    with_switch.clear();
    for (const Flow& f : steps[s])
      for (int r : {f.transfer.from, f.transfer.to})
        if (!collectives::is_switch(r)) ++flow_count[static_cast<std::size_t>(r)];
        else with_switch.push_back(f.transfer.from + f.transfer.to - r);
    // Each rank step allocates its flows once: sends first, then receives.
    auto add = [&](int rank, const Flow& f) {
      RankStep& part = by_rank[static_cast<std::size_t>(rank)][s];
      if (part.flows.empty()) part.flows.reserve(flow_count[static_cast<std::size_t>(rank)]);
      part.flows.push_back(f);
      return &part;
    };
    // A switch endpoint has no actor: the rank drives its transfers with the switch (execute_steps).
    for (const Flow& f : steps[s])
      if (!collectives::is_switch(f.transfer.from)) ++add(f.transfer.from, f)->send_count;
    for (const Flow& f : steps[s])
      if (!collectives::is_switch(f.transfer.to)) add(f.transfer.to, f);
    std::sort(with_switch.begin(), with_switch.end());
    with_switch.erase(std::unique(with_switch.begin(), with_switch.end()), with_switch.end());
    for (int r : with_switch) by_rank[static_cast<std::size_t>(r)][s].switch_ranks = static_cast<int>(with_switch.size());
    for (const Flow& f : steps[s])
      for (int r : {f.transfer.from, f.transfer.to})
        if (!collectives::is_switch(r)) flow_count[static_cast<std::size_t>(r)] = 0;
  }
  return by_rank;
}

void add_pairs(const collectives::Schedule& schedule, std::vector<std::pair<int, int>>& pairs) {
  // Plans repeat the same pairs step after step: a set keeps the vector to the distinct ones.
  auto key = [](int from, int to) { return (static_cast<std::uint64_t>(from) << 32) | static_cast<std::uint32_t>(to); };
  std::unordered_set<std::uint64_t> known;
  for (const auto& [from, to] : pairs) known.insert(key(from, to));
  for (const collectives::Step& step : schedule.steps)
    for (const collectives::Transfer& t : step.transfers)
      if (known.insert(key(t.from, t.to)).second) pairs.emplace_back(t.from, t.to);
  std::sort(pairs.begin(), pairs.end());
}

}  // namespace dtsim::actors
