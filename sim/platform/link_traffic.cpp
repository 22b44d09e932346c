#include "sim/platform/link_traffic.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>
#include <unordered_map>

namespace dtsim::platform {

void add_link_bytes(const collectives::Schedule& schedule, double times, const Fabric& fabric,
                    std::vector<double>& bytes) {
  bytes.resize(static_cast<std::size_t>(fabric.link_count()), 0.0);
  std::map<std::pair<int, int>, double> per_pair;
  for (const collectives::Step& step : schedule.steps)
    for (const collectives::Transfer& t : step.transfers)
      if (t.from != t.to) per_pair[{t.from, t.to}] += static_cast<double>(t.bytes);
  std::vector<int> route;
  for (const auto& [pair, pair_bytes] : per_pair) {
    route.clear();
    fabric.route(pair.first, pair.second, route);
    for (int l : route) bytes[static_cast<std::size_t>(l)] += times * pair_bytes;
  }
}

namespace {

/// A link's load over `duration_s`.
LinkLoad load_of(const Fabric& fabric, int id, double bytes, double duration_s) {
  const DirectedLink& link = fabric.links()[static_cast<std::size_t>(id)];
  return {id, fabric.link_name(id), bytes, duration_s > 0 ? bytes / (link.bandwidth_Bps * duration_s) : 0.0,
          link.bandwidth_Bps,
          link.line_rate_Bps > 0 ? link.line_rate_Bps : link.bandwidth_Bps};
}

/// Busiest first: highest utilisation, then most bytes, then lower id.
bool busier(const LinkLoad& a, const LinkLoad& b) {
  return std::tie(b.utilisation, b.bytes, a.link) < std::tie(a.utilisation, a.bytes, b.link);
}

}  // namespace

std::vector<LinkClass> link_classes(const Fabric& fabric, const std::vector<double>& bytes, double duration_s) {
  // The class of a link: its bytes, bandwidth and line rate (its utilisation follows from these), then its kind:
  // its name with digit runs as '#' (the kind of its split-duplex link's name and its direction), names unwritten.
  using Load = std::tuple<double, double, double>;
  struct LoadHash {
    std::size_t operator()(const Load& l) const {
      const std::hash<double> h;
      return h(std::get<0>(l)) ^ (h(std::get<1>(l)) * 31) ^ (h(std::get<2>(l)) * 131);
    }
  };
  struct Kind {
    const std::string* duplex;
    bool up;
    std::size_t class_index;
  };
  std::unordered_map<Load, std::vector<Kind>, LoadHash> kinds_of_load;
  std::vector<LinkClass> classes;
  for (std::size_t l = 0; l < bytes.size(); ++l) {
    if (bytes[l] <= 0) continue;
    const DirectedLink& link = fabric.links()[l];
    const std::string& duplex = fabric.graph().duplex_kind(static_cast<int>(l));
    const bool up = l % 2 == 0;
    auto& kinds = kinds_of_load[{bytes[l], link.bandwidth_Bps, link.line_rate_Bps}];
    auto at =
        std::find_if(kinds.begin(), kinds.end(), [&](const Kind& k) { return k.up == up && *k.duplex == duplex; });
    if (at == kinds.end()) {
      at = kinds.insert(kinds.end(), {&duplex, up, classes.size()});
      classes.push_back({load_of(fabric, static_cast<int>(l), bytes[l], duration_s), 0});
    }
    ++classes[at->class_index].count;
  }
  std::sort(classes.begin(), classes.end(),
            [](const LinkClass& a, const LinkClass& b) { return busier(a.first, b.first); });
  return classes;
}

}  // namespace dtsim::platform
