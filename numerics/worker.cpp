#include "numerics/worker.hpp"

#include "numerics/random.hpp"

namespace dtsim::numerics {

Worker::Worker(const Model& replica, const OptimizerConfig& optimizer_config, Dataset examples, std::uint64_t seed)
    : model(replica.clone()),
      optimizer(make_optimizer(optimizer_config)),
      grad(replica.parameters().size()),
      shard_(std::move(examples)),
      rng_(seed),
      order_(permutation(rng_, shard_.size())) {}

double Worker::gradient(Model& at, std::int64_t size) {
  batch_.resize(size, shard_.features.cols());
  labels_.resize(static_cast<std::size_t>(size));
  for (std::int64_t b = 0; b < size; ++b, ++cursor_) {
    if (cursor_ == order_.size()) {
      shuffle(rng_, order_);
      cursor_ = 0;
    }
    batch_.row(b) = shard_.features.row(order_[cursor_]);
    labels_[static_cast<std::size_t>(b)] = shard_.labels[static_cast<std::size_t>(order_[cursor_])];
  }
  return second_moment.empty() ? at.loss_and_gradient(batch_, labels_, grad)
                               : at.loss_gradient_and_second_moment(batch_, labels_, grad, second_moment);
}

}  // namespace dtsim::numerics
