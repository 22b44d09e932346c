#pragma once
/// Bytes per (from, to) pair over several plans, summed before any path is walked.
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "sim/collectives/schedule.hpp"
#include "sim/platform/fabric.hpp"

namespace dtsim::run {

/// Plans between the same pairs in the same order (a run's distinct bucket sizes on one group) add element by
/// element, and each pair's path is walked once when the totals go onto the links. The sums are of whole bytes
/// (exact in a double below 2^53), so the links' loads are the same numbers as plan by plan, in any order.
class PairBytes {
 public:
  /// Adds `times` x each transfer of `plan`.
  void add(const collectives::Schedule& plan, double times);
  /// Puts the bytes on the links of `fabric` (platform::add_link_bytes of every plan added, with its times): rank
  /// r of the plans is host members[r] (every rank its own host when `members` is empty; switch endpoints are
  /// themselves). Sizes `link_bytes` to the fabric's links.
  void add_to_links(const platform::Fabric& fabric, std::vector<double>& link_bytes, std::span<const int> members = {});

 private:
  bool same_pairs(const collectives::Step& step) const;
  void flush();

  std::vector<std::pair<int, int>> pairs_;  ///< the pattern being added to
  std::vector<double> bytes_;               ///< [pattern transfer]
  std::map<std::pair<int, int>, double> kept_;
  /// kept_ in its order, in one array: walked once per instance of the group (cleared when kept_ changes)
  std::vector<std::pair<std::pair<int, int>, double>> totals_;
  std::vector<int> route_;  ///< one pair's links, reused
};

}  // namespace dtsim::run
