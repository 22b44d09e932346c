#pragma once
/// The `message` level: every point-to-point message of every collective step on SimGrid.
#include "sim/collectives/collective.hpp"
#include "sim/platform/platform_spec.hpp"
#include "sim/run/timeline.hpp"
#include "sim/scheduling/iteration_plan.hpp"

namespace dtsim::actors {

/// Time of one collective plan executed message by message on `platform` (ranks on its first hosts), from a
/// common start. Creates the process's one SimGrid engine: call at most once per process.
double simulate_schedule_s(const platform::PlatformSpec& platform, const collectives::Schedule& schedule);

/// Runs `iterations` BSP iterations of `plan` on `workers` ranks placed on the first hosts of `platform`.
/// Each worker has a compute actor (forward, backward, update replayed with sleep_for) and a communication
/// actor that executes each bucket's collective step by step, FIFO, as soon as the bucket is ready.
/// Creates the process's one SimGrid engine: call at most once per process.
run::Timeline simulate_message_level(const platform::PlatformSpec& platform, const scheduling::IterationPlan& plan,
                                     const collectives::Collective& collective, int workers, int iterations);

}  // namespace dtsim::actors
