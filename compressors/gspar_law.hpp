#pragma once
/// gspar's keep probabilities (compressors/gspar.cpp), shared by its host and device kernels: p_i = 1 where
/// |x_i| >= cap, else lambda |x_i|, at the fixed point of Wangni et al.'s greedy Algorithm 2.
#include <cmath>
#include <cstddef>
#include <span>

#include "compressors/host_device.hpp"

namespace dtsim::compressors {

/// p_i = 1 where |x_i| >= cap, else lambda |x_i| (< 1); lambda = 0 and cap = HUGE_VAL send nothing.
struct GSparLaw {
  double lambda = 0.0;   ///< slope of the uncapped probabilities
  double cap = HUGE_VAL; ///< magnitudes at or above it are kept with probability 1
  /// True when some element can be kept.
  bool sends() const { return lambda > 0.0 || cap < HUGE_VAL; }
};

/// What one pass over the tensor reports for a cap: elements at or above it, and the sum of |x| below it.
struct GSparCapped {
  std::size_t capped = 0;  ///< #{|x_i| >= cap}
  double rest = 0.0;       ///< sum of |x_i| < cap
};

/// The fixed point for expected density `ratio` of n elements whose |x| sum to `total`; pass(cap) gives the
/// GSparCapped of one cap. A total of 0 or not finite sends nothing.
template <class Pass>
GSparLaw gspar_law(double ratio, std::size_t n, double total, Pass pass) {
  const double budget = ratio * static_cast<double>(n);
  GSparLaw law;
  if (!(total > 0.0) || !std::isfinite(total)) return law;
  law.lambda = budget / total;
  std::size_t capped = 0;
  for (;;) {
    // Capping only raises lambda, so the capped set only grows: everything at or above 1 / lambda.
    const double cap = 1.0 / law.lambda;
    const GSparCapped now = pass(cap);
    if (now.capped == capped) return law;
    capped = now.capped;
    law.cap = cap;
    if (!(now.rest > 0.0) || budget <= static_cast<double>(capped)) {  // nothing left to spend on
      law.lambda = 0.0;
      return law;
    }
    law.lambda = (budget - static_cast<double>(capped)) / now.rest;
  }
}

/// The fixed point for the tensor x (compressors/gspar.cpp's passes, in index order).
GSparLaw gspar_law_of(std::span<const float> x, double ratio);

/// The keep probability of magnitude a (as a double) under `law`.
DTSIM_HOST_DEVICE inline double gspar_probability(double a, double lambda, double cap) { return a >= cap ? 1.0 : lambda * a; }

}  // namespace dtsim::compressors
