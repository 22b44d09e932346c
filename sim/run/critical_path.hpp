#pragma once
/// The tasks that bound an iteration, found on its task graph and the spans its tasks ran at.
#include <vector>

#include "sim/results/run_result.hpp"
#include "sim/run/data_parallel_timeline.hpp"
#include "sim/taskgraph/list_schedule.hpp"

namespace dtsim::run {

/// The chain of tasks that decided when the last iteration ended, and per bucket how long its exchange ran while
/// the compute stream was blocked waiting for communication.
struct LastIteration {
  std::vector<TraceEvent> critical_path;         ///< in order
  std::vector<double> exposed_comm_per_bucket_s;  ///< indexed by bucket
};
/// The last iteration from its task graph (parallel::data_parallel_iteration) and its schedule, whose run 0
/// is worker 0: the critical path follows the tasks that decided each start (GraphSchedule::critical_path; with a
/// run per worker, through the worker that was last ready for a collective, and from a task of an earlier
/// iteration that decided a start: the exchange an Overlap Local-SGD step waits for; or that task alone where it
/// ends after every task of the iteration, which waits for it at the end of the run), and a bucket's exposure is
/// its exchange's overlap (and that of its exchange in the previous run of the graph, still in flight) with run
/// 0's gaps between compute-stream tasks and after the last of them. `buckets`: how many the plan has;
/// `worker_of_run`: the worker each run stands for (empty: run r is worker r).
LastIteration analyse_iteration_graph(const taskgraph::TaskGraph& graph, const taskgraph::GraphSchedule& schedule,
                                      std::size_t buckets, const std::vector<int>& worker_of_run = {});

/// The last iteration a simulated level ran, from worker 0's `spans` of `graph`'s program with its epilogue
/// (taskgraph::with_epilogue: a priority plan's last updates): its carried tasks left out unless it ran them
/// (`carried`: it was not the first iteration).
LastIterationGraph simulated_last_iteration(const taskgraph::TaskGraph& graph, std::vector<taskgraph::Span> spans,
                                            bool carried);

}  // namespace dtsim::run
