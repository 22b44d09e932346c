#include "numerics/trainer.hpp"

#include <algorithm>
#include <cstring>

#include "compressors/error_feedback.hpp"
#include "compressors/registry.hpp"
#include "sim/core/error.hpp"

namespace dtsim::numerics {
namespace {


void copy_into(std::span<const float> from, std::span<float> to) { std::copy(from.begin(), from.end(), to.begin()); }

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
  const SyncConfig& sync = config.sync;
  if (config.compression && (sync.scheme == Scheme::kPushSum || sync.scheme == Scheme::kOverlapAverage)) {
    throw core::InputError(sync.scheme == Scheme::kPushSum ? "compression with push-sum gossip"
                                                           : "compression with Overlap Local-SGD",
                           "compression with gradient-exchanging schemes, model averaging or synchronous gossip");
  }
  if (config.compression && sync.scheme == Scheme::kGossip && config.compression->feedback != "none") {
    throw core::InputError("error feedback '" + config.compression->feedback + "' with compressed gossip (CHOCO-SGD)",
                           "error feedback \"none\": CHOCO-SGD's public copies keep what compression leaves out");
  }
  if (config.compression && sync.scheme == Scheme::kGossip && sync.power_gossip) {
    throw core::InputError("compressor '" + config.compression->compressor + "' with PowerGossip",
                           "no compression config: PowerGossip compresses each edge's model difference itself");
  }
  if (sync.compressed_pull && !config.compression)
    throw core::InputError("a compressed pull without a compressor", "a compression config, or a dense pull");
  if (sync.lag_threshold > 0.0 && (config.compression || sync.kept || sync.scheme != Scheme::kAverageGradients)) {
    throw core::InputError(std::string("LAG with ") +
                               (config.compression ? "compression"
                                : sync.kept        ? "backup workers"
                                                   : "a scheme other than bsp gradient averaging"),
                           "LAG on dense bsp gradients only: its rule compares a worker's exact gradient with the "
                           "last one the server received, which compression and dropped rounds leave undefined");
  }
  const bool moments = config.compression && make_compressor(model)->wants_second_moment();
  const bool gradients_sent = sync.scheme == Scheme::kAverageGradients || sync.scheme == Scheme::kStaleGradients ||
                              sync.scheme == Scheme::kAsyncPushes;
  if (moments && (!gradients_sent || sync.compressed_pull)) {
    throw core::InputError("compressor '" + config.compression->compressor + "' with " +
                               (gradients_sent ? "a compressed pull" : "a scheme that exchanges models"),
                           "it decides from each gradient's variance over the worker's mini-batch, so it compresses "
                           "gradient uploads: bsp, ssp or asp with a dense pull");
  }
  if (sync.average_momentum && config.optimizer.name != "momentum" && config.optimizer.name != "nesterov")
    throw core::InputError("momentum averaging with optimizer '" + config.optimizer.name + "'",
                           "optimizer momentum or nesterov: the rules that keep a momentum buffer");
  if (sync.participants && (config.optimizer.name != "sgd" || config.optimizer.warmup_steps > 0))
    throw core::InputError("sampled participants with optimizer '" + config.optimizer.name + "'" +
                               (config.optimizer.warmup_steps > 0 ? " and warm-up" : ""),
                           "plain SGD without warm-up: a worker's optimizer steps only when it is sampled");
  if ((sync.participants || sync.average_momentum) && (sync.scheme != Scheme::kModelAverage || config.compression)) {
    throw core::InputError(sync.participants ? "sampled participants" : "momentum averaging",
                           "dense model averaging (kModelAverage without compression)");
  }
  const auto n = static_cast<std::size_t>(config.workers);
  DTSIM_CHECK(sync.scheme != Scheme::kGossip || sync.mixing.size() == n * n, "gossip needs an n x n mixing matrix");
  DTSIM_CHECK(sync.scheme != Scheme::kPushSum || sync.peer, "push-sum needs a peer function");
  for (int w = 0; w < config.workers; ++w) {
    const std::vector<std::int64_t>& rows = shards[static_cast<std::size_t>(w)];
    if (rows.empty()) throw core::InputError("shard of worker " + std::to_string(w) + " is empty", "non-empty shards");
    auto worker = std::make_unique<Worker>(model, config.optimizer, subset(train, rows),
                                           compressors::stream_seed(config.seed, static_cast<std::uint64_t>(w), 0));
    worker->compressor = make_compressor(model);
    if (moments) worker->second_moment.resize(worker->grad.size());
    const auto x = model.parameters();
    if (sync.scheme == Scheme::kPushSum) worker->push_sum.assign(x.begin(), x.end());
    workers_.push_back(std::move(worker));
    shard_sizes_.push_back(static_cast<double>(rows.size()));
  }
  if (sync.compressed_pull) server_ = make_compressor(model);
  if (sync.lag_threshold > 0.0)
    lag_ = std::make_unique<LazyAggregation>(sync.lag_threshold, sync.lag_window, config.workers, average_.size());
  if (sync.scheme == Scheme::kStaleGradients) stale_ = model.clone();
  if (sync.scheme == Scheme::kModelAverage && config.compression)
    synced_.assign(model.parameters().begin(), model.parameters().end());
  if (sync.scheme == Scheme::kOverlapAverage) anchor_.assign(model.parameters().begin(), model.parameters().end());
  if (sync.scheme == Scheme::kGossip && config.compression)
    public_.assign(workers_.size(), std::vector<float>(average_.size(), 0.0f));  // xh_i = 0 (Algorithm 1)
  if (sync.scheme == Scheme::kGossip && sync.power_gossip)
    power_gossip_ = std::make_unique<PowerGossip>(sync.mixing, sync.consensus_step, config.seed);
  if (sync.scheme == Scheme::kAsyncPushes) {
    server_model_ = model.clone();
    OptimizerConfig server = config.optimizer;
    server.warmup_steps *= config.workers;  // W server updates per iteration
    server_optimizer_ = make_optimizer(server);
  }
}

Trainer::~Trainer() = default;

std::unique_ptr<compressors::Compressor> Trainer::make_compressor(const Model& model) const {
  if (!config_.compression) return nullptr;
  const CompressionConfig& c = *config_.compression;
  compressors::Options feedback = c.feedback_options;
  feedback.try_emplace("workers", std::int64_t{config_.workers});
  auto compressor = compressors::make_error_feedback(
      c.feedback, compressors::make_compressor(c.compressor, c.compressor_options), feedback);
  const auto tensors = model.tensors();
  for (std::size_t t = 0; t < tensors.size(); ++t) compressor->set_shape(t, tensors[t].rows, tensors[t].cols);
  return compressor;
}

Models Trainer::models() const {
  Models out;
  for (const auto& w : workers_) out.push_back(std::as_const(*w->model).parameters());
  return out;
}

const Model& Trainer::model() const {
  if (server_model_) return *server_model_;
  if (!mean_) mean_ = workers_.front()->model->clone();
  average(models(), mean_->parameters());
  return *mean_;
}

double Trainer::consensus_distance() const { return numerics::consensus_distance(models()); }

StepReport Trainer::step() {
  const SyncConfig& sync = config_.sync;
  const std::int64_t iteration = steps_;
  StepReport report;
  report.step = ++steps_;
  if (sync.scheme == Scheme::kStaleGradients) {
    const auto x = std::as_const(*workers_.front()->model).parameters();
    history_.emplace_back(x.begin(), x.end());
    if (history_.size() > static_cast<std::size_t>(sync.staleness) + 1) history_.erase(history_.begin());
    copy_into(history_.front(), stale_->parameters());
  }
  const std::vector<int> active = sync.participants ? sync.participants(iteration) : std::vector<int>{};
  report.loss = gradients(stale_.get(), active);
  if (sync.observe) sync.observe(iteration, report.loss);
  const bool exchanges = !sync.exchanges || sync.exchanges(iteration);
  switch (sync.scheme) {
    case Scheme::kAverageGradients:
    case Scheme::kStaleGradients:
      if (lag_) report.uploaded = lazy_uploads();
      exchange(uploads(), sync.kept ? sync.kept(iteration) : std::vector<bool>{}, report);
      apply_average();
      break;
    case Scheme::kAsyncPushes:
      async_pushes(report);
      break;
    case Scheme::kModelAverage:
      if (!exchanges) {
        apply_own_gradients(active);
        break;
      }
      if (config_.compression) {
        average_progress(report);
        break;
      }
      if (sync.participants) {
        sampled_average(active, report);
        break;
      }
      average(models(), average_);
      for (const auto& w : workers_) copy_into(average_, w->model->parameters());
      if (sync.average_momentum) average_momentum();
      exchange(uploads(), {}, report);
      // Momentum buffers or Adam moments kept per worker step the equal models apart again.
      apply_average(sync.average_momentum || config_.optimizer.name == "sgd");
      break;
    case Scheme::kOverlapAverage:
      apply_own_gradients();
      if (exchanges) overlap_average();
      break;
    case Scheme::kGossip:
      if (config_.compression) {
        apply_own_gradients();
        if (exchanges) choco(report);
        break;
      }
      if (exchanges && power_gossip_) power_gossip(report);
      if (exchanges && !power_gossip_) gossip();
      apply_own_gradients();
      break;
    case Scheme::kPushSum:
      push_sum(iteration);
      break;
  }
  return report;
}

double Trainer::gradients(Model* at, const std::vector<int>& active) {
  double loss = 0.0;
  if (!active.empty()) {
    for (const int i : active) {
      Worker& w = *workers_[static_cast<std::size_t>(i)];
      loss += w.gradient(*w.model, config_.batch_size);
    }
    return loss / static_cast<double>(active.size());
  }
  for (const auto& w : workers_) loss += w->gradient(at ? *at : *w->model, config_.batch_size);
  return loss / static_cast<double>(workers_.size());
}

std::vector<std::span<const float>> Trainer::uploads() const {
  std::vector<std::span<const float>> from;
  for (std::size_t w = 0; w < workers_.size(); ++w)
    from.push_back(lag_ ? lag_->held(w) : std::span<const float>(workers_[w]->grad));
  return from;
}

void Trainer::average_progress(StepReport& report) {
  apply_own_gradients();
  std::vector<std::vector<float>> progress(workers_.size(), std::vector<float>(synced_.size()));
  std::vector<std::span<const float>> from;
  for (std::size_t w = 0; w < workers_.size(); ++w) {
    const std::span<const float> x = std::as_const(*workers_[w]->model).parameters();
    for (std::size_t k = 0; k < synced_.size(); ++k) progress[w][k] = x[k] - synced_[k];
    from.emplace_back(progress[w]);
  }
  exchange(from, {}, report);
  for (std::size_t k = 0; k < synced_.size(); ++k) synced_[k] += average_[k];
  for (const auto& w : workers_) copy_into(synced_, w->model->parameters());
}

void Trainer::exchange(const std::vector<std::span<const float>>& from, const std::vector<bool>& kept,
                       StepReport& report) {
  const auto tensors = workers_.front()->model->tensors();
  for (std::size_t t = 0; t < tensors.size(); ++t) {
    Pushes pushes{.tensor = t, .gradients = {}, .compressors = {}, .kept = kept, .second_moments = {}};
    for (std::size_t w = 0; w < workers_.size(); ++w) {
      const Worker& worker = *workers_[w];
      pushes.gradients.push_back(Model::slice(from[w], tensors[t]));
      if (worker.compressor) pushes.compressors.push_back(worker.compressor.get());
      if (!worker.second_moment.empty())
        pushes.second_moments.push_back(Model::slice(std::span<const float>(worker.second_moment), tensors[t]));
    }
    report.tensors.push_back(
        exchange_gradients(pushes, server_.get(), Model::slice(std::span<float>(average_), tensors[t])));
    for (std::size_t w = 0; w < report.uploaded.size(); ++w)
      if (!report.uploaded[w]) report.tensors.back().wire_bytes[w] = 0;
  }
}

std::vector<bool> Trainer::lazy_uploads() {
  std::vector<std::span<const float>> fresh;
  for (const auto& w : workers_) fresh.emplace_back(w->grad);
  const Optimizer& optimizer = *workers_.front()->optimizer;
  return lag_->step(std::as_const(*workers_.front()->model).parameters(), fresh,
                    optimizer.learning_rate(optimizer.steps() + 1));
}

void Trainer::apply_average(bool replicas_equal) {
  for (const auto& w : workers_) w->optimizer->step(w->model->parameters(), average_);
  if (!replicas_equal) return;
  const std::span<const float> reference = std::as_const(*workers_.front()->model).parameters();
  for (const auto& w : workers_) {
    DTSIM_CHECK(std::memcmp(w->model->parameters().data(), reference.data(), reference.size_bytes()) == 0,
                "data-parallel replicas diverged");
  }
}

void Trainer::apply_own_gradients(const std::vector<int>& active) {
  if (!active.empty()) {
    for (const int i : active) {
      Worker& w = *workers_[static_cast<std::size_t>(i)];
      w.optimizer->step(w.model->parameters(), w.grad);
    }
    return;
  }
  for (const auto& w : workers_) w->optimizer->step(w->model->parameters(), w->grad);
}

void Trainer::average_momentum() {
  Models buffers;
  for (const auto& w : workers_) buffers.push_back(w->optimizer->momentum_buffer(average_.size()));
  std::vector<float> mean(average_.size());
  average(buffers, mean);
  for (const auto& w : workers_) copy_into(mean, w->optimizer->momentum_buffer(average_.size()));
}

void Trainer::sampled_average(const std::vector<int>& active, StepReport& report) {
  std::vector<bool> kept(workers_.size(), false);
  Models models, grads;
  std::vector<double> weights;
  for (const int i : active) {
    const Worker& w = *workers_[static_cast<std::size_t>(i)];
    kept[static_cast<std::size_t>(i)] = true;
    models.push_back(std::as_const(*w.model).parameters());
    grads.emplace_back(w.grad);
    weights.push_back(shard_sizes_[static_cast<std::size_t>(i)]);
  }
  exchange(uploads(), kept, report);  // the sampled workers' wire bytes; average_: their plain mean gradient
  for (TensorExchange& t : report.tensors)
    for (std::size_t w = 0; w < kept.size(); ++w)
      if (!kept[w]) t.wire_bytes[w] = 0;
  if (std::any_of(weights.begin(), weights.end(), [&](double n) { return n != weights.front(); }))
    weighted_average(grads, weights, average_);
  std::vector<float> x(average_.size());
  weighted_average(models, weights, x);
  for (const int i : active) {
    Worker& w = *workers_[static_cast<std::size_t>(i)];
    copy_into(x, w.model->parameters());
    w.optimizer->step(w.model->parameters(), average_);
  }
  const std::span<const float> global =
      std::as_const(*workers_[static_cast<std::size_t>(active.front())]->model).parameters();
  for (std::size_t w = 0; w < workers_.size(); ++w) {
    DTSIM_CHECK(!kept[w] ||
                    std::memcmp(workers_[w]->model->parameters().data(), global.data(), global.size_bytes()) == 0,
                "the sampled replicas diverged");
    if (!kept[w]) copy_into(global, workers_[w]->model->parameters());
  }
}

void Trainer::async_pushes(StepReport& report) {
  const auto tensors = workers_.front()->model->tensors();
  report.tensors.resize(tensors.size());
  const auto n = static_cast<float>(workers_.size());
  for (const auto& w : workers_) {
    for (std::size_t t = 0; t < tensors.size(); ++t) {
      Pushes push{.tensor = t, .gradients = {Model::slice(std::span<const float>(w->grad), tensors[t])},
                  .compressors = {}, .kept = {}, .second_moments = {}};
      if (w->compressor) push.compressors.push_back(w->compressor.get());
      if (!w->second_moment.empty())
        push.second_moments.push_back(Model::slice(std::span<const float>(w->second_moment), tensors[t]));
      const TensorExchange x =
          exchange_gradients(push, nullptr, Model::slice(std::span<float>(average_), tensors[t]));
      TensorExchange& all = report.tensors[t];
      all.tensor = t;
      all.how = x.how;
      all.wire_bytes.insert(all.wire_bytes.end(), x.wire_bytes.begin(), x.wire_bytes.end());
      all.second_round_bytes.insert(all.second_round_bytes.end(), x.second_round_bytes.begin(),
                                    x.second_round_bytes.end());
      all.compress_s += x.compress_s / n;
      all.decompress_s += x.decompress_s / n;
    }
    for (float& g : average_) g /= n;
    server_optimizer_->step(server_model_->parameters(), average_);
    copy_into(std::as_const(*server_model_).parameters(), w->model->parameters());
  }
}

void Trainer::overlap_average() {
  const auto alpha = static_cast<float>(config_.sync.pull);
  for (const auto& w : workers_) {
    const std::span<float> x = w->model->parameters();
    for (std::size_t k = 0; k < x.size(); ++k) x[k] -= alpha * (x[k] - anchor_[k]);
  }
  average(models(), anchor_);  // the all-reduce started now; the next exchanging iteration pulls towards it
}

void Trainer::gossip() {
  std::vector<std::vector<float>> mixed(workers_.size(), std::vector<float>(average_.size()));
  std::vector<std::span<float>> out(mixed.begin(), mixed.end());
  mix(config_.sync.mixing, models(), out);
  for (std::size_t i = 0; i < workers_.size(); ++i) copy_into(mixed[i], workers_[i]->model->parameters());
}

void Trainer::choco(StepReport& report) {
  const std::size_t n = workers_.size();
  const auto tensors = workers_.front()->model->tensors();
  report.tensors.resize(tensors.size());
  std::vector<float> difference(average_.size()), sent(average_.size());
  for (std::size_t i = 0; i < n; ++i) {
    Worker& w = *workers_[i];
    const std::span<const float> x = std::as_const(*w.model).parameters();
    for (std::size_t k = 0; k < difference.size(); ++k) difference[k] = x[k] - public_[i][k];
    for (std::size_t t = 0; t < tensors.size(); ++t) {
      const core::Bytes bytes =
          compressors::exchange_local(*w.compressor, Model::slice(std::span<const float>(difference), tensors[t]), t,
                                      Model::slice(std::span<float>(sent), tensors[t]));
      report.tensors[t].tensor = t;
      report.tensors[t].wire_bytes.push_back(bytes);
    }
    for (std::size_t k = 0; k < sent.size(); ++k) public_[i][k] += sent[k];
  }
  const std::vector<double>& mixing = config_.sync.mixing;
  const double gamma = config_.sync.consensus_step;
  for (std::size_t i = 0; i < n; ++i) {
    const std::span<float> x = workers_[i]->model->parameters();
    for (std::size_t k = 0; k < x.size(); ++k) {
      double pull = 0.0;
      for (std::size_t j = 0; j < n; ++j)
        if (mixing[i * n + j] != 0.0) pull += mixing[i * n + j] * (static_cast<double>(public_[j][k]) - public_[i][k]);
      x[k] = static_cast<float>(x[k] + gamma * pull);
    }
  }
}

void Trainer::power_gossip(StepReport& report) {
  std::vector<std::span<float>> models;
  for (const auto& w : workers_) models.push_back(w->model->parameters());
  const auto bytes = power_gossip_->step(models, workers_.front()->model->tensors());
  for (std::size_t t = 0; t < bytes.size(); ++t) {
    TensorExchange& x = report.tensors.emplace_back();
    x.tensor = t;
    x.how = compressors::Aggregation::kLowRank;
    for (const PowerGossipBytes& b : bytes[t]) {
      x.wire_bytes.push_back(b.first_round);
      x.second_round_bytes.push_back(b.second_round);
    }
  }
}

void Trainer::push_sum(std::int64_t iteration) {
  const std::size_t n = workers_.size();
  std::vector<std::vector<double>> x(n, std::vector<double>(average_.size(), 0.0));
  std::vector<double> weight(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    Worker& w = *workers_[i];
    w.optimizer->step(w.push_sum, w.grad);
    const auto peer = static_cast<std::size_t>(config_.sync.peer(static_cast<int>(i), iteration));
    DTSIM_CHECK(peer < n, "push-sum peer out of range");
    for (const std::size_t to : {i, peer}) {
      for (std::size_t k = 0; k < average_.size(); ++k) x[to][k] += 0.5 * w.push_sum[k];
      weight[to] += 0.5 * w.weight;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    Worker& w = *workers_[i];
    w.weight = weight[i];
    const std::span<float> z = w.model->parameters();
    for (std::size_t k = 0; k < average_.size(); ++k) {
      w.push_sum[k] = static_cast<float>(x[i][k]);
      z[k] = static_cast<float>(x[i][k] / w.weight);
    }
  }
}

}  // namespace dtsim::numerics
