#include "sim/run/link_shares.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace dtsim::run {

ConcurrentInstances::ConcurrentInstances(const platform::Fabric& fabric, std::vector<std::vector<int>> instances,
                                         std::size_t mine)
    : fabric_(fabric), instances_(std::move(instances)), mine_(mine) {
  DTSIM_CHECK(mine_ < instances_.size(), "the representative's instance is one of the group's instances");
}

LinkDivisors ConcurrentInstances::divisors(const std::vector<std::vector<actors::Flow>>& flows) {
  LinkDivisors most;
  if (instances_.size() < 2) return most;
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
  all_.resize(static_cast<std::size_t>(fabric_.link_count()), 0);
  own_.resize(all_.size(), 0);
  for (std::size_t k = 0; k < instances_.size(); ++k) {
    const std::vector<int>& hosts = instances_[k];
    // A switch's endpoint (a negative id) is the fabric's, the same for every instance.
    const auto host = [&](int rank) { return rank < 0 ? rank : hosts[static_cast<std::size_t>(rank)]; };
    for (const auto& [from, to] : pairs)
      for (const int link : fabric_.path(host(from), host(to)).links) {
        const auto l = static_cast<std::size_t>(link);
        if (all_[l]++ == 0) touched_.push_back(link);
        if (k == mine_) ++own_[l];
      }
  }
  LinkDivisors& divisors = kept_[pairs];
  for (const int link : touched_) {
    const auto l = static_cast<std::size_t>(link);
    if (own_[l] > 0 && all_[l] > own_[l]) divisors.emplace(link, static_cast<double>(all_[l]) / own_[l]);
    all_[l] = own_[l] = 0;
  }
  touched_.clear();
  return divisors;
}

double SharedLinks::link_bandwidth_Bps(int link) const {
  const auto at = divisors_.find(link);
  const double bandwidth_Bps = network_.link_bandwidth_Bps(link);
  return at == divisors_.end() ? bandwidth_Bps : bandwidth_Bps / at->second;
}

}  // namespace dtsim::run
