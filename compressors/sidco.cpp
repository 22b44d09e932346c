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
#include "compressors/reductions.hpp"
#include "compressors/top_k_select.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

enum class Law { kExponential, kGpareto, kGamma };

struct Moments {
  double mean = 0.0, var = 0.0, mean_log = 0.0;
};

// Regularised lower incomplete gamma P(a, x): series below a + 1, continued fraction above.
double gamma_p(double a, double x) {
  if (x <= 0.0) return 0.0;
  const double log_front = a * std::log(x) - x - std::lgamma(a);
  if (x < a + 1.0) {
    double term = 1.0 / a, sum = term;
    for (int n = 1; n < 500 && std::fabs(term) > 1e-15 * std::fabs(sum); ++n) {
      term *= x / (a + n);
      sum += term;
    }
    return sum * std::exp(log_front);
  }
  double b = x + 1.0 - a, c = 1e300, d = 1.0 / b, h = d;  // Lentz's method for Q(a, x)
  for (int i = 1; i < 500; ++i) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    d = std::fabs(d) < 1e-300 ? 1e-300 : d;
    c = b + an / c;
    c = std::fabs(c) < 1e-300 ? 1e-300 : c;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1.0) < 1e-15) break;
  }
  return 1.0 - std::exp(log_front) * h;
}

// x with P(a, x) = p, by bisection on a bracket grown from the mean.
double gamma_p_inverse(double a, double p) {
  double lo = 0.0, hi = std::max(1.0, a);
  while (gamma_p(a, hi) < p && hi < 1e300) hi *= 2.0;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (gamma_p(a, mid) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double gpareto_quantile(const Moments& m, double delta) {
  if (!(m.var > 0.0)) return 0.0;
  const double r = m.mean * m.mean / m.var;
  const double sigma = 0.5 * m.mean * (r + 1.0);
  const double k = 0.5 * (r - 1.0);
  if (std::fabs(k) < 1e-9) return -sigma * std::log(delta);
  return sigma * (1.0 - std::pow(delta, k)) / k;
}

double quantile(Law law, const Moments& m, double delta) {
  switch (law) {
    case Law::kExponential: return -m.mean * std::log(delta);
    case Law::kGpareto: return gpareto_quantile(m, delta);
    case Law::kGamma: {
      const double s = std::log(m.mean) - m.mean_log;
      if (!(s > 0.0) || !std::isfinite(s)) return -m.mean * std::log(delta);  // degenerate: fall back to exponential
      const double alpha = (3.0 - s + std::sqrt((s - 3.0) * (s - 3.0) + 24.0 * s)) / (12.0 * s);
      return m.mean / alpha * gamma_p_inverse(alpha, 1.0 - delta);
    }
  }
  return 0.0;
}

class Sidco final : public Compressor {
 public:
  Sidco(double ratio, Law law, std::int64_t stages, double first_ratio)
      : ratio_(ratio), law_(law), stages_(stages), first_ratio_(first_ratio) {}
  std::string_view name() const override { return "sidco"; }

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
    std::int64_t stages = stages_;
    if (ratio_ >= first_ratio_) {
      stages = 1;
    } else if (stages == 0) {
      stages = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(std::log(ratio_) / std::log(first_ratio_))));
    }
    const double first = stages == 1 ? ratio_ : first_ratio_;
    Moments stats;
    const auto n = static_cast<double>(x.size());
    stats.mean = sum_abs(x) * inv / n;
    if (law_ == Law::kGpareto) stats.var = std::max(0.0, sum_squares(x) * inv * inv / n - stats.mean * stats.mean);
    if (law_ == Law::kGamma) {
      for (const float v : x) stats.mean_log += std::log(std::fabs(v) * inv + 1e-10);
      stats.mean_log /= n;
    }
    double eta = quantile(law_, stats, first);
    const double stage_ratio = stages > 1 ? std::pow(ratio_ / first_ratio_, 1.0 / static_cast<double>(stages - 1)) : 1.0;
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
      Moments tail;
      tail.mean = s1 / static_cast<double>(m);
      tail.var = std::max(0.0, s2 / static_cast<double>(m) - tail.mean * tail.mean);
      eta = gpareto_quantile(tail, stage_ratio) + low;
    }
    const auto thr = static_cast<float>(eta * norm);
    select_at_least(x, magnitude_key(std::bit_cast<std::uint32_t>(thr)) + 1, indices_);  // |x| > eta ||x||
  }

  double ratio_;
  Law law_;
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
  const Law l = law == "exponential" ? Law::kExponential : law == "gpareto" ? Law::kGpareto : Law::kGamma;
  return std::make_unique<Sidco>(ratio, l, stages, first_ratio);
}

}  // namespace dtsim::compressors
