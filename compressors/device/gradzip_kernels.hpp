#pragma once
/// gradzip on the device (compressors/gradzip.cpp's protocol and wire), on powersgd's plain kernels
/// (powersgd_kernels.hpp): the warm-start Q's columns scaled to unit norm, M Q and M^T P one thread per output element, then times the r' x r' pseudo-inverse of
/// the factor's Gram matrix, which the host computes (compressors/gradzip_gram.hpp) from the factor read back and
/// uploads; one thread per element of the product. P, Q and the expansion agree with the host's Eigen products to
/// fp32 rounding, not bit for bit.
#include <map>
#include <vector>

#include "compressors/device/powersgd_kernels.hpp"
#include "compressors/gradzip_gram.hpp"

namespace dtsim::compressors::device {

/// out(i, j) = sum_k a(i, k) g(k, j): a (rows x r) and out column-major, g (r x r) column-major.
struct MultiplyGram {
  const float* a;
  const float* g;
  float* out;
  std::int64_t rows, r;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const std::int64_t count = rows * r;
    for (std::int64_t e = t.tile_begin(count); e < t.tile_end(count); e += t.threads) {
      const std::int64_t i = e % rows, j = e / rows;
      float sum = 0.0f;
      for (std::int64_t k = 0; k < r; ++k) sum += a[i + k * rows] * g[k + j * r];
      out[e] = sum;
    }
  }
};

/// The gradzip kernels on launcher `Launch`.
template <class Launch>
class GradZipKernels final : public KernelsOn<Launch> {
 public:
  GradZipKernels(Device& device, const Options& options) : device_(device), product_(device), gram_(device) {
    OptionReader reader("compressor 'gradzip'", options);
    rank_ = reader.integer("rank", 1, 1, 1024);
    seed_ = static_cast<std::uint64_t>(reader.integer("seed", 0, 0, INT64_MAX));
    reader.finish();
  }
  Aggregation how() const override { return Aggregation::kLowRank; }
  Aggregation how_for(TensorId id, std::int64_t n) const override {
    return view(id, n).compressed() ? Aggregation::kLowRank : Aggregation::kAllReduce;
  }
  void set_shape(TensorId id, std::int64_t rows, std::int64_t cols) override { shapes_[id] = {rows, cols}; }
  void compress(const float* grad, std::int64_t n, TensorId id, std::uint64_t, DeviceBuffer<std::byte>& payload) override {
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
    if (s.q.size() != q_size) {
      const std::vector<float> q = powersgd_initial_q(seed_, id, 0, v.cols, v.rank);
      s.q.resize(q_size);
      device_.to_device(s.q.data(), q.data(), q_size * sizeof(float));
    }
    for (std::int64_t j = 0; j < v.rank; ++j) Launch{}(Grid{1, 1}, NormaliseColumn{s.q.data(), v.cols, j});
    product_.resize(static_cast<std::size_t>(v.rows * v.rank));
    Launch{}(grid_for(v.rows * v.rank), MultiplyMQ{{s.m.data(), n, v.cols}, s.q.data(), product_.data(), v.rows, v.rank});
    payload.resize(4 * static_cast<std::size_t>(v.rows * v.rank));
    times_gram_inverse(s.q.data(), v.cols, v.rows, v.rank, reinterpret_cast<float*>(payload.data()));
  }
  void next_round(const std::byte* reduced, std::size_t bytes, TensorId id, DeviceBuffer<std::byte>& payload,
                  DeviceBuffer<float>& shared) override {
    State& s = state_.at(id);
    const auto n = static_cast<std::int64_t>(s.m.size());
    const PowerSgdView v = view(id, n);
    DTSIM_CHECK(bytes == 4 * static_cast<std::size_t>(v.rows * v.rank), "gradzip: the reduced P does not match");
    shared.resize(static_cast<std::size_t>(v.rows * v.rank));
    Launch{}(grid_for(v.rows * v.rank), CopyFloats{reinterpret_cast<const float*>(reduced), shared.data(), v.rows * v.rank});
    product_.resize(static_cast<std::size_t>(v.cols * v.rank));
    Launch{}(grid_for(v.cols * v.rank), MultiplyMtP{{s.m.data(), n, v.cols}, shared.data(), product_.data(), v.rows, v.rank});
    times_gram_inverse(shared.data(), v.rows, v.cols, v.rank, s.q.data());
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
    DTSIM_CHECK(bytes == 4 * static_cast<std::size_t>(v.cols * r), "gradzip payload does not match the matrix");
    if (n > 0) Launch{}(grid_for(n), ExpandLowRank{shared, reinterpret_cast<const float*>(payload), out, n, v.rows, v.cols, r});
  }

 private:
  struct State {
    explicit State(Device& device) : m(device), q(device) {}
    DeviceBuffer<float> m, q;  // the tensor, the warm-start Q
  };

  // out = product_ (F^T F)^+ for the factor F (k x r, device memory); product_ has `rows` rows.
  void times_gram_inverse(const float* factor, std::int64_t k, std::int64_t rows, std::int64_t r, float* out) {
    std::vector<float> f(static_cast<std::size_t>(k * r));
    device_.to_host(f.data(), factor, f.size() * sizeof(float));
    const std::vector<float> inverse = gradzip_gram_inverse(f.data(), k, r);
    gram_.resize(inverse.size());
    device_.to_device(gram_.data(), inverse.data(), inverse.size() * sizeof(float));
    Launch{}(grid_for(rows * r), MultiplyGram{product_.data(), gram_.data(), out, rows, r});
  }

  PowerSgdView view(TensorId id, std::int64_t n) const {
    const auto it = shapes_.find(id);
    return it == shapes_.end() ? powersgd_view(0, 0, n, rank_) : powersgd_view(it->second.first, it->second.second, n, rank_);
  }

  Device& device_;
  DeviceBuffer<float> product_, gram_;
  std::int64_t rank_ = 1;
  std::uint64_t seed_ = 0;
  std::map<TensorId, std::pair<std::int64_t, std::int64_t>> shapes_;
  std::map<TensorId, State> state_;
};

}  // namespace dtsim::compressors::device
