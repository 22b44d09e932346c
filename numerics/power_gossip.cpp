#include "numerics/power_gossip.hpp"

#include <cmath>

#include "compressors/rng.hpp"

namespace dtsim::numerics {
namespace {

bool is_matrix(const TensorInfo& t) { return t.rows > 1 && t.cols > 1; }

}  // namespace

PowerGossipBytes power_gossip_edge_bytes(std::int64_t rows, std::int64_t cols) {
  if (rows > 1 && cols > 1) return {4 * cols, 4 * rows};
  return {4 * rows * cols, 0};
}

PowerGossip::PowerGossip(std::vector<double> mixing, double gamma, std::uint64_t seed)
    : mixing_(std::move(mixing)), gamma_(gamma), seed_(seed) {}

std::vector<std::vector<PowerGossipBytes>> PowerGossip::step(const std::vector<std::span<float>>& models,
                                                             std::span<const TensorInfo> tensors) {
  const std::size_t n = models.size();
  std::vector<std::vector<PowerGossipBytes>> bytes(tensors.size(), std::vector<PowerGossipBytes>(n));
  std::vector<std::vector<double>> move(n, std::vector<double>(models.front().size(), 0.0));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      const double w = mixing_[i * n + j];
      if (w == 0.0) continue;
      auto [edge, fresh] = p_.try_emplace({i, j});
      if (fresh) {
        compressors::Rng rng(compressors::stream_seed(seed_, i * n + j, 0));
        for (const TensorInfo& t : tensors) {
          std::vector<float>& p = edge->second.emplace_back(is_matrix(t) ? static_cast<std::size_t>(t.rows) : 0);
          for (float& v : p) v = static_cast<float>(rng.normal());
        }
      }
      const double step = gamma_ * w;
      for (std::size_t k = 0; k < tensors.size(); ++k) {
        const TensorInfo& t = tensors[k];
        const PowerGossipBytes sent = power_gossip_edge_bytes(t.rows, t.cols);
        for (const std::size_t v : {i, j}) {
          bytes[k][v].first_round += sent.first_round;
          bytes[k][v].second_round += sent.second_round;
        }
        const auto xi = Model::slice(std::span<const float>(models[i]), t);
        const auto xj = Model::slice(std::span<const float>(models[j]), t);
        const auto o = static_cast<std::size_t>(t.offset);
        if (!is_matrix(t)) {
          for (std::size_t e = 0; e < xi.size(); ++e) {
            const double d = static_cast<double>(xi[e]) - xj[e];
            move[i][o + e] -= step * d;
            move[j][o + e] += step * d;
          }
          continue;
        }
        const auto rows = static_cast<std::size_t>(t.rows), cols = static_cast<std::size_t>(t.cols);
        std::vector<float>& p = edge->second[k];
        std::vector<double> q(cols, 0.0), next(rows, 0.0);
        for (std::size_t r = 0; r < rows; ++r)  // round 1: q = D^T p
          for (std::size_t c = 0; c < cols; ++c)
            q[c] += (static_cast<double>(xi[r * cols + c]) - xj[r * cols + c]) * p[r];
        double norm = 0.0;
        for (const double v : q) norm += v * v;
        norm = std::sqrt(norm);
        if (norm == 0.0) continue;  // D^T p = 0: the rank-1 approximation is 0 (equal models, or p orthogonal)
        for (double& v : q) v /= norm;
        for (std::size_t r = 0; r < rows; ++r)  // round 2: p = D q^
          for (std::size_t c = 0; c < cols; ++c)
            next[r] += (static_cast<double>(xi[r * cols + c]) - xj[r * cols + c]) * q[c];
        for (std::size_t r = 0; r < rows; ++r) {
          p[r] = static_cast<float>(next[r]);
          for (std::size_t c = 0; c < cols; ++c) {
            const double d = step * next[r] * q[c];
            move[i][o + r * cols + c] -= d;
            move[j][o + r * cols + c] += d;
          }
        }
      }
    }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t e = 0; e < move[i].size(); ++e) models[i][e] = static_cast<float>(models[i][e] + move[i][e]);
  return bytes;
}

}  // namespace dtsim::numerics
