#include "sim/collectives/nccl_tree.hpp"

#include <algorithm>

#include "sim/collectives/phases.hpp"
#include "sim/core/error.hpp"

namespace dtsim::collectives {
namespace {

/// One GPU's place in one tree.
struct Place {
  int parent = -1;  ///< rank it sends up to; -1 for the root
  int depth = 0;    ///< node heap depth + place in the node's chain
  int side = 0;     ///< sub-step (0 or 1) it sends up in; it receives from its parent in the other one
};

/// Places of every rank in tree 1 (`mirrored` false) or tree 2.
std::vector<Place> places(const Group& group, bool mirrored) {
  const int p = group.ranks, per_node = group.ranks_per_node, nodes = group.nodes();
  const bool swap_sides = mirrored && nodes % 2 == 1;
  std::vector<Place> place(static_cast<std::size_t>(p));
  std::vector<int> head(static_cast<std::size_t>(nodes));  // by heap position
  for (int q = 0; q < nodes; ++q) {
    const int node = mirrored ? nodes - 1 - q : q;
    const int first = node * per_node, last = std::min(p, first + per_node) - 1;
    const int d = floor_log2(q + 1);
    head[static_cast<std::size_t>(q)] = mirrored ? last : first;
    const int count = last - first + 1;
    for (int j = 0; j < count; ++j) {
      const int rank = mirrored ? last - j : first + j;
      Place& at = place[static_cast<std::size_t>(rank)];
      at.depth = d + j;
      if (j > 0) {
        at.parent = mirrored ? rank + 1 : rank - 1;
      } else if (q > 0) {
        at.parent = head[static_cast<std::size_t>((q - 1) / 2)];
        at.side = (q % 2 == 1 ? 0 : 1) ^ (swap_sides ? 1 : 0);
      }
    }
  }
  return place;
}

}  // namespace

NcclTreePlan nccl_tree_plan(const Group& group, std::int64_t bytes, int segments) {
  DTSIM_CHECK(group.ranks >= 1 && group.ranks_per_node >= 1 && bytes >= 0 && segments >= 1,
              "the NCCL tree needs ranks, a non-negative size and at least one segment");
  NcclTreePlan plan;
  plan.moves.ranks = group.ranks;
  if (group.ranks == 1) return plan;
  const std::vector<std::vector<Place>> trees{places(group, false), places(group, true)};
  int height = 0;
  for (const auto& tree : trees)
    for (const Place& at : tree) height = std::max(height, at.depth);
  const std::vector<Block> ranges = split({0, bytes}, 2);
  const auto broadcast_base = static_cast<std::size_t>(2 * (height + segments - 1));
  std::vector<MoveStep> steps(2 * broadcast_base);
  for (std::size_t t = 0; t < trees.size(); ++t) {
    const std::vector<Block> segment = split(ranges[t], segments);
    for (int rank = 0; rank < group.ranks; ++rank) {
      const Place& at = trees[t][static_cast<std::size_t>(rank)];
      if (at.parent < 0) continue;
      for (int s = 0; s < segments; ++s) {
        const Block& x = segment[static_cast<std::size_t>(s)];
        const auto up = static_cast<std::size_t>(2 * (s + height - at.depth) + at.side);
        const auto down = broadcast_base + static_cast<std::size_t>(2 * (s + at.depth - 1) + 1 - at.side);
        steps[up].moves.push_back({rank, at.parent, x.offset, x.bytes, Combine::reduce});
        steps[down].moves.push_back({at.parent, rank, x.offset, x.bytes, Combine::copy});
      }
    }
  }
  const auto drain_from = broadcast_base + static_cast<std::size_t>(2 * (segments - 1));
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].moves.empty()) continue;
    plan.moves.steps.push_back(std::move(steps[i]));
    plan.fill_or_drain.push_back(i < static_cast<std::size_t>(2 * height) || i >= drain_from);
  }
  return plan;
}

}  // namespace dtsim::collectives
