#include "sim/run/numerics_run.hpp"

#include <optional>

#include <fmt/format.h>

#include "compressors/rng.hpp"
#include "numerics/dataset_readers.hpp"
#include "numerics/evaluation.hpp"
#include "numerics/model.hpp"
#include "numerics/sharding.hpp"
#include "numerics/trainer.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/run/numerics_sync.hpp"
#include "sim/scenario/numerics_section.hpp"
#include "sim/sync/scheme.hpp"

namespace dtsim::run {
namespace {

/// Independent streams for data, split, shards, initialisation and mini-batches: the generators would
/// otherwise draw the same numbers (a model initialised to the mixture's class means classifies at once).
enum Stream : std::uint64_t { kData = 1, kSplit, kShards, kInit, kBatches, kBackup };
std::uint64_t seed_of(const scenario::Numerics& n, Stream stream) {
  return compressors::stream_seed(n.seed, stream, 0);
}

numerics::Dataset dataset(const scenario::Numerics& n) {
  if (n.dataset == "mnist") return numerics::read_mnist(n.files[0], n.files[1]);
  if (n.dataset == "cifar10") return numerics::read_cifar10(n.files);
  if (n.dataset == "teacher") return numerics::teacher_network({n.examples, n.dims, n.classes, 64, seed_of(n, kData)});
  return numerics::gaussian_mixture({n.examples, n.dims, n.classes, n.separation, seed_of(n, kData)});
}


/// The data split, the workers' shards and the initial model of a scenario's numerics mode.
struct Setup {
  numerics::Dataset train;
  numerics::Dataset test;
  numerics::Shards shards;
  std::unique_ptr<numerics::Model> model;
};

Setup setup(const scenario::Scenario& s) {
  const scenario::Numerics& n = s.numerics;
  Setup u;
  std::tie(u.train, u.test) = numerics::train_test_split(dataset(n), n.test_fraction, seed_of(n, kSplit));
  u.shards = n.shards == "dirichlet"
                 ? numerics::shard_dirichlet(u.train, s.workers, n.dirichlet_alpha, seed_of(n, kShards))
                 : numerics::shard_iid(u.train, s.workers, seed_of(n, kShards));
  u.model = numerics::make_model({n.model, n.hidden}, scenario::numerics_input_shape(n), seed_of(n, kInit));
  return u;
}

/// A worker draws its mini-batches from its shard, wrapping around it, and holds each as a matrix of batch x features
/// floats: a mini-batch larger than the whole training set repeats its examples, and at a million examples it
/// allocated gigabytes before the first step (and ended in bad_alloc under ulimit -v). Refused before the trainer
/// allocates anything, with the bytes the mini-batches would take.
void refuse_oversized_batch(const scenario::Scenario& s, const numerics::Dataset& train) {
  if (s.batch_size <= train.size()) return;
  const double bytes = static_cast<double>(s.workers) * s.batch_size * static_cast<double>(train.features.cols()) *
                       static_cast<double>(sizeof(float));
  throw core::InputError(
      s.source,
      fmt::format("batch_size = {} examples a worker, more than the {} of the whole training set: every mini-batch "
                  "would repeat its examples, and the workers' mini-batches alone would take {} ({} workers x {} "
                  "examples x {} features x 4 B)",
                  s.batch_size, train.size(), core::format_bytes(bytes), s.workers, s.batch_size,
                  train.features.cols()),
      fmt::format("batch_size = {} or less, or a larger training set ([numerics] examples)", train.size()));
}

}  // namespace

std::vector<float> numerics_gradient(const scenario::Scenario& s) {
  Setup u = setup(s);
  const std::vector<std::int64_t>& shard = u.shards.front();
  const auto batch = std::min<std::int64_t>(s.batch_size, static_cast<std::int64_t>(shard.size()));
  numerics::Matrix x(batch, u.train.features.cols());
  std::vector<int> labels;
  for (std::int64_t i = 0; i < batch; ++i) {
    x.row(i) = u.train.features.row(shard[static_cast<std::size_t>(i)]);
    labels.push_back(u.train.labels[static_cast<std::size_t>(shard[static_cast<std::size_t>(i)])]);
  }
  std::vector<float> grad(u.model->parameters().size());
  u.model->loss_and_gradient(x, labels, grad);
  return grad;
}

numerics::TrainingRun train_numerics(const scenario::Scenario& s) {
  const scenario::Numerics& n = s.numerics;
  const Setup u = setup(s);
  const auto& [train, test, shards, model] = u;
  refuse_oversized_batch(s, train);
  numerics::TrainerConfig config;
  config.workers = s.workers;
  config.batch_size = s.batch_size;
  config.seed = seed_of(n, kBatches);
  if (!s.compression.compressor.empty())
    config.compression = numerics::CompressionConfig{s.compression.compressor, s.compression.options,
                                                     s.compression.error_feedback, s.compression.feedback_options};
  config.optimizer.name = n.optimizer;
  config.optimizer.learning_rate = n.learning_rate;
  config.optimizer.warmup_steps = n.warmup_steps;
  config.sync = numerics_sync(s, seed_of(n, kBackup));
  numerics::Trainer trainer(*model, train, shards, config);
  return numerics::train(trainer, test, n.steps, n.eval_every);
}

void attach_training(const scenario::Scenario& s, const numerics::TrainingRun& run, RunResult& result) {
  const scenario::Numerics& n = s.numerics;
  // Past the timing run, local SGD repeats its last period (the loader makes the run end on a whole one:
  // post-local SGD's steps before the switch average every step, those after every `period`); the other
  // schemes repeat the run's mean iteration.
  const auto simulated = static_cast<std::int64_t>(result.iterations.size());
  const std::optional<int> repeats = s.sync.rules().repeating_period(s.sync);
  const std::int64_t period = repeats && simulated >= *repeats ? *repeats : 0;
  auto end_of = [&](std::int64_t step) {
    const auto at = [&](std::int64_t k) { return result.iterations[static_cast<std::size_t>(k - 1)].end_s; };
    if (step >= 1 && step <= simulated) return at(step);
    if (period > 0) {
      const double last_start = simulated > period ? at(simulated - period) : 0.0;
      return at(simulated) + static_cast<double>(step - simulated) * (at(simulated) - last_start) / static_cast<double>(period);
    }
    return static_cast<double>(step) * result.mean_iteration_s;
  };
  std::vector<double> step_end_s;
  for (std::int64_t k = 1; k <= n.steps; ++k) step_end_s.push_back(end_of(k));
  for (const numerics::EvalPoint& p : run.curve)
    result.curve.push_back({p.step, end_of(p.step), p.loss, p.accuracy, p.consensus_distance});
  if (n.target_accuracy) {
    result.target_accuracy = *n.target_accuracy;
    result.time_to_accuracy_s = numerics::time_to_accuracy(run.curve, step_end_s, *n.target_accuracy);
  }
}

}  // namespace dtsim::run
