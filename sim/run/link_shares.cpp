#include "sim/run/link_shares.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace dtsim::run {

ConcurrentInstances::ConcurrentInstances(const platform::Fabric& fabric, int group_size, std::vector<int> hosts,
                                         std::size_t mine)
    : fabric_(fabric), group_size_(static_cast<std::size_t>(group_size)), hosts_(std::move(hosts)), mine_(mine) {
  DTSIM_CHECK(group_size_ > 0 && hosts_.size() % group_size_ == 0 && mine_ < size(),
              "the representative's instance is one of the group's instances");
}

LinkDivisors ConcurrentInstances::divisors(const std::vector<std::vector<actors::Flow>>& flows) {
  LinkDivisors most;
  if (size() < 2) return most;
  std::vector<std::pair<int, int>> pairs;
  for (const std::vector<actors::Flow>& step : flows) {
    pairs.clear();
    for (const actors::Flow& f : step)
      if (f.transfer.from != f.transfer.to) pairs.emplace_back(f.transfer.from, f.transfer.to);
    for (const auto& [link, divisor] : step_divisors(pairs)) {
      double& d = most.try_emplace(link, divisor).first->second;
      d = std::max(d, divisor);
    }
  }
  return most;
}

const LinkDivisors& ConcurrentInstances::step_divisors(const std::vector<std::pair<int, int>>& pairs) {
  if (auto at = kept_.find(pairs); at != kept_.end()) return at->second;
  // Per link of the representative's routes: (its transfers, every instance's). Only those links are counted, so
  // the count is as large as the representative's routes, not as the fabric or the instances' routes.
  std::unordered_map<int, std::pair<int, int>> count;
  std::vector<int> links;  // one route's, reused: the walk allocates nothing per route
  const auto route = [&](std::size_t k, int from, int to) -> const std::vector<int>& {
    // A switch's endpoint (a negative id) is the fabric's, the same for every instance.
    const auto host = [&](int rank) {
      return rank < 0 ? rank : hosts_[k * group_size_ + static_cast<std::size_t>(rank)];
    };
    links.clear();
    fabric_.route(host(from), host(to), links);
    return links;
  };
  for (const auto& [from, to] : pairs)
    for (const int link : route(mine_, from, to)) ++count[link].first;
  for (std::size_t k = 0; k < size(); ++k)
    for (const auto& [from, to] : pairs)
      for (const int link : route(k, from, to))
        if (auto at = count.find(link); at != count.end()) ++at->second.second;
  LinkDivisors& divisors = kept_[pairs];
  for (const auto& [link, c] : count)
    if (c.second > c.first) divisors.emplace(link, static_cast<double>(c.second) / c.first);
  return divisors;
}

double SharedLinks::link_bandwidth_Bps(int link) const {
  const auto at = divisors_.find(link);
  const double bandwidth_Bps = network_.link_bandwidth_Bps(link);
  return at == divisors_.end() ? bandwidth_Bps : bandwidth_Bps / at->second;
}

}  // namespace dtsim::run
