#pragma once
/// The protocol powersgd and gradzip share (compressor.hpp's kLowRank): a tensor as its matrix M (powersgd_view.hpp),
/// uncompressed where a rank-r' pair would not shrink it; round 0 sends a rows x r' factor P computed from M and the
/// warm-start Q, round 1 a cols x r' factor Q computed from M and the all-reduced P; the result is P (sum Q)^T.
/// A variant says how each factor is computed.
#include <cstring>
#include <map>

#include "compressors/compressor.hpp"
#include "compressors/low_rank_matrix.hpp"
#include "compressors/powersgd_view.hpp"

namespace dtsim::compressors {

/// A two-round low-rank compressor; subclasses give the factors.
class LowRankCompressor : public Compressor {
 public:
  void compress(std::span<const float> grad, TensorId id, Compressed& msg) final {
    const std::uint64_t step = next_step(id);
    const PowerSgdView v = view(id, grad.size());
    if (!v.compressed()) {
      start_message(msg, grad, id, step, Aggregation::kAllReduce);
      wire::put(msg.payload, grad);
    } else {
      State& s = state_[id];
      s.m = low_rank::padded(grad, v.rows, v.cols);
      start_message(msg, grad, id, step, Aggregation::kLowRank);
      low_rank::put_matrix(msg.payload, first_factor(s, id, step, v));
    }
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  Compressed next_round(const Compressed& reduced) final {
    DTSIM_CHECK(reduced.how == Aggregation::kLowRank && reduced.round == 0, "low-rank next_round needs the reduced P");
    State& s = state_.at(reduced.tensor);
    low_rank::Matrix p = low_rank::get_matrix(reduced.payload, s.m.rows(), s.q.cols());
    s.q = second_factor(s, p);
    Compressed msg = reduced;
    msg.round = 1;
    msg.payload.clear();
    low_rank::put_matrix(msg.payload, s.q);
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
    msg.shared.assign(p.data(), p.data() + p.size());
    return msg;
  }

  /// Nothing for a tensor sent uncompressed; else the variant's factor kernels and the expansion P (sum Q)^T
  /// (one rows x r' by r' x cols product).
  KernelCost kernel_cost(const Compressed& msg) const final {
    if (msg.how != Aggregation::kLowRank) return {};
    const PowerSgdView v = view(msg.tensor, static_cast<std::size_t>(msg.numel));
    const auto rows = static_cast<double>(v.rows), cols = static_cast<double>(v.cols), r = static_cast<double>(v.rank);
    KernelCost cost = factor_work(rows, cols, r);
    cost.decompress = kernel::matmul(rows, r, cols);
    return cost;
  }

  void decompress(const Compressed& msg, std::span<float> out) const final {
    if (msg.how == Aggregation::kAllReduce) {
      DTSIM_CHECK(msg.payload.size() == out.size_bytes(), "low-rank payload does not match the tensor");
      if (!out.empty()) std::memcpy(out.data(), msg.payload.data(), out.size_bytes());
      return;
    }
    DTSIM_CHECK(msg.round == 1, "a low-rank message expands after its second round only");
    const PowerSgdView v = view(msg.tensor, out.size());
    const auto r = static_cast<Eigen::Index>(msg.shared.size()) / v.rows;
    low_rank::expand(Eigen::Map<const low_rank::Matrix>(msg.shared.data(), v.rows, r),
                     low_rank::get_matrix(msg.payload, v.cols, r), out);
  }

 protected:
  /// M and the last Q (cols x r') of one tensor.
  struct State {
    low_rank::Matrix m, q;
  };
  /// Rank r' of the factors (before clipping to the matrix).
  explicit LowRankCompressor(std::int64_t rank) : rank_(rank) {}
  /// Round 0: this worker's P from s.m and the warm start, which it may (re)draw into s.q.
  virtual low_rank::Matrix first_factor(State& s, TensorId id, std::uint64_t step, const PowerSgdView& v) = 0;
  /// Round 1: this worker's Q from s.m and the all-reduced P, which it may change (the expansion uses it after).
  virtual low_rank::Matrix second_factor(const State& s, low_rank::Matrix& p) = 0;
  /// The GPU work of the two factors of a rows x cols matrix at rank r': compress (round 0) and next_round.
  virtual KernelCost factor_work(double rows, double cols, double r) const = 0;

 private:
  PowerSgdView view(TensorId id, std::size_t n) const {
    const auto [rows, cols] = shape(id);
    return powersgd_view(rows, cols, static_cast<std::int64_t>(n), rank_);
  }

  std::int64_t rank_;
  std::map<TensorId, State> state_;
};

}  // namespace dtsim::compressors
