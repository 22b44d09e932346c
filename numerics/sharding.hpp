#pragma once
/// Splitting a training set across W workers: iid (a seeded shuffle dealt round-robin) or
/// non-iid label skew, where each class is divided among the workers in Dirichlet(alpha)
/// proportions (Hsu et al., "Measuring the effects of non-identical data distribution for
/// federated visual classification", 2019). Small alpha = strong skew; large alpha -> iid.
#include <cstdint>
#include <span>
#include <vector>

#include "numerics/dataset.hpp"

namespace dtsim::numerics {

/// Example indices (rows of the training set) of each worker.
using Shards = std::vector<std::vector<std::int64_t>>;

/// Shuffles the examples with `seed` and deals them to `workers` shards of equal size (+-1).
Shards shard_iid(const Dataset& data, int workers, std::uint64_t seed);

/// Splits every class among `workers` in Dirichlet(alpha) proportions drawn with `seed`;
/// InputError when alpha <= 0 or a worker ends up without examples.
Shards shard_dirichlet(const Dataset& data, int workers, double alpha, std::uint64_t seed);

/// Examples of each class (size classes) in `shard`.
std::vector<std::int64_t> label_counts(const Dataset& data, std::span<const std::int64_t> shard);

}  // namespace dtsim::numerics
