#pragma once
/// Reproducible test gradients.
#include <cmath>
#include <vector>

#include "compressors/compressor.hpp"
#include "compressors/rng.hpp"
#include "compressors/wire.hpp"

namespace dtsim::compressors::testing {

/// n draws of N(0, sigma^2) from `seed`.
inline std::vector<float> gaussian(std::size_t n, std::uint64_t seed, double sigma = 1.0) {
  Rng rng(seed);
  std::vector<float> x(n);
  for (float& v : x) v = static_cast<float>(sigma * rng.normal());
  return x;
}

/// n draws of a Laplace law with unit scale from `seed`.
inline std::vector<float> laplace(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<float> x(n);
  for (float& v : x) {
    const double u = rng.uniform() - 0.5;
    v = static_cast<float>((u < 0 ? 1.0 : -1.0) * std::log(1.0 - 2.0 * std::fabs(u)));
  }
  return x;
}

/// Squared l2 norm in double.
inline double norm2(const std::vector<float>& x) {
  double s = 0.0;
  for (const float v : x) s += static_cast<double>(v) * v;
  return s;
}

/// The int32 indices of a sparse payload (compressors/wire.hpp), in payload order.
inline std::vector<std::int64_t> sparse_indices(const Compressed& msg) {
  const std::size_t c = wire::sparse_count(msg.payload.size(), msg.numel);
  std::vector<std::int64_t> indices(c);
  for (std::size_t i = 0; i < c; ++i) indices[i] = wire::get<std::int32_t>(msg.payload, 4 * i);
  return indices;
}

}  // namespace dtsim::compressors::testing
