// Ring all-gather(v) (Thakur, Rabenseifner & Gropp 2005; MPICH allgatherv ring): in step s rank r sends
// block r - s to rank r + 1.
//
//   step 0: 0 -b0-> 1 -b1-> 2 -b2-> 3 -b3-> 0      step 1: 0 -b3-> 1 -b0-> 2 -b1-> 3 -b2-> 0 ...
//
// Cost: (p-1) (alpha + max_r b_r beta); the largest block is forwarded p - 1 times in a chain. Equal blocks
// of n/p: MPICH's (p-1) alpha + (p-1)/p n beta.
#include "sim/collectives/factories.hpp"
#include "sim/collectives/ring_phase_collective.hpp"

namespace dtsim::collectives {
namespace {

class RingAllgatherv final : public RingPhaseCollective {
 public:
  MovePlan moves(const Group& group, const std::vector<std::int64_t>& block_bytes) const override {
    PlanBuilder b(group.ranks);
    ring_all_gather(b, 0, all_ranks(group.ranks), consecutive(block_bytes));
    return std::move(b).finish();
  }
};

}  // namespace

std::unique_ptr<BlockCollective> make_ring_allgatherv() { return std::make_unique<RingAllgatherv>(); }

}  // namespace dtsim::collectives
