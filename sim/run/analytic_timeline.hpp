#pragma once
/// The `analytic` level: the iteration recurrence in closed form, no SimGrid.
#include <vector>

#include "sim/collectives/rank_traffic.hpp"
#include "sim/run/stragglers.hpp"
#include "sim/scheduling/iteration_plan.hpp"
#include "sim/sync/sync_policy.hpp"

namespace dtsim::run {

/// Closed-form cost of one bucket's collectives and the bytes each rank moves for them.
struct BucketCost {
  double compress_s = 0;    ///< before the exchanges, on the communication stream
  double time_s = 0;        ///< the exchanges
  double decompress_s = 0;  ///< after them
  std::int64_t payload_bytes = 0;  ///< sum of the exchanges' sizes (vector, or each rank's block)
  std::vector<collectives::RankTraffic> traffic;  ///< indexed by rank
};

/// BSP iterations with one FIFO communication stream per worker (Shi et al.'s WFBP recurrence):
///   issued[b] = max(end of backward of bucket b's ready layer, backward start + not_before)
///   start[b] = max(end[b-1], issued[b] + launch),  end[b] = start[b] + cost[b]
/// The next iteration starts after the last bucket and the optimizer step.
/// FIFO schedulers only (plan.credit_bytes == 0).
/// Trace events are recorded for workers below `trace_workers` only. With `slowdown`, each worker's compute
/// phases stretch by its factor and a bucket's collective starts when the last worker has the bucket ready.
/// Iterations that `sync` does not exchange in (local SGD) have no buckets. `overlap`: the launch cost, and the
/// slowdown of a worker's backward while its exchanges run (from its own start of the exchange to the end);
/// backward is computed layer by layer as far as each bucket needs, so the spans it overlaps are known.
Timeline analytic_timeline(const scheduling::IterationPlan& plan, const std::vector<BucketCost>& costs, int workers,
                           int iterations, int trace_workers, const sync::SyncPolicy& sync = {},
                           const Slowdown& slowdown = {}, const CommOverlap& overlap = {});

}  // namespace dtsim::run
