#include "numerics/consensus.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace dtsim::numerics {
namespace {

std::vector<double> mean(const Models& models) {
  DTSIM_CHECK(!models.empty(), "averaging needs at least one model");
  std::vector<double> sum(models.front().size(), 0.0);
  for (const std::span<const float> m : models) {
    DTSIM_CHECK(m.size() == sum.size(), "models differ in size");
    for (std::size_t k = 0; k < sum.size(); ++k) sum[k] += m[k];
  }
  const auto n = static_cast<double>(models.size());
  for (double& x : sum) x /= n;
  return sum;
}

}  // namespace

void average(const Models& models, std::span<float> out) {
  const std::vector<double> m = mean(models);
  DTSIM_CHECK(out.size() == m.size(), "average: output size differs");
  for (std::size_t k = 0; k < m.size(); ++k) out[k] = static_cast<float>(m[k]);
}

void weighted_average(const Models& models, std::span<const double> weights, std::span<float> out) {
  DTSIM_CHECK(weights.size() == models.size() && !weights.empty(), "one weight per model");
  if (std::all_of(weights.begin(), weights.end(), [&](double w) { return w == weights.front(); })) {
    average(models, out);
    return;
  }
  std::vector<double> sum(out.size(), 0.0);
  double total = 0.0;
  for (std::size_t i = 0; i < models.size(); ++i) {
    DTSIM_CHECK(models[i].size() == sum.size() && weights[i] > 0, "models of the output's size, positive weights");
    total += weights[i];
    for (std::size_t k = 0; k < sum.size(); ++k) sum[k] += weights[i] * models[i][k];
  }
  for (std::size_t k = 0; k < sum.size(); ++k) out[k] = static_cast<float>(sum[k] / total);
}

void mix(std::span<const double> mixing, const Models& models, std::span<const std::span<float>> out) {
  const std::size_t n = models.size();
  DTSIM_CHECK(mixing.size() == n * n && out.size() == n, "mixing: an n x n matrix and n outputs for n models");
  std::vector<double> row;
  for (std::size_t i = 0; i < n; ++i) {
    row.assign(models[i].size(), 0.0);
    for (std::size_t j = 0; j < n; ++j) {
      const double w = mixing[i * n + j];
      if (w == 0.0) continue;
      for (std::size_t k = 0; k < row.size(); ++k) row[k] += w * models[j][k];
    }
    DTSIM_CHECK(out[i].size() == row.size(), "mixing: output size differs");
    for (std::size_t k = 0; k < row.size(); ++k) out[i][k] = static_cast<float>(row[k]);
  }
}

double consensus_distance(const Models& models) {
  const std::vector<double> m = mean(models);
  double total = 0.0;
  for (const std::span<const float> x : models)
    for (std::size_t k = 0; k < m.size(); ++k) total += (x[k] - m[k]) * (x[k] - m[k]);
  return total / static_cast<double>(models.size());
}

}  // namespace dtsim::numerics
