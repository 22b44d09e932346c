#pragma once
/// The analytic executor of a task graph: a list scheduler that starts every task as soon as its dependencies,
/// its stream and (for a receive) its send allow, with durations from a cost model. Ranks of one role run the
/// same program; where they run in lockstep, each role's program is scheduled once, and where their speeds differ
/// (stragglers), once per instance, the instances meeting at every collective. Consecutive runs of graphs (the
/// iterations of a worker) carry over what one leaves in flight to the next (Carried).
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/taskgraph/task_graph.hpp"

namespace dtsim::taskgraph {

/// When one task ran.
struct Span {
  double start_s = 0;
  double end_s = 0;
};

/// Where a TaskRef's task ran: in the run itself, or in an earlier run of its worker (Carried).
enum class Earlier : std::uint8_t {
  none,      ///< task `task` of the run
  previous,  ///< task `task` of the program's previous run (Carried::previous)
  stream,    ///< the task an earlier run left on stream `task` (Carried::stream_tail)
};

/// A task of a run: (run, index in its program). A run is one instance of a role; with one instance per role
/// (the default) run r is role r.
struct TaskRef {
  int role = 0;
  int task = 0;
  Earlier earlier = Earlier::none;
};

/// A task of an earlier run, as it ran.
struct EarlierTask {
  Task task;
  Span span;
};

/// What a worker's earlier runs leave its next run of a graph (as iteration i leaves iteration i + 1): the last
/// task on each stream (the stream is busy until it ends: an exchange still in flight after the compute stream
/// moved on), the spans of the program's previous run (what its `previous` dependencies wait for), and the
/// communication spans still running (computation inside them slows by the overlap slowdown).
struct Carried {
  std::array<std::optional<EarlierTask>, kStreams> stream_tail;  ///< [stream]
  std::vector<Span> previous;       ///< [task]; empty: the program's first run (its previous dependencies are met)
  std::vector<Span> communication;  ///< in time order, disjoint
  /// Nothing carried over.
  bool empty() const;
};

/// The schedule of every task, and for each the task that decided its start (or, for a receive, its end):
/// the last of its predecessors to finish (with its lag); role -1 when it started at its run's start.
struct GraphSchedule {
  std::vector<std::vector<Span>> spans;        ///< [run][task]
  std::vector<std::vector<TaskRef>> binding;   ///< [run][task]
  std::vector<int> role_of_run;                ///< [run]
  std::vector<Carried> carried;                ///< [run]: what earlier runs left it (empty: nothing)
  /// [run]: when its communication ran (a collective from when the run was ready for it), carried spans
  /// included, in time order and disjoint (list_schedule only).
  std::vector<std::vector<Span>> communication;
  /// The latest end of any task.
  double makespan_s() const;
  /// The chain of binding tasks ending at the task that ends last, in time order; it begins at a task of an
  /// earlier run when one decided a start (its own binding lies in that run's schedule).
  std::vector<TaskRef> critical_path() const;
  /// The task `at` refers to, in `graph` (this schedule's) or in the earlier run that ran it.
  const Task& task(const TaskGraph& graph, const TaskRef& at) const;
  /// When the task `at` refers to ran.
  Span span(const TaskRef& at) const;
};

/// Duration of task `task` of role `role` (compute: its duration_s; communication: the cost model's time).
using TaskCost = std::function<double(int role, const Task& task)>;

/// When a compute task of run `run` that starts at `start_s` ends, given the run's communication spans so far
/// (in time order, disjoint): a straggler's speed over time, and the overlap slowdown inside the spans.
using ComputeEnd = std::function<double(int run, const Task& task, double start_s, const std::vector<Span>& busy)>;

/// Which runs meet where the instances of a role are not interchangeable (ScheduleOptions::meetings): the ranks of
/// a parallel layout at different speeds, each run standing for a class of ranks, whose tensor-parallel collective
/// joins only its tensor group and whose receive waits for the send of its own pipeline neighbour.
struct Meetings {
  /// [run][group name]: the meeting the run's collectives on that group join (an id; a collective starts when
  /// every run of its meeting is ready for it). Every group a run's program names has one.
  std::vector<std::map<std::string, int>> of;
  /// [run][role]: the run of role `role` that this run's sends reach and its receives wait for (-1: none).
  std::vector<std::vector<int>> peer;
  bool empty() const { return of.empty(); }
};

/// How list_schedule runs a graph.
struct ScheduleOptions {
  /// While a run's collectives or sends run, its computation on the compute stream progresses at 1 / overlap_slowdown
  /// of its speed (the communication kernels hold SMs and memory bandwidth, as run::CommOverlap for data
  /// parallelism); local work on other streams (compression on the data stream) runs at its own time, as there.
  double overlap_slowdown = 1;
  /// Instances of each role (empty: one each). Without `meetings`, instance i of a role receives from instance i
  /// of its peer (or from its only instance), and every collective of a role joins all its instances: it starts
  /// when the last is ready and ends for all at once.
  std::vector<int> instances;
  /// When set, which runs each collective joins and which run each receive waits for, instead.
  Meetings meetings;
  /// No task of run r starts before start_s[r] (empty: 0), as when a program is one iteration of many.
  std::vector<double> start_s;
  /// Per run (empty: none): what its worker's earlier runs left it. A stream's first task starts after the
  /// stream's tail; a `previous` dependency waits for the task of the program's previous run (its end and lag);
  /// a computation slows inside the carried communication spans as inside the run's own.
  std::vector<Carried> carried;
  /// When set, decides every compute task's end (else: cost() of work integrated over the run's spans at
  /// 1 / overlap_slowdown).
  ComputeEnd compute_end;
};

/// Schedules `graph` (check()ed) with durations from `cost`. A receive starts when its program reaches it and
/// ends when its send has ended. Refuses (DTSIM_CHECK) a data stream with a credit: the simulated levels run it.
/// A dependency on the previous run waits for options.carried (met without one: a first run). A compute task integrates its work over the communication spans of its run
/// scheduled before it (those it can overlap, in a task graph whose communication is issued before the
/// computation it hides behind); a collective's span on a run begins when that run was ready for it (its kernel
/// waits for the others on the GPU). Throws core::InputError when the graph has a cycle (a program waits for a
/// send its peer can only issue after).
GraphSchedule list_schedule(const TaskGraph& graph, const TaskCost& cost, const ScheduleOptions& options);
/// list_schedule with one instance per role, from time zero.
GraphSchedule list_schedule(const TaskGraph& graph, const TaskCost& cost, double overlap_slowdown = 1);

/// What run `run` of `schedule` (of `graph`) and the runs before it (`before`) leave the worker's next run, which
/// starts at `next_start_s` or later: per stream, the run's task that ends last on it (else the earlier tail),
/// and the communication spans, where they end after next_start_s (what ends before decides and slows nothing).
/// `previous` stays `before`'s: the caller sets it to the spans of the next run's program's previous run.
Carried carry_over(const TaskGraph& graph, const GraphSchedule& schedule, int run, Carried before,
                   double next_start_s);

/// The schedule of tasks that ran at `spans` ([role][task], one instance per role: from a simulation), with the
/// task that decided each one's start (or a receive's end) as list_schedule defines it (a job on a stream with a
/// credit: its dependency that ended last).
GraphSchedule with_bindings(const TaskGraph& graph, std::vector<std::vector<Span>> spans);

}  // namespace dtsim::taskgraph
