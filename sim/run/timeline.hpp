#pragma once
/// What an executor (closed form or SimGrid actors) records while it runs iterations.
#include <functional>
#include <string>
#include <vector>

#include "sim/run/run_result.hpp"

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
  bool dropped = false;    ///< the server dropped this iteration's gradient (backup workers)
  bool skipped = false;    ///< the worker skipped this iteration's upload (LAG)
};

/// Duration of a compute phase of `work_s` nominal seconds that worker `worker` starts at `start_s` in
/// iteration `iteration` (stragglers.hpp; empty: every worker at nominal speed).
using Slowdown = std::function<double(int worker, int iteration, double start_s, double work_s)>;

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

/// Raw record of a run: marks[worker][iteration], the trace events, per-worker traffic and message arrows.
struct Timeline {
  std::vector<std::vector<IterationMarks>> marks;
  std::vector<TraceEvent> events;
  std::vector<WorkerTraffic> traffic;
  std::vector<MessageArrow> messages;
  std::vector<ServerLoad> servers;
  std::vector<std::int64_t> staleness;  ///< pulls by staleness
  std::vector<std::string> failures;    ///< what failed and when, in order
  std::vector<int> out;                 ///< workers out of the run (crashed or taken out)
  std::string stopped;                  ///< why the job stopped early; empty when it ran to the end
  double stopped_at_s = 0;              ///< when it stopped (simulated time), with `stopped`
};

}  // namespace dtsim::run
