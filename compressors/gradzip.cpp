/// gradzip: GradZip, low-rank factors of the gradient by alternating least squares, each factor all-reduced (Cho,
/// Muthusamy, Nemanich & Puri, "GradZip: Gradient Compression using Alternating Matrix Factorization for
/// Large-scale Deep Learning", NeurIPS 2019 workshop on systems for ML; the compression survey's Table 3: the dense
/// factors are all-reduced, the previous synchronisation's factors start the next decomposition). M (rows x cols)
/// is powersgd's view of the tensor (compressors/powersgd_view.hpp), r' = min(rank, rows, cols); one alternating
/// step per exchange, each factor the least-squares solution given the other (^+: Moore-Penrose inverse):
///   round 0: P = M Q (Q^T Q)^+       (Q: this worker's last Q, else N(0, 1) from the seed, as powersgd's; its
///                                     columns scaled to unit norm + 1e-8 first, which P Q^T does not see)
///   round 1: Q = M^T P (P^T P)^+     (P: the all-reduced P)
///   result:  P (sum Q)^T             (sum over workers; divide by W to average)
/// Both steps are linear in M, so the all-reduced factors are those of the summed gradient when the workers start
/// from one Q. Each worker starts from its own last Q (powersgd's choice: the compressor never sees the all-reduced
/// Q); unscaled, the sum of the workers' P drifted by a constant factor a step until it overflowed or vanished
/// (the test shows it), hence the column scaling. PowerSGD's round 1 orthogonalises P instead of solving for Q. A matrix that would not shrink goes
/// uncompressed, as powersgd's. Wire: round 0 [rows x r' fp32, column-major P]; round 1 [cols x r' fp32, column-major
/// Q]; aggregation low_rank (two dependent all-reduces). Parameters: rank (1), seed (0).
#include <Eigen/Dense>

#include "compressors/factories.hpp"
#include "compressors/gradzip_gram.hpp"
#include "compressors/low_rank_compressor.hpp"

namespace dtsim::compressors {

std::vector<float> gradzip_gram_inverse(const float* f, std::int64_t k, std::int64_t r) {
  const Eigen::MatrixXd m = Eigen::Map<const Eigen::MatrixXf>(f, k, r).cast<double>();
  const Eigen::MatrixXd g = m.transpose() * m;
  const Eigen::MatrixXf inverse = Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(g).pseudoInverse().cast<float>();
  return std::vector<float>(inverse.data(), inverse.data() + inverse.size());
}

namespace {

using low_rank::Matrix;

// f (F^T F)^+ for the product f = M Q or M^T P of factor `factor`.
Matrix solve(const Matrix& product, const Matrix& factor) {
  const std::vector<float> inverse = gradzip_gram_inverse(factor.data(), factor.rows(), factor.cols());
  return product * Eigen::Map<const Matrix>(inverse.data(), factor.cols(), factor.cols());
}

class GradZip final : public LowRankCompressor {
 public:
  GradZip(std::int64_t rank, std::uint64_t seed) : LowRankCompressor(rank), seed_(seed) {}
  std::string_view name() const override { return "gradzip"; }

 private:
  /// Each round: the product with M, the factor's r' x r' Gram matrix, its pseudo-inverse (one small kernel) and
  /// the product with it; round 0 also scales Q's columns (one pass over Q).
  KernelCost factor_work(double rows, double cols, double r) const override {
    auto round = [r](double out_rows, double inner, double factor_rows) {
      return kernel::matmul(out_rows, inner, r) + kernel::matmul(r, factor_rows, r) + KernelWork{8 * r * r, 0, 1} +
             kernel::matmul(out_rows, r, r);
    };
    return {kernel::pass(cols * r, 4, 4) + round(rows, cols, cols), round(cols, rows, rows), {}};
  }

  Matrix first_factor(State& s, TensorId id, std::uint64_t, const PowerSgdView& v) override {
    if (s.q.rows() != v.cols || s.q.cols() != v.rank)
      s.q = Eigen::Map<const Matrix>(powersgd_initial_q(seed_, id, 0, v.cols, v.rank).data(), v.cols, v.rank);
    for (Eigen::Index j = 0; j < s.q.cols(); ++j) s.q.col(j) /= s.q.col(j).norm() + 1e-8f;
    return solve(s.m * s.q, s.q);
  }

  Matrix second_factor(const State& s, Matrix& p) override { return solve(s.m.transpose() * p, p); }

  std::uint64_t seed_;
};

}  // namespace

std::unique_ptr<Compressor> make_gradzip(const Options& options) {
  OptionReader reader("compressor 'gradzip'", options);
  const auto rank = reader.integer("rank", 1, 1, 1024);
  const auto seed = reader.integer("seed", 0, 0, INT64_MAX);
  reader.finish();
  return std::make_unique<GradZip>(rank, static_cast<std::uint64_t>(seed));
}

}  // namespace dtsim::compressors
