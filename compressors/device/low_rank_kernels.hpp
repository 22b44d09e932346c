#pragma once
/// The device side of compressors/low_rank_compressor.hpp (powersgd, gradzip): plain deterministic kernels, one
/// thread per output element summing its products in index order (fp32, no fused multiply-add), so every launcher
/// gives the same bits; M is the tensor itself (row-major, the zero padding read as zeros), kept in device memory
/// with Q per tensor; the uncompressed all-reduce where a pair of factors would not shrink the tensor, and the
/// expansion P (sum Q)^T one thread per element over r'. A variant says how each factor is computed.
#include <cmath>
#include <map>

#include "compressors/device/kernels.hpp"
#include "compressors/powersgd_view.hpp"

namespace dtsim::compressors::device {

/// M(i, c) of a tensor g of n elements viewed as rows x cols, row-major, zero-padded.
struct PaddedMatrix {
  const float* g;
  std::int64_t n, cols;
  DTSIM_HOST_DEVICE float operator()(std::int64_t i, std::int64_t c) const {
    const std::int64_t at = i * cols + c;
    return at < n ? g[at] : 0.0f;
  }
};

/// A(i, k) of a rows x cols matrix stored column-major.
struct ColumnMajor {
  const float* a;
  std::int64_t rows, cols;
  DTSIM_HOST_DEVICE float operator()(std::int64_t i, std::int64_t k) const { return a[i + k * rows]; }
};

/// P(i, j) = sum_c M(i, c) Q(c, j), column-major P (rows x r) and Q (cols x r); M a PaddedMatrix or ColumnMajor.
template <class Left = PaddedMatrix>
struct MultiplyMQ {
  Left m;
  const float* q;
  float* p;
  std::int64_t rows, r;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const std::int64_t count = rows * r;
    for (std::int64_t e = t.tile_begin(count); e < t.tile_end(count); e += t.threads) {
      const std::int64_t i = e % rows, j = e / rows;
      float sum = 0.0f;
      for (std::int64_t c = 0; c < m.cols; ++c) sum += m(i, c) * q[c + j * m.cols];
      p[e] = sum;
    }
  }
};

/// Q(c, j) = sum_i M(i, c) P(i, j), column-major Q (cols x r) and P (rows x r).
struct MultiplyMtP {
  PaddedMatrix m;
  const float* p;
  float* q;
  std::int64_t rows, r;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const std::int64_t count = m.cols * r;
    for (std::int64_t e = t.tile_begin(count); e < t.tile_end(count); e += t.threads) {
      const std::int64_t c = e % m.cols, j = e / m.cols;
      float sum = 0.0f;
      for (std::int64_t i = 0; i < rows; ++i) sum += m(i, c) * p[i + j * rows];
      q[e] = sum;
    }
  }
};

/// One thread: column i of P (rows x r, column-major) divided by its l2 norm + 1e-8.
struct NormaliseColumn {
  float* p;
  std::int64_t rows, i;
  DTSIM_HOST_DEVICE void operator()(Thread) const {
    float* col = p + i * rows;
    float squares = 0.0f;
    for (std::int64_t k = 0; k < rows; ++k) squares += col[k] * col[k];
    const float norm = sqrtf(squares) + 1e-8f;
    for (std::int64_t k = 0; k < rows; ++k) col[k] /= norm;
  }
};

/// out[i cols + c] = sum_j P(i, j) Q(c, j) for the n elements of the tensor.
struct ExpandLowRank {
  const float* p;
  const float* q;
  float* out;
  std::int64_t n, rows, cols, r;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    for (std::int64_t e = t.tile_begin(n); e < t.tile_end(n); e += t.threads) {
      const std::int64_t i = e / cols, c = e % cols;
      float sum = 0.0f;
      for (std::int64_t j = 0; j < r; ++j) sum += p[i + j * rows] * q[c + j * cols];
      out[e] = sum;
    }
  }
};

/// out[i] = in[i] (fp32).
struct CopyFloats {
  const float* in;
  float* out;
  std::int64_t n;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    for (std::int64_t i = t.tile_begin(n); i < t.tile_end(n); i += t.threads) out[i] = in[i];
  }
};

