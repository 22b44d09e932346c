#pragma once
/// One synchronous data-parallel step of W simulated workers with real gradients and real
/// compression:
///   each worker w:   g_w = gradient of its model replica on its next mini-batch of its shard
///   each tensor:     msg_w = c_w.compress(g_w)  (c_w = error feedback over a compressor, per worker)
///                    out = combine(msg_0..msg_{W-1})  as compressors/compressor.hpp prescribes
///                    avg = out / W   (majority vote: avg = out, the voted signs)
///   each worker w:   optimizer_w.step(x_w, avg)   -> replicas stay bit-identical (checked)
/// Without compression, avg is the plain sum of the g_w (worker order) divided by W; compressor
/// `none` under error feedback `none` gives the same bits. Wall times are measured for the
/// simulator's cost model only; no result depends on them.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compressors/compressor.hpp"
#include "compressors/options.hpp"
#include "numerics/model.hpp"
#include "numerics/optimizer.hpp"
#include "numerics/sharding.hpp"
#include "sim/core/units.hpp"

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
  OptimizerConfig optimizer;                     ///< applied by every worker to the averaged gradient
};

/// What the simulator needs about one tensor's exchange in one step.
struct TensorExchange {
  std::size_t tensor = 0;                            ///< index into Model::tensors() (= compressor TensorId)
  compressors::Aggregation how = compressors::Aggregation::kAllReduce;  ///< fixes the collective
  std::vector<core::Bytes> wire_bytes;               ///< bytes each worker sends (first round of kLowRank)
  std::vector<core::Bytes> second_round_bytes;       ///< kLowRank: bytes each worker sends in round two
  core::Seconds compress_s = 0.0;                    ///< median over workers of compress (+ next_round) time
  core::Seconds decompress_s = 0.0;                  ///< time to combine all payloads (each worker does it)
};

/// One step's outcome.
struct StepReport {
  std::int64_t step = 0;                 ///< 1-based index of the step
  double loss = 0.0;                     ///< mean of the workers' mini-batch losses before the update
  std::vector<TensorExchange> tensors;   ///< one per tensor, in Model::tensors() order
};

/// W model replicas, their optimizers, compressors and shards; advances them one step at a time.
class Trainer {
 public:
  /// Replicates `model` on config.workers workers, worker w training on examples shards[w] of
  /// `train`; InputError on bad sizes, names or options.
  Trainer(const Model& model, const Dataset& train, const Shards& shards, const TrainerConfig& config);
  /// Releases the workers.
  ~Trainer();
  /// Runs one synchronous step on every worker.
  StepReport step();
  /// The (replicated) model, worker 0's copy.
  const Model& model() const;
  /// Steps done so far.
  std::int64_t steps() const { return steps_; }

 private:
  struct Worker;
  void exchange(std::size_t t, TensorExchange& report);

  TrainerConfig config_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<float> average_;
  std::int64_t steps_ = 0;
};

}  // namespace dtsim::numerics
