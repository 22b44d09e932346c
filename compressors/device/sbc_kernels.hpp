#pragma once
/// sbc on the device (compressors/sbc.cpp): for each side, y = max(sign x, 0) by one kernel, its k largest by
/// radix select (ties to the lower index; when the k-th largest is 0 only the positive y are kept) into a sparse
/// scratch, and their mean from a sum by reduce.hpp (in double, in another order than the host kernel's: a mean may differ
/// from it in the last bit); the stronger side's positions are Golomb-coded by golomb_kernels.hpp.
#include "compressors/device/golomb_kernels.hpp"
#include "compressors/device/stc_kernels.hpp"

namespace dtsim::compressors::device {

/// y[i] = sign x[i] where that is > 0, else +0 (NaN: +0).
struct OneSide {
  const float* x;
  float sign;
  float* y;
  std::int64_t n;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    for (std::int64_t i = t.tile_begin(n); i < t.tile_end(n); i += t.threads) {
      const float v = sign * x[i];
      y[i] = v > 0.0f ? v : 0.0f;
    }
  }
};

/// The sbc kernels on launcher `Launch`.
template <class Launch>
class SbcKernels final : public SparseKernels<Launch> {
 public:
  SbcKernels(Device& device, const Options& options)
      : SparseKernels<Launch>(device), device_(device), y_(device), up_(device), down_(device), partial_(device),
        total_(device), golomb_(device) {
    OptionReader reader("compressor 'sbc'", options);
    ratio_ = reader.real("ratio", 0.01, 0.0, 1.0, true);
    reader.finish();
  }
  void compress(const float* grad, std::int64_t n, TensorId, std::uint64_t, DeviceBuffer<std::byte>& payload) override {
    const golomb::Budget budget = golomb::budget(static_cast<std::size_t>(n), ratio_);
    const bool wide = n >= (std::int64_t{1} << 31);
    const Side up = side(grad, n, static_cast<std::int64_t>(budget.kept), 1.0f, up_);
    const Side down = side(grad, n, static_cast<std::int64_t>(budget.kept), -1.0f, down_);
    const bool positive = up.mean >= down.mean;  // positives on a tie
    const Side& kept = positive ? up : down;
    const std::int64_t stream = golomb_.encode((positive ? up_ : down_).data(), kept.count, wide, budget.rice_bits);
    payload.resize(static_cast<std::size_t>(8 + stream));
    put_header(device_, payload.data(), kept.count, static_cast<float>(positive ? up.mean : -down.mean));
    golomb_.copy_to(payload.data() + 8);
  }
  void decompress(const std::byte* payload, std::size_t bytes, float* out, std::int64_t n, TensorId,
                  std::uint64_t) override {
    golomb_.expand(payload, bytes, out, n, golomb::budget(static_cast<std::size_t>(n), ratio_).rice_bits, false);
  }


 private:
  struct Side {
    std::int64_t count = 0;
    double mean = 0.0;  ///< of the magnitudes sign x
  };

  // The kept elements of one side into `kept` (sparse layout: indices, then the magnitudes sign x).
  Side side(const float* grad, std::int64_t n, std::int64_t k, float sign, DeviceBuffer<std::byte>& kept) {
    std::int64_t c = 0;
    if (n > 0) {
      y_.resize(static_cast<std::size_t>(n));
      Launch{}(grid_for(n), OneSide{grad, sign, y_.data(), n});
      this->largest(y_.data(), n, k);
      if (this->threshold() == 0) this->above(0);  // fewer than k positive: only those
      c = this->count(y_.data(), n);
      this->write(y_.data(), n, c, kept);
    }
    const auto* values = reinterpret_cast<const float*>(kept.data() + c * (n >= (std::int64_t{1} << 31) ? 8 : 4));
    const double total = reduce_to_host<Launch>(device_, values, c, partial_, total_, SumOf<MeanAbs>{}).s;
    return {c, c == 0 ? 0.0 : total / static_cast<double>(c)};
  }

  Device& device_;
  DeviceBuffer<float> y_;
  DeviceBuffer<std::byte> up_, down_;
  DeviceBuffer<SumOf<MeanAbs>> partial_;
  DeviceBuffer<std::byte> total_;
  GolombCoder<Launch> golomb_;
  double ratio_ = 0.01;
};

}  // namespace dtsim::compressors::device
