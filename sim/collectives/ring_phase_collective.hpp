#pragma once
/// What the ring all-gather and the ring reduce-scatter share: one phase of p - 1 steps on the ring 0, 1, ...,
/// p - 1 (ring_halves), timed and fused alike; each gives its own moves.
#include <optional>
#include <string_view>
#include <vector>

#include "sim/collectives/block_collective.hpp"
#include "sim/collectives/phases.hpp"
#include "sim/collectives/ring_halves.hpp"

namespace dtsim::collectives {

class RingPhaseCollective : public BlockCollective {
 public:
  std::string_view name() const override { return "ring"; }

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

}  // namespace dtsim::collectives
