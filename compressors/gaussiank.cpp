/// gaussiank: Gaussian-k, top-k approximated by a threshold from a normal fit (Shi, Chu, Cheung & See,
/// "Understanding Top-k Sparsification in Distributed Deep Learning", arXiv 1911.08772, 2019; the authors'
/// GaussianCompressor in hclhkbu/gtopkssgd compression.py). With k = max(1, floor(n ratio)), mean mu and standard
/// deviation sigma (n - 1 in the denominator, as torch.std), the threshold is
///   tau = mu + z sigma,   z = Phi^-1(1 - ratio / 2)              (utils.gen_threshold_from_normal_distribution)
/// then up to three rounds: count c = #{|x| > tau}; stop when 2k/3 <= c <= 4k/3, else tau <- tau / 2 (too few)
/// or 1.5 tau (too many). The first k elements (in index order) above the last threshold counted are sent, as
/// the reference does. Run it under the residual error feedback layer (the reference keeps the residual itself).
/// Phi^-1 is Acklam's rational approximation (relative error below 1.15e-9).
/// Wire: sparse layout of compressors/wire.hpp (at most k pairs); aggregation allgather. Parameters: ratio (0.01).
#include <algorithm>
#include <cmath>

#include "compressors/factories.hpp"
#include "compressors/gaussiank_threshold.hpp"
#include "compressors/reductions.hpp"
#include "compressors/rng.hpp"
#include "compressors/wire.hpp"

namespace dtsim::compressors {
namespace {

// Phi^-1(p) for p in (0, 1) (P. J. Acklam, "An algorithm for computing the inverse normal cumulative
// distribution function", 2003): rational functions in the central region and in sqrt(-2 ln q) in the tails.
double normal_quantile(double p) {
  constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                          1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
  constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                          6.680131188771972e+01, -1.328068155288572e+01};
  constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                          -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
  constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00};
  constexpr double low = 0.02425;
  auto tail = [&](double q) {
    const double t = std::sqrt(-2.0 * portable_log(q));
    return (((((c[0] * t + c[1]) * t + c[2]) * t + c[3]) * t + c[4]) * t + c[5]) /
           ((((d[0] * t + d[1]) * t + d[2]) * t + d[3]) * t + 1.0);
  };
  if (p < low) return tail(p);
  if (p > 1.0 - low) return -tail(1.0 - p);
  const double q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
}

}  // namespace

double gaussiank_z(double ratio) { return normal_quantile(1.0 - ratio / 2.0); }

float gaussiank_fit(double sum, double sum_squares, std::size_t n, double z) {
  const double mean = sum / static_cast<double>(n);
  const double var = n > 1 ? std::max(0.0, (sum_squares - sum * mean) / static_cast<double>(n - 1)) : 0.0;
  return static_cast<float>(mean + z * std::sqrt(var));
}

namespace {

class GaussianK final : public Compressor {
 public:
  explicit GaussianK(double ratio) : ratio_(ratio), z_(gaussiank_z(ratio)) {}
  std::string_view name() const override { return "gaussiank"; }
  /// mean and standard deviation (one reduction), one count above tau (a second; the reference's later
  /// rounds, when the first count misses, are not counted), then one compaction; a scatter.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    const auto ib = static_cast<double>(wire::index_bytes(msg.numel));
    const auto c = static_cast<double>(wire::sparse_count(msg.payload.size(), msg.numel));
    return {2 * kernel::reduction(n) + kernel::select_if(n, c, ib), {}, kernel::scatter(n, c, wire)};
  }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    start_message(msg, grad, id, next_step(id), Aggregation::kAllGather);
    const std::size_t n = grad.size();
    indices_.clear();
    if (n > 0) {
      const std::size_t k = std::max<std::size_t>(1, static_cast<std::size_t>(static_cast<double>(n) * ratio_));
      const Moments m = moments(grad);
      const float used = gaussiank_threshold(gaussiank_fit(m.sum, m.sum_squares, n, z_), k,
                                             [&](float tau) { return above(grad, tau); });
      for (std::size_t i = 0; i < n && indices_.size() < k; ++i)
        if (std::fabs(grad[i]) > used) indices_.push_back(static_cast<std::int64_t>(i));
    }
    wire::put_selected(msg.payload, grad, indices_, values_);
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override { wire::scatter_sparse(msg.payload, out); }

 private:
  static std::size_t above(std::span<const float> x, float tau) {
    std::size_t count = 0;
    for (const float v : x) count += std::fabs(v) > tau ? 1 : 0;
    return count;
  }

  double ratio_;
  double z_;
  std::vector<std::int64_t> indices_;
  std::vector<float> values_;
};

}  // namespace

std::unique_ptr<Compressor> make_gaussiank(const Options& options) {
  OptionReader reader("compressor 'gaussiank'", options);
  const double ratio = reader.real("ratio", 0.01, 0.0, 1.0, true);
  reader.finish();
  return std::make_unique<GaussianK>(ratio);
}

}  // namespace dtsim::compressors
