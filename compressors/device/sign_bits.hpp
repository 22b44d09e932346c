#pragma once
/// Sign bits on the device, as compressors/wire.hpp lays them out: bit i of byte i / 8 (LSB first) = 1[x_i >= 0],
/// NaN -> 0; one thread per payload byte, so no two threads write the same byte.
#include "compressors/device/kernels.hpp"

namespace dtsim::compressors::device {

/// bits[j] = the signs of x[8j, 8j + 8): 1[x >= 0], or 1[x < 0] when `negative` (NaN: 0 either way).
struct PackSigns {
  const float* x;
  std::uint8_t* bits;
  std::int64_t n;
  bool negative = false;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const std::int64_t bytes = (n + 7) / 8;
    for (std::int64_t j = t.tile_begin(bytes); j < t.tile_end(bytes); j += t.threads) {
      std::uint32_t b = 0;
      for (std::int64_t k = 0; k < 8 && 8 * j + k < n; ++k) b |= ((negative ? x[8 * j + k] < 0.0f : x[8 * j + k] >= 0.0f) ? 1u : 0u) << k;
      bits[j] = static_cast<std::uint8_t>(b);
    }
  }
};

/// out[i] = bit i ? s : -s, s = *scale (device memory), or 1 when scale is null.
struct ExpandBits {
  const std::uint8_t* bits;
  const float* scale;
  float* out;
  std::int64_t n;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const float s = scale ? *scale : 1.0f;
    for (std::int64_t i = t.tile_begin(n); i < t.tile_end(n); i += t.threads) out[i] = (bits[i / 8] >> (i % 8)) & 1u ? s : -s;
  }
};

/// The grid of PackSigns for n elements: one thread per byte.
inline Grid sign_grid(std::int64_t n) { return grid_for((n + 7) / 8); }

}  // namespace dtsim::compressors::device
