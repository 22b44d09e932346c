#pragma once
/// What an executor (closed form or SimGrid actors) records while it runs iterations.
#include <vector>

#include "sim/run/run_result.hpp"

namespace dtsim::run {

/// When one worker passed each phase boundary of one iteration.
struct IterationMarks {
  double start_s = 0;         ///< forward of the first layer begins
  double forward_end_s = 0;   ///< forward done, backward begins
  double backward_end_s = 0;  ///< backward of layer 0 done
  double comm_end_s = 0;      ///< last bucket synchronised (>= backward_end_s)
  double end_s = 0;           ///< optimizer step done
};

/// Raw record of a run: marks[worker][iteration], the trace events and per-worker traffic.
struct Timeline {
  std::vector<std::vector<IterationMarks>> marks;
  std::vector<TraceEvent> events;
  std::vector<WorkerTraffic> traffic;
};

}  // namespace dtsim::run
