#pragma once
/// stc on the device (compressors/stc.cpp): the top k by radix select into a sparse scratch (sparse_select.hpp),
/// mu = mean |x| over them from a sum by reduce.hpp (in double, in another order than the host kernel's: mu may
/// differ from it in the last bit), the positions Golomb-coded by golomb_kernels.hpp, one thread per byte of sign bits (sign_bits.hpp).
#include <cstring>

#include "compressors/device/golomb_kernels.hpp"
#include "compressors/device/scaled_sign_kernels.hpp"
#include "compressors/device/sign_bits.hpp"
#include "compressors/device/sparse_select.hpp"
#include "compressors/golomb.hpp"

namespace dtsim::compressors::device {

/// Writes the header [uint32 count][fp32 value] of a Golomb-coded payload to device memory.
inline void put_header(Device& device, std::byte* payload, std::int64_t count, float value) {
  std::byte header[8];
  const auto c = static_cast<std::uint32_t>(count);
  std::memcpy(header, &c, 4);
  std::memcpy(header + 4, &value, 4);
  device.to_device(payload, header, sizeof header);
}

/// The stc kernels on launcher `Launch`.
template <class Launch>
class StcKernels final : public SparseKernels<Launch> {
 public:
  StcKernels(Device& device, const Options& options)
      : SparseKernels<Launch>(device), device_(device), kept_(device), partial_(device), total_(device), golomb_(device) {
    OptionReader reader("compressor 'stc'", options);
    ratio_ = reader.real("ratio", 0.01, 0.0, 1.0, true);
    reader.finish();
  }
  void compress(const float* grad, std::int64_t n, TensorId, std::uint64_t, DeviceBuffer<std::byte>& payload) override {
    const golomb::Budget budget = golomb::budget(static_cast<std::size_t>(n), ratio_);
    std::int64_t c = 0;
    if (n > 0) {
      this->largest(grad, n, static_cast<std::int64_t>(budget.kept));
      c = this->count(grad, n);
      this->write(grad, n, c, kept_);
    }
    const bool wide = n >= (std::int64_t{1} << 31);
    const std::int64_t stream = golomb_.encode(kept_.data(), c, wide, budget.rice_bits);
    payload.resize(static_cast<std::size_t>(8 + stream + (c + 7) / 8));
    const auto* values = reinterpret_cast<const float*>(kept_.data() + c * (wide ? 8 : 4));
    const double total = reduce_to_host<Launch>(device_, values, c, partial_, total_, SumOf<MeanAbs>{}).s;
    put_header(device_, payload.data(), c, c == 0 ? 0.0f : static_cast<float>(total / static_cast<double>(c)));
    golomb_.copy_to(payload.data() + 8);
    if (c > 0) Launch{}(grid_for((c + 7) / 8), PackSigns{values, reinterpret_cast<std::uint8_t*>(payload.data() + 8 + stream), c, true});
  }
  void decompress(const std::byte* payload, std::size_t bytes, float* out, std::int64_t n, TensorId,
                  std::uint64_t) override {
    golomb_.expand(payload, bytes, out, n, golomb::budget(static_cast<std::size_t>(n), ratio_).rice_bits, true);
  }


 private:
  Device& device_;
  DeviceBuffer<std::byte> kept_;
  DeviceBuffer<SumOf<MeanAbs>> partial_;
  DeviceBuffer<std::byte> total_;
  GolombCoder<Launch> golomb_;
  double ratio_ = 0.01;
};

}  // namespace dtsim::compressors::device
