#include "sim/collectives/schedule_time.hpp"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace dtsim::collectives {
namespace {

bool same_pairs(const Step& a, const Step& b) {
  return std::equal(a.transfers.begin(), a.transfers.end(), b.transfers.begin(), b.transfers.end(),
                    [](const Transfer& x, const Transfer& y) { return x.from == y.from && x.to == y.to; });
}

}  // namespace

std::vector<TransferCost> shared_costs(const std::vector<const core::Path*>& paths, const core::PathModel& network) {
  // The paths on a link, counted in the sorted links the paths cross: as large as the paths, not as the network
  // (a link-count array of a 100,000-GPU fabric, zeroed per call, cost more than the paths).
  std::vector<int> crossed;
  for (const core::Path* p : paths) crossed.insert(crossed.end(), p->links.begin(), p->links.end());
  std::sort(crossed.begin(), crossed.end());
  const auto flows_on = [&](int link) {
    const auto [first, last] = std::equal_range(crossed.begin(), crossed.end(), link);
    return static_cast<int>(last - first);
  };
  std::vector<TransferCost> costs;
  costs.reserve(paths.size());
  for (const core::Path* p : paths) {
    TransferCost& c = costs.emplace_back(TransferCost{p->latency_s, p->rate_cap_Bps});
    for (int link : p->links) c.share_Bps = std::min(c.share_Bps, network.link_bandwidth_Bps(link) / flows_on(link));
  }
  return costs;
}

std::vector<TransferCost> pair_costs(const std::vector<std::pair<int, int>>& pairs, const core::PathModel& network) {
  if (const auto* kept = dynamic_cast<const KeptPairCosts*>(&network)) return kept->costs(pairs);
  std::vector<core::Path> paths;
  paths.reserve(pairs.size());
  for (const auto& [from, to] : pairs) paths.push_back(network.path(from, to));
  std::vector<const core::Path*> pointers;
  pointers.reserve(paths.size());
  for (const core::Path& path : paths) pointers.push_back(&path);
  return shared_costs(pointers, network);
}

const std::vector<TransferCost>& KeptPairCosts::costs(const std::vector<std::pair<int, int>>& pairs) const {
  auto at = kept_.find(pairs);
  if (at == kept_.end()) at = kept_.emplace(pairs, pair_costs(pairs, network_)).first;
  return at->second;
}

double schedule_time_s(const Schedule& schedule, const core::PathModel& network) {
  // Ranks, then the switch endpoints (endpoint_index).
  std::vector<double> ready(static_cast<std::size_t>(schedule.ranks + schedule.switches), 0.0);
  auto at = [&](std::vector<double>& times, int id) -> double& {
    return times[static_cast<std::size_t>(endpoint_index(id, schedule.ranks))];
  };
  std::vector<double> next_ready;
  // Plans repeat the same rank pairs step after step: each pair's path is computed once, and a step between
  // the same pairs as the one before it (a ring's 2(p-1) steps) reuses its transfers' costs.
  std::unordered_map<std::uint64_t, core::Path> path_of_pair;
  std::vector<const core::Path*> paths;
  std::vector<TransferCost> costs;  // of the transfers of `pattern`
  const Step* pattern = nullptr;
  for (const Step& step : schedule.steps) {
    if (!pattern || !same_pairs(*pattern, step)) {
      pattern = &step;
      paths.clear();
      for (const Transfer& t : step.transfers) {
        const std::uint64_t key = (static_cast<std::uint64_t>(t.from) << 32) | static_cast<std::uint32_t>(t.to);
        auto it = path_of_pair.find(key);
        if (it == path_of_pair.end()) it = path_of_pair.emplace(key, network.path(t.from, t.to)).first;
        paths.push_back(&it->second);
      }
      costs = shared_costs(paths, network);
    }
    next_ready = ready;
    for (std::size_t i = 0; i < step.transfers.size(); ++i) {
      const Transfer& t = step.transfers[i];
      const double bytes = static_cast<double>(t.bytes);
      const double start = std::max(at(ready, t.from), at(ready, t.to));
      const double end = transfer_end_s(start, step.latency_s, costs[i], bytes);
      for (int id : {t.from, t.to}) at(next_ready, id) = std::max(at(next_ready, id), end);
    }
    ready.swap(next_ready);
  }
  return ready.empty() ? 0.0 : *std::max_element(ready.begin(), ready.end());
}

double step_time_s(const Step& step, int ranks, const core::PathModel& network) {
  if (step.transfers.empty()) return 0;
  Schedule one;
  one.ranks = ranks;
  one.steps = {step};
  return schedule_time_s(one, network);
}

}  // namespace dtsim::collectives
