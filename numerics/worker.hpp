#pragma once
/// One simulated worker of numerics mode: its model replica, optimizer, compressor (under error feedback)
/// and data shard, read in mini-batches reshuffled after every pass.
#include <cstdint>
#include <memory>
#include <vector>

#include "compressors/compressor.hpp"
#include "compressors/rng.hpp"
#include "numerics/model.hpp"
#include "numerics/optimizer.hpp"

namespace dtsim::numerics {

/// A worker's state; the Trainer decides how the workers' updates meet.
struct Worker {
  /// A replica of `replica` with its own optimizer, training on `examples` in the order drawn from `seed`.
  Worker(const Model& replica, const OptimizerConfig& optimizer_config, Dataset examples, std::uint64_t seed);

  /// Draws the next mini-batch of `size` examples and writes the gradient of `at` on it to `grad` (and its
  /// per-example second moment to `second_moment` when that is sized); returns the mini-batch loss. `at` is the
  /// replica, or a stale copy of the model (ssp).
  double gradient(Model& at, std::int64_t size);

  std::unique_ptr<Model> model;                        ///< the replica gradients are computed on
  std::unique_ptr<Optimizer> optimizer;                ///< applies this worker's updates to `model`
  std::unique_ptr<compressors::Compressor> compressor; ///< null without compression
  std::vector<float> grad;                             ///< the last mini-batch gradient, layout of model
  std::vector<float> second_moment;                    ///< its per-example second moment (if the compressor wants it)
  std::vector<float> push_sum;                         ///< SGP: the push-sum numerator x_i (model = x_i / weight)
  double weight = 1.0;                                 ///< SGP: the push-sum weight w_i

 private:
  Dataset shard_;
  compressors::Rng rng_;
  std::vector<std::int64_t> order_;
  std::size_t cursor_ = 0;
  Matrix batch_;
  std::vector<int> labels_;
};

}  // namespace dtsim::numerics
