#include "sim/collectives/ring_allreduce.hpp"

#include "sim/collectives/chunking.hpp"
#include "sim/core/error.hpp"

namespace dtsim::collectives {

Schedule RingAllreduce::plan(const Group& group, std::int64_t bytes) const {
  const int ranks = group.ranks;
  DTSIM_CHECK(ranks >= 1 && bytes >= 0, "ring all-reduce needs at least one rank and a non-negative size");
  Schedule schedule{ranks, {}};
  if (ranks == 1) return schedule;
  const auto chunk = [&](int c) { return chunk_bytes(bytes, ranks, ((c % ranks) + ranks) % ranks); };
  for (int phase = 0; phase < 2; ++phase) {
    for (int s = 0; s < ranks - 1; ++s) {
      Step step;
      step.transfers.reserve(static_cast<std::size_t>(ranks));
      for (int r = 0; r < ranks; ++r) {
        const int c = phase == 0 ? r - s : r + 1 - s;
        step.transfers.push_back({r, (r + 1) % ranks, chunk(c)});
      }
      schedule.steps.push_back(std::move(step));
    }
  }
  return schedule;
}

double RingAllreduce::closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const {
  if (group.ranks <= 1) return 0.0;
  const double p = group.ranks;
  const AlphaBeta link = group.nodes() > 1 ? costs.inter : costs.intra;
  return 2.0 * (p - 1) * link.alpha_s + 2.0 * (p - 1) / p * bytes * link.beta_s_per_byte;
}

}  // namespace dtsim::collectives
