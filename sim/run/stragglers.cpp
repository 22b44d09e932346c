#include "sim/run/stragglers.hpp"

#include <algorithm>
#include <cmath>

#include "compressors/rng.hpp"

namespace dtsim::run {

Slowdown slowdown_of(const scenario::Stragglers& s, int workers, int iterations) {
  if (!s.enabled()) return {};
  Slowdown slowdown(static_cast<std::size_t>(workers), std::vector<double>(static_cast<std::size_t>(iterations), 1.0));
  for (int w = 0; w < workers; ++w) {
    const bool slow = std::find(s.slow_workers.begin(), s.slow_workers.end(), w) != s.slow_workers.end();
    for (int i = 0; i < iterations; ++i) {
      compressors::Rng rng(compressors::stream_seed(s.seed, static_cast<std::uint64_t>(w), static_cast<std::uint64_t>(i)));
      double factor = slow ? s.slow_factor : 1.0;
      if (s.noise == "lognormal") factor *= std::exp(s.noise_scale * rng.normal());
      if (s.noise == "exponential") factor *= 1.0 - s.noise_scale * compressors::portable_log(1.0 - rng.uniform());
      slowdown[static_cast<std::size_t>(w)][static_cast<std::size_t>(i)] = factor;
    }
  }
  return slowdown;
}

}  // namespace dtsim::run
