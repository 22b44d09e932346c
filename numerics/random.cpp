#include "numerics/random.hpp"

#include <cmath>
#include <utility>

#include "sim/core/error.hpp"

namespace dtsim::numerics {
namespace {

/// e^x for x <= 0 by range reduction and a Taylor series: basic operations only.
double portable_exp(double x) {
  if (x < -745.0) return 0.0;
  const double k = std::floor(x / 0.6931471805599453 + 0.5);
  const double r = (x - k * 0.6931471802978516) - k * 2.6213708386256395e-10;  // ln 2 in two parts
  double sum = 1.0, term = 1.0;
  for (int i = 1; i < 24; ++i) {
    term *= r / i;
    sum += term;
  }
  return std::ldexp(sum, static_cast<int>(k));
}

}  // namespace

void shuffle(compressors::Rng& rng, std::span<std::int64_t> values) {
  for (std::size_t i = values.size(); i > 1; --i) std::swap(values[i - 1], values[rng.below(i)]);
}

std::vector<std::int64_t> permutation(compressors::Rng& rng, std::int64_t n) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  shuffle(rng, order);
  return order;
}

double gamma(compressors::Rng& rng, double shape) {
  DTSIM_CHECK(shape > 0.0, "gamma needs a positive shape");
  if (shape < 1.0) {  // Gamma(a) = Gamma(a + 1) * U^(1/a)
    double u = rng.uniform();
    while (u == 0.0) u = rng.uniform();
    return gamma(rng, shape + 1.0) * portable_exp(compressors::portable_log(u) / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = rng.normal();
    double v = 1.0 + c * x;
    if (v <= 0.0) continue;
    v = v * v * v;
    const double u = rng.uniform();
    if (u > 0.0 && compressors::portable_log(u) < 0.5 * x * x + d - d * v + d * compressors::portable_log(v)) {
      return d * v;
    }
  }
}

std::vector<double> dirichlet(compressors::Rng& rng, double alpha, std::size_t n) {
  std::vector<double> p(n);
  double total = 0.0;
  for (double& x : p) total += (x = gamma(rng, alpha));
  if (total == 0.0) {  // every draw underflowed (tiny alpha): all mass on one coordinate
    p[rng.below(n)] = 1.0;
    return p;
  }
  for (double& x : p) x /= total;
  return p;
}

}  // namespace dtsim::numerics