/// The two-round low-rank kernels on launcher `Launch`; subclasses give the factors.
template <class Launch>
class LowRankKernels : public KernelsOn<Launch> {
 public:
  Aggregation how() const override { return Aggregation::kLowRank; }
  Aggregation how_for(TensorId id, std::int64_t n) const override {
    return view(id, n).compressed() ? Aggregation::kLowRank : Aggregation::kAllReduce;
  }
  void set_shape(TensorId id, std::int64_t rows, std::int64_t cols) override { shapes_[id] = {rows, cols}; }
  void compress(const float* grad, std::int64_t n, TensorId id, std::uint64_t step,
                DeviceBuffer<std::byte>& payload) final {
    const PowerSgdView v = view(id, n);
    if (!v.compressed()) {
      payload.resize(4 * static_cast<std::size_t>(n));
      if (n > 0) Launch{}(grid_for(n), CopyFloats{grad, reinterpret_cast<float*>(payload.data()), n});
      return;
    }
    State& s = state_.try_emplace(id, device_).first->second;
    s.m.resize(static_cast<std::size_t>(n));
    Launch{}(grid_for(n), CopyFloats{grad, s.m.data(), n});
    payload.resize(4 * static_cast<std::size_t>(v.rows * v.rank));
    first_factor(s, id, step, v, reinterpret_cast<float*>(payload.data()));
  }
  void next_round(const std::byte* reduced, std::size_t bytes, TensorId id, DeviceBuffer<std::byte>& payload,
                  DeviceBuffer<float>& shared) final {
    State& s = state_.at(id);
    const PowerSgdView v = view(id, static_cast<std::int64_t>(s.m.size()));
    DTSIM_CHECK(bytes == 4 * static_cast<std::size_t>(v.rows * v.rank), "low rank: the reduced P does not match");
    shared.resize(static_cast<std::size_t>(v.rows * v.rank));
    Launch{}(grid_for(v.rows * v.rank), CopyFloats{reinterpret_cast<const float*>(reduced), shared.data(), v.rows * v.rank});
    second_factor(s, v, shared.data());
    payload.resize(4 * static_cast<std::size_t>(v.cols * v.rank));
    Launch{}(grid_for(v.cols * v.rank), CopyFloats{s.q.data(), reinterpret_cast<float*>(payload.data()), v.cols * v.rank});
  }
  void decompress(const std::byte* payload, std::size_t, float* out, std::int64_t n, TensorId,
                  std::uint64_t) override {  // the uncompressed all-reduce
    if (n > 0) Launch{}(grid_for(n), CopyFloats{reinterpret_cast<const float*>(payload), out, n});
  }
  void expand_low_rank(const std::byte* payload, std::size_t bytes, const float* shared, std::size_t count, float* out,
                       std::int64_t n, TensorId id) override {
    const PowerSgdView v = view(id, n);
    const auto r = static_cast<std::int64_t>(count) / v.rows;
    DTSIM_CHECK(bytes == 4 * static_cast<std::size_t>(v.cols * r), "low-rank payload does not match the matrix");
    if (n > 0) Launch{}(grid_for(n), ExpandLowRank{shared, reinterpret_cast<const float*>(payload), out, n, v.rows, v.cols, r});
  }

 protected:
  /// One tensor's M and its last Q (cols x r'), in device memory.
  struct State {
    explicit State(Device& device) : m(device), q(device) {}
    DeviceBuffer<float> m, q;
    bool q_drawn = false;  ///< q holds a draw or a previous round's Q
  };
  explicit LowRankKernels(Device& device) : device_(device) {}
  /// Round 0: this worker's P (rows x r', into `p`) from s.m and the warm start, which it may (re)draw into s.q.
  virtual void first_factor(State& s, TensorId id, std::uint64_t step, const PowerSgdView& v, float* p) = 0;
  /// Round 1: this worker's Q into s.q from s.m and the all-reduced P in `p`, which it may change.
  virtual void second_factor(State& s, const PowerSgdView& v, float* p) = 0;

  Device& device_;
  std::int64_t rank_ = 1;  ///< set by the subclass from its options

 private:
  PowerSgdView view(TensorId id, std::int64_t n) const {
    const auto it = shapes_.find(id);
    return it == shapes_.end() ? powersgd_view(0, 0, n, rank_) : powersgd_view(it->second.first, it->second.second, n, rank_);
  }

  std::map<TensorId, std::pair<std::int64_t, std::int64_t>> shapes_;
  std::map<TensorId, State> state_;
};

}  // namespace dtsim::compressors::device
