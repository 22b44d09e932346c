#pragma once
/// Gaussian-k's threshold (compressors/gaussiank.cpp), shared by its host and device kernels: the normal fit
/// mu + z sigma from the sums of a tensor, then up to three rounds of halving or raising it by half until the
/// count above it lies in [2k/3, 4k/3].
#include <cstddef>
#include <cstdint>

namespace dtsim::compressors {

/// z = Phi^-1(1 - ratio / 2).
double gaussiank_z(double ratio);

/// mu + z sigma (sigma with n - 1 in the denominator) of a tensor of n > 0 elements with these sums.
float gaussiank_fit(double sum, double sum_squares, std::size_t n, double z);

/// The threshold the selection uses, from the fit `tau`: count(t) gives #{|x| > t}.
template <class Count>
float gaussiank_threshold(float tau, std::size_t k, Count count) {
  float used = tau;  // the selection uses the last threshold counted, as the reference's loop does
  for (int loop = 0; loop < 3; ++loop) {
    used = tau;
    const std::size_t c = count(used);
    if (3 * c < 2 * k) {
      tau = used * 0.5f;
    } else if (3 * c > 4 * k) {
      tau = used * 1.5f;
    } else {
      break;
    }
  }
  return used;
}

}  // namespace dtsim::compressors
