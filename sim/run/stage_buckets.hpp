#pragma once
/// The data dimension of a layout (sim/parallel/workload.hpp's DataPlanner): each pipeline stage's gradients go
/// through the same scheduler and compression work as plain data parallelism (bucket_plan.hpp), on the stage's
/// data-parallel group.
#include <memory>
#include <string>

#include "sim/parallel/layout.hpp"
#include "sim/parallel/workload.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::run {

/// The planner of `s`'s layout: per stage, `s.scheduler`'s buckets over the stage's units (each unit's gradients
/// one tensor of the scheduler, ready when the unit's backward ends in the stage's last backward pass), priced by
/// the configured all-reduce on the stage's data-parallel group; with a compressor, each bucket's compression work
/// among the layout's data-parallel ranks, the note on its kernels' timing in `*note`.
parallel::DataPlanner stage_planner(const scenario::Scenario& s, const parallel::Placement& placement,
                                    std::shared_ptr<std::string> note = nullptr);

}  // namespace dtsim::run
