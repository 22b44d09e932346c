#pragma once
/// One iteration of data-parallel training as a task graph: what every worker runs, in the order DDP, Horovod
/// and ByteScheduler issue it (Shi et al.'s WFBP model, INFOCOM'19; Peng et al., SOSP'19).
#include <vector>

#include "sim/scheduling/iteration_plan.hpp"
#include "sim/taskgraph/task_graph.hpp"

namespace dtsim::parallel {

/// How each bucket's exchange enters the iteration (the architecture's fragment): one collective of the data
/// group; a push to the parameter servers on the data stream, the servers' sum on the server stream and the pull
/// on the gather stream (three resources in a pipeline: the next bucket's push does not wait for this one's sum,
/// nor its sum for this one's pull); or an exchange with the graph neighbours.
struct ExchangeFragment {
  enum class Kind { collective, push_pull, neighbours };
  Kind kind = Kind::collective;
  std::vector<double> sum_s;  ///< push_pull: per bucket, the servers' summation between push and pull (0: none)
};

/// One iteration under `plan`. The compute stream runs every layer's forward, then the backward in reverse and
/// the optimizer step. On the data stream, after the backward of bucket b's ready layer and not before
/// plan.buckets[b].not_before_s after backward starts (a fusion cycle), each bucket is compressed, exchanged (one
/// task: its collectives in order, item b) and decompressed (plan.work's times); the exchange itself starts
/// `launch_s` after its gradients were issued at the earliest (CommOverlap: the launch overlaps the exchange
/// before it). FIFO (plan.credit_bytes == 0): the data stream runs in program order and the step waits for
/// backward and the last bucket. Priority (ByteScheduler, P3): the data stream has plan.credit_bytes of credit,
/// each bucket is a job with its ready layer's priority charging its tensor bytes, and each layer's update is
/// a carried task just before its forward, after the previous iteration's buckets of that layer (the next
/// forward of layer l waits only for them). Without `exchanges` (a local-SGD step; FIFO only) there is no data
/// stream. With `exchange_in_flight` (Overlap Local-SGD; FIFO only) the step waits for the data stream of the
/// program's previous run instead of this one's: the exchange stays in flight until the next exchanging
/// iteration's step. Compute tasks' item is their layer (-1 for the FIFO step); exchanges' bytes are their
/// payload. `fragment` (FIFO only) shapes each exchange; with push_pull the decompression follows the push on the
/// data stream (as the simulated levels run it) and the step also waits for the last pull. The program is called
/// "worker".
taskgraph::TaskGraph data_parallel_iteration(const scheduling::IterationPlan& plan, bool exchanges, double launch_s,
                                             bool exchange_in_flight = false,
                                             const ExchangeFragment& fragment = {});

/// The timeline lane of a data-parallel task: compute, compress (local work on the data stream) or comm (the
/// exchanges, and the servers' sum a worker waits for).
const char* data_parallel_lane(const taskgraph::Task& task);

}  // namespace dtsim::parallel
