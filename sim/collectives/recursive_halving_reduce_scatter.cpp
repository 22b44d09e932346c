// Recursive-halving reduce-scatter (Thakur, Rabenseifner & Gropp 2005; MPICH reduce_scatter, commutative
// ops): at distance p/2, p/4, .., 1 each rank keeps the half of its range on its side and adds the other
// half into its partner.
//
//   p = 4, blocks b0..b3:  dist 2: 0<->2 (0 keeps b0b1, 2 keeps b2b3), 1<->3      dist 1: 0<->1, 2<->3
//
// Non-power-of-two p: MPICH's fold (phases.hpp): even rank r < 2 rem first adds its whole vector into r + 1,
// virtual rank v < rem then owns blocks 2v and 2v+1, and finally sends block 2v back to rank 2v.
// Cost (gamma = 0): a max-plus recursion over the hypercube (each step costs alpha + the larger half times
// beta). Equal blocks, p a power of two: MPICH's lg p alpha + (p-1)/p n beta. Otherwise the fold adds
// alpha + n beta and the return alpha + n/p beta, and the halving moves the pairs' double blocks: MPICH's
// comment "(floor(lg p) + 2) alpha + n (1 + (p-1+n)/p) beta" (algorithms.md 7.1) is not a cost in bytes.
#include <algorithm>

#include "sim/collectives/factories.hpp"
#include "sim/collectives/phases.hpp"

namespace dtsim::collectives {
namespace {

class RecursiveHalvingReduceScatter final : public BlockCollective {
 public:
  std::string_view name() const override { return "recursive_halving"; }

  MovePlan moves(const Group& group, const std::vector<std::int64_t>& block_bytes) const override {
    const Fold fold(group.ranks);
    const std::vector<Block> blocks = consecutive(block_bytes);
    const Block whole = span(blocks, 0, group.ranks);
    PlanBuilder b(group.ranks);
    std::size_t step = fold.fold_in(b, 0, std::vector<Block>(static_cast<std::size_t>(group.ranks), whole), Combine::reduce);
    step = halving_reduce_scatter(b, step, fold.members(), fold.virtual_blocks(blocks));
    fold.fold_out(b, step, blocks);
    return std::move(b).finish();
  }

  double closed_form_s(const Group& group, const std::vector<std::int64_t>& block_bytes,
                       const LinkCosts& costs) const override {
    const Fold fold(group.ranks);
    const AlphaBeta ab = flat_cost(group, costs);
    const std::vector<Block> blocks = consecutive(block_bytes);
    const std::vector<Block> held = fold.virtual_blocks(blocks);
    const double total = static_cast<double>(span(blocks, 0, group.ranks).bytes);
    std::vector<double> ready(static_cast<std::size_t>(fold.pof2), 0.0);
    for (int v = 0; v < fold.rem; ++v) ready[static_cast<std::size_t>(v)] = message_s(ab, total);
    std::vector<double> sent(ready.size());
    for (int h = fold.pof2 / 2; h >= 1; h /= 2) {
      for (int v = 0; v < fold.pof2; ++v) {
        const int lo = v & ~(2 * h - 1);
        const int first = (v & h) ? lo : lo + h;
        sent[static_cast<std::size_t>(v)] = static_cast<double>(span(held, first, first + h).bytes);
      }
      exchange_step(ready, h, sent, ab);
    }
    for (int v = 0; v < fold.rem; ++v)
      ready[static_cast<std::size_t>(v)] += message_s(ab, static_cast<double>(blocks[static_cast<std::size_t>(2 * v)].bytes));
    return *std::max_element(ready.begin(), ready.end());
  }
};

}  // namespace

std::unique_ptr<BlockCollective> make_recursive_halving_reduce_scatter() {
  return std::make_unique<RecursiveHalvingReduceScatter>();
}

}  // namespace dtsim::collectives
