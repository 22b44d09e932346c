#pragma once
/// The `analytic` fidelity: a plan's time in closed form over a path model.
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "sim/collectives/schedule.hpp"
#include "sim/core/path_model.hpp"

namespace dtsim::collectives {

/// Replays the plan's dependencies without a simulator. A rank (or switch endpoint) is ready for step s when its own transfers of
/// step s-1 are done; a transfer starts when both its ranks are ready and takes the step's latency, its path
/// latency and its bytes over its bottleneck share: min over its links of (link bandwidth / transfers of this step on the
/// link), and at most its path's rate cap (core::Path::rate_cap_Bps). Returns when the last rank finishes. Exact (equal to SimGrid's alpha-beta) when no link is shared
/// inside a step; an equal-share estimate of contention otherwise.
double schedule_time_s(const Schedule& schedule, const core::PathModel& network);

/// The time of `step`'s transfers started together over `network` (schedule_time_s of a plan of that one step
/// among `ranks` ranks); 0 for none.
double step_time_s(const Step& step, int ranks, const core::PathModel& network);

/// A transfer's path latency and its bottleneck share of bandwidth in its step.
struct TransferCost {
  double latency_s = 0;
  double share_Bps = 0;
};

/// The costs of transfers along `paths` that run together: min over each path's links of (link bandwidth /
/// paths on the link), and at most the path's rate cap.
std::vector<TransferCost> shared_costs(const std::vector<const core::Path*>& paths, const core::PathModel& network);

/// The costs of transfers from pairs[i].first to pairs[i].second that run together (shared_costs over their paths);
/// over a KeptPairCosts, its kept costs.
std::vector<TransferCost> pair_costs(const std::vector<std::pair<int, int>>& pairs, const core::PathModel& network);

/// `network` that keeps the costs pair_costs computes over it, per distinct list of pairs: a collective timed for
/// many sizes on one group (a run's distinct bucket sizes) walks its hops' paths once, not once per size. The
/// costs are the same numbers. Holds a reference to `network`, which must outlive it.
class KeptPairCosts final : public core::PathModel {
 public:
  explicit KeptPairCosts(const core::PathModel& network) : network_(network) {}
  core::Path path(int from, int to) const override { return network_.path(from, to); }
  double link_bandwidth_Bps(int link) const override { return network_.link_bandwidth_Bps(link); }
  int link_count() const override { return network_.link_count(); }
  /// pair_costs(pairs, network), computed on the first call with these pairs.
  const std::vector<TransferCost>& costs(const std::vector<std::pair<int, int>>& pairs) const;

 private:
  const core::PathModel& network_;
  mutable std::map<std::vector<std::pair<int, int>>, std::vector<TransferCost>> kept_;
};

/// When a transfer that may start at `start_s` (both its ranks ready) ends, as schedule_time_s times it.
inline double transfer_end_s(double start_s, double step_latency_s, const TransferCost& cost, double bytes) {
  return start_s + step_latency_s + cost.latency_s + (bytes > 0 ? bytes / cost.share_Bps : 0.0);
}

/// `network` with every link's bandwidth infinite: a plan timed over it (schedule_time_s, plan_time_s) takes only
/// its start-up latency, its steps' own latencies and its paths' latencies along its longest chain (the alpha
/// terms of the alpha-beta closed forms: a ring all-reduce's 2(p-1) alpha). The timeline reports it as the
/// latency part of an exchange; the rest of the exchange is its bytes over the links' bandwidth.
class LatencyOnly final : public core::PathModel {
 public:
  explicit LatencyOnly(const core::PathModel& network) : network_(network) {}
  core::Path path(int from, int to) const override { return network_.path(from, to); }
  double link_bandwidth_Bps(int /*link*/) const override { return std::numeric_limits<double>::infinity(); }
  int link_count() const override { return network_.link_count(); }

 private:
  const core::PathModel& network_;
};

}  // namespace dtsim::collectives
