#include "sim/run/pair_bytes.hpp"

#include <algorithm>

namespace dtsim::run {

void PairBytes::add(const collectives::Schedule& plan, double times) {
  for (const collectives::Step& step : plan.steps) {
    if (!same_pairs(step)) {
      flush();
      for (const collectives::Transfer& t : step.transfers) pairs_.emplace_back(t.from, t.to);
      bytes_.assign(pairs_.size(), 0.0);
    }
    for (std::size_t i = 0; i < step.transfers.size(); ++i)
      bytes_[i] += times * static_cast<double>(step.transfers[i].bytes);
  }
}

void PairBytes::add_to_links(const platform::Fabric& fabric, std::vector<double>& link_bytes,
                             std::span<const int> members) {
  flush();
  link_bytes.resize(static_cast<std::size_t>(fabric.link_count()), 0.0);
  const auto host = [&](int rank) {
    return rank < 0 || members.empty() ? rank : members[static_cast<std::size_t>(rank)];
  };
  if (totals_.empty()) totals_.assign(kept_.begin(), kept_.end());
  for (const auto& [pair, bytes] : totals_) {
    route_.clear();
    fabric.route(host(pair.first), host(pair.second), route_);
    for (int l : route_) link_bytes[static_cast<std::size_t>(l)] += bytes;
  }
}

bool PairBytes::same_pairs(const collectives::Step& step) const {
  return step.transfers.size() == pairs_.size() &&
         std::equal(step.transfers.begin(), step.transfers.end(), pairs_.begin(),
                    [](const collectives::Transfer& t, const std::pair<int, int>& p) {
                      return t.from == p.first && t.to == p.second;
                    });
}

void PairBytes::flush() {
  for (std::size_t i = 0; i < pairs_.size(); ++i)
    if (pairs_[i].first != pairs_[i].second) kept_[pairs_[i]] += bytes_[i];
  if (!pairs_.empty()) totals_.clear();
  pairs_.clear();
  bytes_.clear();
}

}  // namespace dtsim::run
