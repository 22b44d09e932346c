#pragma once
/// A scenario with a 3D-parallel layout ([parallel]): its task graph (sim/parallel) scheduled by the analytic
/// executor (sim/taskgraph), every collective timed on the ranks it really spans.
#include <functional>
#include <string>

#include "sim/memory/memory_breakdown.hpp"
#include "sim/results/run_result.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::run {

/// Receives a one-line note for the user before a run starts (run_simulation.hpp's Notes).
using LayoutNotes = std::function<void(const std::string& note)>;

/// Runs `s` (scenario::uses_layout(s)). Refuses, like check_memory, a layout whose fullest GPU does not fit; at a
/// simulated level, tells `notes` its CPU time estimate when that is long (capacity.hpp long_run_note).
RunResult run_layout(const scenario::Scenario& s, const LayoutNotes& notes = {});

/// CPU seconds a simulated level (flow or message, as `s` says) takes on the layout's task graphs, estimated from
/// its tasks and flows before anything runs (capacity.hpp graph_cpu_s).
double layout_cpu_s(const scenario::Scenario& s);

/// The peak memory of the layout's fullest stage; with memory.check = "refuse" throws core::InputError when it
/// exceeds the GPU, with every stage's total and the breakdown.
memory::MemoryBreakdown check_layout_memory(const scenario::Scenario& s);

}  // namespace dtsim::run
