// Ring reduce-scatter (Patarasuk & Yuan 2009; the first half of ring all-reduce): in step s rank r adds
// block r - 1 - s into rank r + 1, so after p - 1 steps rank r holds block r reduced.
//
//   step 0: 0 -b3-> 1 -b0-> 2 -b1-> 3 -b2-> 0      ...      step p-2: r -b(r+1)-> r + 1
//
// Cost (gamma = 0): (p-1) (alpha + max_r b_r beta). Equal blocks: (p-1) alpha + (p-1)/p n beta.
#include "sim/collectives/factories.hpp"
#include "sim/collectives/phases.hpp"
#include "sim/collectives/ring_halves.hpp"

namespace dtsim::collectives {
namespace {

class RingReduceScatter final : public BlockCollective {
 public:
  std::string_view name() const override { return "ring"; }

  MovePlan moves(const Group& group, const std::vector<std::int64_t>& block_bytes) const override {
    PlanBuilder b(group.ranks);
    ring_reduce_scatter(b, 0, all_ranks(group.ranks), consecutive(block_bytes));
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

std::unique_ptr<BlockCollective> make_ring_reduce_scatter() { return std::make_unique<RingReduceScatter>(); }

}  // namespace dtsim::collectives
