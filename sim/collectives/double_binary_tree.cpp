// Double binary tree all-reduce (Sanders, Speck & Traeff 2009; NCCL >= 2.4): two pipelined binary trees
// (pipelined_tree.hpp), each reducing and broadcasting half of the vector at the same time. Tree 1 is the
// heap over ranks 0..p-1; tree 2 the heap over the ranks reversed, so the interior ranks of one tree
// (heap positions < p/2) are leaves of the other. Left/right sub-steps are swapped in tree 2 when p is odd,
// so every rank sends to its two parents in different sub-steps.
//
//   p = 6   tree 1:    0           tree 2:    5
//                    /   \                  /   \    (ranks)
//                   1     2                4     3
//                  / \   /                / \   /
//                 3   4 5                2   1 0
//
// Cost (gamma = 0): 2 S(p, k) (alpha + n/(2k) beta), with S as for binary_tree (the two trees never use a
// link twice in one sub-step): about 2 n beta, ring's bandwidth, at logarithmic depth.
#include "sim/collectives/factories.hpp"
#include "sim/collectives/pipelined_tree.hpp"
#include "sim/core/error.hpp"

namespace dtsim::collectives {
namespace {

class DoubleBinaryTree final : public TracedCollective {
 public:
  explicit DoubleBinaryTree(const LinkCosts& tuned_for) : tuned_for_(tuned_for) {}
  std::string_view name() const override { return "double_binary_tree"; }

  MovePlan moves(const Group& group, std::int64_t bytes) const override {
    DTSIM_CHECK(group.ranks >= 1 && bytes >= 0, "double binary tree needs ranks and a non-negative size");
    const int p = group.ranks;
    PlanBuilder b(p);
    if (p == 1) return std::move(b).finish();
    HeapTree first;
    HeapTree second;
    second.swap_sides = p % 2 == 1;
    for (int i = 0; i < p; ++i) {
      first.rank_at.push_back(i);
      second.rank_at.push_back(p - 1 - i);
    }
    pipelined_tree_allreduce(b, {first, second}, split({0, bytes}, 2), segments(group, static_cast<double>(bytes)));
    return std::move(b).finish();
  }

  double closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const override {
    const int k = segments(group, bytes);
    return tree_allreduce_s(group.ranks, k, bytes / 2 / k, flat_cost(group, costs));
  }

 private:
  int segments(const Group& group, double bytes) const {
    return tree_segments(group.ranks, bytes / 2, flat_cost(group, tuned_for_));
  }

  LinkCosts tuned_for_;
};

}  // namespace

std::unique_ptr<Collective> make_double_binary_tree(const LinkCosts& tuned_for) {
  return std::make_unique<DoubleBinaryTree>(tuned_for);
}

}  // namespace dtsim::collectives
