#include "sim/collectives/nccl_ring.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>
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

/// Doubles equal to a relative 1e-12 (costs of one class computed from different links).
bool close(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b)); }

/// How many walks costliest_walk_s follows at once: the ones whose larger chunks stay longest.
constexpr std::size_t kWalks = 16;

/// The sum over the steps of each step's costliest transfer, when a walk of transfers, each sharing a rank with
/// the one before, takes a costliest transfer every step; empty when the walks it follows end. That sum bounds
/// the plan's time (no rank's ready time grows by more a step) and the walk reaches it (each of its transfers
/// starts after the one before ends), so it is the time. `pairs[c p + r]`, `costs[c p + r]`: ring c's place r.
std::optional<double> costliest_walk_s(const NcclRingPlan& ring, const std::vector<WireChunks>& chunks,
                                       const std::vector<std::pair<int, int>>& pairs,
                                       const std::vector<TransferCost>& costs) {
  const int p = ranks_of(ring), steps = 2 * (p - 1);
  const std::size_t n = pairs.size(), up = static_cast<std::size_t>(p);
  std::vector<double> small(n), large(n);
  for (std::size_t t = 0; t < n; ++t) {
    const WireChunks& w = chunks[t / up];
    small[t] = transfer_end_s(0.0, ring.step_latency_s, costs[t], static_cast<double>(w.small));
    large[t] = transfer_end_s(0.0, ring.step_latency_s, costs[t], static_cast<double>(w.large));
  }
  // The transfers at each rank, to move a walk on.
  std::vector<std::size_t> first(up + 1, 0), at(2 * n);
  for (const auto& [from, to] : pairs) ++first[static_cast<std::size_t>(from) + 1], ++first[static_cast<std::size_t>(to) + 1];
  for (std::size_t r = 0; r < up; ++r) first[r + 1] += first[r];
  std::vector<std::size_t> fill(first.begin(), first.end() - 1);
  for (std::size_t t = 0; t < n; ++t)
    for (int rank : {pairs[t].first, pairs[t].second}) at[fill[static_cast<std::size_t>(rank)]++] = t;
  // Ring c's larger chunks leave places s .. s + L_c - 1 (mod p) in step s: their costliest by a sliding maximum.
  std::vector<double> top_small(chunks.size(), 0.0);
  for (std::size_t t = 0; t < n; ++t) top_small[t / up] = std::max(top_small[t / up], small[t]);
  std::vector<std::deque<std::int64_t>> window(chunks.size());
  std::vector<std::int64_t> next_in(chunks.size(), 0);
  const auto offset = [&](std::size_t t, int s) { return ((static_cast<int>(t % up) - s) % p + p) % p; };
  const auto cost = [&](std::size_t t, int s) { return offset(t, s) < chunks[t / up].large_places ? large[t] : small[t]; };
  std::vector<std::size_t> walks, moved;
  std::vector<int> seen(n, -1);
  double total = 0;
  for (int s = 0; s < steps; ++s) {
    double top = 0;
    for (std::size_t c = 0; c < chunks.size(); ++c) {
      top = std::max(top, top_small[c]);
      const int places = chunks[c].large_places;
      if (places == 0) continue;
      std::deque<std::int64_t>& q = window[c];
      const auto value = [&](std::int64_t i) { return large[c * up + static_cast<std::size_t>(i % p)]; };
      for (; next_in[c] < s + places; ++next_in[c]) {
        while (!q.empty() && value(q.back()) <= value(next_in[c])) q.pop_back();
        q.push_back(next_in[c]);
      }
      while (q.front() < s) q.pop_front();
      top = std::max(top, value(q.front()));
    }
    total += top;
    moved.clear();
    const auto consider = [&](std::size_t t) {
      if (seen[t] == s || !close(cost(t, s), top)) return;
      seen[t] = s;
      moved.push_back(t);
    };
    if (s == 0) {
      for (std::size_t t = 0; t < n; ++t) consider(t);
    } else {
      for (std::size_t t : walks)
        for (int rank : {pairs[t].first, pairs[t].second})
          for (std::size_t i = first[static_cast<std::size_t>(rank)]; i < first[static_cast<std::size_t>(rank) + 1]; ++i) consider(at[i]);
    }
    if (moved.empty()) return std::nullopt;
    // Keep the walks whose transfer stays costliest longest: a smaller chunk that is costliest, then the larger
    // chunks furthest from leaving.
    const auto life = [&](std::size_t t) {
      const int o = offset(t, s);
      return o < chunks[t / up].large_places ? o : p;
    };
    if (moved.size() > kWalks) {
      std::nth_element(moved.begin(), moved.begin() + kWalks, moved.end(),
                       [&](std::size_t x, std::size_t y) { return life(x) > life(y); });
      moved.resize(kWalks);
    }
    walks.swap(moved);
  }
  return total;
}

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
  if (const auto walk = costliest_walk_s(ring, chunks, pairs, costs)) return *walk;
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
