#pragma once
/// Seeded draws built on compressors::Rng from IEEE basic operations only, so shuffles and shards
/// are the same bits everywhere: Fisher-Yates shuffles, Gamma (Marsaglia & Tsang, "A simple method
/// for generating gamma variables", TOMS 2000) and Dirichlet vectors.
#include <cstdint>
#include <span>
#include <vector>

#include "compressors/rng.hpp"

namespace dtsim::numerics {

/// Shuffles `values` in place (Fisher-Yates).
void shuffle(compressors::Rng& rng, std::span<std::int64_t> values);

/// 0, 1, ..., n - 1 in a seeded random order.
std::vector<std::int64_t> permutation(compressors::Rng& rng, std::int64_t n);

/// One Gamma(shape, 1) draw; shape > 0.
double gamma(compressors::Rng& rng, double shape);

/// One Dirichlet(alpha, ..., alpha) vector of `n` proportions summing to 1; alpha > 0.
std::vector<double> dirichlet(compressors::Rng& rng, double alpha, std::size_t n);

}  // namespace dtsim::numerics
