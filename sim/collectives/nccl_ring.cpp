#include "sim/collectives/nccl_ring.hpp"

#include <algorithm>
#include <utility>

#include "sim/collectives/chunking.hpp"
#include "sim/collectives/nccl_allreduce.hpp"
#include "sim/collectives/ring_allreduce.hpp"
#include "sim/collectives/ring_steps.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/core/error.hpp"

namespace dtsim::collectives {
namespace {

/// Ring c's chunks on the wire: p - large_places of `small` bytes, large_places of `large`.
struct WireChunks {
  std::int64_t small = 0;
  std::int64_t large = 0;
  int large_places = 0;
};

std::int64_t on_wire(std::int64_t data, double efficiency) {
  return static_cast<std::int64_t>(nccl_wire_bytes(static_cast<double>(data), efficiency));
}

/// Each ring's chunks, after checking the rings.
std::vector<WireChunks> wire_chunks(const NcclRingPlan& ring) {
  DTSIM_CHECK(!ring.rings.empty() && ring.bytes >= 0, "NCCL's ring plan needs a ring and a size >= 0");
  const auto p = static_cast<int>(ring.rings.front().size());
  const int channels = static_cast<int>(ring.rings.size());
  std::vector<WireChunks> chunks;
  for (int c = 0; c < channels; ++c) {
    DTSIM_CHECK(static_cast<int>(ring.rings[static_cast<std::size_t>(c)].size()) == p, "a ring must visit every rank once");
    const std::int64_t share = chunk_bytes(ring.bytes, channels, c);
    chunks.push_back({on_wire(share / p, ring.efficiency), on_wire(share / p + 1, ring.efficiency),
                      static_cast<int>(share % p)});
  }
  return chunks;
}

int ranks_of(const NcclRingPlan& ring) { return ring.rings.empty() ? 0 : static_cast<int>(ring.rings.front().size()); }

}  // namespace

Schedule nccl_ring_schedule(const NcclRingPlan& ring) {
  Schedule schedule = ring_allreduce_plan(ring.rings, ranks_of(ring), ring.bytes);
  for (Step& step : schedule.steps) {
    step.latency_s = ring.step_latency_s;
    for (Transfer& t : step.transfers) t.bytes = on_wire(t.bytes, ring.efficiency);
  }
  return schedule;
}

std::vector<FusedStep> nccl_ring_fused(const NcclRingPlan& ring) {
  const std::vector<WireChunks> chunks = wire_chunks(ring);
  const int p = ranks_of(ring);
  std::vector<FusedStep> fused;
  if (p == 1) return fused;
  FusedStep& step = fused.emplace_back();
  step.steps = 2 * (p - 1);
  for (int s = 0; s < step.steps; ++s) step.latency_s += ring.step_latency_s;  // as flow_steps sums them
  step.transfers.reserve(chunks.size() * static_cast<std::size_t>(p));
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    const WireChunks& w = chunks[c];
    const auto chunk = [&](int k) { return k % p < w.large_places ? w.large : w.small; };
    const std::int64_t all = static_cast<std::int64_t>(p - w.large_places) * w.small + w.large_places * w.large;
    const std::vector<int>& order = ring.rings[c];
    for (int r = 0; r < p; ++r)
      step.transfers.push_back({order[static_cast<std::size_t>(r)], order[static_cast<std::size_t>((r + 1) % p)],
                                2 * all - chunk(r + 1) - chunk(r + 2)});
  }
  return fused;
}

double nccl_ring_time_s(const NcclRingPlan& ring, const core::PathModel& network) {
  const std::vector<WireChunks> chunks = wire_chunks(ring);
  const int p = ranks_of(ring);
  if (p == 1) return 0.0;
  const int steps = 2 * (p - 1);
  std::vector<std::pair<int, int>> pairs;
  pairs.reserve(chunks.size() * static_cast<std::size_t>(p));
  for (const std::vector<int>& order : ring.rings)
    for (int r = 0; r < p; ++r) pairs.emplace_back(order[static_cast<std::size_t>(r)], order[static_cast<std::size_t>((r + 1) % p)]);
  std::vector<TransferCost> costs = pair_costs(pairs, network);
  if (chunks.size() == 1) {
    for (TransferCost& hop : costs) hop.latency_s += ring.step_latency_s;
    const WireChunks& w = chunks.front();
    return ring_steps_time_s(costs, {steps, w.small, w.large, w.small == w.large ? 0 : w.large_places, 0});
  }
  const bool invariant = std::all_of(chunks.begin(), chunks.end(),
                                     [](const WireChunks& w) { return w.large_places == 0 || w.small == w.large; });
  if (invariant) {
    double costliest = 0;
    for (std::size_t t = 0; t < costs.size(); ++t)
      costliest = std::max(costliest, transfer_end_s(0.0, ring.step_latency_s, costs[t],
                                                     static_cast<double>(chunks[t / static_cast<std::size_t>(p)].small)));
    return steps * costliest;
  }
  std::vector<double> ready(static_cast<std::size_t>(p), 0.0), next;
  for (int s = 0; s < steps; ++s) {
    next = ready;
    for (std::size_t c = 0; c < chunks.size(); ++c) {
      const WireChunks& w = chunks[c];
      const auto small = static_cast<double>(w.small), large = static_cast<double>(w.large);
      int k = (p - s % p) % p;  // place 0's chunk, (0 - s) mod p
      for (int r = 0; r < p; ++r, k = k + 1 == p ? 0 : k + 1) {
        const auto [from, to] = pairs[c * static_cast<std::size_t>(p) + static_cast<std::size_t>(r)];
        const double start = std::max(ready[static_cast<std::size_t>(from)], ready[static_cast<std::size_t>(to)]);
        const double end = transfer_end_s(start, ring.step_latency_s, costs[c * static_cast<std::size_t>(p) + static_cast<std::size_t>(r)],
                                          k < w.large_places ? large : small);
        for (int rank : {from, to}) next[static_cast<std::size_t>(rank)] = std::max(next[static_cast<std::size_t>(rank)], end);
      }
    }
    ready.swap(next);
  }
  return *std::max_element(ready.begin(), ready.end());
}

}  // namespace dtsim::collectives
