#pragma once
/// NCCL's tree all-reduce as a pipelined plan (NVIDIA/nccl src/graph/trees.cc, connect.cc): a double binary
/// tree over the nodes whose every node hangs a chain of its GPUs below the GPU that talks to the network.
///
///   tree 1, 3 nodes of 4 GPUs:        node 0: 0 <- 1 <- 2 <- 3      (chain inside the node, head 0)
///                                       ^   ^
///                    node 1: 4 <- 5..   |   | node 2: 8 <- 9 ..   (heads 4 and 8: heap children of node 0)
///   tree 2 mirrors it: nodes in reverse heap order, chains reversed (heads are each node's last GPU),
///   left/right sub-steps swapped when the node count is odd (as double_binary_tree.cpp).
///
/// Each tree reduces then broadcasts half of the vector cut into k segments. Depth of a GPU = its node's heap
/// depth + its place in the chain; H = the largest depth. Reduce: a GPU at depth d sends segment s up in
/// round s + H - d; broadcast: it receives segment s in round s + d - 1. A round has two sub-steps: heap left
/// children move up in the first and down in the second (right children the other way round), chain links
/// move up in the first and down in the second (both trees: letting the chains take turns costs a sub-step
/// per chain hop on the critical path, more than the shared GPU link saves). With one GPU per node this is
/// double_binary_tree's plan; with several a head receives from its chain and a child node at once over
/// different links, as NCCL's tree does (up to three peers per GPU, NCCL_MAX_TREE_ARITY).
#include <cstdint>
#include <vector>

#include "sim/collectives/collective.hpp"
#include "sim/collectives/move_plan.hpp"

namespace dtsim::collectives {

/// The tree plan with, per step, whether it belongs to the pipeline's fill (reduce rounds < H) or drain
/// (broadcast rounds >= k - 1), where NCCL's per-hop latency is paid; empty steps are left out.
struct NcclTreePlan {
  MovePlan moves;
  std::vector<bool> fill_or_drain;  ///< one per step of `moves`
};

/// The two trees over `group`, each carrying half of `bytes` in `segments` segments.
NcclTreePlan nccl_tree_plan(const Group& group, std::int64_t bytes, int segments);

}  // namespace dtsim::collectives
