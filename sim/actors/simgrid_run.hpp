#pragma once
/// The simulated levels on SimGrid: `message` (every point-to-point message of every collective step) and
/// `flow` (consecutive steps with the same flow pattern fused into one, see flow_steps).
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/actors/exchanger.hpp"
#include "sim/actors/failure_injector.hpp"
#include "sim/actors/rank_steps.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/platform/platform_spec.hpp"
#include "sim/results/timeline.hpp"
#include "sim/scheduling/iteration_plan.hpp"
#include "sim/sync/sync_policy.hpp"
#include "sim/taskgraph/list_schedule.hpp"

namespace dtsim::actors {

/// Runs the plans one after another on `platform` (ranks on its first hosts; all ranks start each plan
/// together) and returns each one's time. `fuse` selects the flow level. Creates the process's one SimGrid
/// engine: call at most once per process.
std::vector<double> simulate_schedules_s(const platform::PlatformSpec& platform,
                                         const std::vector<collectives::Schedule>& schedules, bool fuse);

/// simulate_schedules_s of plans already as flows (actors::flow_steps: fused at the flow level, every step at the
/// message level) among `ranks` ranks: a collective that fuses its own plan (Collective::fused_plan) never builds
/// its ranks x steps transfers.
std::vector<double> simulate_flows_s(const platform::PlatformSpec& platform,
                                     const std::vector<std::vector<std::vector<Flow>>>& plans, int ranks);

/// Local work of a bucket on the communication stream, around its exchanges (compression).
struct LocalWork {
  double compress_s = 0;
  double decompress_s = 0;
  std::int64_t payload_bytes = 0;  ///< what the bucket's trace event reports
  std::optional<double> latency_s;  ///< the start-up latency of its exchanges, where known (TraceEvent::latency_s)
};

/// A plan's iteration as task graphs (parallel::data_parallel_iteration): one program that exchanges and, for
/// FIFO plans, one that does not (a local-SGD step). Compute tasks run on the compute stream, compression and
/// exchanges (item: the bucket) on the data stream.
struct IterationGraphs {
  taskgraph::TaskGraph exchanging;
  taskgraph::TaskGraph local;
  /// Filled by simulate_iterations when worker 0 is traced: its spans of every task of its last iteration's
  /// graph (with a credit: of taskgraph::with_epilogue's program), for the critical path.
  std::vector<taskgraph::Span> last_spans;
  bool last_exchanged = false;  ///< whether that iteration ran `exchanging`
  bool last_carried = false;    ///< whether it ran its carried tasks (it was not the first)
};

/// Makes the architecture's exchanger once the SimGrid platform exists.
using ExchangerFactory = std::function<std::unique_ptr<Exchanger>(RunContext&)>;

/// Runs the iterations of `plan` on `workers` ranks placed on the first hosts of `platform`, for as long as
/// the exchanger grants iterations: a client of the graph walker (graph_walker.hpp), each iteration a run of
/// `graphs` (the iterations `sync` exchanges run `exchanging`, the others `local`; workers outside an iteration's
/// participants sit it out). The compute stream's tasks run as compute phases; the data stream's local work
/// (compression) sleeps its time and its exchanges run by the exchanger, the iteration's exchanges ending with
/// Exchanger::finish_iteration; a task that waits for the previous run's data stream leaves this run's exchange in
/// flight (Overlap Local-SGD; exchanges still in flight when the run ends belong to its last iteration). A data
/// stream with a credit (ByteScheduler) runs its jobs by the walker's credit discipline; carried tasks (the next
/// forward's per-layer updates) run from the second iteration on and once after the last. `pairs`: the host pairs
/// the exchanges use (their routes are built). Trace events are recorded for workers below `trace_workers` only
/// (the others run each stretch of same-kind computations as one phase); compute phases run at `speed`.
/// `failures` happen at their times; when the exchanger cannot go on without the workers that are out, every actor
/// is stopped and the timeline says why. `overlap`: each exchange starts no earlier than its launch cost after it
/// was issued, and a worker computes slower while its exchanges run (run::CommOverlap). `peak_actors`: how many
/// actors the run keeps alive at most (it lays out their stacks, actor_contexts.hpp). Creates the process's one
/// SimGrid engine: call at most once per process.
run::Timeline simulate_iterations(const platform::PlatformSpec& platform, const scheduling::IterationPlan& plan,
                                  const std::vector<LocalWork>& local, IterationGraphs& graphs,
                                  const ExchangerFactory& make_exchanger,
                                  const std::vector<std::pair<int, int>>& pairs, int workers,
                                  const sync::SyncPolicy& sync, int trace_workers, const run::ComputeSpeed& speed,
                                  const std::vector<FailureEvent>& failures = {},
                                  const run::CommOverlap& overlap = {}, std::int64_t peak_actors = 0);

}  // namespace dtsim::actors
