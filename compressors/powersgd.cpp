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
#include <cstring>
#include <map>

#include "compressors/factories.hpp"
#include "compressors/low_rank_matrix.hpp"
#include "compressors/powersgd_view.hpp"
#include "compressors/rng.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

using low_rank::get_matrix;
using low_rank::Matrix;
using low_rank::put_matrix;

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

class PowerSgd final : public Compressor {
 public:
  PowerSgd(std::int64_t rank, bool warm_start, std::uint64_t seed) : rank_(rank), warm_start_(warm_start), seed_(seed) {}
  std::string_view name() const override { return "powersgd"; }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    const std::uint64_t step = next_step(id);
    const PowerSgdView v = view(id, grad.size());
    const Eigen::Index rows = v.rows, cols = v.cols, r = v.rank;
    if (!v.compressed()) {
      start_message(msg, grad, id, step, Aggregation::kAllReduce);
      wire::put(msg.payload, grad);
      msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
      return;
    }
    State& s = state_[id];
    s.m = low_rank::padded(grad, rows, cols);
    if (!warm_start_ || s.q.rows() != cols || s.q.cols() != r) {
      s.q = Eigen::Map<const Matrix>(powersgd_initial_q(seed_, id, warm_start_ ? 0 : step, cols, r).data(), cols, r);
    }
    start_message(msg, grad, id, step, Aggregation::kLowRank);
    put_matrix(msg.payload, s.m * s.q);
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  Compressed next_round(const Compressed& reduced) override {
    DTSIM_CHECK(reduced.how == Aggregation::kLowRank && reduced.round == 0, "powersgd next_round needs the reduced P");
    State& s = state_.at(reduced.tensor);
    Matrix p = get_matrix(reduced.payload, s.m.rows(), s.q.cols());
    orthogonalise(p);
    s.q = s.m.transpose() * p;
    Compressed msg = reduced;
    msg.round = 1;
    msg.payload.clear();
    put_matrix(msg.payload, s.q);
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
    msg.shared.assign(p.data(), p.data() + p.size());
    return msg;
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    if (msg.how == Aggregation::kAllReduce) {
      DTSIM_CHECK(msg.payload.size() == out.size_bytes(), "powersgd payload does not match the tensor");
      if (!out.empty()) std::memcpy(out.data(), msg.payload.data(), out.size_bytes());
      return;
    }
    DTSIM_CHECK(msg.round == 1, "powersgd can only expand the second round");
    const PowerSgdView v = view(msg.tensor, out.size());
    const Eigen::Index rows = v.rows, cols = v.cols;
    const auto r = static_cast<Eigen::Index>(msg.shared.size()) / rows;
    const Matrix q = get_matrix(msg.payload, cols, r);
    low_rank::expand(Eigen::Map<const Matrix>(msg.shared.data(), rows, r), q, out);
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
  bool warm_start_;
  std::uint64_t seed_;
  std::map<TensorId, State> state_;
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
