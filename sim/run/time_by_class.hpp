#pragma once
/// Where worker 0's last iteration goes: its compute by kind of kernel (models/kernel_shares.hpp), its exposed
/// communication, the pipeline bubble and the wait for other workers. The parts sum to the iteration's time when
/// the workers start it together (Breakdown's invariant).
#include <vector>

#include "models/kernel_shares.hpp"
#include "sim/results/run_result.hpp"
#include "sim/taskgraph/list_schedule.hpp"

namespace dtsim::run {

/// Per pass, the fraction of worker 0's compute in each models::KernelClass (each sums to 1, or is all 0).
struct PassShares {
  models::ClassTimes forward{};
  models::ClassTimes backward{};
  models::ClassTimes update{};
};

/// The shares of the model's layers `layers` from their class times; measured layer times count `measured_scale`
/// times (a layout's micro_batch / batch_size: the scaling layout_layer_times applies to them).
PassShares pass_shares(const std::vector<models::LayerClassTimes>& classes, const std::vector<int>& layers,
                       double measured_scale = 1);

/// The parts of `worker` (an iteration's Breakdown of worker 0): its forward, backward (recomputation included) and
/// update split by `shares`; its exposed communication less `bubble_s`; `bubble_s` (its compute stream waiting with
/// no communication of its own under way: a pipeline stage waiting for its neighbours); its wait for the last worker
/// (Breakdown::idle_s). Parts of zero are left out.
std::vector<TimeShare> time_by_class(const Breakdown& worker, const PassShares& shares, double bubble_s = 0);

/// The pipeline bubble of one rank's iteration: the time in [start_s, end_s] when its compute stream runs nothing and
/// none of its collectives or sends among `program`'s tasks [first, last] is under way (a receive waits for the
/// other stage: bubble). `spans` are the rank's spans of `program`'s tasks.
double pipeline_bubble_s(const taskgraph::Program& program, const std::vector<taskgraph::Span>& spans, int first,
                         int last, double start_s, double end_s);

}  // namespace dtsim::run
