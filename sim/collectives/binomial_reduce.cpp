// Binomial reduce to rank 0 (Thakur, Rabenseifner & Gropp 2005; MPICH reduce for short messages).
//
//   p = 8:  mask 1: 1->0 3->2 5->4 7->6    mask 2: 2->0 6->4    mask 4: 4->0
//
// Cost (gamma = 0): ceil(lg p) (alpha + n beta); rank 0 receives in every step.
#include "sim/collectives/factories.hpp"
#include "sim/collectives/phases.hpp"
#include "sim/core/error.hpp"

namespace dtsim::collectives {
namespace {

class BinomialReduce final : public TracedCollective {
 public:
  std::string_view name() const override { return "binomial"; }

  MovePlan moves(const Group& group, std::int64_t bytes) const override {
    DTSIM_CHECK(group.ranks >= 1 && bytes >= 0, "reduce needs ranks and a non-negative size");
    PlanBuilder b(group.ranks);
    binomial_reduce(b, 0, group.ranks, {0, bytes});
    return std::move(b).finish();
  }

  double closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const override {
    return ceil_log2(group.ranks) * message_s(flat_cost(group, costs), bytes);
  }
};

}  // namespace

std::unique_ptr<Collective> make_binomial_reduce() { return std::make_unique<BinomialReduce>(); }

}  // namespace dtsim::collectives
