#pragma once
/// eightbit on the device (compressors/eightbit.cpp): [fp32 max|x|][n x uint8 code]; the maximum by reduce.hpp
/// (exact in any order), each element rounded by eightbit_code with the host's tables copied to the device, so
/// the wire bytes are the host kernel's.
#include "compressors/device/reduce.hpp"
#include "compressors/eightbit_table.hpp"
#include "compressors/element_codecs.hpp"

namespace dtsim::compressors::device {

/// top = max|x| (to the payload), inv = 1 / top (0 for an all-zero tensor).
struct EightBitScale {
  float* top;
  float* inv;
  DTSIM_HOST_DEVICE void operator()(const MaxAbs& m) const {
    *top = m.m;
    *inv = m.m > 0.0f ? 1.0f / m.m : 0.0f;
  }
};

/// code[i] = eightbit_code(x[i], *inv).
struct EightBitEncode {
  const float* x;
  const float* inv;
  const std::uint8_t* start;
  const float* mid;
  std::uint8_t zero;
  std::uint8_t* code;
  std::int64_t n;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const float v = *inv;
    for (std::int64_t i = t.tile_begin(n); i < t.tile_end(n); i += t.threads) code[i] = eightbit_code(x[i], v, start, mid, zero);
  }
};

/// out[i] = values[code[i]] * top.
struct EightBitDecode {
  const std::uint8_t* code;
  const float* values;
  const float* top;
  float* out;
  std::int64_t n;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const float s = *top;
    for (std::int64_t i = t.tile_begin(n); i < t.tile_end(n); i += t.threads) out[i] = values[code[i]] * s;
  }
};

/// The eightbit kernels on launcher `Launch`.
template <class Launch>
class EightBitKernels final : public KernelsOn<Launch> {
 public:
  EightBitKernels(Device& device, const Options& options)
      : partial_(device), inv_(device), start_(device), mid_(device), values_(device) {
    OptionReader("compressor 'eightbit'", options).finish();
    const EightBitTable& table = eightbit_table();
    zero_ = table.zero;
    inv_.resize(1);
    start_.resize(table.start.size());
    mid_.resize(table.midpoints.size());
    values_.resize(table.values.size());
    device.to_device(start_.data(), table.start.data(), table.start.size());
    device.to_device(mid_.data(), table.midpoints.data(), sizeof table.midpoints);
    device.to_device(values_.data(), table.values.data(), sizeof table.values);
  }
  Aggregation how() const override { return Aggregation::kAllGather; }
  void compress(const float* grad, std::int64_t n, TensorId, std::uint64_t, DeviceBuffer<std::byte>& payload) override {
    payload.resize(4 + static_cast<std::size_t>(n));
    reduce<Launch>(grad, n, partial_, EightBitScale{reinterpret_cast<float*>(payload.data()), inv_.data()});
    if (n > 0)
      Launch{}(grid_for(n), EightBitEncode{grad, inv_.data(), start_.data(), mid_.data(), zero_,
                                           reinterpret_cast<std::uint8_t*>(payload.data() + 4), n});
  }
  void decompress(const std::byte* payload, std::size_t, float* out, std::int64_t n, TensorId,
                  std::uint64_t) override {
    if (n > 0)
      Launch{}(grid_for(n), EightBitDecode{reinterpret_cast<const std::uint8_t*>(payload + 4), values_.data(),
                                           reinterpret_cast<const float*>(payload), out, n});
  }

 private:
  DeviceBuffer<MaxAbs> partial_;
  DeviceBuffer<float> inv_;
  DeviceBuffer<std::uint8_t> start_;
  DeviceBuffer<float> mid_, values_;
  std::uint8_t zero_ = 0;
};

}  // namespace dtsim::compressors::device
