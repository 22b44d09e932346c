#pragma once
/// The analytic executor of a task graph: a list scheduler that starts every task as soon as its dependencies,
/// its stream and (for a receive) its send allow, with durations from a cost model. Ranks of one role run the
/// same program in lockstep, so each role's program is scheduled once.
#include <functional>
#include <vector>

#include "sim/taskgraph/task_graph.hpp"

namespace dtsim::taskgraph {

/// When one task ran.
struct Span {
  double start_s = 0;
  double end_s = 0;
};

/// A task of a role: (role, index in its program).
struct TaskRef {
  int role = 0;
  int task = 0;
};

/// The schedule of every task, and for each the task that decided its start (or, for a receive, its end):
/// the last of its predecessors to finish; role -1 when it started at time zero.
struct GraphSchedule {
  std::vector<std::vector<Span>> spans;        ///< [role][task]
  std::vector<std::vector<TaskRef>> binding;   ///< [role][task]
  /// The latest end of any task.
  double makespan_s() const;
  /// The chain of binding tasks ending at the task that ends last, in time order.
  std::vector<TaskRef> critical_path() const;
};

/// Duration of task `task` of role `role` (compute: its duration_s; communication: the cost model's time).
using TaskCost = std::function<double(int role, const Task& task)>;

/// Schedules `graph` (check()ed) with durations from `cost`. A receive starts when its program reaches it and
/// ends when its send has ended. While a role's collectives or sends run, its computation progresses at
/// 1 / `overlap_slowdown` of its speed (the communication kernels hold SMs and memory bandwidth, as
/// run::CommOverlap for data parallelism): a compute task integrates its work over the communication spans of
/// its role scheduled before it (those it can overlap, in a task graph whose communication is issued before the
/// computation it hides behind). Throws core::InputError when the graph has a cycle (a program waits for a send
/// its peer can only issue after).
GraphSchedule list_schedule(const TaskGraph& graph, const TaskCost& cost, double overlap_slowdown = 1);

/// The schedule of tasks that ran at `spans` ([role][task], from list_schedule or a simulation), with the
/// task that decided each one's start (or a receive's end) as list_schedule defines it.
GraphSchedule with_bindings(const TaskGraph& graph, std::vector<std::vector<Span>> spans);

}  // namespace dtsim::taskgraph
