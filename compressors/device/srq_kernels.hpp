#pragma once
/// srq on the device (compressors/srq.cpp's wire): the rotation R = H D / sqrt(d) as one kernel for D / sqrt(d)
/// and log2(d) butterfly passes of the Walsh-Hadamard transform (the host kernel's additions, pass by pass), the
/// range [z_min, z_max] by reduce.hpp (exact in any order), then one thread per group of 8 coordinates writes
/// their codes (code_stream.hpp). Sign i of D is bit 31 of word i % 4 of Philox block i / 4 of the stream
/// stream_seed(seed, tensor, step), the rounding draw of coordinate i the same word of the stream
/// stream_seed(seed ^ 0x5eed, tensor, step); the host kernel draws both from xoshiro256** instead: same law,
/// other bits.
#include <bit>
#include <cmath>

#include "compressors/device/code_stream.hpp"
#include "compressors/device/reduce.hpp"
#include "compressors/element_codecs.hpp"
#include "compressors/philox.hpp"
#include "compressors/rng.hpp"

namespace dtsim::compressors::device {

/// D / sqrt(d): coordinate i of a rotation of d coordinates, signs from stream `key`.
struct SrqDiagonal {
  std::uint64_t key;
  float norm;  ///< 1 / sqrt(d)
  /// The factor of coordinate i.
  DTSIM_HOST_DEVICE float operator()(std::int64_t i) const {
    return philox_block(key, static_cast<std::uint64_t>(i / 4)).v[i % 4] >> 31 ? -norm : norm;
  }
};

/// to[i] = (i < n ? from[i] : 0) D_ii / sqrt(d) for i < d (forward), or to[i] = from[i] D_ii / sqrt(d) for i < n.
struct SrqScale {
  const float* from;
  float* to;
  std::int64_t n, count;  ///< elements of `from` that are read; coordinates written
  SrqDiagonal diagonal;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    for (std::int64_t i = t.tile_begin(count); i < t.tile_end(count); i += t.threads)
      to[i] = (i < n ? from[i] : 0.0f) * diagonal(i);
  }
};

/// One pass of the unnormalised fast Walsh-Hadamard transform: the butterflies (i, i + half) of v[0, d).
struct HadamardPass {
  float* v;
  std::int64_t d, half;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const std::int64_t pairs = d / 2;
    for (std::int64_t p = t.tile_begin(pairs); p < t.tile_end(pairs); p += t.threads) {
      const std::int64_t i = p / half * 2 * half + p % half;
      const float a = v[i], b = v[i + half];
      v[i] = a + b;
      v[i + half] = a - b;
    }
  }
};

/// Smallest and largest value (NaN ignored, as the host's std::min / std::max).
struct MinMax {
  float lo = HUGE_VALF, hi = -HUGE_VALF;
  DTSIM_HOST_DEVICE void add(float v) {
    lo = v < lo ? v : lo;
    hi = hi < v ? v : hi;
  }
  DTSIM_HOST_DEVICE void merge(const MinMax& o) {
    lo = o.lo < lo ? o.lo : lo;
    hi = hi < o.hi ? o.hi : hi;
  }
};

/// [z_min][z_max] to the payload, and inv = (k - 1) / (z_max - z_min) (0 for an empty range).
struct SrqRange {
  float* range;
  float* inv;
  std::uint32_t top;
  DTSIM_HOST_DEVICE void operator()(const MinMax& m) const {
    range[0] = m.lo;
    range[1] = m.hi;
    const float span = m.hi - m.lo;
    *inv = span > 0.0f ? static_cast<float>(top) / span : 0.0f;
  }
};

/// The codes of coordinates [8g, 8g + 8) of z.
struct SrqEncode {
  const float* z;
  const float* range;
  const float* inv;
  std::uint8_t* codes;
  std::int64_t d;
  int bits;
  std::uint32_t top;
  std::uint64_t key;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const float lo = range[0], scale = *inv;
    encode_groups(t, d, bits, codes, key,
                  [&](std::int64_t i, std::uint32_t u) { return srq_level(z[i], u, lo, scale, top); });
  }
};

