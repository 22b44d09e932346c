#pragma once
/// Numerics mode: the real training run, placed on the simulated time line.
#include "numerics/evaluation.hpp"
#include "sim/results/run_result.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::run {

/// Trains `s.numerics.model` for `steps` steps on `s.workers` workers (real gradients on each worker's shard;
/// `s.compression`'s compressor and error feedback run for real on every tensor; the aggregation moves and
/// sums the real payloads; the workers' updates meet as the scenario's sync scheme and architecture say,
/// sim/run/numerics_sync.hpp), evaluating the test loss, accuracy and consensus distance every `eval_every`
/// steps.
numerics::TrainingRun train_numerics(const scenario::Scenario& s);

/// The real gradient timing mode's kernels run on with [compression] gradient = "numerics": the initial
/// model's gradient on worker 0's first mini-batch, tensor after tensor.
std::vector<float> numerics_gradient(const scenario::Scenario& s);

/// Places `run` on the simulated time line: step k ends when simulated iteration k ends (the first
/// result.iterations steps), later steps k x result.mean_iteration_s. Fills result.curve and
/// result.time_to_accuracy_s.
void attach_training(const scenario::Scenario& s, const numerics::TrainingRun& run, RunResult& result);

}  // namespace dtsim::run
