#pragma once
/// A scenario with a 3D-parallel layout ([parallel]): its task graph (sim/parallel) scheduled by the analytic
/// executor (sim/taskgraph), every collective timed on the ranks it really spans.
#include "sim/memory/memory_breakdown.hpp"
#include "sim/results/run_result.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::run {

/// Runs `s` (scenario::uses_layout(s)). Refuses, like check_memory, a layout whose fullest GPU does not fit.
RunResult run_layout(const scenario::Scenario& s);

/// The peak memory of the layout's fullest stage; with memory.check = "refuse" throws core::InputError when it
/// exceeds the GPU, with every stage's total and the breakdown.
memory::MemoryBreakdown check_layout_memory(const scenario::Scenario& s);

}  // namespace dtsim::run
