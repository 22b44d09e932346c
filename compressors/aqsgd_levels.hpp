#pragma once
/// ALQ's levels (compressors/aqsgd.cpp), shared by its host and device kernels: stochastic rounding of a normalised
/// magnitude r in [0, 1] between adjacent levels 0 = l_0 < l_1 < ... < l_s = 1, and the coordinate descent that
/// moves each level to the minimum of the rounding variance over the empirical distribution of r.
#include <cstdint>
#include <span>
#include <vector>

#include "compressors/host_device.hpp"

namespace dtsim::compressors {

/// The index in 0..s of r rounded between the levels around it with the uniform draw u in [0, 1): up from l_j with
/// probability (r - l_j) / (l_{j+1} - l_j), so E[l_index] = r (unbiased). `levels` holds l_1..l_s (l_s = 1); r
/// above 1 (rounding of |x| / ||x||) counts as 1; NaN gives 0.
DTSIM_HOST_DEVICE inline std::int32_t aqsgd_index(float r, float u, const float* levels, std::int32_t s) {
  if (!(r > 0.0f)) return 0;
  if (r >= 1.0f) return s;
  std::int32_t j = 0;  // r in [l_j, l_{j+1})
  while (j < s && levels[j] <= r) ++j;
  const float lo = j == 0 ? 0.0f : levels[j - 1], hi = levels[j];
  return j + (u < (r - lo) / (hi - lo) ? 1 : 0);
}

/// NUQSGD's exponential levels l_j = 2^(j - s), j = 1..s, ALQ's starting point.
std::vector<float> aqsgd_initial_levels(std::int32_t s);

/// Coordinate descent on l_1..l_{s-1} (l_s = 1 stays): each level in turn moves to the minimiser of
/// sum over r in (l_{j-1}, l_{j+1}) of the variance of its rounding, (l - r)(r - l_{j-1}) or (l_{j+1} - r)(r - l);
/// sweeps until no level moves. `sorted` holds the finite normalised magnitudes in ascending order.
void aqsgd_fit(std::span<const float> sorted, std::vector<float>& levels);

}  // namespace dtsim::compressors
