#pragma once
/// Pipelined binary-tree reduce + broadcast, shared by binary_tree and double_binary_tree.
///
/// A tree is a heap over positions: position i has children 2i+1 (left) and 2i+2 (right), depth
/// D = floor(lg p). The vector range of a tree is cut into k segments; each round has two sub-steps, left
/// children move in the first, right children in the second (swapped when `swap_sides`), so no rank sends or
/// receives two messages at once. Reduce: a node at depth d sends segment s up in round s + D - d. Broadcast
/// (after the reduce): a node at depth d receives segment s in round s + d - 1, right children first, so that
/// the critical path runs down the left spine through every sub-step, as the reduce runs up it.
///
///            0            reduce round r, A: 1->0, 3->1, 5->2     (left children, segment r - (D - d))
///         /     \                         B: 2->0, 4->1, 6->2     (right children)
///        1       2        broadcast round r, A: 0->2, 1->4, 2->6  (right children, segment r - (d - 1))
///       / \     / \                         B: 0->1, 1->3, 2->5  (left children)
///      3   4   5   6      (heap positions; rank_at maps them to ranks)
///
/// Non-empty sub-steps per phase, each costing alpha + (segment) beta:
///   S(p, k) = 2 (D + k - 1) - [p = 2^D]   (p >= 3; the first reduce and last broadcast sub-steps of right
///                                         children are empty when depth D holds a single, left, child)
///   S(2, k) = k                           (the root's only child is a left child)
#include <vector>

#include "sim/collectives/phases.hpp"

namespace dtsim::collectives {

/// One tree: the rank at each heap position, and whether its left children move in the second sub-step.
struct HeapTree {
  std::vector<int> rank_at;  ///< rank at heap position i
  bool swap_sides = false;   ///< left children move in the second sub-step
};

/// Appends the pipelined reduce and broadcast of every tree, tree t carrying ranges[t] in `segments` segments.
void pipelined_tree_allreduce(PlanBuilder& b, const std::vector<HeapTree>& trees, const std::vector<Block>& ranges,
                              int segments);
/// S(p, k): non-empty sub-steps of one phase (0 for p = 1).
int tree_phase_steps(int ranks, int segments);
/// Time of reduce + broadcast when every message carries `segment_bytes`: 2 S(p, k) (alpha + segment beta).
double tree_allreduce_s(int ranks, int segments, double segment_bytes, AlphaBeta ab);
/// Fixed by the plan's tuning network: the power of two k <= min(1024, bytes) minimising
/// tree_allreduce_s(p, k, bytes / k), the discrete form of k ~ sqrt(n beta (lg p - 1) / alpha).
int tree_segments(int ranks, double bytes_per_tree, AlphaBeta tuned_for);

}  // namespace dtsim::collectives
