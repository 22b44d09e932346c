// Binomial gather to rank 0 (Thakur, Rabenseifner & Gropp 2005; MPICH gather): at mask 1, 2, 4, .. rank r
// with lowest set bit `mask` sends the blocks it has collected, r .. r+mask-1, to r - mask.
//
//   p = 8:  mask 1: 1->0 3->2 5->4 7->6   mask 2: 2->0 (b2 b3) 6->4 (b6 b7)   mask 4: 4->0 (b4..b7)
//
// Cost: a max-plus recursion over the tree (a receiver starts when both ranks are ready); equal blocks of
// n/p give MPICH's ceil(lg p) alpha + (p-1)/p n beta.
#include <algorithm>

#include "sim/collectives/factories.hpp"
#include "sim/collectives/phases.hpp"

namespace dtsim::collectives {
namespace {

class BinomialGather final : public BlockCollective {
 public:
  std::string_view name() const override { return "binomial"; }

  MovePlan moves(const Group& group, const std::vector<std::int64_t>& block_bytes) const override {
    PlanBuilder b(group.ranks);
    binomial_gather(b, 0, consecutive(block_bytes));
    return std::move(b).finish();
  }

  double closed_form_s(const Group& group, const std::vector<std::int64_t>& block_bytes,
                       const LinkCosts& costs) const override {
    const int p = group.ranks;
    const AlphaBeta ab = flat_cost(group, costs);
    const std::vector<Block> blocks = consecutive(block_bytes);
    std::vector<double> ready(static_cast<std::size_t>(p), 0.0);
    for (int mask = 1; mask < p; mask *= 2)
      for (int r = mask; r < p; r += 2 * mask) {
        auto& to = ready[static_cast<std::size_t>(r - mask)];
        const double bytes = static_cast<double>(span(blocks, r, std::min(r + mask, p)).bytes);
        to = std::max(to, ready[static_cast<std::size_t>(r)]) + message_s(ab, bytes);
      }
    return *std::max_element(ready.begin(), ready.end());
  }
};

}  // namespace

std::unique_ptr<BlockCollective> make_binomial_gather() { return std::make_unique<BinomialGather>(); }

}  // namespace dtsim::collectives
