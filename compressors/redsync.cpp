/// redsync: RedSync's threshold selections of the residual's largest elements (Fang, Fu, Yang & Hsieh, "RedSync:
/// Reducing synchronization bandwidth for distributed deep learning training system", JPDC 133, 2019; arXiv
/// 1808.04357, Algorithms 1 and 2). With k = max(1, floor(n ratio)), m = mean |x| and M = max |x| (NaN ignored),
/// the threshold is m + r (M - m), r in [0, 1] (compressors/redsync_threshold.hpp):
///   selection = "trimmed" (Algorithm 1, trimmed top-k): r = 0.8, 0.6, ... 0 until at least k elements pass,
///     then the exact top-k among those candidates only: the k largest, ties to the lower index, as topk sends;
///   selection = "binary_search" (Algorithm 2): bisection of r until between k and 2k elements pass (or the fp32
///     threshold stops moving); every element above that threshold is sent, so the count is about k, not k.
/// Run it under residual error feedback (RedSync compresses the residual). Wire: sparse layout of
/// compressors/wire.hpp; aggregation allgather. Parameters: ratio (0.01), selection ("trimmed").
#include <algorithm>

#include "compressors/factories.hpp"
#include "compressors/reductions.hpp"
#include "compressors/redsync_threshold.hpp"
#include "compressors/top_k_select.hpp"
#include "compressors/wire.hpp"

namespace dtsim::compressors {
namespace {

class RedSync final : public Compressor {
 public:
  RedSync(double ratio, bool trimmed) : ratio_(ratio), trimmed_(trimmed) {}
  std::string_view name() const override { return "redsync"; }
  /// mean and max |x| (one reduction), one count above the threshold (a second; further bisection or trimming
  /// rounds are not counted), then one compaction; a scatter.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    const auto ib = static_cast<double>(wire::index_bytes(msg.numel));
    const auto c = static_cast<double>(wire::sparse_count(msg.payload.size(), msg.numel));
    return {2 * kernel::reduction(n) + kernel::select_if(n, c, ib), {}, kernel::scatter(n, c, wire)};
  }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    start_message(msg, grad, id, next_step(id), Aggregation::kAllGather);
    indices_.clear();
    if (!grad.empty()) select(grad, std::max<std::size_t>(1, static_cast<std::size_t>(static_cast<double>(grad.size()) * ratio_)));
    wire::put_selected(msg.payload, grad, indices_, values_);
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override { wire::scatter_sparse(msg.payload, out); }

 private:
  // indices_ = the k (trimmed) or about k (binary search) elements sent.
  void select(std::span<const float> grad, std::size_t k) {
    const double mean = sum_abs(grad) / static_cast<double>(grad.size());
    const float max = max_abs(grad);
    auto count = [&](std::int32_t key) { return above(grad, key); };
    if (trimmed_) {
      trim_then_select(grad, redsync_trimmed_key(mean, max, k, count), k);
    } else {
      select_at_least(grad, redsync_search_key(mean, max, k, count) + 1, indices_);
    }
  }

  static std::size_t above(std::span<const float> x, std::int32_t key) {
    std::size_t c = 0;
    for (const float v : x) c += magnitude_key(float_bits(v)) > key ? 1 : 0;
    return c;
  }

  // The exact top-k of the candidates above `key` (at least k of them), mapped back to grad's indices.
  void trim_then_select(std::span<const float> grad, std::int32_t key, std::size_t k) {
    select_at_least(grad, key + 1, candidates_);
    trimmed_values_.resize(candidates_.size());
    for (std::size_t i = 0; i < candidates_.size(); ++i) trimmed_values_[i] = grad[static_cast<std::size_t>(candidates_[i])];
    select_top_k(trimmed_values_, k, indices_);
    for (std::int64_t& i : indices_) i = candidates_[static_cast<std::size_t>(i)];
  }

  double ratio_;
  bool trimmed_;
  std::vector<std::int64_t> indices_, candidates_;
  std::vector<float> values_, trimmed_values_;
};

}  // namespace

std::unique_ptr<Compressor> make_redsync(const Options& options) {
  OptionReader reader("compressor 'redsync'", options);
  const double ratio = reader.real("ratio", 0.01, 0.0, 1.0, true);
  const bool trimmed = reader.choice("selection", "trimmed", {"trimmed", "binary_search"}) == "trimmed";
  reader.finish();
  return std::make_unique<RedSync>(ratio, trimmed);
}

}  // namespace dtsim::compressors
