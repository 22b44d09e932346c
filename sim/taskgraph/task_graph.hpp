#pragma once
/// One training iteration as explicit data (as ASTRA-sim's Chakra execution traces): per worker role, the tasks
/// it runs, on which of its streams, and what each waits for. A role is a set of ranks whose programs are the same
/// up to which ranks their collectives span (every rank of one pipeline stage, say); executors run a role's
/// program once for the analytic level when its ranks run in lockstep, once per instance when their speeds
/// differ (stragglers), and once per rank on SimGrid.
#include <cstdint>
#include <string>
#include <vector>

namespace dtsim::taskgraph {

/// What a task does.
enum class Op {
  compute,         ///< local work of `duration_s` (forward, backward, optimizer step, compression)
  allreduce,       ///< every rank of `group` contributes and receives `bytes`
  allgather,       ///< every rank of `group` contributes bytes / |group| and receives `bytes`
  reduce_scatter,  ///< every rank of `group` contributes `bytes` and receives its bytes / |group| of the sum
  send,            ///< `bytes` to the rank of role `peer` with the same place in the other groups
  recv,            ///< waits for task `match` (a send) of role `peer`; takes no time of its own
};

/// A worker's streams: computation, tensor-parallel collectives, gradient reductions, parameter all-gathers
/// (FSDP's unshard stream) and pipeline sends. Tasks on one stream run one at a time in program order (as kernels on a CUDA stream);
/// tasks on different streams overlap.
enum class Stream { compute, tensor, data, gather, pipeline };
inline constexpr int kStreams = 5;

/// A dependency: the task waits until task `task` of its program has ended and `lag_s` more has passed (a
/// finish-to-start precedence with a lag: a collective's launch after its gradients are ready, a fusion
/// buffer's cycle after backward starts).
struct Dep {
  int task = -1;
  double lag_s = 0;
  Dep() = default;
  Dep(int task_index, double lag = 0) : task(task_index), lag_s(lag) {}  // NOLINT: an index is a dependency
};

/// One task of a role's program.
struct Task {
  Op op = Op::compute;
  Stream stream = Stream::compute;
  std::string name;      ///< as the timeline shows it, e.g. "F3 stage 1" or "allreduce grads block 7"
  std::string category;  ///< forward, backward, recompute, update, tp, dp, pp
  double duration_s = 0;     ///< compute: its time
  std::int64_t bytes = 0;    ///< collectives and sends: see Op
  std::string group;         ///< collectives: the group's name in the layout ("tensor", "data", ...)
  int peer = -1;             ///< send and recv: the other role
  int match = -1;            ///< recv: index of the matching send in role `peer`'s program
  std::vector<Dep> deps;     ///< tasks of this program (lower indices) that must end before this one starts
  int item = -1;             ///< what the task stands for in its workload (a bucket, a layer), for cost models
};

/// The tasks of one role in program order.
struct Program {
  std::string role;  ///< e.g. "stage 0"
  std::vector<Task> tasks;
  /// Appends `task` and returns its index.
  int add(Task task);
};

/// Every role's program for the iterations simulated.
struct TaskGraph {
  std::vector<Program> programs;
};

/// Throws core::InputError naming the task when a dependency points forward, a recv's match is not a send of
/// its peer to this role, or a collective names no group.
void check(const TaskGraph& graph);

}  // namespace dtsim::taskgraph
