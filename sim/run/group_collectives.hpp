#pragma once
/// The one place a collective on a group of ranks becomes a plan, its flows and its time, for plain data
/// parallelism (run_simulation's bucket plans) and for a layout's task graph (comm_costs) alike: the configured
/// all-reduce; the all-gather and reduce-scatter its library runs beside it (Collective::phase_rings, else the
/// registered algorithms it names); gTop-k's binomial tree; a point-to-point send.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "sim/actors/rank_steps.hpp"
#include "sim/collectives/block_collective.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/core/path_model.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/taskgraph/task_graph.hpp"

namespace dtsim::run {

/// The fabric seen from a group: group rank i is platform host members[i]; a reducing switch's endpoint (a
/// negative id, in-network plans) is the fabric's (`members` must outlive it).
class GroupPaths final : public core::PathModel {
 public:
  GroupPaths(const platform::Fabric& fabric, const std::vector<int>& members) : fabric_(fabric), members_(members) {}
  core::Path path(int from, int to) const override { return fabric_.path(host(from), host(to)); }
  double link_bandwidth_Bps(int link) const override { return fabric_.link_bandwidth_Bps(link); }
  int link_count() const override { return fabric_.link_count(); }

 private:
  int host(int rank) const { return rank < 0 ? rank : members_[static_cast<std::size_t>(rank)]; }

  const platform::Fabric& fabric_;
  const std::vector<int>& members_;
};

/// The collectives of `s` tuned for `links`. An operation's `bytes`: the vector of an all-reduce, every rank's
/// blocks together for an all-gather or reduce-scatter (equal blocks), one payload per message for gTop-k, what each
/// rank sends (1/|group| of it to each member) for an all-to-all (NCCL's grouped sends, PXN where nodes have several
/// NICs), the message of a send (group of two).
class GroupCollectives {
 public:
  GroupCollectives(const scenario::Scenario& s, const collectives::LinkCosts& links);

  /// The flows of `op` on `group` in group ranks: fused (consecutive same-pair steps as one flow: the flow level,
  /// link and pair accounting) or every step (the message level).
  std::vector<std::vector<actors::Flow>> flows(taskgraph::Op op, const collectives::Group& group, std::int64_t bytes,
                                               bool fuse) const;

  /// Its time over `paths` (group rank i on paths' rank i), the launch cost not included: the algorithm's
  /// closed form of its plan where it knows one, else its plan timed step by step.
  double time_s(taskgraph::Op op, const collectives::Group& group, std::int64_t bytes,
                const core::PathModel& paths) const;

  /// The launch cost a call of `op` on a group of `ranks` waits before its transfers: none for one rank (NCCL's
  /// cost model gives a 1-rank communicator no cost), else the scenario's gpu.collective_launch where set, else
  /// none for an all-reduce whose calls already pay NCCL's base latency (Collective::charges_launch), else the
  /// default kernel launch (models::kCollectiveLaunch_s).
  double launch_s(taskgraph::Op op, int ranks) const;

  /// The configured all-reduce.
  const collectives::Collective& allreduce() const { return *allreduce_; }

 private:
  /// The all-gather or reduce-scatter of `op` as the configured collective's library runs it.
  const collectives::BlockCollective& halves(taskgraph::Op op) const;

  std::unique_ptr<collectives::Collective> allreduce_;
  std::unique_ptr<collectives::BlockCollective> allgather_, reduce_scatter_;
  std::unique_ptr<collectives::Collective> gtopk_;
  std::unique_ptr<collectives::Collective> alltoall_;  ///< NCCL's grouped sends (PXN where nodes have several NICs)
  std::optional<double> launch_set_s_;  ///< gpu.collective_launch
};

/// `flows` in group ranks as flows between hosts: group rank i is host members[i]; a switch's endpoint (a negative
/// id) stays.
std::vector<std::vector<actors::Flow>> on_members(std::vector<std::vector<actors::Flow>> flows,
                                                  const std::vector<int>& members);

}  // namespace dtsim::run
