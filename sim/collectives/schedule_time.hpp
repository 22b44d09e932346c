#pragma once
/// The `analytic` fidelity: a plan's time in closed form over a path model.
#include "sim/collectives/schedule.hpp"
#include "sim/core/path_model.hpp"

namespace dtsim::collectives {

/// Replays the plan's dependencies without a simulator. A rank is ready for step s when its own transfers of
/// step s-1 are done; a transfer starts when both its ranks are ready and takes the step's latency, its path
/// latency and its bytes over its bottleneck share: min over its links of (link bandwidth / transfers of this step on the
/// link). Returns when the last rank finishes. Exact (equal to SimGrid's alpha-beta) when no link is shared
/// inside a step; an equal-share estimate of contention otherwise.
double schedule_time_s(const Schedule& schedule, const core::PathModel& network);

}  // namespace dtsim::collectives
