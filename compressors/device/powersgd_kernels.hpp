#pragma once
/// powersgd on the device (compressors/powersgd.cpp's protocol and wire) on low_rank_kernels.hpp's plain kernels:
///   round 0:  P = M Q                 one thread per element of P (rows x r'), over the cols of M
///   round 1:  P^ = orth(sum P)        Gram-Schmidt column by column: one thread normalises column i (eps 1e-8),
///                                     one thread per later column j subtracts its projection on column i
///             Q = M^T P^              one thread per element of Q (cols x r'), over the rows of M
///   expand:   P^ (sum Q)^T            one thread per element of the tensor, over r'
/// The first Q is the host compressor's N(0, 1) draws (powersgd_view.hpp), made on the host and copied. The host
/// kernel multiplies with Eigen, which adds in its own (blocked, vectorised) order: P, Q and the expansion agree
/// with it to fp32 rounding, not bit for bit (the tests compare them to a tolerance).
#include <vector>

#include "compressors/device/low_rank_kernels.hpp"

namespace dtsim::compressors::device {

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

/// The powersgd kernels on launcher `Launch`.
template <class Launch>
class PowerSgdKernels final : public LowRankKernels<Launch> {
 public:
  PowerSgdKernels(Device& device, const Options& options) : LowRankKernels<Launch>(device) {
    OptionReader reader("compressor 'powersgd'", options);
    this->rank_ = reader.integer("rank", 1, 1, 1024);
    warm_start_ = reader.boolean("warm_start", true);
    seed_ = static_cast<std::uint64_t>(reader.integer("seed", 0, 0, INT64_MAX));
    reader.finish();
  }

 private:
  using State = typename LowRankKernels<Launch>::State;
  void first_factor(State& s, TensorId id, std::uint64_t step, const PowerSgdView& v, float* p) override {
    const auto q_size = static_cast<std::size_t>(v.cols * v.rank);
    if (!warm_start_ || !s.q_drawn || s.q.size() != q_size) {
      const std::vector<float> q = powersgd_initial_q(seed_, id, warm_start_ ? 0 : step, v.cols, v.rank);
      s.q.resize(q_size);
      this->device_.to_device(s.q.data(), q.data(), q_size * sizeof(float));
      s.q_drawn = true;
    }
    const auto n = static_cast<std::int64_t>(s.m.size());
    Launch{}(grid_for(v.rows * v.rank), MultiplyMQ{{s.m.data(), n, v.cols}, s.q.data(), p, v.rows, v.rank});
  }
  void second_factor(State& s, const PowerSgdView& v, float* p) override {
    for (std::int64_t i = 0; i < v.rank; ++i) {
      Launch{}(Grid{1, 1}, NormaliseColumn{p, v.rows, i});
      if (i + 1 < v.rank) Launch{}(grid_for(v.rank - i - 1), ProjectOut{p, v.rows, v.rank, i});
    }
    const auto n = static_cast<std::int64_t>(s.m.size());
    Launch{}(grid_for(v.cols * v.rank), MultiplyMtP{{s.m.data(), n, v.cols}, p, s.q.data(), v.rows, v.rank});
  }

  bool warm_start_ = true;
  std::uint64_t seed_ = 0;
};

}  // namespace dtsim::compressors::device
