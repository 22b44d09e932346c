#pragma once
/// The simulated levels on SimGrid: `message` (every point-to-point message of every collective step) and
/// `flow` (consecutive steps with the same flow pattern fused into one, see flow_steps).
#include <memory>
#include <vector>

#include "sim/actors/rank_steps.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/platform/platform_spec.hpp"
#include "sim/run/timeline.hpp"
#include "sim/scheduling/iteration_plan.hpp"

namespace dtsim::actors {

/// Runs the plans one after another on `platform` (ranks on its first hosts; all ranks start each plan
/// together) and returns each one's time. `fuse` selects the flow level. Creates the process's one SimGrid
/// engine: call at most once per process.
std::vector<double> simulate_schedules_s(const platform::PlatformSpec& platform,
                                         const std::vector<collectives::Schedule>& schedules, bool fuse);

/// Runs `iterations` iterations of `plan` on `workers` ranks placed on the first hosts of `platform`.
/// Each worker has a compute actor (forward, backward, update replayed with sleep_for). With a FIFO plan
/// (credit_bytes == 0) a communication actor per worker executes each bucket's collective step by step, in
/// order, once ready and not before its cycle, and the update waits for all buckets (BSP). With a credit,
/// a bucket is queued once every worker has it ready and started by layer priority while the bytes in
/// flight stay below the credit (one actor per rank and bucket), and forward of layer l waits only for
/// layer l's buckets and update.
/// Creates the process's one SimGrid engine: call at most once per process.
/// One collective of a bucket as flows split by rank (rank_steps.hpp), shared by buckets of the same size.
struct ExchangeFlows {
  double before_s = 0;      ///< local work before it (PowerSGD's orthogonalisation)
  std::int64_t bytes = 0;   ///< its size: the vector, or each rank's block
  std::shared_ptr<const std::vector<std::vector<RankStep>>> flows;
};

/// What the communication stream does for one bucket: compress, the exchanges in order, decompress.
struct BucketRun {
  double compress_s = 0;
  double decompress_s = 0;
  std::vector<ExchangeFlows> exchanges;
};

/// Per bucket of the iteration plan.
using BucketFlows = std::vector<BucketRun>;

/// `flows[b]` is bucket b's work (its plans as flow_steps with `fuse`, split by rank); `pairs` the host pairs
/// they use. Compression and decompression run on the communication stream, on the trace's "compress" lane.
/// Trace events are recorded for workers below `trace_workers` only; compute phases stretch by `slowdown`.
run::Timeline simulate_iterations(const platform::PlatformSpec& platform, const scheduling::IterationPlan& plan,
                                  const BucketFlows& flows, const std::vector<std::pair<int, int>>& pairs,
                                  int workers, int iterations, bool fuse, int trace_workers,
                                  const run::Slowdown& slowdown = {});

}  // namespace dtsim::actors
