#pragma once
/// The `analytic` fidelity: a plan's time in closed form over a path model.
#include "sim/collectives/schedule.hpp"
#include "sim/core/path_model.hpp"

namespace dtsim::collectives {

/// Sum over steps of the slowest transfer, where a transfer takes its path latency plus bytes over its
/// bottleneck share: min over its links of (link bandwidth / transfers of this step on that link).
/// Exact when no link is shared; an equal-share estimate of contention otherwise.
double schedule_time_s(const Schedule& schedule, const core::PathModel& network);

}  // namespace dtsim::collectives
