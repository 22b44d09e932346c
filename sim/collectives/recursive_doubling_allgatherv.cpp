// Recursive-doubling all-gather(v) (Thakur, Rabenseifner & Gropp 2005): at distance 1, 2, .., p/2 each rank
// sends the aligned group of blocks it holds to its partner.
//
//   p = 4:  dist 1: 0<->1 (b0 | b1), 2<->3 (b2 | b3)      dist 2: 0<->2 (b0b1 | b2b3), 1<->3
//
// Non-power-of-two p: MPICH's fold (phases.hpp): even rank r < 2 rem first sends block r to r + 1, pof2 ranks
// run the algorithm, and the whole result goes back to the folded ranks (MPICH's own allgather instead
// exchanges the missing blocks through a tree; the fold keeps one rule for every recursive algorithm here).
// Cost: a max-plus recursion over the hypercube (each step costs alpha + the larger of the two groups' bytes
// times beta); equal blocks and p a power of two give MPICH's lg p alpha + (p-1)/p n beta. A non-power of
// two adds the fold (alpha + n/p beta) and the return (alpha + n beta), and its folded ranks hold two blocks.
#include <algorithm>

#include "sim/collectives/factories.hpp"
#include "sim/collectives/phases.hpp"

namespace dtsim::collectives {
namespace {

class RecursiveDoublingAllgatherv final : public BlockCollective {
 public:
  std::string_view name() const override { return "recursive_doubling"; }

  MovePlan moves(const Group& group, const std::vector<std::int64_t>& block_bytes) const override {
    const Fold fold(group.ranks);
    const std::vector<Block> blocks = consecutive(block_bytes);
    const Block whole = span(blocks, 0, group.ranks);
    PlanBuilder b(group.ranks);
    std::size_t step = fold.fold_in(b, 0, blocks, Combine::copy);
    step = doubling_all_gather(b, step, fold.members(), fold.virtual_blocks(blocks));
    fold.fold_out(b, step, std::vector<Block>(static_cast<std::size_t>(group.ranks), whole));
    return std::move(b).finish();
  }

  double closed_form_s(const Group& group, const std::vector<std::int64_t>& block_bytes,
                       const LinkCosts& costs) const override {
    const Fold fold(group.ranks);
    const AlphaBeta ab = flat_cost(group, costs);
    const std::vector<Block> blocks = consecutive(block_bytes);
    const std::vector<Block> held = fold.virtual_blocks(blocks);
    std::vector<double> ready(static_cast<std::size_t>(fold.pof2), 0.0);
    for (int v = 0; v < fold.rem; ++v)
      ready[static_cast<std::size_t>(v)] = message_s(ab, static_cast<double>(blocks[static_cast<std::size_t>(2 * v)].bytes));
    std::vector<double> sent(ready.size());
    for (int h = 1; h < fold.pof2; h *= 2) {
      for (int v = 0; v < fold.pof2; ++v) {
        const int lo = v & ~(h - 1);
        sent[static_cast<std::size_t>(v)] = static_cast<double>(span(held, lo, lo + h).bytes);
      }
      exchange_step(ready, h, sent, ab);
    }
    const double total = static_cast<double>(span(blocks, 0, group.ranks).bytes);
    return *std::max_element(ready.begin(), ready.end()) + (fold.rem > 0 ? message_s(ab, total) : 0.0);
  }
};

}  // namespace

std::unique_ptr<BlockCollective> make_recursive_doubling_allgatherv() {
  return std::make_unique<RecursiveDoublingAllgatherv>();
}

}  // namespace dtsim::collectives
