#include "sim/collectives/schedule_time.hpp"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace dtsim::collectives {

double schedule_time_s(const Schedule& schedule, const core::PathModel& network) {
  std::vector<int> flows_on_link(static_cast<std::size_t>(network.link_count()), 0);
  std::vector<double> ready(static_cast<std::size_t>(schedule.ranks), 0.0);
  std::vector<double> next_ready;
  // Plans repeat the same rank pairs step after step: each pair's path is computed once.
  std::unordered_map<std::uint64_t, core::Path> path_of_pair;
  std::vector<const core::Path*> paths;
  for (const Step& step : schedule.steps) {
    paths.clear();
    for (const Transfer& t : step.transfers) {
      const std::uint64_t key = (static_cast<std::uint64_t>(t.from) << 32) | static_cast<std::uint32_t>(t.to);
      auto it = path_of_pair.find(key);
      if (it == path_of_pair.end()) it = path_of_pair.emplace(key, network.path(t.from, t.to)).first;
      paths.push_back(&it->second);
      for (int link : it->second.links) ++flows_on_link[static_cast<std::size_t>(link)];
    }
    next_ready = ready;
    for (std::size_t i = 0; i < step.transfers.size(); ++i) {
      const Transfer& t = step.transfers[i];
      double share = std::numeric_limits<double>::infinity();
      for (int link : paths[i]->links)
        share = std::min(share, network.link_bandwidth_Bps(link) / flows_on_link[static_cast<std::size_t>(link)]);
      const double bytes = static_cast<double>(t.bytes);
      const double start = std::max(ready[static_cast<std::size_t>(t.from)], ready[static_cast<std::size_t>(t.to)]);
      const double end = start + paths[i]->latency_s + (bytes > 0 ? bytes / share : 0.0);
      for (int rank : {t.from, t.to})
        next_ready[static_cast<std::size_t>(rank)] = std::max(next_ready[static_cast<std::size_t>(rank)], end);
    }
    for (const core::Path* p : paths)
      for (int link : p->links) flows_on_link[static_cast<std::size_t>(link)] = 0;
    ready.swap(next_ready);
  }
  return ready.empty() ? 0.0 : *std::max_element(ready.begin(), ready.end());
}

}  // namespace dtsim::collectives
