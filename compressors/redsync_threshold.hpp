#pragma once
/// RedSync's threshold search (compressors/redsync.cpp), shared by its host and device kernels: a threshold
/// mean|x| + ratio (max|x| - mean|x|) between the mean and the maximum magnitude, moved until about k elements
/// pass. `count(key)` gives #{magnitude_key(x) > key} (NaN counts as above every threshold, as top-k ranks it).
#include <cstddef>
#include <cstdint>

#include "compressors/element_codecs.hpp"

namespace dtsim::compressors {

/// The magnitude key of mean + ratio (max - mean), rounded to fp32.
inline std::int32_t redsync_key(double mean, float max, double ratio) {
  return magnitude_key(float_bits(static_cast<float>(mean + ratio * (static_cast<double>(max) - mean))));
}

/// Trimmed top-k (Algorithm 1): ratio = 1 - eps, 1 - 2 eps, ... 0 with eps = 0.2 until at least k pass; the
/// key the candidates lie above, or -1 (every element a candidate) when even the mean passes fewer than k.
template <class Count>
std::int32_t redsync_trimmed_key(double mean, float max, std::size_t k, Count count) {
  constexpr int kSteps = 5;  // eps = 1 / kSteps = 0.2, the paper's value
  for (int j = kSteps - 1; j >= 0; --j) {
    const std::int32_t key = redsync_key(mean, max, static_cast<double>(j) / kSteps);
    if (static_cast<std::size_t>(count(key)) >= k) return key;
  }
  return -1;
}

/// Threshold binary search (Algorithm 2): bisection of ratio in [0, 1] until k <= count <= 2k (that midpoint's
/// key), or until the fp32 threshold can no longer move (the midpoint rounds to an end's): then the lower end's,
/// which passes more than 2k (or is the mean's, never counted).
template <class Count>
std::int32_t redsync_search_key(double mean, float max, std::size_t k, Count count) {
  double lo = 0.0, hi = 1.0;
  std::int32_t lo_key = redsync_key(mean, max, lo), hi_key = redsync_key(mean, max, hi);
  for (;;) {
    const double mid = 0.5 * (lo + hi);
    const std::int32_t key = redsync_key(mean, max, mid);
    if (key == lo_key || key == hi_key) return lo_key;
    const auto c = static_cast<std::size_t>(count(key));
    if (c >= k && c <= 2 * k) return key;
    if (c < k) {
      hi = mid;
      hi_key = key;
    } else {
      lo = mid;
      lo_key = key;
    }
  }
}

}  // namespace dtsim::compressors
