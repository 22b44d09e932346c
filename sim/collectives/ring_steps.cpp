#include "sim/collectives/ring_steps.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"

namespace dtsim::collectives {
namespace {

/// Seconds a hop adds for `bytes`, as transfer_end_s adds them.
double bytes_s(std::int64_t bytes, const TransferCost& hop) {
  return bytes > 0 ? static_cast<double>(bytes) / hop.share_Bps : 0.0;
}

/// How many integers w in [0, n) have w mod q < x (n may be negative).
std::int64_t covered_below(std::int64_t n, std::int64_t q, std::int64_t x) {
  std::int64_t whole = n / q, rest = n % q;
  if (rest < 0) rest += q, --whole;
  return whole * x + std::min(rest, x);
}

/// Doubles equal to a relative 1e-12: hops of one class whose latencies were summed in another order.
bool close(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b)); }

}  // namespace

void ring_steps_replay(const std::vector<TransferCost>& hops, const RingSteps& ring, std::vector<double>& ready) {
  const std::size_t q = hops.size();
  DTSIM_CHECK(q >= 1 && ready.size() == q && ring.large_places >= 0 && static_cast<std::size_t>(ring.large_places) < q,
              "a ring needs a time per place and fewer larger chunks than places");
  if (q == 1) return;
  std::vector<double> x_small(q), x_large(q), latency(q), end(q);
  for (std::size_t r = 0; r < q; ++r) {
    x_small[r] = bytes_s(ring.small_bytes, hops[r]);
    x_large[r] = bytes_s(ring.large_bytes, hops[r]);
    latency[r] = hops[r].latency_s;
  }
  // Places from .. to-1 (to <= q) end at max(ready[r], ready[r + 1]) + 0 + latency + bytes / share, as
  // transfer_end_s; the loop without the wrap-around is plain arrays, which the compiler vectorises.
  auto ends = [&](std::size_t from, std::size_t to, const std::vector<double>& x) {
    const std::size_t stop = std::min(to, q - 1);
    for (std::size_t r = from; r < stop; ++r) end[r] = std::max(ready[r], ready[r + 1]) + 0.0 + latency[r] + x[r];
    if (to == q) end[q - 1] = std::max(ready[q - 1], ready[0]) + 0.0 + latency[q - 1] + x[q - 1];
  };
  const auto extra = static_cast<std::size_t>(ring.large_places);
  const auto qi = static_cast<std::int64_t>(q);
  for (int s = 0; s < ring.steps; ++s) {
    // The larger chunks leave a circular range of places from offset + s.
    const auto first_large = static_cast<std::size_t>(((ring.offset + s) % qi + qi) % qi);
    const std::size_t last_large = first_large + extra;  // exclusive, may pass q
    ends(0, q, x_small);
    ends(first_large, std::min(last_large, q), x_large);
    if (last_large > q) ends(0, last_large - q, x_large);
    ready[0] = std::max(end[0], end[q - 1]);
    for (std::size_t r = 1; r < q; ++r) ready[r] = std::max(end[r], end[r - 1]);
  }
}

std::optional<double> ring_steps_closed_form_s(const std::vector<TransferCost>& hops, const RingSteps& ring) {
  const std::size_t q = hops.size();
  if (q < 2 || ring.steps <= 0) return q >= 1 ? std::optional<double>(0.0) : std::nullopt;
  const double steps = ring.steps;
  // a: a hop's cost with the smaller chunk; d: what the larger chunk adds.
  std::vector<double> a(q), d(q);
  for (std::size_t e = 0; e < q; ++e) {
    a[e] = 0.0 + hops[e].latency_s + bytes_s(ring.small_bytes, hops[e]);
    d[e] = (0.0 + hops[e].latency_s + bytes_s(ring.large_bytes, hops[e])) - a[e];
  }
  const double top = *std::max_element(a.begin(), a.end());
  if (ring.large_places == 0) return steps * top;
  const auto costliest = [&](std::size_t e) { return close(a[e], top); };
  const std::size_t count = static_cast<std::size_t>(std::count_if(a.begin(), a.end(), [&](double x) { return close(x, top); }));
  double d_min = INFINITY, d_max = 0;
  for (std::size_t e = 0; e < q; ++e)
    if (costliest(e)) d_min = std::min(d_min, d[e]), d_max = std::max(d_max, d[e]);
  if (!close(d_min, d_max)) return std::nullopt;
  if (count == q) return steps * (top + d_max);  // every hop alike: a walk moving on with a larger chunk
  for (std::size_t e = 0; e < q; ++e)
    if (costliest(e) && costliest((e + 1) % q)) return std::nullopt;
  // The steps the larger chunks cross hop e: w = e - offset - s over s < steps, w mod q < large_places.
  const auto qi = static_cast<std::int64_t>(q), x = static_cast<std::int64_t>(ring.large_places);
  const auto covered = [&](std::int64_t e) {
    const std::int64_t w = e - ring.offset;
    return covered_below(w + 1, qi, x) - covered_below(w + 1 - ring.steps, qi, x);
  };
  const std::int64_t most = (ring.steps / qi) * x + std::min<std::int64_t>(ring.steps % qi, x);  // B
  double best = -INFINITY, gap = INFINITY;
  std::int64_t crossed = 0;  // C
  for (std::size_t e = 0; e < q; ++e) {
    if (!costliest(e)) {
      gap = std::min(gap, top - (a[e] + d[e]));
      continue;
    }
    const std::int64_t c = covered(static_cast<std::int64_t>(e));
    crossed = std::max(crossed, c);
    best = std::max(best, steps * a[e] + static_cast<double>(c) * d[e]);
  }
  if (gap < static_cast<double>(3 + most - crossed) * d_max) return std::nullopt;
  return best;
}

double ring_steps_time_s(const std::vector<TransferCost>& hops, const RingSteps& ring) {
  if (const auto closed = ring_steps_closed_form_s(hops, ring)) return *closed;
  std::vector<double> ready(hops.size(), 0.0);
  ring_steps_replay(hops, ring, ready);
  return *std::max_element(ready.begin(), ready.end());
}

}  // namespace dtsim::collectives
