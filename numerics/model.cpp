#include "numerics/model.hpp"

#include <algorithm>

#include "numerics/cnn.hpp"
#include "numerics/mlp.hpp"
#include "sim/core/error.hpp"

namespace dtsim::numerics {

void Model::add_tensor(std::string name, std::int64_t rows, std::int64_t cols, double std, compressors::Rng& rng) {
  const auto offset = static_cast<std::int64_t>(params_.size());
  tensors_.push_back({std::move(name), offset, rows, cols});
  params_.resize(params_.size() + static_cast<std::size_t>(rows * cols), 0.0f);
  if (std != 0.0) {
    for (std::size_t i = static_cast<std::size_t>(offset); i < params_.size(); ++i) {
      params_[i] = static_cast<float>(std * rng.normal());
    }
  }
}

double Model::loss_gradient_and_second_moment(const Matrix& x, std::span<const int> labels, std::span<float> grad,
                                              std::span<float> second_moment) {
  std::fill(second_moment.begin(), second_moment.end(), 0.0f);
  const auto batch = static_cast<float>(x.rows());
  for (Eigen::Index z = 0; z < x.rows(); ++z) {
    const Matrix example = x.row(z);
    loss_and_gradient(example, labels.subspan(static_cast<std::size_t>(z), 1), grad);
    for (std::size_t i = 0; i < grad.size(); ++i) second_moment[i] += (grad[i] / batch) * (grad[i] / batch);
  }
  return loss_and_gradient(x, labels, grad);
}

namespace {

void check_input(const InputShape& input) {
  if (input.features() <= 0 || input.classes < 2) {
    throw core::InputError("a model needs at least one input feature and two classes",
                           "a data set with features and labels in [0, classes), classes >= 2");
  }
}

std::unique_ptr<Model> make_softmax_regression(const ModelSpec&, const InputShape& input, std::uint64_t seed) {
  check_input(input);
  return std::make_unique<Mlp>(input.features(), std::span<const std::int64_t>(), input.classes, seed);
}

std::unique_ptr<Model> make_mlp(const ModelSpec& spec, const InputShape& input, std::uint64_t seed) {
  check_input(input);
  for (const std::int64_t width : spec.hidden) {
    if (width < 1) {
      throw core::InputError("mlp hidden width " + std::to_string(width) + " is not positive",
                             "hidden widths >= 1 (an empty list is softmax regression)");
    }
  }
  return std::make_unique<Mlp>(input.features(), spec.hidden, input.classes, seed);
}

std::unique_ptr<Model> make_cnn(const ModelSpec& spec, const InputShape& input, std::uint64_t seed) {
  check_input(input);
  if (input.height % 4 != 0 || input.width % 4 != 0 || input.height < 4 || input.width < 4) {
    throw core::InputError("cnn input of " + std::to_string(input.height) + " x " + std::to_string(input.width) +
                               " pixels cannot be pooled twice",
                           "image height and width multiples of 4 (MNIST 28 x 28, CIFAR-10 32 x 32)");
  }
  if (spec.conv1_channels < 1 || spec.conv2_channels < 1) {
    throw core::InputError("cnn convolution channels must be positive", "conv1_channels >= 1, conv2_channels >= 1");
  }
  return std::make_unique<Cnn>(input, spec.conv1_channels, spec.conv2_channels, seed);
}

constexpr ModelEntry kModels[] = {
    {"softmax_regression", "linear layer + softmax cross-entropy", &make_softmax_regression},
    {"mlp", "ReLU multi-layer perceptron (hidden widths)", &make_mlp},
    {"cnn", "conv5x5-ReLU-pool-conv5x5-ReLU-pool-fc", &make_cnn},
};

}  // namespace

std::span<const ModelEntry> model_registry() { return kModels; }

std::unique_ptr<Model> make_model(const ModelSpec& spec, const InputShape& input, std::uint64_t seed) {
  std::vector<std::string> known;
  for (const ModelEntry& entry : kModels) {
    if (entry.name == spec.name) return entry.make(spec, input, seed);
    known.emplace_back(entry.name);
  }
  throw core::unknown_name("model", spec.name, known);
}

}  // namespace dtsim::numerics
