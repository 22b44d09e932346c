#pragma once
/// The tasks that bound an iteration, found on the task DAG of the simulated run (Boost.Graph).
#include <vector>

#include "sim/run/run_result.hpp"
#include "sim/run/timeline.hpp"
#include "sim/scheduling/iteration_plan.hpp"

namespace dtsim::run {

/// The last iteration of `worker` as a DAG whose vertices are its trace events (forward and backward per
/// layer, all-reduce per bucket, optimizer updates) and whose edges are the dependencies the executors
/// enforce: the compute stream runs its tasks in order; a bucket waits for the backward of its ready layer
/// and, on a FIFO stream, for the previous bucket; an update waits for the buckets it applies. Walking back
/// from the iteration's last task through the predecessor that finished last gives the critical path.
/// Also fills `exposed_comm_per_bucket_s`: per bucket, how long its all-reduce ran while the compute stream
/// was blocked waiting for communication.
void analyse_last_iteration(const scheduling::IterationPlan& plan, const Timeline& timeline, int worker,
                            RunResult& result);

}  // namespace dtsim::run
