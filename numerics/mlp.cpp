#include "numerics/mlp.hpp"

#include <cmath>

#include "numerics/layers.hpp"

namespace dtsim::numerics {

Mlp::Mlp(std::int64_t inputs, std::span<const std::int64_t> hidden, int classes, std::uint64_t seed)
    : layers_(hidden.size() + 1) {
  compressors::Rng rng(seed);
  std::int64_t fan_in = inputs;
  for (std::size_t l = 0; l < layers_; ++l) {
    const bool last = l + 1 == layers_;
    const std::int64_t out = last ? classes : hidden[l];
    const std::string prefix = "fc" + std::to_string(l + 1);
    add_tensor(prefix + ".weight", out, fan_in, std::sqrt((last ? 1.0 : 2.0) / static_cast<double>(fan_in)), rng);
    add_tensor(prefix + ".bias", out, 1, 0.0, rng);
    fan_in = out;
  }
}

void Mlp::forward(const Matrix& x, std::vector<Matrix>& acts) const {
  acts.resize(layers_ + 1);
  acts[0] = x;
  for (std::size_t l = 0; l < layers_; ++l) {
    const TensorInfo& w = tensors()[2 * l];
    dense_forward(acts[l], view(parameters(), w),
                  slice(parameters(), tensors()[2 * l + 1]), acts[l + 1]);
    if (l + 1 < layers_) relu_forward(acts[l + 1]);
  }
}

double Mlp::loss_and_gradient(const Matrix& x, std::span<const int> labels, std::span<float> grad) {
  return backward(x, labels, grad, {});
}

double Mlp::loss_gradient_and_second_moment(const Matrix& x, std::span<const int> labels, std::span<float> grad,
                                            std::span<float> second_moment) {
  return backward(x, labels, grad, second_moment);
}

double Mlp::backward(const Matrix& x, std::span<const int> labels, std::span<float> grad,
                     std::span<float> second_moment) {
  forward(x, acts_);
  const std::span<const float> p = parameters();
  const double loss = softmax_cross_entropy(acts_[layers_], labels, delta_);
  for (std::size_t l = layers_; l-- > 0;) {
    const TensorInfo& w = tensors()[2 * l];
    dense_backward(acts_[l], view(p, w), delta_,
                   view(grad, w), slice(grad, tensors()[2 * l + 1]),
                   l > 0 ? &next_delta_ : nullptr);
    if (!second_moment.empty())
      dense_second_moment(acts_[l], delta_, view(second_moment, w), slice(second_moment, tensors()[2 * l + 1]));
    if (l > 0) {
      relu_backward(acts_[l], next_delta_);
      std::swap(delta_, next_delta_);
    }
  }
  return loss;
}

Matrix Mlp::logits(const Matrix& x) const {
  std::vector<Matrix> acts;
  forward(x, acts);
  return std::move(acts[layers_]);
}

}  // namespace dtsim::numerics
