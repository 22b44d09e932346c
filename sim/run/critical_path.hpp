#pragma once
/// The tasks that bound an iteration, found on the task DAG of the simulated run (Boost.Graph).
#include <vector>

#include "sim/results/run_result.hpp"
#include "sim/results/timeline.hpp"
#include "sim/scheduling/iteration_plan.hpp"

namespace dtsim::run {

/// The last iteration of `worker` as a DAG whose vertices are its trace events (forward and backward per
/// layer, all-reduce per bucket, optimizer updates) and whose edges are the dependencies the executors
/// enforce: the compute stream runs its tasks in order; a bucket waits for the backward of its ready layer
/// and, on a FIFO stream, for the previous bucket; an update waits for the buckets it applies. Walking back
/// from the iteration's last task through the predecessor that finished last gives the critical path.
/// Also gives, per bucket, how long its exchange ran while the compute stream was blocked waiting for
/// communication.
struct LastIteration {
  std::vector<TraceEvent> critical_path;         ///< in order
  std::vector<double> exposed_comm_per_bucket_s;  ///< indexed by bucket
};
LastIteration analyse_last_iteration(const scheduling::IterationPlan& plan, const Timeline& timeline, int worker);

}  // namespace dtsim::run
