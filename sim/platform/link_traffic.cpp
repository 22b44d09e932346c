#include "sim/platform/link_traffic.hpp"

#include <algorithm>
#include <map>

namespace dtsim::platform {

void add_link_bytes(const collectives::Schedule& schedule, double times, const Fabric& fabric,
                    std::vector<double>& bytes) {
  bytes.resize(static_cast<std::size_t>(fabric.link_count()), 0.0);
  std::map<std::pair<int, int>, double> per_pair;
  for (const collectives::Step& step : schedule.steps)
    for (const collectives::Transfer& t : step.transfers)
      if (t.from != t.to) per_pair[{t.from, t.to}] += static_cast<double>(t.bytes);
  for (const auto& [pair, pair_bytes] : per_pair)
    for (int l : fabric.path(pair.first, pair.second).links) bytes[static_cast<std::size_t>(l)] += times * pair_bytes;
}

std::vector<LinkLoad> hottest_links(const Fabric& fabric, const std::vector<double>& bytes, double duration_s,
                                    int count) {
  std::vector<LinkLoad> loads;
  for (std::size_t l = 0; l < bytes.size(); ++l)
    if (bytes[l] > 0)
    {
      const DirectedLink& link = fabric.links()[l];
      loads.push_back({static_cast<int>(l), link.name, bytes[l],
                       duration_s > 0 ? bytes[l] / (link.bandwidth_Bps * duration_s) : 0.0, link.bandwidth_Bps,
                       link.line_rate_Bps > 0 ? link.line_rate_Bps : link.bandwidth_Bps});
    }
  std::stable_sort(loads.begin(), loads.end(), [](const LinkLoad& a, const LinkLoad& b) {
    return a.utilisation != b.utilisation ? a.utilisation > b.utilisation : a.bytes > b.bytes;
  });
  if (static_cast<int>(loads.size()) > count) loads.resize(static_cast<std::size_t>(std::max(count, 0)));
  return loads;
}

}  // namespace dtsim::platform
