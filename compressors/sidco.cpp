/// sidco: threshold sparsification from a fitted sparsity-inducing distribution (Abdelmoniem et al.,
/// "An Efficient Statistical-based Gradient Compression Technique for Distributed Training
/// Systems", MLSys 2021), as the reference SIDCo code: statistics of a = |x| / ||x||_2;
/// stage 1 fits the chosen law at density first_ratio (or ratio if one stage), each later stage
/// refits a generalised Pareto (method of moments) to the exceedances shifted by their minimum at
/// density (ratio / first_ratio)^(1 / (stages - 1)); the kept set is {a > eta}.
///   exponential: eta = -mean * ln(delta)
///   gpareto:     sigma = mean (mean^2 / var + 1) / 2, k = (mean^2 / var - 1) / 2,
///                eta = sigma (1 - delta^k) / k
///   gamma:       s = ln(mean) - mean(ln(a + 1e-10)), alpha = (3 - s + sqrt((s - 3)^2 + 24 s)) / (12 s),
///                eta = (mean / alpha) * P^-1(alpha, 1 - delta)   (inverse regularised lower gamma)
/// stages = 0 derives the count: max(1, ceil(ln(ratio) / ln(first_ratio))).
/// Wire: sparse layout of compressors/wire.hpp (variable count); aggregation allgather.
/// Parameters: ratio (0.001), distribution ("exponential" | "gpareto" | "gamma"), stages (0, 0..10),
/// first_ratio (0.25).
#include <algorithm>
#include <bit>
#include <cmath>

#include "compressors/factories.hpp"
#include "compressors/sidco_fit.hpp"
#include "compressors/reductions.hpp"
#include "compressors/top_k_select.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

class Sidco final : public Compressor {
 public:
  Sidco(double ratio, SidcoLaw law, std::int64_t stages, double first_ratio)
      : ratio_(ratio), law_(law), stages_(stages), first_ratio_(first_ratio) {}
  std::string_view name() const override { return "sidco"; }
  /// ||x||_2 and the first law's moments (one reduction), then at each later stage one compaction of the
  /// exceedances (their expected count) and two reductions over them (minimum, moments), then one compaction
  /// of the kept set; a scatter.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    const auto ib = static_cast<double>(wire::index_bytes(msg.numel));
    const auto c = static_cast<double>(wire::sparse_count(msg.payload.size(), msg.numel));
    const std::int64_t stages = sidco_stages(ratio_, first_ratio_, stages_);
    const double stage_ratio = sidco_stage_ratio(ratio_, first_ratio_, stages);
    KernelWork work = kernel::reduction(n);
    double m = n, density = stages == 1 ? ratio_ : first_ratio_;
    for (std::int64_t stage = 1; stage < stages; ++stage, density = stage_ratio) {
      const double exceed = std::ceil(m * density);
      work += kernel::select_if(m, exceed, 0) + 2 * kernel::reduction(exceed);
      m = exceed;
    }
    return {work + kernel::select_if(n, c, ib), {}, kernel::scatter(n, c, wire)};
  }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    start_message(msg, grad, id, next_step(id), Aggregation::kAllGather);
    indices_.clear();
    if (!grad.empty()) select(grad);
    wire::put_selected(msg.payload, grad, indices_, values_);
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override { wire::scatter_sparse(msg.payload, out); }

 private:
  void select(std::span<const float> x) {
    const double norm = std::sqrt(sum_squares(x));
    const double inv = norm > 0.0 ? 1.0 / norm : 0.0;
    const std::int64_t stages = sidco_stages(ratio_, first_ratio_, stages_);
    const double first = stages == 1 ? ratio_ : first_ratio_;
    SidcoMoments stats;
    const auto n = static_cast<double>(x.size());
    stats.mean = sum_abs(x) * inv / n;
    if (law_ == SidcoLaw::kGpareto) stats.var = std::max(0.0, sum_squares(x) * inv * inv / n - stats.mean * stats.mean);
    if (law_ == SidcoLaw::kGamma) {
      for (const float v : x) stats.mean_log += std::log(std::fabs(v) * inv + 1e-10);
      stats.mean_log /= n;
    }
    double eta = sidco_quantile(law_, stats, first);
    const double stage_ratio = sidco_stage_ratio(ratio_, first_ratio_, stages);
    std::size_t m = 0;
    for (std::int64_t stage = 1; stage < stages; ++stage) {
      // Peak over threshold: keep the exceedances (branch-free compaction), shift by their minimum.
      if (stage == 1) {
        exceed_.resize(x.size());
        for (const float v : x) {
          const double a = std::fabs(v) * inv;
          exceed_[m] = a;
          m += a > eta;
        }
      } else {
        std::size_t kept = 0;
        for (std::size_t i = 0; i < m; ++i) {
          exceed_[kept] = exceed_[i];
          kept += exceed_[i] > eta;
        }
        m = kept;
      }
      if (m == 0) break;
      double low = exceed_[0];
      for (std::size_t i = 1; i < m; ++i) low = exceed_[i] < low ? exceed_[i] : low;
      double s1 = 0.0, s2 = 0.0;
      for (std::size_t i = 0; i < m; ++i) {
        const double d = exceed_[i] - low;
        s1 += d;
        s2 += d * d;
      }
      SidcoMoments tail;
      tail.mean = s1 / static_cast<double>(m);
      tail.var = std::max(0.0, s2 / static_cast<double>(m) - tail.mean * tail.mean);
      eta = gpareto_quantile(tail, stage_ratio) + low;
    }
    const auto thr = static_cast<float>(eta * norm);
    select_at_least(x, magnitude_key(std::bit_cast<std::uint32_t>(thr)) + 1, indices_);  // |x| > eta ||x||
  }

  double ratio_;
  SidcoLaw law_;
  std::int64_t stages_;
  double first_ratio_;
  std::vector<std::int64_t> indices_;
  std::vector<float> values_;
  std::vector<double> exceed_;
};

}  // namespace

std::unique_ptr<Compressor> make_sidco(const Options& options) {
  OptionReader reader("compressor 'sidco'", options);
  const double ratio = reader.real("ratio", 0.001, 0.0, 1.0, true);
  const std::string law = reader.choice("distribution", "exponential", {"exponential", "gpareto", "gamma"});
  const auto stages = reader.integer("stages", 0, 0, 10);
  const double first_ratio = reader.real("first_ratio", 0.25, 0.0, 1.0, true);
  reader.finish();
  return std::make_unique<Sidco>(ratio, sidco_law(law), stages, first_ratio);
}

}  // namespace dtsim::compressors
