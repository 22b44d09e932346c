#pragma once
/// powersgd on the device (compressors/powersgd.cpp's protocol and wire): plain deterministic kernels, one thread
/// per output element summing its products in index order (fp32, no fused multiply-add), so every launcher gives
/// the same bits:
///   round 0:  P = M Q                 one thread per element of P (rows x r'), over the cols of M
///   round 1:  P^ = orth(sum P)        Gram-Schmidt column by column: one thread normalises column i (eps 1e-8),
///                                     one thread per later column j subtracts its projection on column i
///             Q = M^T P^              one thread per element of Q (cols x r'), over the rows of M
///   expand:   P^ (sum Q)^T            one thread per element of the tensor, over r'
/// M is the tensor itself (row-major, the zero padding read as zeros), kept in device memory with Q per tensor;
/// the first Q is the host compressor's N(0, 1) draws (powersgd_view.hpp), made on the host and copied. The host
/// kernel multiplies with Eigen, which adds in its own (blocked, vectorised) order: P, Q and the expansion agree
/// with it to fp32 rounding, not bit for bit (the tests compare them to a tolerance).
#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

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

/// P(i, j) = sum_c M(i, c) Q(c, j), column-major P (rows x r) and Q (cols x r).
struct MultiplyMQ {
  PaddedMatrix m;
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

/// One thread per column j > i of P: column j -= (column i . column j) column i.
struct ProjectOut {
  float* p;
  std::int64_t rows, r, i;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const float* a = p + i * rows;
    for (std::int64_t j = i + 1 + t.global(); j < r; j += t.count()) {
      float* b = p + j * rows;
      float dot = 0.0f;
      for (std::int64_t k = 0; k < rows; ++k) dot += a[k] * b[k];
      for (std::int64_t k = 0; k < rows; ++k) b[k] -= dot * a[k];
    }
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

/// The powersgd kernels on launcher `Launch`.
template <class Launch>
class PowerSgdKernels final : public KernelsOn<Launch> {
 public:
  PowerSgdKernels(Device& device, const Options& options) : device_(device) {
    OptionReader reader("compressor 'powersgd'", options);
    rank_ = reader.integer("rank", 1, 1, 1024);
    warm_start_ = reader.boolean("warm_start", true);
    seed_ = static_cast<std::uint64_t>(reader.integer("seed", 0, 0, INT64_MAX));
    reader.finish();
  }
  Aggregation how() const override { return Aggregation::kLowRank; }
  Aggregation how_for(TensorId id, std::int64_t n) const override {
    return view(id, n).compressed() ? Aggregation::kLowRank : Aggregation::kAllReduce;
  }
  void set_shape(TensorId id, std::int64_t rows, std::int64_t cols) override { shapes_[id] = {rows, cols}; }
  void compress(const float* grad, std::int64_t n, TensorId id, std::uint64_t step,
                DeviceBuffer<std::byte>& payload) override {
    const PowerSgdView v = view(id, n);
    if (!v.compressed()) {
      payload.resize(4 * static_cast<std::size_t>(n));
      if (n > 0) Launch{}(grid_for(n), CopyFloats{grad, reinterpret_cast<float*>(payload.data()), n});
      return;
    }
    State& s = state_.try_emplace(id, device_).first->second;
    s.m.resize(static_cast<std::size_t>(n));
    Launch{}(grid_for(n), CopyFloats{grad, s.m.data(), n});
    const auto q_size = static_cast<std::size_t>(v.cols * v.rank);
    if (!warm_start_ || !s.q_drawn || s.q.size() != q_size) {
      const std::vector<float> q = powersgd_initial_q(seed_, id, warm_start_ ? 0 : step, v.cols, v.rank);
      s.q.resize(q_size);
      device_.to_device(s.q.data(), q.data(), q_size * sizeof(float));
      s.q_drawn = true;
    }
    payload.resize(4 * static_cast<std::size_t>(v.rows * v.rank));
    Launch{}(grid_for(v.rows * v.rank), MultiplyMQ{{s.m.data(), n, v.cols}, s.q.data(),
                                                   reinterpret_cast<float*>(payload.data()), v.rows, v.rank});
  }
  void next_round(const std::byte* reduced, std::size_t bytes, TensorId id, DeviceBuffer<std::byte>& payload,
                  DeviceBuffer<float>& shared) override {
    State& s = state_.at(id);
    const auto n = static_cast<std::int64_t>(s.m.size());
    const PowerSgdView v = view(id, n);
    DTSIM_CHECK(bytes == 4 * static_cast<std::size_t>(v.rows * v.rank), "powersgd: the reduced P does not match");
    shared.resize(static_cast<std::size_t>(v.rows * v.rank));
    Launch{}(grid_for(v.rows * v.rank), CopyFloats{reinterpret_cast<const float*>(reduced), shared.data(), v.rows * v.rank});
    for (std::int64_t i = 0; i < v.rank; ++i) {
      Launch{}(Grid{1, 1}, NormaliseColumn{shared.data(), v.rows, i});
      if (i + 1 < v.rank) Launch{}(grid_for(v.rank - i - 1), ProjectOut{shared.data(), v.rows, v.rank, i});
    }
    Launch{}(grid_for(v.cols * v.rank), MultiplyMtP{{s.m.data(), n, v.cols}, shared.data(), s.q.data(), v.rows, v.rank});
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
    DTSIM_CHECK(bytes == 4 * static_cast<std::size_t>(v.cols * r), "powersgd payload does not match the matrix");
    if (n > 0) Launch{}(grid_for(n), ExpandLowRank{shared, reinterpret_cast<const float*>(payload), out, n, v.rows, v.cols, r});
  }

 private:
  struct State {
    explicit State(Device& device) : m(device), q(device) {}
    DeviceBuffer<float> m, q;  // the tensor, the warm-start Q
    bool q_drawn = false;
  };

  PowerSgdView view(TensorId id, std::int64_t n) const {
    const auto it = shapes_.find(id);
    return it == shapes_.end() ? powersgd_view(0, 0, n, rank_) : powersgd_view(it->second.first, it->second.second, n, rank_);
  }

  Device& device_;
  std::int64_t rank_ = 1;
  bool warm_start_ = true;
  std::uint64_t seed_ = 0;
  std::map<TensorId, std::pair<std::int64_t, std::int64_t>> shapes_;
  std::map<TensorId, State> state_;
};

}  // namespace dtsim::compressors::device
