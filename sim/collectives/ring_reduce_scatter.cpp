// Ring reduce-scatter (Patarasuk & Yuan 2009; the first half of ring all-reduce): in step s rank r adds
// block r - 1 - s into rank r + 1, so after p - 1 steps rank r holds block r reduced.
//
//   step 0: 0 -b3-> 1 -b0-> 2 -b1-> 3 -b2-> 0      ...      step p-2: r -b(r+1)-> r + 1
//
// Cost (gamma = 0): (p-1) (alpha + max_r b_r beta). Equal blocks: (p-1) alpha + (p-1)/p n beta.
#include "sim/collectives/factories.hpp"
#include "sim/collectives/ring_phase_collective.hpp"

namespace dtsim::collectives {
namespace {

class RingReduceScatter final : public RingPhaseCollective {
 public:
  MovePlan moves(const Group& group, const std::vector<std::int64_t>& block_bytes) const override {
    PlanBuilder b(group.ranks);
    ring_reduce_scatter(b, 0, all_ranks(group.ranks), consecutive(block_bytes));
    return std::move(b).finish();
  }
};

}  // namespace

std::unique_ptr<BlockCollective> make_ring_reduce_scatter() { return std::make_unique<RingReduceScatter>(); }

}  // namespace dtsim::collectives
