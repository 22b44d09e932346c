#pragma once
/// Error feedback as a layer over any compressor (GRACE's Memory): it compensates the gradient
/// before compression and keeps what was not sent.
///   none:     t = clip(g)
///   residual: t = e + gamma clip(g);  e = t - decompress(compress(t))   (Seide 2014; Karimireddy 2019)
///   dgc:      u = m u + g, v = v + u   (Nesterov: u = m (u + g), v = v + u + g);  t = v;
///             v = v - decompress(msg); u = 0 where something was sent (momentum factor masking)
///             (Lin et al., "Deep Gradient Compression", ICLR 2018)
/// Local gradient clipping (every kind): when clip_norm > 0, g is rescaled to norm at most
/// clip_norm / sqrt(workers). For low-rank compressors the update happens in next_round, against
/// this worker's own share of the reconstruction.
#include <map>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "compressors/compressor.hpp"
#include "compressors/options.hpp"

namespace dtsim::compressors {

/// Which compensation the layer applies.
enum class FeedbackKind { kNone, kResidual, kDgc };

/// Parameters of the layer, with their defaults.
struct FeedbackParams {
  double gamma = 1.0;       ///< residual: weight of the new gradient (GRACE efsignsgd's lr)
  double momentum = 0.9;    ///< dgc: momentum m
  bool nesterov = false;    ///< dgc: Nesterov momentum correction
  bool masking = true;      ///< dgc: momentum factor masking
  double clip_norm = 0.0;   ///< global clipping threshold (0 = off)
  std::int64_t workers = 1; ///< N in the local threshold clip_norm / sqrt(N)
};

/// A compressor wrapped in error feedback; itself a Compressor.
class ErrorFeedback final : public Compressor {
 public:
  /// Wraps `inner` with compensation `kind`.
  ErrorFeedback(std::unique_ptr<Compressor> inner, FeedbackKind kind, const FeedbackParams& params);
  /// The inner compressor's name.
  std::string_view name() const override { return inner_->name(); }
  using Compressor::compress;
  /// Compensates, compresses with the inner compressor, keeps the error.
  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override;
  /// The inner compressor's decompress.
  void decompress(const Compressed& msg, std::span<float> out) const override { inner_->decompress(msg, out); }
  /// The inner compressor's reduce.
  Compressed reduce(std::span<const Compressed> msgs) const override { return inner_->reduce(msgs); }
  /// The inner compressor's second round, then the deferred error update.
  Compressed next_round(const Compressed& reduced) override;
  /// Unbiased only without compensation and with an unbiased inner compressor.
  bool unbiased() const override { return kind_ == FeedbackKind::kNone && inner_->unbiased(); }
  /// Forwards the shape to the inner compressor.
  void set_shape(TensorId id, std::int64_t rows, std::int64_t cols) override { inner_->set_shape(id, rows, cols); }
  /// Whether the inner compressor wants the samples' second moment.
  bool wants_second_moment() const override { return inner_->wants_second_moment(); }
  /// Forwards the samples' second moment to the inner compressor.
  void observe_second_moment(TensorId id, std::span<const float> m) override { inner_->observe_second_moment(id, m); }
  /// The inner compressor's kernels plus this layer's passes (feedback_kernel_cost).
  KernelCost kernel_cost(const Compressed& msg) const override;
  /// The residual e (residual) or velocity v (dgc) of tensor `id`; empty before its first exchange.
  std::span<const float> memory(TensorId id) const;

 private:
  struct State {
    std::vector<float> e, u, pending;
  };
  void update(State& s, const Compressed& msg);

  std::unique_ptr<Compressor> inner_;
  FeedbackKind kind_;
  FeedbackParams p_;
  std::map<TensorId, State> state_;
};

/// `cost` (an inner compressor's kernels for `msg`) plus the passes of feedback `kind`: the clipping (a norm and a
/// scaling pass), the compensation, and the memory update after decompressing the own message (after the second
/// round for low rank).
KernelCost feedback_kernel_cost(KernelCost cost, FeedbackKind kind, const FeedbackParams& params, const Compressed& msg);

/// Reads the parameters every kind accepts (clip_norm, workers).
FeedbackParams read_common_feedback(OptionReader& reader);

/// Local gradient clipping: rescales `t` to norm at most clip_norm / sqrt(workers) (no-op when clip_norm is 0).
void clip_locally(std::vector<float>& t, const FeedbackParams& params);

/// One registered error-feedback kind: TOML name, description, factory.
struct FeedbackEntry {
  std::string_view name;     ///< TOML name ("none", "residual", "dgc")
  std::string_view summary;  ///< one line for docs and error messages
  std::unique_ptr<Compressor> (*make)(std::unique_ptr<Compressor> inner, const Options& options);  ///< factory
};

/// Every error-feedback kind.
std::span<const FeedbackEntry> error_feedback_registry();

/// Wraps `inner` in error feedback `kind`; InputError on an unknown kind or parameter.
std::unique_ptr<Compressor> make_error_feedback(std::string_view kind, std::unique_ptr<Compressor> inner,
                                                const Options& options = {});

}  // namespace dtsim::compressors