/// z[i] = z_min + code_i (z_max - z_min) / (k - 1).
struct SrqDecode {
  const float* range;
  const std::uint8_t* codes;
  float* z;
  std::int64_t d;
  int bits;
  std::uint32_t top;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const float lo = range[0], step = (range[1] - range[0]) / static_cast<float>(top);
    const std::int64_t bytes = (d * bits + 7) / 8;
    for (std::int64_t i = t.tile_begin(d); i < t.tile_end(d); i += t.threads)
      z[i] = lo + static_cast<float>(read_code(codes, bytes, i, bits)) * step;
  }
};

/// The srq kernels on launcher `Launch`.
template <class Launch>
class SrqKernels final : public KernelsOn<Launch> {
 public:
  SrqKernels(Device& device, const Options& options) : device_(device), z_(device), inv_(device), partial_(device) {
    OptionReader reader("compressor 'srq'", options);
    const auto levels = reader.integer("levels", 16, 2, 65536);
    seed_ = static_cast<std::uint64_t>(reader.integer("seed", 0, 0, INT64_MAX));
    reader.finish();
    top_ = static_cast<std::uint32_t>(levels - 1);
    bits_ = std::bit_width(top_);
    inv_.resize(1);
  }
  Aggregation how() const override { return Aggregation::kAllGather; }
  void compress(const float* grad, std::int64_t n, TensorId id, std::uint64_t step,
                DeviceBuffer<std::byte>& payload) override {
    const std::int64_t d = padded(n);
    payload.resize(static_cast<std::size_t>(8 + (d * bits_ + 7) / 8));
    auto* range = reinterpret_cast<float*>(payload.data());
    if (n == 0) {
      const float zero[2] = {0.0f, 0.0f};
      return device_.to_device(range, zero, sizeof zero);
    }
    z_.resize(static_cast<std::size_t>(d));
    Launch{}(grid_for(d), SrqScale{grad, z_.data(), n, d, diagonal(d, id, step)});
    hadamard(z_.data(), d);
    reduce<Launch>(z_.data(), d, partial_, SrqRange{range, inv_.data(), top_});
    Launch{}(grid_for((d + 7) / 8), SrqEncode{z_.data(), range, inv_.data(), reinterpret_cast<std::uint8_t*>(payload.data() + 8),
                                              d, bits_, top_, stream_seed(seed_ ^ 0x5eedu, id, step)});
  }
  void decompress(const std::byte* payload, std::size_t, float* out, std::int64_t n, TensorId id,
                  std::uint64_t step) override {
    if (n == 0) return;
    const std::int64_t d = padded(n);
    z_.resize(static_cast<std::size_t>(d));
    Launch{}(grid_for(d), SrqDecode{reinterpret_cast<const float*>(payload), reinterpret_cast<const std::uint8_t*>(payload + 8),
                                    z_.data(), d, bits_, top_});
    hadamard(z_.data(), d);
    Launch{}(grid_for(n), SrqScale{z_.data(), out, n, n, diagonal(d, id, step)});
  }

 private:
  static std::int64_t padded(std::int64_t n) {
    return n == 0 ? 0 : static_cast<std::int64_t>(std::bit_ceil(static_cast<std::uint64_t>(n)));
  }
  SrqDiagonal diagonal(std::int64_t d, TensorId id, std::uint64_t step) const {
    return {stream_seed(seed_, id, step), 1.0f / std::sqrt(static_cast<float>(d))};
  }
  static void hadamard(float* v, std::int64_t d) {
    for (std::int64_t half = 1; half < d; half *= 2) Launch{}(grid_for(d / 2), HadamardPass{v, d, half});
  }

  Device& device_;
  DeviceBuffer<float> z_, inv_;
  DeviceBuffer<MinMax> partial_;
  std::uint32_t top_ = 15;
  int bits_ = 4;
  std::uint64_t seed_ = 0;
};

}  // namespace dtsim::compressors::device
