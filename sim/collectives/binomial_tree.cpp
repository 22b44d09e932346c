// Binomial-tree all-reduce: binomial reduce to rank 0, then binomial broadcast (MPICH's reduce + bcast,
// SMPI's `redbcast`; Thakur, Rabenseifner & Gropp 2005).
//
//   reduce (p = 8)        mask 1: 1->0 3->2 5->4 7->6   mask 2: 2->0 6->4   mask 4: 4->0
//   broadcast             mask 4: 0->4   mask 2: 0->2 4->6   mask 1: 0->1 2->3 4->5 6->7
//
// Any p (no fold needed). Cost (gamma = 0): 2 ceil(lg p) (alpha + n beta): rank 0 takes part in every step.
#include "sim/collectives/factories.hpp"
#include "sim/collectives/phases.hpp"
#include "sim/core/error.hpp"

namespace dtsim::collectives {
namespace {

class BinomialTree final : public TracedCollective {
 public:
  std::string_view name() const override { return "binomial_tree"; }

  MovePlan moves(const Group& group, std::int64_t bytes) const override {
    DTSIM_CHECK(group.ranks >= 1 && bytes >= 0, "binomial tree needs ranks and a non-negative size");
    PlanBuilder b(group.ranks);
    binomial_broadcast(b, binomial_reduce(b, 0, group.ranks, {0, bytes}), group.ranks, {0, bytes});
    return std::move(b).finish();
  }

  double closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const override {
    return 2.0 * ceil_log2(group.ranks) * message_s(flat_cost(group, costs), bytes);
  }
};

}  // namespace

std::unique_ptr<Collective> make_binomial_tree() { return std::make_unique<BinomialTree>(); }

}  // namespace dtsim::collectives
