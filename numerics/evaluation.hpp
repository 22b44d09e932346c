#pragma once
/// Loss and accuracy of a model on a data set, a training loop that records them every N steps,
/// and time-to-accuracy against the simulated end time of each step.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "numerics/trainer.hpp"
#include "sim/core/units.hpp"

namespace dtsim::numerics {

/// Mean cross-entropy and accuracy on a data set.
struct Evaluation {
  double loss = 0.0;      ///< mean cross-entropy
  double accuracy = 0.0;  ///< fraction of examples whose top class is the label
};

/// One point of a learning curve.
struct EvalPoint {
  std::int64_t step = 0;  ///< steps done when evaluated (0 = the initial model)
  double loss = 0.0;      ///< test loss
  double accuracy = 0.0;  ///< test accuracy
  double consensus_distance = 0.0;  ///< (1/W) sum_w ||x_w - x_bar||^2 of the workers' models
};

/// A learning curve with the report of every step.
struct TrainingRun {
  std::vector<StepReport> steps;  ///< one per step, in order
  std::vector<EvalPoint> curve;   ///< evaluations at step 0, every, 2 every, ... and the last step
};

/// Evaluates `model` on `data` in batches of `batch` examples.
Evaluation evaluate(const Model& model, const Dataset& data, std::int64_t batch = 1024);

/// Runs `steps` more steps of `trainer`, evaluating its model() on `test` before them, every `every` steps
/// and after the last one; InputError when steps < 0 or every < 1.
TrainingRun train(Trainer& trainer, const Dataset& test, std::int64_t steps, std::int64_t every);

/// Simulated time at which `curve` first reaches `target` accuracy: step_end_s[step - 1] of that
/// point (0 for step 0); nullopt when it never does. InputError when a point's step has no end time.
std::optional<core::Seconds> time_to_accuracy(std::span<const EvalPoint> curve, std::span<const core::Seconds> step_end_s,
                                              double target);

}  // namespace dtsim::numerics
