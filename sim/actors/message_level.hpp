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

/// Runs `iterations` iterations of `plan` on `workers` ranks placed on the first hosts of `platform`.
/// Each worker has a compute actor (forward, backward, update replayed with sleep_for). With a FIFO plan
/// (credit_bytes == 0) a communication actor per worker executes each bucket's collective step by step, in
/// order, once ready and not before its cycle, and the update waits for all buckets (BSP). With a credit,
/// a bucket is queued once every worker has it ready and started by layer priority while the bytes in
/// flight stay below the credit (one actor per rank and bucket), and forward of layer l waits only for
/// layer l's buckets and update.
/// Creates the process's one SimGrid engine: call at most once per process.
run::Timeline simulate_message_level(const platform::PlatformSpec& platform, const scheduling::IterationPlan& plan,
                                     const collectives::Collective& collective, int workers, int iterations);

}  // namespace dtsim::actors
