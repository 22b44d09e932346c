// Binomial broadcast from rank 0 (Thakur, Rabenseifner & Gropp 2005; MPICH bcast for short messages).
//
//   p = 8:  mask 4: 0->4    mask 2: 0->2 4->6    mask 1: 0->1 2->3 4->5 6->7
//
// Cost: ceil(lg p) (alpha + n beta); rank 0 sends in every step.
#include "sim/collectives/factories.hpp"
#include "sim/collectives/phases.hpp"
#include "sim/core/error.hpp"

namespace dtsim::collectives {
namespace {

class BinomialBroadcast final : public TracedCollective {
 public:
  std::string_view name() const override { return "binomial"; }

  MovePlan moves(const Group& group, std::int64_t bytes) const override {
    DTSIM_CHECK(group.ranks >= 1 && bytes >= 0, "broadcast needs ranks and a non-negative size");
    PlanBuilder b(group.ranks);
    binomial_broadcast(b, 0, group.ranks, {0, bytes});
    return std::move(b).finish();
  }

  double closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const override {
    return ceil_log2(group.ranks) * message_s(flat_cost(group, costs), bytes);
  }
};

}  // namespace

std::unique_ptr<Collective> make_binomial_broadcast() { return std::make_unique<BinomialBroadcast>(); }

}  // namespace dtsim::collectives
