#include "numerics/evaluation.hpp"

#include <algorithm>
#include <string>

#include "numerics/layers.hpp"
#include "sim/core/error.hpp"

namespace dtsim::numerics {

Evaluation evaluate(const Model& model, const Dataset& data, std::int64_t batch) {
  DTSIM_CHECK(batch >= 1 && data.size() >= 1, "evaluation needs examples and a positive batch");
  Evaluation result;
  Matrix dlogits;
  for (std::int64_t begin = 0; begin < data.size(); begin += batch) {
    const std::int64_t rows = std::min(batch, data.size() - begin);
    const Matrix scores = model.logits(data.features.middleRows(begin, rows));
    const std::span<const int> labels(data.labels.data() + begin, static_cast<std::size_t>(rows));
    result.loss += softmax_cross_entropy(scores, labels, dlogits) * static_cast<double>(rows);
    for (std::int64_t i = 0; i < rows; ++i) {
      Eigen::Index best = 0;
      scores.row(i).maxCoeff(&best);
      result.accuracy += best == labels[static_cast<std::size_t>(i)] ? 1.0 : 0.0;
    }
  }
  result.loss /= static_cast<double>(data.size());
  result.accuracy /= static_cast<double>(data.size());
  return result;
}

TrainingRun train(Trainer& trainer, const Dataset& test, std::int64_t steps, std::int64_t every) {
  if (steps < 0 || every < 1) {
    throw core::InputError("training for " + std::to_string(steps) + " steps, evaluating every " +
                               std::to_string(every),
                           "steps >= 0 and an evaluation interval >= 1");
  }
  TrainingRun run;
  const auto record = [&] {
    const Evaluation e = evaluate(trainer.model(), test);
    run.curve.push_back({trainer.steps(), e.loss, e.accuracy, trainer.consensus_distance()});
  };
  record();
  for (std::int64_t s = 1; s <= steps; ++s) {
    run.steps.push_back(trainer.step());
    if (s % every == 0 || s == steps) record();
  }
  return run;
}

std::optional<core::Seconds> time_to_accuracy(std::span<const EvalPoint> curve, std::span<const core::Seconds> step_end_s,
                                              double target) {
  for (const EvalPoint& point : curve) {
    if (point.step < 0 || point.step > static_cast<std::int64_t>(step_end_s.size())) {
      throw core::InputError("evaluation at step " + std::to_string(point.step) + " but " +
                                 std::to_string(step_end_s.size()) + " step end times",
                             "an end time for every step up to the last evaluation");
    }
    if (point.accuracy >= target) return point.step == 0 ? 0.0 : step_end_s[static_cast<std::size_t>(point.step - 1)];
  }
  return std::nullopt;
}

}  // namespace dtsim::numerics
