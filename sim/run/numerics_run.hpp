#pragma once
/// Numerics mode: the real training run, placed on the simulated time line.
#include "sim/run/run_result.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::run {

/// Trains `s.numerics.model` for `steps` steps on `s.workers` workers (real gradients on each worker's shard;
/// `s.compression`'s compressor and error feedback run for real on every tensor; the aggregation moves and
/// sums the real payloads; the workers' updates meet as the scenario's sync scheme and architecture say,
/// sim/run/numerics_sync.hpp) and records the test loss, accuracy and consensus distance every `eval_every`
/// steps at the simulated time step k ends: k x result.mean_iteration_s, the iteration the simulation
/// predicts for the same model, cluster and compression. Fills result.curve and result.time_to_accuracy_s.
void run_numerics(const scenario::Scenario& s, RunResult& result);

}  // namespace dtsim::run
