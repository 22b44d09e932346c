#pragma once
/// gradzip on the device (compressors/gradzip.cpp's protocol and wire) on low_rank_kernels.hpp's plain kernels:
/// the warm-start Q's columns scaled to unit norm, M Q and M^T P one thread per output element, then times the
/// r' x r' pseudo-inverse of the factor's Gram matrix, which the host computes (compressors/gradzip_gram.hpp) from
/// the factor read back and uploads; one thread per element of the product. P, Q and the expansion agree with the
/// host's Eigen products to fp32 rounding, not bit for bit.
#include <vector>

#include "compressors/device/low_rank_kernels.hpp"
#include "compressors/gradzip_gram.hpp"

namespace dtsim::compressors::device {

/// The gradzip kernels on launcher `Launch`.
template <class Launch>
class GradZipKernels final : public LowRankKernels<Launch> {
 public:
  GradZipKernels(Device& device, const Options& options) : LowRankKernels<Launch>(device), product_(device), gram_(device) {
    OptionReader reader("compressor 'gradzip'", options);
    this->rank_ = reader.integer("rank", 1, 1, 1024);
    seed_ = static_cast<std::uint64_t>(reader.integer("seed", 0, 0, INT64_MAX));
    reader.finish();
  }

 private:
  using State = typename LowRankKernels<Launch>::State;
  void first_factor(State& s, TensorId id, std::uint64_t, const PowerSgdView& v, float* p) override {
    const auto q_size = static_cast<std::size_t>(v.cols * v.rank);
    if (s.q.size() != q_size) {
      const std::vector<float> q = powersgd_initial_q(seed_, id, 0, v.cols, v.rank);
      s.q.resize(q_size);
      this->device_.to_device(s.q.data(), q.data(), q_size * sizeof(float));
    }
    for (std::int64_t j = 0; j < v.rank; ++j) Launch{}(Grid{1, 1}, NormaliseColumn{s.q.data(), v.cols, j});
    const auto n = static_cast<std::int64_t>(s.m.size());
    product_.resize(static_cast<std::size_t>(v.rows * v.rank));
    Launch{}(grid_for(v.rows * v.rank), MultiplyMQ{{s.m.data(), n, v.cols}, s.q.data(), product_.data(), v.rows, v.rank});
    times_gram_inverse(s.q.data(), v.cols, v.rows, v.rank, p);
  }
  void second_factor(State& s, const PowerSgdView& v, float* p) override {
    const auto n = static_cast<std::int64_t>(s.m.size());
    product_.resize(static_cast<std::size_t>(v.cols * v.rank));
    Launch{}(grid_for(v.cols * v.rank), MultiplyMtP{{s.m.data(), n, v.cols}, p, product_.data(), v.rows, v.rank});
    times_gram_inverse(p, v.rows, v.cols, v.rank, s.q.data());
  }

  // out = product_ (F^T F)^+ for the factor F (k x r, device memory); product_ has `rows` rows.
  void times_gram_inverse(const float* factor, std::int64_t k, std::int64_t rows, std::int64_t r, float* out) {
    std::vector<float> f(static_cast<std::size_t>(k * r));
    this->device_.to_host(f.data(), factor, f.size() * sizeof(float));
    const std::vector<float> inverse = gradzip_gram_inverse(f.data(), k, r);
    gram_.resize(inverse.size());
    this->device_.to_device(gram_.data(), inverse.data(), inverse.size() * sizeof(float));
    Launch{}(grid_for(rows * r), MultiplyMQ<ColumnMajor>{{product_.data(), rows, r}, gram_.data(), out, rows, r});
  }

  DeviceBuffer<float> product_, gram_;
  std::uint64_t seed_ = 0;
};

}  // namespace dtsim::compressors::device
