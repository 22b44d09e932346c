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
  gtopk,           ///< gTop-k (Shi et al., ICDCS'19): a tree reduce and broadcast over `group` in which every
                   ///< message is one top-k payload of `bytes` (two payloads merged back to k at each hop)
  send,            ///< `bytes` to the rank of role `peer` with the same place in the other groups
  recv,            ///< waits for task `match` (a send) of role `peer`; takes no time of its own
  push,            ///< every rank of `group` sends its `bytes`, in partitions, to the parameter servers
  pull,            ///< every rank of `group` receives the servers' sum of what the group pushed (`bytes`)
  neighbours,      ///< every rank of `group` sends `bytes` to each of its graph neighbours and receives theirs
  alltoall,        ///< every rank of `group` sends `bytes` / |group| of its `bytes` to each rank of the group and
                   ///< receives as much from each (NCCL's grouped point-to-point sends: MoE dispatch and combine)
};

/// Whether `op` spans the ranks of a group (every one takes part; none ends before all have started): the
/// collectives and the exchanges with servers or neighbours.
bool spans_group(Op op);

/// A worker's streams: computation, tensor-parallel collectives, gradient reductions (and pushes), parameter
/// all-gathers (FSDP's unshard stream; pulls from parameter servers), pipeline sends, the parameter servers'
/// summation as the worker waits for it (one sum at a time, as a server's CPU runs them), and context parallelism's
/// key/value exchanges (Transformer Engine's separate CP stream), and expert parallelism's token all-to-alls. Tasks on one stream run one at a time in program
/// order (as kernels on a CUDA stream); tasks on different streams overlap. A program may give its data stream a
/// credit instead (Program::credit_bytes).
enum class Stream { compute, tensor, data, gather, pipeline, server, context, expert };
inline constexpr int kStreams = 8;
/// A stream's name (its lane in timelines): the layout dimension whose collectives it carries, or its role.
const char* stream_name(Stream stream);

/// A dependency: the task waits until task `task` of its program has ended and `lag_s` more has passed (a
/// finish-to-start precedence with a lag: a collective's launch after its gradients are ready, a fusion
/// buffer's cycle after backward starts). With `previous`, task `task` of the program's previous run (the last
/// iteration that ran the same program; met in its first run): an update that applies the last iteration's
/// exchange (ByteScheduler), a step that waits for the last exchanging iteration's exchange (Overlap Local-SGD).
struct Dep {
  int task = -1;
  double lag_s = 0;
  bool previous = false;
  Dep() = default;
  Dep(int task_index, double lag = 0) : task(task_index), lag_s(lag) {}  // NOLINT: an index is a dependency
  /// Task `task_index` of the previous iteration.
  static Dep of_previous(int task_index) {
    Dep d(task_index);
    d.previous = true;
    return d;
  }
};

/// One task of a role's program.
struct Task {
  Op op = Op::compute;
  Stream stream = Stream::compute;
  std::string name;      ///< as the timeline shows it, e.g. "F3 stage 1" or "allreduce grads block 7"
  std::string category;  ///< forward, backward, recompute, update, tp, dp (gradient reductions), gather (parameters), pp
  double duration_s = 0;     ///< compute: its time
  std::int64_t bytes = 0;    ///< collectives and sends: see Op
  std::string group;         ///< collectives: the group's name in the layout ("tensor", "data", ...)
  int peer = -1;             ///< send and recv: the other role
  int match = -1;            ///< recv: index of the matching send in role `peer`'s program
  std::vector<Dep> deps;     ///< tasks of this program (lower indices) that must end before this one starts
  int item = -1;             ///< what the task stands for in its workload (a bucket, a layer), for cost models
  /// Finishes the previous iteration's work (ByteScheduler's per-layer update before the next forward): runs from
  /// the second iteration on, and once more after the last (with_epilogue).
  bool carried = false;
  /// On a stream with a credit: the task's job (the stream's consecutive tasks of one item: compress, exchange,
  /// decompress of a partition) starts by `priority`, lowest first, and holds `credit_bytes` of the credit.
  int priority = 0;
  std::int64_t credit_bytes = 0;
};

/// The tasks of one role in program order.
struct Program {
  std::string role;  ///< e.g. "stage 0"
  std::vector<Task> tasks;
  /// 0: the data stream runs its tasks in program order. Else ByteScheduler's scheduler (Peng et al., SOSP'19):
  /// the stream's jobs (Task::priority) start once every rank of the group has one ready (its first task's
  /// dependencies met), lowest priority first, while the bytes of the group's jobs in flight stay below the
  /// credit (one job may overdraw it); jobs in flight run at the same time, and a job's lags on tasks outside it
  /// count from its start (its issue). No exact list schedule exists for it (concurrent collectives share
  /// bandwidth): the simulated levels run it.
  std::int64_t credit_bytes = 0;
  /// Appends `task` and returns its index.
  int add(Task task);
};

/// Every role's program for the iterations simulated.
struct TaskGraph {
  std::vector<Program> programs;
};

/// Throws core::InputError naming the task when a dependency points forward (or, on the previous iteration,
/// outside the program), a recv's match is not a send of its peer to this role, or a collective names no group.
void check(const TaskGraph& graph);

/// The jobs of a stream with a credit: per job, its tasks in program order (consecutive tasks of one item).
std::vector<std::vector<int>> credit_jobs(const Program& program, Stream stream);

/// `program` followed by its carried tasks once more, for the last iteration: its own work they finish (its
/// updates), each waiting for what it waited for in the previous iteration, now in this one, and for the
/// carried tasks copied before it.
Program with_epilogue(const Program& program);

/// `program` without the tasks `drop` marks (per task: the carried ones of a first iteration, which has nothing
/// to finish); a dependency on a dropped task becomes that task's dependencies in this iteration. `kept`: the
/// old index of each task left.
Program without(const Program& program, const std::vector<char>& drop, std::vector<int>& kept);

}  // namespace dtsim::taskgraph
