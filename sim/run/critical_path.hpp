#pragma once
/// The tasks that bound an iteration, found on the task DAG of the simulated run (Boost.Graph).
#include <vector>

#include "sim/results/run_result.hpp"
#include "sim/results/timeline.hpp"
#include "sim/scheduling/iteration_plan.hpp"
#include "sim/taskgraph/list_schedule.hpp"

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
/// For priority plans (whose exchanges start by a global queue, not in a stream's order).
LastIteration analyse_last_iteration(const scheduling::IterationPlan& plan, const Timeline& timeline, int worker);

/// The same from the last iteration's task graph (parallel::data_parallel_iteration) and its schedule, whose run 0
/// is worker 0: the critical path follows the tasks that decided each start (GraphSchedule::critical_path; with a
/// run per worker, through the worker that was last ready for a collective), and a bucket's exposure is its
/// exchange's overlap with run 0's gaps between compute-stream tasks. `buckets`: how many the plan has;
/// `worker_of_run`: the worker each run stands for (empty: run r is worker r).
LastIteration analyse_iteration_graph(const taskgraph::TaskGraph& graph, const taskgraph::GraphSchedule& schedule,
                                      std::size_t buckets, const std::vector<int>& worker_of_run = {});

}  // namespace dtsim::run
