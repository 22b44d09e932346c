/// powersgd: rank-r power-iteration compression with warm start (Vogels, Karimireddy & Jaggi,
/// "PowerSGD: Practical Low-Rank Gradient Compression for Distributed Optimization", NeurIPS 2019),
/// following the paper code's RankKReducer: M (rows x cols, the shape declared with set_shape, else
/// a zero-padded ceil(sqrt(n)) square as PyTorch's batched hook), r' = min(rank, rows, cols);
///   round 0: P = M Q             (Q: previous step's Q with warm start, else N(0, 1) from the seed)
///   round 1: P^ = orth(sum P),   Q = M^T P^   (Gram-Schmidt, eps 1e-8)
///   result:  P^ (sum Q)^T        (sum over workers; divide by W to average)
/// The warm-start Q is this worker's Q (equal to the paper's when W = 1). A matrix that would not
/// shrink (r' (rows + cols) >= rows * cols) goes uncompressed: [n x fp32], allreduce.
/// Wire: round 0 [rows x r' fp32, column-major P]; round 1 [cols x r' fp32, column-major Q];
/// aggregation low_rank (two dependent all-reduces). Parameters: rank (1), warm_start (true), seed (0).
#include <algorithm>
#include <Eigen/Dense>
#include <cmath>

#include "compressors/factories.hpp"
#include "compressors/low_rank_compressor.hpp"
#include "compressors/powersgd_view.hpp"
#include "compressors/rng.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

using low_rank::Matrix;

void orthogonalise(Matrix& p) {
  for (Eigen::Index i = 0; i < p.cols(); ++i) {
    p.col(i) /= p.col(i).norm() + 1e-8f;
    for (Eigen::Index j = i + 1; j < p.cols(); ++j) p.col(j) -= p.col(i).dot(p.col(j)) * p.col(i);
  }
}

}  // namespace

PowerSgdView powersgd_view(std::int64_t declared_rows, std::int64_t declared_cols, std::int64_t n, std::int64_t rank) {
  PowerSgdView v{declared_rows, declared_cols, 0};
  if (declared_cols > 0) {
    DTSIM_CHECK(declared_rows * declared_cols == n, "powersgd: declared shape does not match the tensor");
  } else {
    auto side = static_cast<std::int64_t>(std::sqrt(static_cast<double>(n)));
    while (side * side < n) ++side;
    v.rows = v.cols = side;
  }
  v.rank = std::min({rank, v.rows, v.cols});
  return v;
}

std::vector<float> powersgd_initial_q(std::uint64_t seed, std::uint64_t tensor, std::uint64_t step, std::int64_t cols,
                                      std::int64_t rank) {
  Rng rng(stream_seed(seed, tensor, step));
  std::vector<float> q(static_cast<std::size_t>(cols * rank));
  for (float& v : q) v = static_cast<float>(rng.normal());
  return q;
}

namespace {

class PowerSgd final : public LowRankCompressor {
 public:
  PowerSgd(std::int64_t rank, bool warm_start, std::uint64_t seed)
      : LowRankCompressor(rank), warm_start_(warm_start), seed_(seed) {}
  std::string_view name() const override { return "powersgd"; }

 private:
  /// Round 0: P = M Q (one product). Round 1: Gram-Schmidt on P (per column a norm and an update of the later
  /// columns, as the paper code's orthogonalize loop: 2 rows r'^2 flops, each column read and written r' times),
  /// then Q = M^T P.
  KernelCost factor_work(double rows, double cols, double r) const override {
    const KernelWork orthogonalise{8 * rows * r * r, 2 * rows * r * r, 2 * static_cast<std::int64_t>(r)};
    return {kernel::matmul(rows, cols, r), orthogonalise + kernel::matmul(cols, rows, r), {}};
  }

  Matrix first_factor(State& s, TensorId id, std::uint64_t step, const PowerSgdView& v) override {
    if (!warm_start_ || s.q.rows() != v.cols || s.q.cols() != v.rank) {
      s.q = Eigen::Map<const Matrix>(powersgd_initial_q(seed_, id, warm_start_ ? 0 : step, v.cols, v.rank).data(), v.cols,
                                     v.rank);
    }
    return s.m * s.q;
  }

  Matrix second_factor(const State& s, Matrix& p) override {
    orthogonalise(p);
    return s.m.transpose() * p;
  }

  bool warm_start_;
  std::uint64_t seed_;
};

}  // namespace

std::unique_ptr<Compressor> make_powersgd(const Options& options) {
  OptionReader reader("compressor 'powersgd'", options);
  const auto rank = reader.integer("rank", 1, 1, 1024);
  const bool warm_start = reader.boolean("warm_start", true);
  const auto seed = reader.integer("seed", 0, 0, INT64_MAX);
  reader.finish();
  return std::make_unique<PowerSgd>(rank, warm_start, static_cast<std::uint64_t>(seed));
}

}  // namespace dtsim::compressors
