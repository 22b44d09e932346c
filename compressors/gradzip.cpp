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
#include <cstring>
#include <map>

#include "compressors/factories.hpp"
#include "compressors/gradzip_gram.hpp"
#include "compressors/low_rank_matrix.hpp"
#include "compressors/powersgd_view.hpp"

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

class GradZip final : public Compressor {
 public:
  GradZip(std::int64_t rank, std::uint64_t seed) : rank_(rank), seed_(seed) {}
  std::string_view name() const override { return "gradzip"; }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    const std::uint64_t step = next_step(id);
    const PowerSgdView v = view(id, grad.size());
    if (!v.compressed()) {
      start_message(msg, grad, id, step, Aggregation::kAllReduce);
      wire::put(msg.payload, grad);
      msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
      return;
    }
    State& s = state_[id];
    s.m = low_rank::padded(grad, v.rows, v.cols);
    if (s.q.rows() != v.cols || s.q.cols() != v.rank)
      s.q = Eigen::Map<const Matrix>(powersgd_initial_q(seed_, id, 0, v.cols, v.rank).data(), v.cols, v.rank);
    for (Eigen::Index j = 0; j < s.q.cols(); ++j) s.q.col(j) /= s.q.col(j).norm() + 1e-8f;
    start_message(msg, grad, id, step, Aggregation::kLowRank);
    low_rank::put_matrix(msg.payload, solve(s.m * s.q, s.q));
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  Compressed next_round(const Compressed& reduced) override {
    DTSIM_CHECK(reduced.how == Aggregation::kLowRank && reduced.round == 0, "gradzip next_round needs the reduced P");
    State& s = state_.at(reduced.tensor);
    const Matrix p = low_rank::get_matrix(reduced.payload, s.m.rows(), s.q.cols());
    s.q = solve(s.m.transpose() * p, p);
    Compressed msg = reduced;
    msg.round = 1;
    msg.payload.clear();
    low_rank::put_matrix(msg.payload, s.q);
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
    msg.shared.assign(p.data(), p.data() + p.size());
    return msg;
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    if (msg.how == Aggregation::kAllReduce) {
      DTSIM_CHECK(msg.payload.size() == out.size_bytes(), "gradzip payload does not match the tensor");
      if (!out.empty()) std::memcpy(out.data(), msg.payload.data(), out.size_bytes());
      return;
    }
    DTSIM_CHECK(msg.round == 1, "gradzip can only expand the second round");
    const PowerSgdView v = view(msg.tensor, out.size());
    const auto r = static_cast<Eigen::Index>(msg.shared.size()) / v.rows;
    low_rank::expand(Eigen::Map<const Matrix>(msg.shared.data(), v.rows, r), low_rank::get_matrix(msg.payload, v.cols, r),
                     out);
  }

 private:
  struct State {
    Matrix m, q;
  };

  PowerSgdView view(TensorId id, std::size_t n) const {
    const auto [rows, cols] = shape(id);
    return powersgd_view(rows, cols, static_cast<std::int64_t>(n), rank_);
  }

  std::int64_t rank_;
  std::uint64_t seed_;
  std::map<TensorId, State> state_;
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
