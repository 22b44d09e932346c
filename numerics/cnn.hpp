#pragma once
/// A small LeNet-style CNN (LeCun et al., "Gradient-based learning applied to document
/// recognition", Proc. IEEE 1998):
///   x (C x H x W) -> conv1 5x5 pad 2 -> ReLU -> max-pool 2x2 -> conv2 5x5 pad 2 -> ReLU
///     -> max-pool 2x2 -> fc (K2 * H/4 * W/4 -> classes)
/// Convolutions are im2col + GEMM; tensors "conv1.weight" (K1 x C*25), "conv1.bias", "conv2.weight"
/// (K2 x K1*25), "conv2.bias", "fc.weight", "fc.bias"; He initialisation, biases 0.
#include "numerics/model.hpp"

namespace dtsim::numerics {

/// The two-convolution CNN; H and W must be multiples of 4.
class Cnn final : public Model {
 public:
  /// Builds the network for `input` with `conv1` and `conv2` channels, initialised from `seed`.
  Cnn(const InputShape& input, std::int64_t conv1, std::int64_t conv2, std::uint64_t seed);
  /// "cnn".
  std::string_view name() const override { return "cnn"; }
  /// An independent copy.
  std::unique_ptr<Model> clone() const override { return std::make_unique<Cnn>(*this); }
  /// Forward and backward on one mini-batch.
  double loss_and_gradient(const Matrix& x, std::span<const int> labels, std::span<float> grad) override;
  /// Class scores.
  Matrix logits(const Matrix& x) const override;

 private:
  struct Activations {
    Matrix r1, p1, r2, p2, out;
    std::vector<std::int32_t> arg1, arg2;
  };
  void forward(const Matrix& x, Activations& a) const;

  InputShape input_;
  std::int64_t k1_, k2_;
  Activations acts_;
  Matrix dlogits_, dp2_, dr2_, dp1_, dr1_;
};

}  // namespace dtsim::numerics
