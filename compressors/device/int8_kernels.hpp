#pragma once
/// int8 on the device (compressors/int8.cpp): [fp32 scale = max|x| / 127][n x int8]; the maximum by
/// compressors/device/reduce.hpp (exact in any order, so the host's bits).
#include "compressors/device/reduce.hpp"
#include "compressors/element_codecs.hpp"

namespace dtsim::compressors::device {

/// scale = max / 127 (to the payload), inv = 127 / max (0 for an all-zero tensor).
struct Int8Scale {
  float* scale;
  float* inv;
  DTSIM_HOST_DEVICE void operator()(const MaxAbs& top) const {
    *scale = top.m / 127.0f;
    *inv = top.m > 0.0f ? 127.0f / top.m : 0.0f;
  }
};

/// q[i] = to_int8(x[i], *inv).
struct Int8Quantise {
  const float* x;
  const float* inv;
  std::int8_t* q;
  std::int64_t n;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const float v = *inv;
    for (std::int64_t i = t.tile_begin(n); i < t.tile_end(n); i += t.threads) q[i] = to_int8(x[i], v);
  }
};

/// out[i] = q[i] * scale.
struct Int8Dequantise {
  const std::int8_t* q;
  const float* scale;
  float* out;
  std::int64_t n;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const float s = *scale;
    for (std::int64_t i = t.tile_begin(n); i < t.tile_end(n); i += t.threads) out[i] = static_cast<float>(q[i]) * s;
  }
};

/// The int8 kernels on launcher `Launch`.
template <class Launch>
class Int8Kernels final : public KernelsOn<Launch> {
 public:
  Int8Kernels(Device& device, const Options& options) : partial_(device), inv_(device) {
    OptionReader("compressor 'int8'", options).finish();
  }
  Aggregation how() const override { return Aggregation::kAllGather; }
  void compress(const float* grad, std::int64_t n, TensorId, std::uint64_t, DeviceBuffer<std::byte>& payload) override {
    payload.resize(4 + static_cast<std::size_t>(n));
    inv_.resize(1);
    reduce<Launch>(grad, n, partial_, Int8Scale{reinterpret_cast<float*>(payload.data()), inv_.data()});
    if (n > 0) Launch{}(grid_for(n), Int8Quantise{grad, inv_.data(), reinterpret_cast<std::int8_t*>(payload.data() + 4), n});
  }
  void decompress(const std::byte* payload, std::size_t, float* out, std::int64_t n, TensorId,
                  std::uint64_t) override {
    if (n > 0)
      Launch{}(grid_for(n), Int8Dequantise{reinterpret_cast<const std::int8_t*>(payload + 4),
                                            reinterpret_cast<const float*>(payload), out, n});
  }

 private:
  DeviceBuffer<MaxAbs> partial_;
  DeviceBuffer<float> inv_;
};

}  // namespace dtsim::compressors::device
