#include "sim/collectives/ring_halves.hpp"

#include <algorithm>

#include "sim/collectives/chunking.hpp"
#include "sim/collectives/nccl_allreduce.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/core/error.hpp"

namespace dtsim::collectives {

namespace {

/// Calls hop(from, to, share, r) for every hop of every ring: the rank at place r, its successor, and the
/// bytes of the ring's share of the vector (chunk_bytes over the rings).
template <class Hop>
void for_each_hop(const std::vector<std::vector<int>>& rings, int ranks, std::int64_t bytes, Hop hop) {
  const int channels = static_cast<int>(rings.size());
  for (int c = 0; c < channels; ++c) {
    const std::vector<int>& ring = rings[static_cast<std::size_t>(c)];
    DTSIM_CHECK(static_cast<int>(ring.size()) == ranks, "a ring must visit every rank once");
    const std::int64_t share = chunk_bytes(bytes, channels, c);
    for (int r = 0; r < ranks; ++r)
      hop(ring[static_cast<std::size_t>(r)], ring[static_cast<std::size_t>((r + 1) % ranks)], share, r);
  }
}

std::int64_t on_wire(std::int64_t data, const PhaseWire& wire) {
  return static_cast<std::int64_t>(nccl_wire_bytes(static_cast<double>(data), wire.efficiency));
}

}  // namespace

std::vector<FusedStep> ring_phase_fused(const std::vector<std::vector<int>>& rings, int ranks, std::int64_t bytes,
                                        const PhaseWire& wire) {
  DTSIM_CHECK(ranks >= 1 && bytes >= 0 && !rings.empty(), "a ring phase needs a ring, a rank and a size >= 0");
  std::vector<FusedStep> fused;
  if (ranks == 1) return fused;
  FusedStep& step = fused.emplace_back();
  step.steps = ranks - 1;
  for (int k = 0; k + 1 < ranks; ++k) step.latency_s += wire.step_latency_s;  // as flow_steps sums them
  // Over the phase the rank at place r sends every chunk but one (all-gather: the one it receives last,
  // chunk r + 1; reduce-scatter: its own reduced chunk, which it keeps): all its share's chunks on the wire (share
  // mod ranks of them one byte larger) less that chunk.
  for_each_hop(rings, ranks, bytes, [&](int from, int to, std::int64_t share, int r) {
    const std::int64_t larger = share % ranks, small = share / ranks;
    const std::int64_t all = (ranks - larger) * on_wire(small, wire) + larger * on_wire(small + 1, wire);
    step.transfers.push_back({from, to, all - on_wire(chunk_bytes(share, ranks, (r + 1) % ranks), wire)});
  });
  return fused;
}

Schedule ring_phase_plan(const std::vector<std::vector<int>>& rings, int ranks, std::int64_t bytes,
                         const PhaseWire& wire) {
  DTSIM_CHECK(ranks >= 1 && bytes >= 0 && !rings.empty(), "a ring phase needs a ring, a rank and a size >= 0");
  Schedule plan{ranks, {}};
  for (int k = 0; k + 1 < ranks; ++k) {
    Step& step = plan.steps.emplace_back();
    step.latency_s = wire.step_latency_s;
    for_each_hop(rings, ranks, bytes, [&](int from, int to, std::int64_t share, int r) {
      step.transfers.push_back({from, to, on_wire(chunk_bytes(share, ranks, ((r - k) % ranks + ranks) % ranks), wire)});
    });
  }
  return plan;
}

double ring_phase_time_s(const std::vector<std::vector<int>>& rings, int ranks, std::int64_t bytes,
                         const core::PathModel& network, const PhaseWire& wire) {
  if (ranks <= 1) return 0.0;
  std::vector<core::Path> paths;
  std::vector<double> largest;
  for_each_hop(rings, ranks, bytes, [&](int from, int to, std::int64_t share, int) {
    paths.push_back(network.path(from, to));
    largest.push_back(static_cast<double>(on_wire(chunk_bytes(share, ranks, 0), wire)));
  });
  std::vector<const core::Path*> pointers;
  for (const core::Path& p : paths) pointers.push_back(&p);
  const std::vector<TransferCost> costs = shared_costs(pointers, network);
  double step_s = 0;
  for (std::size_t i = 0; i < costs.size(); ++i) step_s = std::max(step_s, transfer_end_s(0, wire.step_latency_s, costs[i], largest[i]));
  return (ranks - 1) * step_s;
}

}  // namespace dtsim::collectives
