#pragma once
/// gaussiank on the device (compressors/gaussiank.cpp): the sums of x and x^2 are a reduction in double
/// (reduce.hpp), the fit and its three rounds of adjustment run on the host (gaussiank_threshold.hpp) on counts of
/// {|x| > tau} made on the device, and the first k elements above the last threshold are compacted in index order
/// (sparse_select.hpp). The sums are added in another order than the host kernel's: the fp32 threshold may differ
/// from it in the last bit (then the kept set too, only for an element at that threshold).
#include <algorithm>

#include "compressors/device/reduce.hpp"
#include "compressors/device/sparse_select.hpp"
#include "compressors/gaussiank_threshold.hpp"

namespace dtsim::compressors::device {

/// Sum of x and of x^2, in double.
struct SumAndSquares {
  double sum = 0.0, squares = 0.0;
  DTSIM_HOST_DEVICE void add(float x) {
    const auto d = static_cast<double>(x);
    sum += d;
    squares += d * d;
  }
  DTSIM_HOST_DEVICE void merge(const SumAndSquares& o) {
    sum += o.sum;
    squares += o.squares;
  }
};

/// The gaussiank kernels on launcher `Launch`.
template <class Launch>
class GaussianKKernels final : public SparseKernels<Launch> {
 public:
  GaussianKKernels(Device& device, const Options& options)
      : SparseKernels<Launch>(device), device_(device), partial_(device), total_(device) {
    OptionReader reader("compressor 'gaussiank'", options);
    const double ratio = reader.real("ratio", 0.01, 0.0, 1.0, true);
    reader.finish();
    ratio_ = ratio;
    z_ = gaussiank_z(ratio);
  }
  void compress(const float* grad, std::int64_t n, TensorId, std::uint64_t, DeviceBuffer<std::byte>& payload) override {
    if (n == 0) return payload.resize(0);
    const auto k = std::max<std::size_t>(1, static_cast<std::size_t>(static_cast<double>(n) * ratio_));
    const auto sums = reduce_to_host<Launch>(device_, grad, n, partial_, total_, SumAndSquares{});
    // The selection uses the last threshold counted: its rule and counts are still on the device.
    std::size_t last = 0;
    gaussiank_threshold(gaussiank_fit(sums.sum, sums.squares, static_cast<std::size_t>(n), z_), k,
                        [&](float tau) { return last = count_above(grad, n, tau); });
    this->write(grad, n, static_cast<std::int64_t>(std::min(last, k)), payload);
  }

 private:
  // Sets the rule |x| > tau (no NaN element passes; a NaN tau keeps nothing) and counts what it keeps.
  std::size_t count_above(const float* grad, std::int64_t n, float tau) {
    constexpr std::int32_t kInfinity = 0x7f800000;
    if (tau != tau) {
      this->above(0x7fffffff);
    } else {
      this->above(tau < 0.0f ? -1 : magnitude_key(float_bits(tau)), kInfinity);
    }
    return static_cast<std::size_t>(this->count(grad, n));
  }

  Device& device_;
  DeviceBuffer<SumAndSquares> partial_;
  DeviceBuffer<std::byte> total_;
  double ratio_ = 0.01, z_ = 0.0;
};

}  // namespace dtsim::compressors::device
