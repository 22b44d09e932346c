#pragma once
/// What an executor (closed form or SimGrid actors) records while it runs iterations.
#include <string>
#include <vector>

#include "sim/results/run_result.hpp"

namespace dtsim::run {

/// One worker's compute stream in one iteration: its span and what filled it. The stream is always doing
/// one of forward, backward, update or waiting for communication, so the four add up to end_s - start_s.
struct IterationMarks {
  double start_s = 0;
  double end_s = 0;
  double forward_s = 0;
  double backward_s = 0;
  double update_s = 0;
  double comm_wait_s = 0;  ///< blocked until gradients were synchronised (exposed communication)
  double bubble_s = 0;     ///< of comm_wait_s, waiting with none of its own communication under way (pipeline bubble)
  bool dropped = false;    ///< the server dropped this iteration's gradient (backup workers)
  bool skipped = false;    ///< the worker skipped this iteration's upload (LAG)
};

/// How fast each worker computes over time (run::Slowdown in stragglers.hpp implements it).
class ComputeSpeed {
 public:
  virtual ~ComputeSpeed() = default;
  /// True when some worker is slowed.
  virtual bool slowed() const = 0;
  /// Duration of a phase of `work_s` nominal seconds that worker w starts at `start_s` in iteration i.
  virtual double duration_s(int worker, int iteration, double start_s, double work_s) const = 0;
  /// The constant factor on worker w's work in iteration i.
  virtual double factor(int worker, int iteration) const = 0;
  /// Worker w's speed at time t (1 = nominal).
  virtual double speed_at(int worker, double t) const = 0;
  /// The first time after t at which worker w's speed changes (infinity when it never does).
  virtual double next_change_after(int worker, double t) const = 0;
};

/// How a worker's GPU runs its communication stream beside its compute stream (gpu_profile.hpp):
/// - an exchange starts no earlier than `launch_s` after it was issued (its gradients ready and its cycle
///   reached). CUDA streams queue kernels: the host issues the call as soon as the gradients are ready and the
///   launch proceeds while the exchange before it still runs, so back to back only the first pays it;
/// - while a worker's exchange runs, its compute phases progress at 1 / `slowdown` of their speed (the
///   collective's kernels hold SMs and memory bandwidth). A phase integrates its work over that speed.
struct CommOverlap {
  double launch_s = 0;
  double slowdown = 1;
};

/// Raw record of a run: each worker's marks per iteration, the trace events, per-worker traffic and message arrows.
struct Timeline {
  /// Lists of marks per iteration: one per worker (marks[worker]), or, with `marks_of`, one per group of workers
  /// that share theirs (the ranks of a class of the analytic level), stored once, each some worker's.
  std::vector<std::vector<IterationMarks>> marks;
  std::vector<int> marks_of;  ///< per worker: its list in `marks`; empty: marks[worker] is worker's
  std::vector<TraceEvent> events;
  std::vector<WorkerTraffic> traffic;
  std::vector<MessageArrow> messages;
  std::vector<ServerLoad> servers;
  std::vector<std::int64_t> staleness;  ///< pulls by staleness
  std::vector<std::string> failures;    ///< what failed and when, in order
  std::vector<int> out;                 ///< workers out of the run (crashed or taken out)
  std::string stopped;                  ///< why the job stopped early; empty when it ran to the end
  double stopped_at_s = 0;              ///< when it stopped (simulated time), with `stopped`

  std::size_t workers() const { return marks_of.empty() ? marks.size() : marks_of.size(); }
  /// Worker w's marks per iteration.
  const std::vector<IterationMarks>& worker_marks(std::size_t w) const {
    return marks_of.empty() ? marks[w] : marks[static_cast<std::size_t>(marks_of[w])];
  }
};

}  // namespace dtsim::run
