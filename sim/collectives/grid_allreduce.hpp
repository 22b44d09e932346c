#pragma once
/// The ranks as an X x Y grid, X = ranks per node (a row is a node), Y = nodes: reduce-scatter along the
/// rows, all-reduce along the columns on each row shard, all-gather along the rows; every phase is a ring.
/// Shared by hierarchical (Horovod's hierarchical all-reduce) and torus2d (Mikami et al. 2018), which are
/// the same schedule once X is the number of ranks per node.
///
///   node 0:  r0  r1  r2  r3   --ring-->   1. reduce-scatter in each node: rank j of a node owns shard j
///   node 1:  r4  r5  r6  r7               2. ring all-reduce of shard j among ranks j, j+X, j+2X, ..
///   node 2:  r8  r9  r10 r11              3. all-gather in each node
///
/// Cost (gamma = 0), with chunks n/X and n/(XY):
///   2 (X-1) (alpha_intra + n/X beta_intra) + 2 (Y-1) (alpha_inter + X n/(XY) beta_inter)
/// The X column rings run at once and share their node's NIC, so each moves at X beta_inter per byte: exact
/// when the NIC is no faster than a GPU link (then beta_inter = 1/NIC bandwidth). algorithms.md 7.2's
/// bracket, 2 (m-1)/m (n/k) beta_e, assumes a NIC per GPU. Each rank sends 2 (p-1)/p n, like the ring.
#include <string_view>

#include "sim/collectives/traced_collective.hpp"

namespace dtsim::collectives {

/// The grid of a group: X = ranks per node (p when the group fits in one node), Y = nodes.
struct NodeGrid {
  /// Throws core::InputError naming `algorithm` unless the group is whole nodes.
  NodeGrid(const Group& group, std::string_view algorithm);
  int x = 1;  ///< ranks per node
  int y = 1;  ///< nodes
};

/// The schedule above under the registry key of the algorithm it stands for.
class GridAllreduce final : public TracedCollective {
 public:
  /// `name`: "hierarchical" or "torus2d".
  explicit GridAllreduce(std::string_view name) : name_(name) {}
  std::string_view name() const override { return name_; }
  MovePlan moves(const Group& group, std::int64_t bytes) const override;
  /// Three steps (one where the group is one node or one rank per node): each rank's hop in its node's ring
  /// over the reduce-scatter, its hop in its column's ring over the column all-reduce, its node hop over the
  /// all-gather, each carrying what it sends over its phase.
  std::optional<std::vector<FusedStep>> fused_plan(const Group& group, std::int64_t bytes) const override;
  /// The plan's recurrence in O(p X) without the plan, where every node's ring costs the same: a rank's
  /// reduce-scatter end, once per place in a node; each column ring from there (ring_steps_time_s, in closed
  /// form on fat trees and two-level clusters); and the longest all-gather from each place in a node. The
  /// plan's time is the largest sum of the three over the places (max-plus: nothing else joins them). Empty
  /// where nodes' rings differ.
  std::optional<double> plan_time_s(const Group& group, std::int64_t bytes,
                                    const core::PathModel& network) const override;
  double closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const override;

 private:
  std::string_view name_;
};

}  // namespace dtsim::collectives
