#pragma once
/// redsync on the device (compressors/redsync.cpp). trimmed: the exact top-k by radix select over the whole tensor
/// (sparse_select.hpp), the k elements the host's trimmed selection finds among its candidates, without trimming
/// first (a radix pass costs about one counting pass). binary_search: the mean and maximum magnitude in one
/// reduction (the sum in double, reduce.hpp), the bisection of redsync_threshold.hpp on the host over counts made
/// on the device, then every element above the last threshold. The sum is added in another order than the host
/// kernel's, so the threshold may differ from the host's in its last bit (then the sent set, only for an element
/// at that threshold).
#include <algorithm>

#include "compressors/device/reduce.hpp"
#include "compressors/device/sparse_select.hpp"
#include "compressors/redsync_threshold.hpp"

namespace dtsim::compressors::device {

/// Sum of |x| in double and max |x| (NaN ignored in the maximum).
struct AbsSumMax {
  double sum = 0.0;
  MaxAbs max;
  DTSIM_HOST_DEVICE void add(float x) {
    sum += static_cast<double>(bits_float(float_bits(x) & 0x7fffffffu));
    max.add(x);
  }
  DTSIM_HOST_DEVICE void merge(const AbsSumMax& o) {
    sum += o.sum;
    max.merge(o.max);
  }
};

/// The redsync kernels on launcher `Launch`.
template <class Launch>
class RedSyncKernels final : public SparseKernels<Launch> {
 public:
  RedSyncKernels(Device& device, const Options& options)
      : SparseKernels<Launch>(device), device_(device), partial_(device), total_(device) {
    OptionReader reader("compressor 'redsync'", options);
    ratio_ = reader.real("ratio", 0.01, 0.0, 1.0, true);
    trimmed_ = reader.choice("selection", "trimmed", {"trimmed", "binary_search"}) == "trimmed";
    reader.finish();
  }
  void compress(const float* grad, std::int64_t n, TensorId, std::uint64_t, DeviceBuffer<std::byte>& payload) override {
    if (n == 0) return payload.resize(0);
    const std::int64_t k = std::max<std::int64_t>(1, static_cast<std::int64_t>(static_cast<double>(n) * ratio_));
    if (trimmed_) {
      this->largest(grad, n, k);
    } else {
      const AbsSumMax s = reduce_to_host<Launch>(device_, grad, n, partial_, total_, AbsSumMax{});
      auto count = [&](std::int32_t key) {
        this->above(key);
        return this->count(grad, n);
      };
      this->above(redsync_search_key(s.sum / static_cast<double>(n), s.max.m, static_cast<std::size_t>(k), count));
    }
    this->write(grad, n, this->count(grad, n), payload);
  }

 private:
  Device& device_;
  DeviceBuffer<AbsSumMax> partial_;
  DeviceBuffer<std::byte> total_;
  double ratio_ = 0.01;
  bool trimmed_ = true;
};

}  // namespace dtsim::compressors::device
