#pragma once
/// The two halves of a multi-ring all-reduce on their own: ring reduce-scatter and ring all-gather over several
/// rings at once, as NCCL runs ncclReduceScatter and ncclAllGather on its ring channels (each channel a ring,
/// 1/C of the data). Fused (one flow per ring hop) and timed without building the p - 1 steps, so that groups of
/// thousands of ranks cost O(p C).
#include <cstdint>
#include <vector>

#include "sim/collectives/schedule.hpp"
#include "sim/core/path_model.hpp"

namespace dtsim::collectives {

/// What a protocol makes of a ring phase (NCCL's all-gather and reduce-scatter): each chunk of d data bytes is
/// nccl_wire_bytes(d, efficiency) on the wire, and each step waits `step_latency_s` before its transfers. The
/// default is the bare phase.
struct PhaseWire {
  double efficiency = 1;
  double step_latency_s = 0;
};

/// One ring phase over `rings` (each visiting ranks 0 .. ranks-1 once): for `bytes` the size of the whole
/// vector, ring c carries chunk_bytes(bytes, C, c), cut `ranks` ways; in each of the ranks - 1 steps every rank
/// sends one of its ring's chunks to its successor. The fused form: one transfer per ring hop carrying the
/// chunks it sends over the phase (all but one of its ring's chunks), standing for ranks - 1 steps.
std::vector<FusedStep> ring_phase_fused(const std::vector<std::vector<int>>& rings, int ranks, std::int64_t bytes,
                                        const PhaseWire& wire = {});

/// The same phase step by step (the message level): in step k the rank at place r of each ring sends chunk
/// r - k (mod ranks) of its ring's share to its successor; flow_steps fuses it back into ring_phase_fused.
Schedule ring_phase_plan(const std::vector<std::vector<int>>& rings, int ranks, std::int64_t bytes,
                         const PhaseWire& wire = {});

/// The phase's time on `network`, uncongested by anything else: ranks - 1 steps, each as long as its slowest
/// hop (path latency plus the largest chunk over the hop's share of its links, all rings' hops of a step
/// sharing the links they have in common). Exact for the step-by-step plan when every step is alike.
double ring_phase_time_s(const std::vector<std::vector<int>>& rings, int ranks, std::int64_t bytes,
                         const core::PathModel& network, const PhaseWire& wire = {});

}  // namespace dtsim::collectives
