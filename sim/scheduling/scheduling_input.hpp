#pragma once
/// What a scheduler may look at: the gradients, when backward produces them, and what a message costs.
#include <vector>

#include "sim/collectives/collective.hpp"
#include "sim/scheduling/bucket.hpp"

namespace dtsim::scheduling {

/// Inputs of one scheduling decision, identical on every worker.
struct SchedulingInput {
  std::vector<GradientTensor> tensors;  ///< registration order
  std::vector<double> backward_end_s;   ///< per layer: when its backward ends, from the start of backward
  collectives::AlphaBeta allreduce;     ///< all-reduce of n bytes costs allreduce.alpha_s + n * beta_s_per_byte
  /// When bucket `b`'s gradients are all ready (and its cycle, if any, has come), from the start of backward.
  double ready_s(const Bucket& b) const;
  /// Cost of one all-reduce of `bytes` in the alpha-beta model.
  double allreduce_s(double bytes) const { return allreduce.alpha_s + bytes * allreduce.beta_s_per_byte; }
};

/// The FIFO model of Shi et al.: buckets in order on one stream, start = max(previous end, ready), end = start
/// + allreduce_s(bytes). Returns when the last bucket ends (0 when there is none), from the start of backward.
double fifo_comm_end_s(const std::vector<Bucket>& buckets, const SchedulingInput& input);

}  // namespace dtsim::scheduling
