#pragma once
/// A DNN as the simulator sees it: layers (modules) in forward order, each owning parameter tensors.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::models {

/// One parameter tensor with its exact shape (as in the reference framework).
struct Tensor {
  std::string name;
  std::vector<std::int64_t> shape;
  /// Number of elements (product of the shape).
  std::int64_t numel() const;
};

/// Measured per-iteration times of one layer (user tables); they bypass the roofline model.
struct MeasuredTime {
  double forward_s = 0;
  double backward_s = 0;
};

/// One module, in forward order. Its backward produces the gradients of all its tensors at once.
struct Layer {
  std::string name;
  std::vector<Tensor> tensors;           ///< parameters; empty for parameter-free modules
  double forward_flops = 0;              ///< per sample
  std::int64_t input_elements = 0;       ///< activations read per sample (memory roofline)
  std::int64_t output_elements = 0;      ///< activations written per sample (memory roofline)
  std::optional<MeasuredTime> measured;  ///< set by user tables with measured times
  /// Sum of the tensors' element counts.
  std::int64_t parameter_count() const;
};

/// A whole model: name, where its numbers come from, and its layers in forward order.
struct Model {
  std::string name;
  std::string source;  ///< reference implementation the shapes follow (e.g. "torchvision 0.15 resnet50")
  std::vector<Layer> layers;
  /// Total parameters over all layers.
  std::int64_t parameter_count() const;
  /// Number of parameter tensors (gradient messages under WFBP).
  std::int64_t tensor_count() const;
  /// Forward FLOPs per sample.
  double forward_flops() const;
};

}  // namespace dtsim::models
