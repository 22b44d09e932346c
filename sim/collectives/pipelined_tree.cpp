#include "sim/collectives/pipelined_tree.hpp"

#include <algorithm>

namespace dtsim::collectives {
namespace {

constexpr int kMaxSegments = 1024;

}  // namespace

void pipelined_tree_allreduce(PlanBuilder& b, const std::vector<HeapTree>& trees, const std::vector<Block>& ranges,
                              int segments) {
  const int ranks = static_cast<int>(trees.front().rank_at.size());
  const int depth = floor_log2(ranks);
  const std::size_t broadcast_base = 2 * static_cast<std::size_t>(depth + segments - 1);
  for (std::size_t t = 0; t < trees.size(); ++t) {
    const HeapTree& tree = trees[t];
    const std::vector<Block> segment = split(ranges[t], segments);
    for (int i = 1; i < ranks; ++i) {
      const int d = floor_log2(i + 1);
      const std::size_t up_side = static_cast<std::size_t>((i % 2 == 1 ? 0 : 1) ^ (tree.swap_sides ? 1 : 0));
      const int child = tree.rank_at[static_cast<std::size_t>(i)];
      const int parent = tree.rank_at[static_cast<std::size_t>((i - 1) / 2)];
      for (int s = 0; s < segments; ++s) {
        const Block& x = segment[static_cast<std::size_t>(s)];
        const auto up_round = static_cast<std::size_t>(s + depth - d);
        const auto down_round = static_cast<std::size_t>(s + d - 1);
        b.add(2 * up_round + up_side, {child, parent, x.offset, x.bytes, Combine::reduce});
        b.add(broadcast_base + 2 * down_round + (1 - up_side), {parent, child, x.offset, x.bytes, Combine::copy});
      }
    }
  }
}

int tree_phase_steps(int ranks, int segments) {
  if (ranks <= 1) return 0;
  if (ranks == 2) return segments;
  const int depth = floor_log2(ranks);
  return 2 * (depth + segments - 1) - (ranks == (1 << depth) ? 1 : 0);
}

double tree_allreduce_s(int ranks, int segments, double segment_bytes, AlphaBeta ab) {
  return 2.0 * tree_phase_steps(ranks, segments) * message_s(ab, segment_bytes);
}

int tree_segments(int ranks, double bytes_per_tree, AlphaBeta tuned_for) {
  int best = 1;
  for (int k = 2; k <= kMaxSegments && k <= bytes_per_tree; k *= 2)
    if (tree_allreduce_s(ranks, k, bytes_per_tree / k, tuned_for) <
        tree_allreduce_s(ranks, best, bytes_per_tree / best, tuned_for))
      best = k;
  return best;
}

}  // namespace dtsim::collectives
