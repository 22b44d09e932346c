#pragma once
/// The `analytic` level of data-parallel training: each iteration's task graph (parallel/data_parallel) run by
/// the list scheduler, no SimGrid.
#include <functional>
#include <vector>

#include "sim/collectives/rank_traffic.hpp"
#include "sim/run/stragglers.hpp"
#include "sim/sync/sync_policy.hpp"
#include "sim/taskgraph/list_schedule.hpp"

namespace dtsim::run {

/// Closed-form cost of one bucket's collectives and the bytes each rank moves for them.
struct BucketCost {
  double compress_s = 0;    ///< before the exchanges, on the communication stream
  double time_s = 0;        ///< the exchanges
  double latency_s = 0;     ///< of time_s, the exchanges' start-up latency (collectives::LatencyOnly)
  double pull_s = 0;         ///< a push-pull fragment's pull task; time_s: its push
  double pull_latency_s = 0; ///< of pull_s, the start-up latency
  double decompress_s = 0;  ///< after them
  std::int64_t payload_bytes = 0;  ///< sum of the exchanges' sizes (vector, or each rank's block)
  std::vector<collectives::RankTraffic> traffic;  ///< indexed by rank; empty where counted per iteration (TrafficOf)
};

/// The bucket costs of an iteration's exchanges (a scheme that samples its workers exchanges among a different
/// subset from round to round).
using CostsOf = std::function<const std::vector<BucketCost>&(int iteration)>;

/// What each rank moves in an exchanging iteration, every bucket's exchanges together, where the costs count it
/// once per iteration rather than per bucket and rank (a collective's traffic on 100,000 ranks); empty: the
/// buckets' own (BucketCost::traffic).
using TrafficOf = std::function<const std::vector<collectives::RankTraffic>&(int iteration)>;

/// What the analytic level leaves besides the timeline: the last iteration's graph and its schedule (worker 0's
/// run first), for the critical path.
struct LastIterationGraph {
  taskgraph::TaskGraph graph;
  taskgraph::GraphSchedule schedule;
  std::vector<int> worker_of_run;  ///< the worker each run of the schedule stands for (empty: run r is worker r)
};

/// Iterations of `exchanging` (or `local` where `sync` does not exchange), the graphs of
/// parallel::data_parallel_iteration, whose exchanges (item b) cost costs_of(iteration)[b] and move
/// traffic_of(iteration) (empty: the buckets' traffic). Only the iteration's
/// participants (sync.participants) run it; the others sit it out, an empty iteration at their start, and are
/// free again when the last participant ends it. With one FIFO communication stream
/// per worker this is Shi et al.'s WFBP recurrence:
///   issued[b] = max(end of backward of bucket b's ready layer, backward start + not_before)
///   start[b] = max(end[b-1], issued[b] + launch),  end[b] = start[b] + cost[b]
/// The next iteration starts after the last bucket and the optimizer step. What an iteration leaves in flight
/// carries over to the worker's next (taskgraph::Carried): an exchange whose step waits only in the next run of
/// the graph (Overlap Local-SGD) holds the data stream, and slows computation, while the iterations after it
/// run; what is still in flight when the run ends belongs to the last iteration, which ends with it.
/// Trace events are recorded for workers below `trace_workers` only. Workers that start an iteration together
/// (with the same carry-over) and compute at nominal speed in it share one instance of the graph; every other
/// worker has its own, each compute phase stretched by the worker's factor and speed profile (`slowdown`); a bucket's collective starts when the
/// last instance has it ready. `overlap.slowdown`: the slowdown of a worker's backward while its exchanges run (from its own start
/// of the exchange to the end; the launch cost is in the graphs). `last` (optional) receives the last
/// iteration's graph and schedule.
Timeline data_parallel_timeline(const taskgraph::TaskGraph& exchanging, const taskgraph::TaskGraph& local,
                                const CostsOf& costs_of, const TrafficOf& traffic_of, int workers, int iterations, int trace_workers,
                                const sync::SyncPolicy& sync = {},
                                const Slowdown& slowdown = {}, const CommOverlap& overlap = {},
                                LastIterationGraph* last = nullptr);

}  // namespace dtsim::run
