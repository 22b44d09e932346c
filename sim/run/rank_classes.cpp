#include "sim/run/rank_classes.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace dtsim::run {
namespace {

/// Interns keys as dense ids, in order of first appearance.
template <typename Key>
class Interned {
 public:
  int operator()(Key key) { return ids_.try_emplace(std::move(key), static_cast<int>(ids_.size())).first->second; }
  int size() const { return static_cast<int>(ids_.size()); }

 private:
  std::map<Key, int> ids_;
};

}  // namespace

std::vector<double> speed_key(const scenario::Stragglers& stragglers, const Slowdown& slowdown, int rank,
                              int iterations) {
  std::vector<double> key;
  for (int it = 0; it < iterations; ++it) key.push_back(slowdown.factor(rank, it));
  const auto& interference = stragglers.interference;
  const bool interfered = interference && (interference->workers.empty() ||
                                           std::find(interference->workers.begin(), interference->workers.end(),
                                                     rank) != interference->workers.end());
  key.push_back(interfered ? 1.0 : 0.0);
  if (const auto at = stragglers.speed_profiles.find(rank); at != stragglers.speed_profiles.end())
    for (const scenario::SpeedStep& step : at->second) key.insert(key.end(), {step.time_s, step.speed});
  return key;
}

RankClasses rank_classes(const parallel::Placement& placement, const std::vector<std::vector<double>>& keys,
                         const std::vector<std::string>& groups) {
  const auto ranks = static_cast<int>(keys.size());
  const int stages = placement.layout().pipeline;
  // Per group: each rank's group instance (its first member) and each instance's members.
  std::vector<std::vector<int>> leader(groups.size(), std::vector<int>(static_cast<std::size_t>(ranks)));
  std::vector<std::map<int, std::vector<int>>> members(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (int rank = 0; rank < ranks; ++rank) {
      const std::vector<int> m = placement.members(rank, groups[g]);
      leader[g][static_cast<std::size_t>(rank)] = m.front();
      if (m.front() == rank) members[g].emplace(rank, m);
    }
  std::vector<int> colour(static_cast<std::size_t>(ranks));
  {
    Interned<std::pair<int, std::vector<double>>> start;
    for (int rank = 0; rank < ranks; ++rank)
      colour[static_cast<std::size_t>(rank)] = start({placement.stage(rank), keys[static_cast<std::size_t>(rank)]});
  }
  // Refines until no class splits: a rank's new colour is its colour, the colours in each of its groups (a
  // multiset) and the colours of its pipeline's ranks.
  for (int count = -1;;) {
    std::vector<std::map<int, int>> seen(groups.size());  // [group][leader]: the id of its members' colours
    Interned<std::vector<int>> multisets;
    for (std::size_t g = 0; g < groups.size(); ++g)
      for (const auto& [first, m] : members[g]) {
        std::vector<int> colours;
        for (int r : m) colours.push_back(colour[static_cast<std::size_t>(r)]);
        std::sort(colours.begin(), colours.end());
        seen[g][first] = multisets(std::move(colours));
      }
    Interned<std::vector<int>> refined;
    std::vector<int> next(colour.size());
    for (int rank = 0; rank < ranks; ++rank) {
      std::vector<int> key = {colour[static_cast<std::size_t>(rank)]};
      for (std::size_t g = 0; g < groups.size(); ++g) key.push_back(seen[g][leader[g][static_cast<std::size_t>(rank)]]);
      for (int p = 0; p < stages; ++p) key.push_back(colour[static_cast<std::size_t>(placement.stage_rank(rank, p))]);
      next[static_cast<std::size_t>(rank)] = refined(std::move(key));
    }
    colour = std::move(next);
    if (refined.size() == count) break;
    count = refined.size();
  }
  // Classes in order of stage, then of their lowest rank.
  std::map<int, int> lowest;  // colour -> its lowest rank
  for (int rank = ranks; rank-- > 0;) lowest[colour[static_cast<std::size_t>(rank)]] = rank;
  std::vector<std::pair<int, int>> order;  // (stage, lowest rank)
  for (const auto& [c, rank] : lowest) order.emplace_back(placement.stage(rank), rank);
  std::sort(order.begin(), order.end());
  RankClasses out;
  out.instances.assign(static_cast<std::size_t>(stages), 0);
  std::map<int, int> class_of_colour;
  for (const auto& [stage, rank] : order) {
    class_of_colour[colour[static_cast<std::size_t>(rank)]] = static_cast<int>(out.representative.size());
    out.representative.push_back(rank);
    ++out.instances[static_cast<std::size_t>(stage)];
  }
  for (int rank = 0; rank < ranks; ++rank)
    out.class_of.push_back(class_of_colour[colour[static_cast<std::size_t>(rank)]]);
  // A class's collectives on a group join the classes of its instance of the group (the same set from every
  // class in it: the partition is equitable); its pipeline peers are the classes of its pipeline's ranks.
  Interned<std::pair<std::string, std::vector<int>>> meeting;
  for (const int rep : out.representative) {
    std::map<std::string, int>& of = out.meetings.of.emplace_back();
    for (std::size_t g = 0; g < groups.size(); ++g) {
      std::vector<int> classes;
      for (int r : members[g].at(leader[g][static_cast<std::size_t>(rep)])) classes.push_back(out.class_of[static_cast<std::size_t>(r)]);
      std::sort(classes.begin(), classes.end());
      classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
      of[groups[g]] = meeting({groups[g], std::move(classes)});
    }
    std::vector<int>& peer = out.meetings.peer.emplace_back();
    for (int p = 0; p < stages; ++p) peer.push_back(out.class_of[static_cast<std::size_t>(placement.stage_rank(rep, p))]);
  }
  return out;
}

}  // namespace dtsim::run
