#pragma once
/// Concurrent instances of one group's plan on shared links. The ranks of a pipeline stage run one program in
/// lockstep, so a communication task of the stage runs on every instance of its group at once: the data groups of
/// every tensor and context rank, the tensor groups of every data replica, every rank's pipeline send. Instances
/// whose routes cross one link (a node's NIC) split its bandwidth. The analytic level times the representative's
/// plan over the links with each link's bandwidth divided by the instances' transfers on it per transfer of the
/// representative's (in the same fused step): the equal share of a bottleneck link that max-min fairness gives its
/// flows (Bertsekas and Gallager, Data Networks, 2nd ed. 1992, section 6.5.2), and the flow level with them, when
/// every instance moves alike.
///
///   node0 [gpu0 gpu1 gpu2 gpu3] --NIC 10 Gb/s-- switch --NIC-- node2 [gpu8 gpu9 gpu10 gpu11]
///   data groups (0,8) (1,9) (2,10) (3,11) run their all-reduce at once: each step's transfer gets 10 Gb/s / 4.
#include <cstddef>
#include <map>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/actors/rank_steps.hpp"
#include "sim/core/path_model.hpp"
#include "sim/platform/fabric.hpp"

namespace dtsim::run {

/// Per directed link: what its bandwidth is divided by (links the representative has alone are absent).
using LinkDivisors = std::unordered_map<int, double>;

/// Every instance of a group that runs a plan at once, one of them the representative's.
class ConcurrentInstances {
 public:
  /// `hosts`: each instance's `group_size` hosts in group order, one instance after the other (group rank i of
  /// instance k on host hosts[k group_size + i]); instance `mine` is the representative's.
  ConcurrentInstances(const platform::Fabric& fabric, int group_size, std::vector<int> hosts, std::size_t mine);

  /// The divisors of plan `flows` (group ranks, fused steps) for the representative's links: per link, the
  /// instances' transfers on it over the representative's own, the most over the plan's steps (exact where every
  /// step loads a link alike; otherwise every step gets the busiest step's share). Empty where no instance's
  /// transfer meets the representative's on a link. Each distinct step's pairs are counted once and kept.
  LinkDivisors divisors(const std::vector<std::vector<actors::Flow>>& flows);

  /// How many instances run the plan at once.
  std::size_t size() const { return hosts_.size() / group_size_; }
  /// The hosts of instance k in group order.
  std::span<const int> hosts(std::size_t k) const {
    return std::span<const int>(hosts_).subspan(k * group_size_, group_size_);
  }

 private:
  /// The divisors of one step whose transfers go between `pairs` (group ranks).
  const LinkDivisors& step_divisors(const std::vector<std::pair<int, int>>& pairs);

  const platform::Fabric& fabric_;
  std::size_t group_size_;
  std::vector<int> hosts_;
  std::size_t mine_;
  std::map<std::vector<std::pair<int, int>>, LinkDivisors> kept_;
};

/// `network` with each link's bandwidth divided by its divisor (holds references to both, which must outlive it).
class SharedLinks final : public core::PathModel {
 public:
  SharedLinks(const core::PathModel& network, const LinkDivisors& divisors) : network_(network), divisors_(divisors) {}
  core::Path path(int from, int to) const override { return network_.path(from, to); }
  double link_bandwidth_Bps(int link) const override;
  int link_count() const override { return network_.link_count(); }

 private:
  const core::PathModel& network_;
  const LinkDivisors& divisors_;
};

}  // namespace dtsim::run
