#pragma once
/// Straggler models: how much slower each worker computes in each iteration.
#include "sim/run/timeline.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::run {

/// slowdown[w][i] = (slow_factor if w is a slow worker, else 1) x noise, where the noise of (w, i) comes from
/// its own stream of the seed: exp(scale N(0,1)) (lognormal) or 1 + Exp(scale) (exponential tail).
/// Empty when no worker is slowed. Same seed, same factors, for any number of iterations.
Slowdown slowdown_of(const scenario::Stragglers& stragglers);

}  // namespace dtsim::run
