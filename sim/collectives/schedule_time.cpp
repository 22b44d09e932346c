#include "sim/collectives/schedule_time.hpp"

#include <algorithm>
#include <limits>

namespace dtsim::collectives {

double schedule_time_s(const Schedule& schedule, const core::PathModel& network) {
  std::vector<int> flows_on_link(static_cast<std::size_t>(network.link_count()), 0);
  std::vector<core::Path> paths;
  double total = 0;
  for (const Step& step : schedule.steps) {
    paths.clear();
    for (const Transfer& t : step.transfers) {
      paths.push_back(network.path(t.from, t.to));
      for (int link : paths.back().links) ++flows_on_link[static_cast<std::size_t>(link)];
    }
    double slowest = 0;
    for (std::size_t i = 0; i < step.transfers.size(); ++i) {
      double share = std::numeric_limits<double>::infinity();
      for (int link : paths[i].links)
        share = std::min(share, network.link_bandwidth_Bps(link) / flows_on_link[static_cast<std::size_t>(link)]);
      const double bytes = static_cast<double>(step.transfers[i].bytes);
      slowest = std::max(slowest, paths[i].latency_s + (bytes > 0 ? bytes / share : 0.0));
    }
    for (const core::Path& p : paths)
      for (int link : p.links) flows_on_link[static_cast<std::size_t>(link)] = 0;
    total += slowest;
  }
  return total;
}

}  // namespace dtsim::collectives
