#pragma once
/// Ring all-reduce (Patarasuk & Yuan 2009): ring reduce-scatter then ring all-gather, 2(p-1) steps.
#include <vector>

#include "sim/collectives/collective.hpp"

namespace dtsim::collectives {

/// Rank r sends to r+1 (mod p). The vector is cut into p chunks whose sizes differ by at most one byte;
/// in reduce-scatter step s rank r sends chunk (r - s) mod p, in all-gather step s chunk (r + 1 - s) mod p.
///
///   step 0..p-2 (reduce-scatter)     step p-1..2p-3 (all-gather)
///   0 -> 1 -> 2 -> ... -> p-1 -> 0   same ring, reduced chunks
///
/// Cost: 2(p-1) alpha + 2(p-1)/p n beta, with the inter-node alpha and beta once the ring spans nodes (every
/// step then has a transfer crossing a node boundary).
class RingAllreduce final : public Collective {
 public:
  std::string_view name() const override { return "ring"; }
  Schedule plan(const Group& group, std::int64_t bytes) const override;
  /// One step of p transfers r -> r+1, each with the 2(p-1) chunks rank r sends: all but chunks r+1 and r+2
  /// once each (the one it receives last in each phase).
  std::optional<std::vector<FusedStep>> fused_plan(const Group& group, std::int64_t bytes) const override;
  /// The plan's recurrence (ring_steps_time_s): in closed form where every hop costs the same or the costliest
  /// hops (between nodes) stand apart, else step by step; O(p) memory.
  std::optional<double> plan_time_s(const Group& group, std::int64_t bytes,
                                    const core::PathModel& network) const override;
  double closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const override;
};

/// Ring all-reduces of `bytes` over `ranks` ranks on several rings at once, as NCCL's channels run: ring c
/// visits the ranks in the cyclic order rings[c] (each rank once) and carries chunk_bytes(bytes, C, c) of the
/// vector, cut p ways as above; step s of every ring is step s of the plan. One ring 0, 1, ..., p-1 is
/// RingAllreduce's plan.
Schedule ring_allreduce_plan(const std::vector<std::vector<int>>& rings, int ranks, std::int64_t bytes);

}  // namespace dtsim::collectives
