#include "sim/collectives/ring_allreduce.hpp"

#include <utility>

#include "sim/collectives/chunking.hpp"
#include "sim/collectives/ring_steps.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/core/error.hpp"

namespace dtsim::collectives {

Schedule ring_allreduce_plan(const std::vector<std::vector<int>>& rings, int ranks, std::int64_t bytes) {
  DTSIM_CHECK(ranks >= 1 && bytes >= 0 && !rings.empty(), "ring all-reduce needs a ring, a rank and a size >= 0");
  Schedule schedule{ranks, {}};
  if (ranks == 1) return schedule;
  const int channels = static_cast<int>(rings.size());
  for (int phase = 0; phase < 2; ++phase) {
    for (int s = 0; s < ranks - 1; ++s) {
      Step step;
      step.transfers.reserve(static_cast<std::size_t>(ranks * channels));
      for (int c = 0; c < channels; ++c) {
        const std::vector<int>& ring = rings[static_cast<std::size_t>(c)];
        DTSIM_CHECK(static_cast<int>(ring.size()) == ranks, "a ring must visit every rank once");
        const std::int64_t share = chunk_bytes(bytes, channels, c);
        for (int r = 0; r < ranks; ++r) {
          const int k = ((phase == 0 ? r - s : r + 1 - s) % ranks + ranks) % ranks;
          step.transfers.push_back({ring[static_cast<std::size_t>(r)], ring[static_cast<std::size_t>((r + 1) % ranks)],
                                    chunk_bytes(share, ranks, k)});
        }
      }
      schedule.steps.push_back(std::move(step));
    }
  }
  return schedule;
}

Schedule RingAllreduce::plan(const Group& group, std::int64_t bytes) const {
  DTSIM_CHECK(group.ranks >= 1, "ring all-reduce needs at least one rank");
  std::vector<int> order(static_cast<std::size_t>(group.ranks));
  for (int r = 0; r < group.ranks; ++r) order[static_cast<std::size_t>(r)] = r;
  return ring_allreduce_plan({order}, group.ranks, bytes);
}

std::optional<std::vector<FusedStep>> RingAllreduce::fused_plan(const Group& group, std::int64_t bytes) const {
  const int ranks = group.ranks;
  DTSIM_CHECK(ranks >= 1 && bytes >= 0, "ring all-reduce needs at least one rank and a non-negative size");
  std::vector<FusedStep> fused;
  if (ranks == 1) return fused;
  FusedStep& step = fused.emplace_back();
  step.steps = 2 * (ranks - 1);
  step.transfers.reserve(static_cast<std::size_t>(ranks));
  const auto chunk = [&](int c) { return chunk_bytes(bytes, ranks, c % ranks); };
  for (int r = 0; r < ranks; ++r) step.transfers.push_back({r, (r + 1) % ranks, 2 * bytes - chunk(r + 1) - chunk(r + 2)});
  return fused;
}

std::optional<double> RingAllreduce::plan_time_s(const Group& group, std::int64_t bytes,
                                                 const core::PathModel& network) const {
  const int ranks = group.ranks;
  DTSIM_CHECK(ranks >= 1 && bytes >= 0, "ring all-reduce needs at least one rank and a non-negative size");
  if (ranks == 1) return 0.0;
  std::vector<std::pair<int, int>> hops;
  hops.reserve(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) hops.emplace_back(r, (r + 1) % ranks);
  // Sender r sends chunk (r - s) mod p in reduce-scatter step s and (r + 1 - s') mod p in all-gather step s' =
  // s - (p - 1): the larger chunks 0 .. bytes % p - 1 leave senders s .. in both.
  const std::int64_t small = chunk_bytes(bytes, ranks, ranks - 1);
  return ring_steps_time_s(pair_costs(hops, network),
                           {2 * (ranks - 1), small, small + 1, static_cast<int>(bytes % ranks), 0});
}

double RingAllreduce::closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const {
  if (group.ranks <= 1) return 0.0;
  const double p = group.ranks;
  const AlphaBeta link = group.nodes() > 1 ? costs.inter : costs.intra;
  return 2.0 * (p - 1) * link.alpha_s + 2.0 * (p - 1) / p * bytes * link.beta_s_per_byte;
}

}  // namespace dtsim::collectives
