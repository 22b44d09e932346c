#pragma once
/// Multi-layer perceptron with ReLU hidden layers and a linear output; with no hidden layer it is
/// softmax regression. Tensors "fc1.weight", "fc1.bias", ..., weights N(0, 2/fan_in) (He et al.,
/// ICCV 2015), output layer N(0, 1/fan_in), biases 0.
#include "numerics/model.hpp"

namespace dtsim::numerics {

/// A ReLU MLP (softmax regression when `hidden` is empty).
class Mlp final : public Model {
 public:
  /// inputs -> hidden[0] -> ... -> classes, initialised from `seed`.
  Mlp(std::int64_t inputs, std::span<const std::int64_t> hidden, int classes, std::uint64_t seed);
  /// "softmax_regression" without hidden layers, else "mlp".
  std::string_view name() const override { return layers_ == 1 ? "softmax_regression" : "mlp"; }
  /// An independent copy.
  std::unique_ptr<Model> clone() const override { return std::make_unique<Mlp>(*this); }
  /// Forward and backward on one mini-batch.
  double loss_and_gradient(const Matrix& x, std::span<const int> labels, std::span<float> grad) override;
  /// Forward and backward, the per-example second moment in closed form (dense_second_moment).
  double loss_gradient_and_second_moment(const Matrix& x, std::span<const int> labels, std::span<float> grad,
                                         std::span<float> second_moment) override;
  /// Class scores.
  Matrix logits(const Matrix& x) const override;

 private:
  void forward(const Matrix& x, std::vector<Matrix>& acts) const;
  double backward(const Matrix& x, std::span<const int> labels, std::span<float> grad, std::span<float> second_moment);

  std::size_t layers_;
  std::vector<Matrix> acts_;
  Matrix delta_, next_delta_;
};

}  // namespace dtsim::numerics
