// Recursive-doubling all-reduce (Thakur, Rabenseifner & Gropp 2005; MPICH allreduce_intra_recursive_doubling).
//
//   p = 8:   step 0  0<->1 2<->3 4<->5 6<->7     whole vector both ways, each adds what it receives
//            step 1  0<->2 1<->3 4<->6 5<->7
//            step 2  0<->4 1<->5 2<->6 3<->7
//
// Non-power-of-two p: MPICH's fold (phases.hpp) before, and the result sent back to the folded ranks after.
// Cost (gamma = 0: reduction time is not modelled), every message the whole vector:
//   (lg pof2 + 2 [p != pof2]) (alpha + n beta)
// which is MPICH's lg p alpha + n lg p beta when p is a power of two.
#include "sim/collectives/factories.hpp"
#include "sim/collectives/phases.hpp"
#include "sim/core/error.hpp"

namespace dtsim::collectives {
namespace {

class RecursiveDoubling final : public TracedCollective {
 public:
  std::string_view name() const override { return "recursive_doubling"; }

  MovePlan moves(const Group& group, std::int64_t bytes) const override {
    DTSIM_CHECK(group.ranks >= 1 && bytes >= 0, "recursive doubling needs ranks and a non-negative size");
    const Fold fold(group.ranks);
    const Block whole{0, bytes};
    const std::vector<Block> everyone(static_cast<std::size_t>(group.ranks), whole);
    PlanBuilder b(group.ranks);
    std::size_t step = fold.fold_in(b, 0, everyone, Combine::reduce);
    for (int h = 1; h < fold.pof2; h *= 2, ++step)
      for (int v = 0; v < fold.pof2; ++v) b.add(step, {fold.real(v), fold.real(v ^ h), 0, bytes, Combine::reduce});
    fold.fold_out(b, step, everyone);
    return std::move(b).finish();
  }

  /// MPICH's all-gather and reduce-scatter by recursive steps (allgather_intra_recursive_doubling.c,
  /// reduce_scatter_intra_recursive_halving.c).
  std::string_view allgather_name() const override { return "recursive_doubling"; }
  std::string_view reduce_scatter_name() const override { return "recursive_halving"; }

  double closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const override {
    const Fold fold(group.ranks);
    const int messages = floor_log2(fold.pof2) + (fold.rem > 0 ? 2 : 0);
    return messages * message_s(flat_cost(group, costs), bytes);
  }
};

}  // namespace

std::unique_ptr<Collective> make_recursive_doubling() { return std::make_unique<RecursiveDoubling>(); }

}  // namespace dtsim::collectives
