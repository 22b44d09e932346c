#pragma once
/// Reductions used by the compressors, written with independent partial sums so they vectorise
/// while staying deterministic (the summation order depends only on the length).
#include <span>

namespace dtsim::compressors {

/// Sum of |x_i|, accumulated in double.
double sum_abs(std::span<const float> x);
/// Sum of x_i^2, accumulated in double.
double sum_squares(std::span<const float> x);
/// max |x_i| (NaN elements are ignored; 0 for an empty span).
float max_abs(std::span<const float> x);

/// Sum, sum of squares and max |x| of one tensor.
struct Moments {
  double sum = 0.0;          ///< sum of x_i
  double sum_squares = 0.0;  ///< sum of x_i^2
  float max_abs = 0.0f;      ///< max |x_i|, NaN ignored
};
/// All three in one pass (the sum of squares may differ from sum_squares() in the last bits).
Moments moments(std::span<const float> x);

}  // namespace dtsim::compressors
