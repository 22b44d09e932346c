#pragma once
// Small training tasks and trainer configurations shared by the numerics tests.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "numerics/dataset.hpp"
#include "numerics/trainer.hpp"

namespace dtsim::numerics::testing {

constexpr int kWorkers = 4;

/// A data set split into train/test, iid shards for `workers` workers, and an initial model.
struct Task {
  Dataset train, test;
  Shards shards;
  std::unique_ptr<Model> model;
};

inline Task make_task(const Dataset& all, const ModelSpec& spec, int workers = kWorkers) {
  Task task;
  auto [train_set, test_set] = train_test_split(all, 1.0 / 6.0, 3);
  task.train = std::move(train_set);
  task.test = std::move(test_set);
  task.shards = shard_iid(task.train, workers, 5);
  task.model = make_model(spec, task.train.shape, 11);
  return task;
}

inline Task small_task(int workers = kWorkers) {
  return make_task(teacher_network({.examples = 1200, .dims = 16, .classes = 4, .hidden = 16, .seed = 7}),
                   {.name = "mlp", .hidden = {32}}, workers);
}

inline CompressionConfig compression(const std::string& compressor, compressors::Options options,
                                     const std::string& feedback) {
  return {.compressor = compressor, .compressor_options = std::move(options), .feedback = feedback, .feedback_options = {}};
}

inline TrainerConfig config(std::optional<CompressionConfig> c, const std::string& optimizer, double lr,
                            int workers = kWorkers) {
  TrainerConfig out;
  out.workers = workers;
  out.batch_size = 32;
  out.seed = 9;
  out.compression = std::move(c);
  out.optimizer.name = optimizer;
  out.optimizer.learning_rate = lr;
  return out;
}

inline std::vector<float> parameters(const Trainer& trainer) {
  const auto p = trainer.model().parameters();
  return {p.begin(), p.end()};
}

/// Parameters of the evaluated model after `steps` steps.
inline std::vector<float> trained(const Task& task, const TrainerConfig& c, int steps) {
  Trainer trainer(*task.model, task.train, task.shards, c);
  for (int s = 0; s < steps; ++s) trainer.step();
  return parameters(trainer);
}

/// Worker i talks to i - 1 and i + 1 with Metropolis-Hastings weights 1/3.
inline std::vector<double> ring(int n) {
  std::vector<double> w(static_cast<std::size_t>(n * n), 0.0);
  for (int i = 0; i < n; ++i)
    for (const int j : {i, (i + 1) % n, (i + n - 1) % n}) w[static_cast<std::size_t>(i * n + j)] = 1.0 / 3.0;
  return w;
}

/// No neighbours: every worker keeps its own model.
inline std::vector<double> identity(int n) {
  std::vector<double> w(static_cast<std::size_t>(n * n), 0.0);
  for (int i = 0; i < n; ++i) w[static_cast<std::size_t>(i * n + i)] = 1.0;
  return w;
}

/// Synchronous gossip with SGD at 0.1 on `mixing`, consensus step `gamma` (CHOCO-SGD with a compressor).
inline TrainerConfig gossip(std::optional<CompressionConfig> c, std::vector<double> mixing, double gamma) {
  TrainerConfig out = config(std::move(c), "sgd", 0.1);
  out.sync.scheme = Scheme::kGossip;
  out.sync.mixing = std::move(mixing);
  out.sync.consensus_step = gamma;
  return out;
}

}  // namespace dtsim::numerics::testing
