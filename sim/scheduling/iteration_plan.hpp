#pragma once
/// What one worker does in one iteration: per-layer compute phases and the buckets it communicates.
#include <string>
#include <vector>

#include "sim/scheduling/bucket.hpp"

namespace dtsim::scheduling {

/// Compute times of one layer (forward order).
struct LayerPhase {
  std::string name;
  double forward_s = 0;
  double backward_s = 0;
  double update_s = 0;
};

/// Layers in forward order and buckets in launch order (ready_layer non-increasing).
struct IterationPlan {
  std::vector<LayerPhase> layers;
  std::vector<Bucket> buckets;
};

}  // namespace dtsim::scheduling
