#pragma once
/// What one worker does in one iteration: per-layer compute phases and the buckets it communicates.
#include <cstdint>
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
  std::int64_t credit_bytes = 0;  ///< Scheduler::credit_bytes(): 0 = FIFO and BSP barrier, else priority
};

}  // namespace dtsim::scheduling
