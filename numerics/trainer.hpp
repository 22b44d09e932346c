#pragma once
/// One data-parallel step of W simulated workers with real gradients and real compression: every worker
/// computes the gradient of its model replica on its next mini-batch, and the workers' updates meet as the
/// SyncConfig's scheme says (numerics/sync_config.hpp). Under the default, bsp gradient averaging:
///   each tensor:     msg_w = c_w.compress(g_w)  (c_w = error feedback over a compressor, per worker)
///                    avg = combine(msg_0..msg_{W-1}) / W   (numerics/gradient_exchange.hpp)
///   each worker w:   optimizer_w.step(x_w, avg)   -> replicas stay bit-identical (checked)
/// Compression applies to gradient exchanges and to model averaging, where it compresses each worker's progress
/// since the last average (Qsparse-local-SGD, Basu et al., NeurIPS 2019; Jiang & Agrawal, NeurIPS 2018):
///   x_w <- opt_w(x_w, g_w);  x_sync <- x_sync + combine(c_w.compress(x_w - x_sync)) / W;  x_w <- x_sync
/// with the error-feedback layer as their memory. Synchronous gossip compresses as CHOCO-SGD does
/// (numerics/sync_config.hpp) and refuses a compressor with PowerGossip, which compresses itself; push-sum and Overlap Local-SGD refuse compression, and so does LAG (a skipped upload would leave the
/// error feedback undefined). A compressor that wants the samples' second moment (variance_based) gets each worker's
/// (Model::loss_gradient_and_second_moment) with its gradient, and is refused where no gradient is uploaded (model
/// averaging, gossip) or where the server compresses an average (a compressed pull).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compressors/compressor.hpp"
#include "compressors/options.hpp"
#include "numerics/consensus.hpp"
#include "numerics/gradient_exchange.hpp"
#include "numerics/lag.hpp"
#include "numerics/model.hpp"
#include "numerics/optimizer.hpp"
#include "numerics/power_gossip.hpp"
#include "numerics/sharding.hpp"
#include "numerics/sync_config.hpp"
#include "numerics/worker.hpp"

namespace dtsim::numerics {

/// The compression of every exchange: a registered compressor under an error-feedback layer.
struct CompressionConfig {
  std::string compressor = "none";               ///< compressors registry name
  compressors::Options compressor_options;       ///< its parameters
  std::string feedback = "none";                 ///< error feedback: none, residual, dgc
  compressors::Options feedback_options;         ///< its parameters ("workers" defaults to W)
};

/// Everything a Trainer needs besides the model and the data.
struct TrainerConfig {
  int workers = 4;                               ///< W simulated workers
  std::int64_t batch_size = 32;                  ///< examples per worker per step
  std::uint64_t seed = 1;                        ///< mini-batch order of every worker
  std::optional<CompressionConfig> compression;  ///< none: plain dense averaging, no compressor at all
  OptimizerConfig optimizer;                     ///< every worker's (and the asp server's) update rule
  SyncConfig sync;                               ///< how the workers' updates meet
};

/// One step's outcome.
struct StepReport {
  std::int64_t step = 0;                 ///< 1-based index of the step
  double loss = 0.0;                     ///< mean of the workers' mini-batch losses before the update
  std::vector<TensorExchange> tensors;   ///< per tensor, in Model::tensors() order; empty when no gradients met
  std::vector<bool> uploaded;            ///< per worker: its gradient went to the server (LAG skips); empty: all did
};

/// W model replicas, their optimizers, compressors and shards; advances them one step at a time.
class Trainer {
 public:
  /// Replicates `model` on config.workers workers, worker w training on examples shards[w] of
  /// `train`; InputError on bad sizes, names or options, compression with a model-exchanging scheme, or LAG
  /// with anything but dense bsp gradient averaging (no compression, no backup workers).
  Trainer(const Model& model, const Dataset& train, const Shards& shards, const TrainerConfig& config);
  /// Releases the workers.
  ~Trainer();
  /// Runs one step (one iteration of every worker).
  StepReport step();
  /// The model to evaluate: the asp server's, else the mean of the workers' models (the replica itself
  /// when they are equal).
  const Model& model() const;
  /// (1/W) sum_w ||x_w - x_bar||^2 over the workers' models (0 while they are equal).
  double consensus_distance() const;
  /// Steps done so far.
  std::int64_t steps() const { return steps_; }

 private:
  std::unique_ptr<compressors::Compressor> make_compressor(const Model& model) const;
  double gradients(Model* at, const std::vector<int>& active = {});
  void exchange(const std::vector<std::span<const float>>& from, const std::vector<bool>& kept, StepReport& report);
  std::vector<std::span<const float>> uploads() const;
  void average_progress(StepReport& report);
  std::vector<bool> lazy_uploads();
  void apply_average(bool replicas_equal = true);
  void async_pushes(StepReport& report);
  void overlap_average();
  void gossip();
  void push_sum(std::int64_t iteration);
  void choco(StepReport& report);
  void power_gossip(StepReport& report);
  void apply_own_gradients(const std::vector<int>& active = {});
  void average_momentum();
  void sampled_average(const std::vector<int>& active, StepReport& report);
  Models models() const;

  TrainerConfig config_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<float> average_;                          ///< the averaged update of a gradient exchange
  std::vector<double> shard_sizes_;                     ///< per worker: its examples (FedAvg's weights)
  std::unique_ptr<compressors::Compressor> server_;     ///< pull = "compressed": the server's compressor
  std::unique_ptr<Model> stale_;                        ///< ssp: the model gradients are taken at
  std::vector<std::vector<float>> history_;             ///< ssp: the models of the last staleness + 1 steps
  std::unique_ptr<Model> server_model_;                 ///< asp: the server's model
  std::unique_ptr<Optimizer> server_optimizer_;         ///< asp: the server's optimizer
  std::unique_ptr<LazyAggregation> lag_;                ///< LAG: the gradients the server holds
  std::vector<float> synced_;                           ///< compressed model averaging: the last average
  std::vector<float> anchor_;                           ///< Overlap Local-SGD: the anchor model z
  std::vector<std::vector<float>> public_;              ///< CHOCO-SGD: every worker's public copy xh_i
  std::unique_ptr<PowerGossip> power_gossip_;           ///< PowerGossip: the edges' warm-start vectors
  mutable std::unique_ptr<Model> mean_;                 ///< model(): the workers' mean
  std::int64_t steps_ = 0;
};

}  // namespace dtsim::numerics
