// Ring all-gather(v) (Thakur, Rabenseifner & Gropp 2005; MPICH allgatherv ring): in step s rank r sends
// block r - s to rank r + 1.
//
//   step 0: 0 -b0-> 1 -b1-> 2 -b2-> 3 -b3-> 0      step 1: 0 -b3-> 1 -b0-> 2 -b1-> 3 -b2-> 0 ...
//
// Cost: (p-1) (alpha + max_r b_r beta); the largest block is forwarded p - 1 times in a chain. Equal blocks
// of n/p: MPICH's (p-1) alpha + (p-1)/p n beta.
#include "sim/collectives/factories.hpp"
#include "sim/collectives/phases.hpp"
#include "sim/collectives/ring_halves.hpp"

namespace dtsim::collectives {
namespace {

class RingAllgatherv final : public BlockCollective {
 public:
  std::string_view name() const override { return "ring"; }

  MovePlan moves(const Group& group, const std::vector<std::int64_t>& block_bytes) const override {
    PlanBuilder b(group.ranks);
    ring_all_gather(b, 0, all_ranks(group.ranks), consecutive(block_bytes));
    return std::move(b).finish();
  }

  /// Blocks all of one size: ring_halves' phase on the one ring 0, 1, ..., p-1, without the plan (every step alike;
  /// where sizes differ by a byte, which hop carries the larger chunk in which step is the plan's to say).
  std::optional<std::vector<FusedStep>> fused_plan(const Group& group,
                                                   const std::vector<std::int64_t>& block_bytes) const override {
    const std::optional<std::int64_t> bytes = uniform_blocks_total(block_bytes);
    if (!bytes) return std::nullopt;
    return ring_phase_fused({all_ranks(group.ranks)}, group.ranks, *bytes);
  }

  std::optional<double> plan_time_s(const Group& group, const std::vector<std::int64_t>& block_bytes,
                                    const core::PathModel& network) const override {
    const std::optional<std::int64_t> bytes = uniform_blocks_total(block_bytes);
    if (!bytes) return std::nullopt;
    return ring_phase_time_s({all_ranks(group.ranks)}, group.ranks, *bytes, network);
  }

  double closed_form_s(const Group& group, const std::vector<std::int64_t>& block_bytes,
                       const LinkCosts& costs) const override {
    return ring_phase_s(group, block_bytes, costs);
  }
};

}  // namespace

std::unique_ptr<BlockCollective> make_ring_allgatherv() { return std::make_unique<RingAllgatherv>(); }

}  // namespace dtsim::collectives
