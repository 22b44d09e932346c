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

/// One collective of a bucket's exchange.
struct Exchange {
  /// allreduce of the configured algorithm; allgather (ring) of every rank's block; gtopk: a binomial-tree
  /// reduce and broadcast in which every message is one top-k payload (merged back to k at each hop).
  enum class Kind { allreduce, allgather, gtopk };
  Kind kind = Kind::allreduce;
  std::int64_t bytes = 0;  ///< all-reduce: the vector; all-gather: each rank's block; gtopk: one payload
  double before_s = 0;     ///< local work before it starts (PowerSGD's orthogonalisation between P and Q)
};

/// What happens to one bucket on the communication stream with gradient compression: compress, the
/// exchanges in order, decompress (and sum, for gathered payloads).
struct BucketWork {
  double compress_s = 0;
  double decompress_s = 0;
  std::vector<Exchange> exchanges;
};

/// Layers in forward order and buckets in launch order (ready_layer non-increasing).
struct IterationPlan {
  std::vector<LayerPhase> layers;
  std::vector<Bucket> buckets;
  std::vector<BucketWork> work;   ///< per bucket; every bucket is one plain all-reduce of its bytes when empty
  std::int64_t credit_bytes = 0;  ///< Scheduler::credit_bytes(): 0 = FIFO and BSP barrier, else priority
};

}  // namespace dtsim::scheduling
