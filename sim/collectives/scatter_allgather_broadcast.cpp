// Scatter + ring all-gather broadcast (van de Geijn; Thakur, Rabenseifner & Gropp 2005; MPICH bcast for
// long messages): a binomial scatter of p near-equal blocks from rank 0, then a ring all-gather.
//
//   p = 4, blocks b0..b3:  scatter mask 2: 0 -(b2 b3)-> 2   mask 1: 0 -b1-> 1, 2 -b3-> 3
//                          ring all-gather: 3 steps of r -> r + 1
//
// Cost: sum over masks of (alpha + min(mask, p - mask) n/p beta) (rank 0's sends) + (p-1)(alpha + n/p beta)
// = (ceil(lg p) + p - 1) alpha + 2 (p-1)/p n beta, MPICH's formula.
#include <algorithm>

#include "sim/collectives/factories.hpp"
#include "sim/collectives/phases.hpp"
#include "sim/core/error.hpp"

namespace dtsim::collectives {
namespace {

class ScatterAllgatherBroadcast final : public TracedCollective {
 public:
  std::string_view name() const override { return "scatter_allgather"; }

  MovePlan moves(const Group& group, std::int64_t bytes) const override {
    DTSIM_CHECK(group.ranks >= 1 && bytes >= 0, "broadcast needs ranks and a non-negative size");
    const std::vector<Block> blocks = split({0, bytes}, group.ranks);
    PlanBuilder b(group.ranks);
    ring_all_gather(b, binomial_scatter(b, 0, blocks), all_ranks(group.ranks), blocks);
    return std::move(b).finish();
  }

  double closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const override {
    const int p = group.ranks;
    const AlphaBeta ab = flat_cost(group, costs);
    double total = (p - 1) * message_s(ab, bytes / p);
    for (int mask = (1 << ceil_log2(p)) / 2; mask >= 1; mask /= 2)
      total += message_s(ab, std::min(mask, p - mask) * bytes / p);
    return total;
  }
};

}  // namespace

std::unique_ptr<Collective> make_scatter_allgather_broadcast() {
  return std::make_unique<ScatterAllgatherBroadcast>();
}

}  // namespace dtsim::collectives
