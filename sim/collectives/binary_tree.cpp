// Pipelined binary-tree all-reduce (algorithms.md 7.2; the single tree of NCCL before 2.4): reduce to the
// root of a heap-ordered binary tree and broadcast back, the vector cut into k segments (pipelined_tree.hpp
// has the picture). k is fixed when the algorithm is made, for the network it is tuned for (a plan does not
// see the network): the power of two minimising the cost below.
//
// Cost (gamma = 0): 2 S(p, k) (alpha + n/k beta), S(p, k) = 2 (floor(lg p) + k - 1) - [p a power of two]
// (S(2, k) = k). Every interior rank receives from two children per segment, hence about 4 n beta in all,
// where algorithms.md's 2 (lg p + k - 1)(alpha + n/k beta) counts one message per level.
#include "sim/collectives/factories.hpp"
#include "sim/collectives/pipelined_tree.hpp"
#include "sim/core/error.hpp"

namespace dtsim::collectives {
namespace {

class BinaryTree final : public TracedCollective {
 public:
  explicit BinaryTree(const LinkCosts& tuned_for) : tuned_for_(tuned_for) {}
  std::string_view name() const override { return "binary_tree"; }

  MovePlan moves(const Group& group, std::int64_t bytes) const override {
    DTSIM_CHECK(group.ranks >= 1 && bytes >= 0, "binary tree needs ranks and a non-negative size");
    PlanBuilder b(group.ranks);
    if (group.ranks == 1) return std::move(b).finish();
    HeapTree tree;
    for (int r = 0; r < group.ranks; ++r) tree.rank_at.push_back(r);
    pipelined_tree_allreduce(b, {tree}, {{0, bytes}}, segments(group, static_cast<double>(bytes)));
    return std::move(b).finish();
  }

  double closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const override {
    const int k = segments(group, bytes);
    return tree_allreduce_s(group.ranks, k, bytes / k, flat_cost(group, costs));
  }

 private:
  int segments(const Group& group, double bytes) const {
    return tree_segments(group.ranks, bytes, flat_cost(group, tuned_for_));
  }

  LinkCosts tuned_for_;
};

}  // namespace

std::unique_ptr<Collective> make_binary_tree(const LinkCosts& tuned_for) {
  return std::make_unique<BinaryTree>(tuned_for);
}

}  // namespace dtsim::collectives
