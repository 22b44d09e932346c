#pragma once
/// A plan seen from one rank: per step, whom it sends to and whom it receives from.
#include <span>
#include <utility>
#include <vector>

#include "sim/collectives/schedule.hpp"

namespace dtsim::actors {

/// One transfer of a (possibly fused) step: `steps` consecutive plan steps between the same two ranks.
struct Flow {
  collectives::Transfer transfer;  ///< bytes summed over the fused steps
  int steps = 1;                   ///< plan steps this flow stands for (each pays the path latency once)
  double latency_s = 0;            ///< the steps' own latencies (Step::latency_s), summed over the fused steps
};

/// The `flow` level's reduction of a plan: consecutive steps whose transfers go between the same (from, to)
/// pairs in the same order become one step of flows carrying the summed bytes and step latencies. A ring
/// all-reduce's 2(p-1) steps become one. With `fuse` false every step stays as it is (the `message` level).
std::vector<std::vector<Flow>> flow_steps(const collectives::Schedule& schedule, bool fuse);

/// A plan already fused by its collective (collectives::Collective::fused_plan) as the flows of its steps.
std::vector<std::vector<Flow>> flow_steps(const std::vector<collectives::FusedStep>& fused);

/// The flows as a plan of one step per (fused) step, each transfer carrying its flow's bytes, each step its
/// flows' summed step latency.
collectives::Schedule as_schedule(const std::vector<std::vector<Flow>>& steps, int ranks);

/// One rank's part of one step: its sends, then its receives, in one allocation.
struct RankStep {
  std::vector<Flow> flows;  ///< the sends, then the receives, each in plan order
  std::size_t send_count = 0;  ///< how many of `flows` are sends
  /// Ranks exchanging with the plan's switch endpoint in this step (this one among them), 0 where this rank does
  /// not: the switch sends the step after only once all of them are done (execute_steps).
  int switch_ranks = 0;
  /// The flows this rank sends in the step.
  std::span<const Flow> sends() const { return std::span<const Flow>(flows).first(send_count); }
  /// The flows this rank receives in the step.
  std::span<const Flow> receives() const { return std::span<const Flow>(flows).subspan(send_count); }
};

/// by_rank[r][s]: rank r's flows in step s (steps where r is idle are kept, empty). A flow between a rank and a
/// switch endpoint is the rank's alone (a send when it goes up, a receive when it comes down).
std::vector<std::vector<RankStep>> split_by_rank(const std::vector<std::vector<Flow>>& steps, int ranks);

/// Adds every (from, to) pair of `schedule` to `pairs` (sorted, without duplicates).
void add_pairs(const collectives::Schedule& schedule, std::vector<std::pair<int, int>>& pairs);

}  // namespace dtsim::actors
