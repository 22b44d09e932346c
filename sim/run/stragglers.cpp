#include "sim/run/stragglers.hpp"

#include <algorithm>
#include <cmath>

#include "compressors/rng.hpp"

namespace dtsim::run {

Slowdown slowdown_of(const scenario::Stragglers& s) {
  if (!s.enabled()) return {};
  return [s](int w, int i) {
    const bool slow = std::find(s.slow_workers.begin(), s.slow_workers.end(), w) != s.slow_workers.end();
    compressors::Rng rng(compressors::stream_seed(s.seed, static_cast<std::uint64_t>(w), static_cast<std::uint64_t>(i)));
    double factor = slow ? s.slow_factor : 1.0;
    if (s.noise == "lognormal") factor *= std::exp(s.noise_scale * rng.normal());
    if (s.noise == "exponential") factor *= 1.0 - s.noise_scale * compressors::portable_log(1.0 - rng.uniform());
    return factor;
  };
}

}  // namespace dtsim::run
