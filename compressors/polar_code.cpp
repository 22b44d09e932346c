#include "compressors/polar_code.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

// Log-domain Bhattacharyya parameters of the N synthetic channels (natural index order):
// the first half sees W- (Z- = 2Z - Z^2), the second half W+ (Z+ = Z^2).
void bhattacharyya(double log_z, std::span<double> out) {
  if (out.size() == 1) {
    out[0] = log_z;
    return;
  }
  const std::size_t half = out.size() / 2;
  bhattacharyya(log_z + std::log(2.0 - std::exp(log_z)), out.subspan(0, half));
  bhattacharyya(2.0 * log_z, out.subspan(half));
}

double check_node(double a, double b) {  // exact f(a, b) = log((1 + e^(a+b)) / (e^a + e^b))
  const double sign = (a < 0) != (b < 0) ? -1.0 : 1.0;
  return sign * std::min(std::fabs(a), std::fabs(b)) + std::log1p(std::exp(-std::fabs(a + b))) -
         std::log1p(std::exp(-std::fabs(a - b)));
}

double binary_entropy(double d) { return -d * std::log2(d) - (1.0 - d) * std::log2(1.0 - d); }

}  // namespace

double shannon_distortion(double rate) {
  double lo = 0.0, hi = 0.5;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (1.0 - binary_entropy(mid) > rate ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

PolarCode::PolarCode(std::size_t n, std::size_t k, PolarDesign design, double snr_db) : n_(n), k_(k) {
  DTSIM_CHECK(n >= 1 && std::has_single_bit(n), "polar block length must be a power of two");
  DTSIM_CHECK(k >= 1 && k <= n, "polar code needs 1 <= K <= N");
  double log_z0 = 0.0;
  if (design == PolarDesign::kPyPolar) {
    const double es = std::pow(10.0, snr_db / 10.0) * static_cast<double>(k) / static_cast<double>(n);
    llr_magnitude_ = 2.0 * es;
    log_z0 = -es;
  } else {
    const double d = shannon_distortion(static_cast<double>(k) / static_cast<double>(n));
    llr_magnitude_ = std::log((1.0 - d) / d);
    log_z0 = std::log(2.0 * std::sqrt(d * (1.0 - d)));
  }
  std::vector<double> z(n);
  bhattacharyya(log_z0, z);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return z[a] < z[b]; });
  frozen_.assign(n, 1);
  for (std::size_t i = 0; i < k; ++i) frozen_[order[i]] = 0;  // the K most reliable carry bits
  for (std::size_t m = n; m >= 1; m /= 2) llr_.emplace_back(m);
  u_.resize(n);
}

void PolarCode::sc(std::size_t depth, const double* llr, std::uint8_t* x, std::size_t m, Rng& rng) {
  if (m == 1) {
    std::uint8_t u = 0;
    if (!frozen_[leaf_]) u = rng.uniform() < 1.0 / (1.0 + std::exp(llr[0])) ? 1 : 0;  // P(u = 1) = 1 / (1 + e^L)
    u_[leaf_++] = u;
    x[0] = u;
    return;
  }
  const std::size_t half = m / 2;
  double* child = llr_[depth + 1].data();
  for (std::size_t j = 0; j < half; ++j) child[j] = check_node(llr[j], llr[j + half]);
  sc(depth + 1, child, x, half, rng);
  for (std::size_t j = 0; j < half; ++j) child[j] = llr[j + half] + (x[j] ? -llr[j] : llr[j]);
  sc(depth + 1, child, x + half, half, rng);
  for (std::size_t j = 0; j < half; ++j) x[j] ^= x[j + half];
}

void PolarCode::compress(std::span<const std::uint8_t> source, Rng& rng, std::span<std::uint8_t> kept) {
  DTSIM_CHECK(source.size() == n_ && kept.size() == k_, "polar compress: wrong block sizes");
  std::vector<double>& root = llr_[0];
  for (std::size_t i = 0; i < n_; ++i) root[i] = source[i] ? -llr_magnitude_ : llr_magnitude_;
  std::vector<std::uint8_t> x(n_);
  leaf_ = 0;
  sc(0, root.data(), x.data(), n_, rng);
  std::size_t j = 0;
  for (std::size_t i = 0; i < n_; ++i) {
    if (!frozen_[i]) kept[j++] = u_[i];
  }
}

void PolarCode::decompress(std::span<const std::uint8_t> kept, std::span<std::uint8_t> out) const {
  DTSIM_CHECK(kept.size() == k_ && out.size() == n_, "polar decompress: wrong block sizes");
  std::size_t j = 0;
  for (std::size_t i = 0; i < n_; ++i) out[i] = frozen_[i] ? 0 : kept[j++];
  for (std::size_t half = 1; half < n_; half *= 2) {  // x = u F^{(x)n}: butterflies, in place
    for (std::size_t base = 0; base < n_; base += 2 * half) {
      for (std::size_t t = base; t < base + half; ++t) out[t] ^= out[t + half];
    }
  }
}

}  // namespace dtsim::compressors
