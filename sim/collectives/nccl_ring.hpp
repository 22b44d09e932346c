#pragma once
/// NCCL's ring plan (NcclAllreduce's, when its tuner picks the ring) fused and timed without building it: C
/// rings (channels) over the same p ranks, ring c carrying chunk_bytes(n, C, c) of the vector, each step's
/// transfers of every ring at once, every chunk on the wire at the protocol's efficiency.
///
///   ring c, place r sends in step s (0 .. 2(p-1)-1) chunk (r - s) mod p of its share, both phases alike
///
/// The plan holds 2(p-1) x C x p transfers (4,096 DGX A100 GPUs, 8 rings: 268 million); the time below needs
/// O(C p) memory.
#include <cstdint>
#include <vector>

#include "sim/collectives/schedule.hpp"
#include "sim/core/path_model.hpp"

namespace dtsim::collectives {

/// What NCCL's ring plan carries.
struct NcclRingPlan {
  std::vector<std::vector<int>> rings;  ///< C cyclic orders of the ranks 0 .. p-1
  std::int64_t bytes = 0;               ///< the vector
  double efficiency = 1;                ///< a chunk of d bytes is nccl_wire_bytes(d, efficiency) on the wire
  double step_latency_s = 0;            ///< Step::latency_s of each of the 2(p-1) steps
};

/// The plan: ring_allreduce_plan(rings, p, bytes) with wire bytes and each step's latency.
Schedule nccl_ring_schedule(const NcclRingPlan& ring);

/// The plan fused (flow_steps(nccl_ring_schedule(ring), true)): one step of the C x p transfers, each with the
/// wire bytes it sends over the 2(p-1) steps; empty for one rank.
std::vector<FusedStep> nccl_ring_fused(const NcclRingPlan& ring);

/// schedule_time_s(nccl_ring_schedule(ring), network) without the plan, the costs of the C x p transfers (the
/// same every step) computed once. One ring: ring_steps_time_s (in closed form on fat trees and two-level
/// clusters). Several: the plan's recurrence is max-plus, so its time is at most the sum over the steps of each
/// step's costliest transfer, and is that sum when a walk of transfers, each sharing a rank with the one before,
/// takes a costliest transfer every step (its ranks wait for each). The walks are followed 16 at a time, those
/// whose larger chunks stay longest (on DGX nodes with a NIC per GPU they move from ring to ring along the
/// hops between nodes, as fast as the larger chunks): O(p C) memory, O(p C + steps x C^2) time. Where they end,
/// the recurrence step by step, O(p C) memory and O(p^2 C) time.
double nccl_ring_time_s(const NcclRingPlan& ring, const core::PathModel& network);

}  // namespace dtsim::collectives
