#pragma once
/// PowerGossip (Vogels, Karimireddy & Jaggi, NeurIPS 2020, Algorithm 1): on every edge (i, j) of the gossip graph
/// the two workers compress the difference of their models, D = X_i - X_j, per parameter matrix (m x n), with one
/// step of rank-1 power iteration warm-started from the edge's previous vector p (m):
///   round 1: each sends X^T p (n floats);  q = D^T p, q^ = q / |q|
///   round 2: each sends X q^ (m floats);   p <- D q^   (kept for the next step)
///   X_i <- X_i - gamma W_ij p q^T,  X_j <- X_j + gamma W_ij p q^T
/// Vectors and biases (one row or one column) are sent whole: X_i <- X_i - gamma W_ij (X_i - X_j). Every edge uses
/// the models of the start of the step; the updates are antisymmetric, so the average model is kept.
#include <cstdint>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "numerics/model.hpp"

namespace dtsim::numerics {

/// Wire bytes one worker sends in one PowerGossip step for one tensor, over all its edges.
struct PowerGossipBytes {
  std::int64_t first_round = 0;   ///< X^T p per matrix (n floats), vectors whole
  std::int64_t second_round = 0;  ///< X q^ per matrix (m floats)
};

/// Bytes one edge direction sends for a rows x cols tensor: {4 cols, 4 rows} for a matrix, {4 rows cols, 0} for a
/// vector (one row or one column).
PowerGossipBytes power_gossip_edge_bytes(std::int64_t rows, std::int64_t cols);

/// The per-edge warm-start vectors and the step above.
class PowerGossip {
 public:
  /// `mixing`: W, n x n row-major, symmetric; `gamma`: the consensus step; `seed` draws each edge's first p.
  PowerGossip(std::vector<double> mixing, double gamma, std::uint64_t seed);
  /// One step on the workers' models (flat, laid out as `tensors`); returns per tensor, per worker, its bytes.
  std::vector<std::vector<PowerGossipBytes>> step(const std::vector<std::span<float>>& models,
                                                  std::span<const TensorInfo> tensors);

 private:
  std::vector<double> mixing_;
  double gamma_;
  std::uint64_t seed_;
  std::map<std::pair<std::size_t, std::size_t>, std::vector<std::vector<float>>> p_;  ///< per edge i < j, per tensor
};

}  // namespace dtsim::numerics
