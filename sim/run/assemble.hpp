#pragma once
/// Turns a raw Timeline into iteration times, throughput, efficiency and breakdowns.
#include <vector>

#include "sim/platform/fabric.hpp"
#include "sim/results/run_result.hpp"
#include "sim/results/timeline.hpp"

namespace dtsim::run {

/// Job iteration i ends when its last worker finishes the optimizer step (when workers run at different
/// paces, asynchronous schemes and backup workers: when (i+1) x `gradients_per_step` accepted gradients are
/// computed); its time is that end minus the previous iteration's end. Per worker: forward, backward, update and exposed communication come from its
/// own marks, idle is the time from its optimizer step's end to the job's iteration end (waiting for the last
/// worker). Workers that start together have phases that add up to the iteration time. Efficiency compares
/// with `single_worker_iteration_s`.
RunResult assemble_result(RunInfo info, Timeline timeline, double single_worker_iteration_s, int gradients_per_step);

/// Every class of links (platform::link_classes) that carry `bytes` per iteration (per directed link of `fabric`),
/// busiest first: its first link's name, its bytes, its utilisation over `iteration_s`, its payload rate, its
/// product's line rate and how many links it stands for.
std::vector<LinkUse> link_uses(const std::vector<double>& bytes, const platform::Fabric& fabric, double iteration_s);

}  // namespace dtsim::run
