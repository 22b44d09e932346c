#pragma once
/// Gradient tensors and the buckets (messages on the wire) a scheduler groups them into.
#include <cstdint>
#include <vector>

namespace dtsim::scheduling {

/// One gradient, in the model's registration (forward) order.
struct GradientTensor {
  int layer = 0;            ///< index of the layer whose backward produces it
  std::int64_t bytes = 0;   ///< gradient size on the wire
};

/// Tensors reduced together by one collective call.
struct Bucket {
  std::vector<int> tensors;  ///< indices into the tensor list
  std::int64_t bytes = 0;    ///< sum of the tensors' bytes
  int ready_layer = 0;       ///< the bucket is ready when this layer's backward ends (its lowest layer)
};

}  // namespace dtsim::scheduling
