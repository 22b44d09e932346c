#pragma once
/// A trainable classifier: its parameters as named tensors in one flat buffer, forward + backward of
/// the mean cross-entropy on a mini-batch, and a registry of the models numerics mode can train.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compressors/rng.hpp"
#include "numerics/dataset.hpp"

namespace dtsim::numerics {

/// One named parameter tensor: `rows x cols` values (row-major) at `offset` in the flat buffer.
struct TensorInfo {
  std::string name;         ///< e.g. "fc1.weight"
  std::int64_t offset = 0;  ///< first element in Model::parameters()
  std::int64_t rows = 0;    ///< 2-D view for compressors (PowerSGD, onebit): output units
  std::int64_t cols = 0;    ///< 2-D view: inputs per output unit (1 for biases)
  /// Number of elements.
  std::int64_t numel() const { return rows * cols; }
};

/// A classifier with parameters and gradients laid out as `tensors()` in one flat float buffer.
class Model {
 public:
  virtual ~Model() = default;
  /// Registry name ("softmax_regression", "mlp", "cnn").
  virtual std::string_view name() const = 0;
  /// An independent copy (parameters included).
  virtual std::unique_ptr<Model> clone() const = 0;
  /// Mean cross-entropy of `x` (one example per row) against `labels`; writes d loss / d parameters
  /// to `grad` (size parameters().size(), layout of tensors()).
  virtual double loss_and_gradient(const Matrix& x, std::span<const int> labels, std::span<float> grad) = 0;
  /// Class scores (examples x classes) of `x`.
  virtual Matrix logits(const Matrix& x) const = 0;
  /// As loss_and_gradient, and writes to `second_moment` (layout of tensors()) each parameter's sum over the B
  /// examples z of (g_z / B)^2, g_z the gradient of example z's loss (what Compressor::observe_second_moment takes):
  /// exact, by one backward pass per example unless the model has a closed form.
  virtual double loss_gradient_and_second_moment(const Matrix& x, std::span<const int> labels, std::span<float> grad,
                                                 std::span<float> second_moment);

  /// The parameter tensors, in buffer order.
  std::span<const TensorInfo> tensors() const { return tensors_; }
  /// Every parameter, flat.
  std::span<float> parameters() { return params_; }
  /// Every parameter, flat (read-only).
  std::span<const float> parameters() const { return params_; }
  /// The elements of tensor `t` inside a buffer laid out like parameters().
  template <class T>
  static std::span<T> slice(std::span<T> flat, const TensorInfo& t) {
    return flat.subspan(static_cast<std::size_t>(t.offset), static_cast<std::size_t>(t.numel()));
  }

 protected:
  /// Appends a rows x cols tensor drawn from N(0, std^2) (zeros when std == 0).
  void add_tensor(std::string name, std::int64_t rows, std::int64_t cols, double std, compressors::Rng& rng);

 private:
  std::vector<TensorInfo> tensors_;
  std::vector<float> params_;
};

/// Architecture of a model; fields a model does not use are ignored.
struct ModelSpec {
  std::string name = "mlp";                   ///< registry name
  std::vector<std::int64_t> hidden = {128};   ///< mlp: hidden layer widths (ReLU)
  std::int64_t conv1_channels = 8;            ///< cnn: output channels of the first 5x5 convolution
  std::int64_t conv2_channels = 16;           ///< cnn: output channels of the second 5x5 convolution
};

/// One registered model: name, description, factory.
struct ModelEntry {
  std::string_view name;     ///< registry (TOML) name
  std::string_view summary;  ///< one line for docs and error messages
  std::unique_ptr<Model> (*make)(const ModelSpec& spec, const InputShape& input, std::uint64_t seed);  ///< factory
};

/// Every registered model.
std::span<const ModelEntry> model_registry();

/// Builds model `spec.name` for `input`, initialised from `seed`; InputError on unknown names or sizes.
std::unique_ptr<Model> make_model(const ModelSpec& spec, const InputShape& input, std::uint64_t seed);

}  // namespace dtsim::numerics
