#include "numerics/trainer.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "compressors/error_feedback.hpp"
#include "compressors/registry.hpp"
#include "numerics/random.hpp"
#include "sim/core/error.hpp"

namespace dtsim::numerics {

struct Trainer::Worker {
  Worker(const Model& replica, const OptimizerConfig& optimizer_config, Dataset examples, std::uint64_t seed)
      : model(replica.clone()),
        optimizer(make_optimizer(optimizer_config)),
        shard(std::move(examples)),
        rng(seed),
        order(permutation(rng, shard.size())),
        grad(replica.parameters().size()) {}

  std::unique_ptr<Model> model;
  std::unique_ptr<Optimizer> optimizer;
  std::unique_ptr<compressors::Compressor> compressor;
  Dataset shard;
  compressors::Rng rng;
  std::vector<std::int64_t> order;
  std::size_t cursor = 0;
  std::vector<float> grad;
  Matrix batch;
  std::vector<int> labels;

  /// Fills batch/labels with the next examples of the shard, reshuffling after each pass.
  void next_batch(std::int64_t size) {
    batch.resize(size, shard.features.cols());
    labels.resize(static_cast<std::size_t>(size));
    for (std::int64_t b = 0; b < size; ++b, ++cursor) {
      if (cursor == order.size()) {
        shuffle(rng, order);
        cursor = 0;
      }
      batch.row(b) = shard.features.row(order[cursor]);
      labels[static_cast<std::size_t>(b)] = shard.labels[static_cast<std::size_t>(order[cursor])];
    }
  }
};

namespace {

using Clock = std::chrono::steady_clock;

core::Seconds seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

core::Seconds median(std::vector<core::Seconds> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace

Trainer::Trainer(const Model& model, const Dataset& train, const Shards& shards, const TrainerConfig& config)
    : config_(config), average_(model.parameters().size()) {
  if (config.workers < 1 || shards.size() != static_cast<std::size_t>(config.workers)) {
    throw core::InputError(std::to_string(shards.size()) + " shards for " + std::to_string(config.workers) +
                               " workers",
                           "one non-empty shard per worker, workers >= 1");
  }
  if (config.batch_size < 1) {
    throw core::InputError("batch size " + std::to_string(config.batch_size), "batch_size >= 1 per worker");
  }
  if (train.shape.features() != train.features.cols()) {
    throw core::InputError("data set rows of " + std::to_string(train.features.cols()) + " features, shape says " +
                               std::to_string(train.shape.features()),
                           "rows of channels x height x width features");
  }
  for (int w = 0; w < config.workers; ++w) {
    const std::vector<std::int64_t>& rows = shards[static_cast<std::size_t>(w)];
    if (rows.empty()) throw core::InputError("shard of worker " + std::to_string(w) + " is empty", "non-empty shards");
    auto worker = std::make_unique<Worker>(model, config.optimizer, subset(train, rows),
                                           compressors::stream_seed(config.seed, static_cast<std::uint64_t>(w), 0));
    if (config.compression) {
      const CompressionConfig& c = *config.compression;
      compressors::Options feedback = c.feedback_options;
      feedback.try_emplace("workers", std::int64_t{config.workers});
      worker->compressor = compressors::make_error_feedback(
          c.feedback, compressors::make_compressor(c.compressor, c.compressor_options), feedback);
      const auto tensors = model.tensors();
      for (std::size_t t = 0; t < tensors.size(); ++t) worker->compressor->set_shape(t, tensors[t].rows, tensors[t].cols);
    }
    workers_.push_back(std::move(worker));
  }
}

Trainer::~Trainer() = default;

const Model& Trainer::model() const { return *workers_.front()->model; }

StepReport Trainer::step() {
  StepReport report;
  report.step = ++steps_;
  for (const auto& w : workers_) {
    w->next_batch(config_.batch_size);
    report.loss += w->model->loss_and_gradient(w->batch, w->labels, w->grad);
  }
  report.loss /= static_cast<double>(workers_.size());
  const auto tensors = model().tensors();
  report.tensors.resize(tensors.size());
  for (std::size_t t = 0; t < tensors.size(); ++t) exchange(t, report.tensors[t]);
  for (const auto& w : workers_) w->optimizer->step(w->model->parameters(), average_);
  const std::span<const float> reference = model().parameters();
  for (const auto& w : workers_) {
    DTSIM_CHECK(std::memcmp(w->model->parameters().data(), reference.data(), reference.size_bytes()) == 0,
                "data-parallel replicas diverged");
  }
  return report;
}

void Trainer::exchange(std::size_t t, TensorExchange& report) {
  const TensorInfo& info = model().tensors()[t];
  const std::span<float> out = Model::slice(std::span<float>(average_), info);
  const auto gradient = [&info](const Worker& w) { return Model::slice(std::span<const float>(w.grad), info); };
  const std::size_t count = workers_.size();
  report.tensor = t;
  if (!config_.compression) {
    report.how = compressors::Aggregation::kAllReduce;
    report.wire_bytes.assign(count, static_cast<core::Bytes>(info.numel() * sizeof(float)));
    std::copy_n(gradient(*workers_[0]).begin(), out.size(), out.begin());
    for (std::size_t w = 1; w < count; ++w) {
      const auto g = gradient(*workers_[w]);
      for (std::size_t i = 0; i < out.size(); ++i) out[i] += g[i];
    }
  } else {
    std::vector<compressors::Compressed> msgs(count);
    std::vector<core::Seconds> compress_s(count);
    for (std::size_t w = 0; w < count; ++w) {
      Worker& worker = *workers_[w];
      const Clock::time_point start = Clock::now();
      worker.compressor->compress(gradient(worker), t, msgs[w]);
      compress_s[w] = seconds_since(start);
      report.wire_bytes.push_back(msgs[w].wire_size);
    }
    report.how = msgs.front().how;
    for (const compressors::Compressed& msg : msgs) DTSIM_CHECK(msg.how == report.how, "workers disagree on aggregation");
    const compressors::Compressor& combiner = *workers_.front()->compressor;
    if (report.how == compressors::Aggregation::kLowRank) {
      const compressors::Compressed first = combiner.reduce(msgs);
      for (std::size_t w = 0; w < count; ++w) {
        const Clock::time_point start = Clock::now();
        msgs[w] = workers_[w]->compressor->next_round(first);
        compress_s[w] += seconds_since(start);
        report.second_round_bytes.push_back(msgs[w].wire_size);
      }
    }
    const Clock::time_point start = Clock::now();
    compressors::aggregate(combiner, msgs, out);
    report.decompress_s = seconds_since(start);
    report.compress_s = median(std::move(compress_s));
  }
  if (report.how == compressors::Aggregation::kMajorityVote) return;
  const auto divisor = static_cast<float>(count);
  for (float& x : out) x /= divisor;
}

}  // namespace dtsim::numerics
