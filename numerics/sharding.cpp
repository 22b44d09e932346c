#include "numerics/sharding.hpp"

#include <cmath>
#include <string>

#include "numerics/random.hpp"
#include "sim/core/error.hpp"

namespace dtsim::numerics {
namespace {

void check_workers(const Dataset& data, int workers) {
  if (workers < 1 || workers > data.size()) {
    throw core::InputError("cannot shard " + std::to_string(data.size()) + " examples over " +
                               std::to_string(workers) + " workers",
                           "1 to " + std::to_string(data.size()) + " workers (one example each at least)");
  }
}

}  // namespace

Shards shard_iid(const Dataset& data, int workers, std::uint64_t seed) {
  check_workers(data, workers);
  compressors::Rng rng(seed);
  const std::vector<std::int64_t> order = permutation(rng, data.size());
  Shards shards(static_cast<std::size_t>(workers));
  for (std::size_t i = 0; i < order.size(); ++i) shards[i % shards.size()].push_back(order[i]);
  return shards;
}

Shards shard_dirichlet(const Dataset& data, int workers, double alpha, std::uint64_t seed) {
  check_workers(data, workers);
  if (!(alpha > 0.0) || !std::isfinite(alpha)) {
    throw core::InputError("Dirichlet alpha " + std::to_string(alpha), "alpha > 0 (small = skewed, large = iid)");
  }
  compressors::Rng rng(seed);
  std::vector<std::vector<std::int64_t>> by_class(static_cast<std::size_t>(data.shape.classes));
  for (const std::int64_t i : permutation(rng, data.size())) {
    by_class[static_cast<std::size_t>(data.labels[static_cast<std::size_t>(i)])].push_back(i);
  }
  Shards shards(static_cast<std::size_t>(workers));
  for (const std::vector<std::int64_t>& members : by_class) {
    const std::vector<double> p = dirichlet(rng, alpha, shards.size());
    double cumulative = 0.0;
    std::size_t begin = 0;
    for (std::size_t w = 0; w < shards.size(); ++w) {
      cumulative += p[w];
      const std::size_t end = w + 1 == shards.size()
                                  ? members.size()
                                  : std::min(members.size(), static_cast<std::size_t>(std::llround(
                                                                 cumulative * static_cast<double>(members.size()))));
      for (std::size_t i = begin; i < end; ++i) shards[w].push_back(members[i]);
      begin = std::max(begin, end);
    }
  }
  for (std::size_t w = 0; w < shards.size(); ++w) {
    if (shards[w].empty()) {
      throw core::InputError("Dirichlet(" + std::to_string(alpha) + ") sharding left worker " + std::to_string(w) +
                                 " without examples",
                             "a larger alpha, fewer workers or more examples");
    }
    shuffle(rng, shards[w]);
  }
  return shards;
}

std::vector<std::int64_t> label_counts(const Dataset& data, std::span<const std::int64_t> shard) {
  std::vector<std::int64_t> counts(static_cast<std::size_t>(data.shape.classes), 0);
  for (const std::int64_t i : shard) ++counts[static_cast<std::size_t>(data.labels[static_cast<std::size_t>(i)])];
  return counts;
}

}  // namespace dtsim::numerics
