#pragma once
/// The library's front door: a validated scenario in, a RunResult out.
#include <functional>
#include <optional>
#include <string>

#include <span>

#include "sim/results/run_result.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scheduling/iteration_plan.hpp"

namespace dtsim::run {

/// Per-layer compute times of the scenario's model on its GPU, the scheduler's buckets and, with compression,
/// each bucket's measured work (`compression_note`, when given, says how kernel times were obtained; the
/// kernels run on `real_gradient` when given, numerics mode's gradient tensor after tensor).
scheduling::IterationPlan make_iteration_plan(const scenario::Scenario& scenario,
                                              std::string* compression_note = nullptr,
                                              std::span<const float> real_gradient = {});

/// The exchanges of each bucket: its compression work, or one plain all-reduce of its bytes.
std::vector<scheduling::BucketWork> bucket_work(const scheduling::IterationPlan& plan);
/// Receives a one-line note for the user before a run starts (a run estimated above capacity.hpp's long_run_s()).
using Notes = std::function<void(const std::string& note)>;

/// The CPU seconds a run of `s` is estimated to take on the machine of bench/RESULTS.md (capacity.hpp's formulas),
/// without running it; nullopt where none applies (parameter servers and gossip at the simulated levels, and layouts
/// at the analytic level, which schedules one program per pipeline stage whatever the workers).
std::optional<double> estimated_cpu_s(const scenario::Scenario& s);

/// Simulates the scenario at its fidelity, telling `notes` what the user should know before it starts. The
/// `message` level creates this process's SimGrid engine, so call it at most once per process at that level.
RunResult run_simulation(const scenario::Scenario& scenario, const Notes& notes = {});

}  // namespace dtsim::run
