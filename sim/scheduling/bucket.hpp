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

/// Bytes of tensors reduced together by one collective call.
struct Bucket {
  std::vector<int> tensors;  ///< indices into the tensor list (a partitioned tensor appears in several buckets)
  std::int64_t bytes = 0;    ///< bytes on the wire
  int ready_layer = 0;       ///< ready when this layer's backward ends (its lowest layer)
  double not_before_s = 0;   ///< and not before this time after backward starts (Horovod's cycle)
  /// The framework's work on the communication stream before the exchange (Horovod's negotiation, the copies
  /// into the flat buffer) and after it (the copies out): sim/scheduling/framework.hpp. 0: none.
  double framework_before_s = 0;
  double framework_after_s = 0;
};

}  // namespace dtsim::scheduling
