#pragma once
/// variance_based on the device (compressors/variance_based.cpp's wire): the time line's path, the one a kernel
/// measurement takes (no samples, so no variance state): the max(1, floor(n density)) largest magnitudes, zeros
/// left out, by the radix select of topk (sparse_select.hpp) into a scratch sparse layout; top = their largest
/// magnitude (a canonical NaN when one is NaN) by reduce.hpp; then the indices copied after top and one thread per
/// code byte writing two 4-bit codes (element_codecs.hpp's to_power_code). Same bytes as the host kernel.
#include "compressors/device/reduce.hpp"
#include "compressors/device/sparse_select.hpp"

namespace dtsim::compressors::device {

/// Largest magnitude of the values sent, NaN remembered.
struct TopMagnitude {
  float m = 0.0f;
  bool nan = false;
  DTSIM_HOST_DEVICE void add(float x) {
    const float a = bits_float(float_bits(x) & 0x7fffffffu);
    nan = nan || a != a;
    m = a > m ? a : m;
  }
  DTSIM_HOST_DEVICE void merge(const TopMagnitude& o) {
    nan = nan || o.nan;
    m = o.m > m ? o.m : m;
  }
};

/// Writes top (the canonical quiet NaN when a value is NaN) to the payload.
struct StoreTop {
  float* top;
  DTSIM_HOST_DEVICE void operator()(const TopMagnitude& a) const { *top = a.nan ? bits_float(0x7fc00000u) : a.m; }
};

/// payload: the c indices of the scratch sparse layout after top, and code byte b = code(2b) | code(2b + 1) << 4.
struct PowerCodes {
  const std::byte* sparse;  ///< [c indices][c fp32 values]
  std::byte* payload;       ///< [fp32 top][c indices][ceil(c / 2) code bytes]
  std::int64_t c;
  int index_bytes;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const std::int64_t index_total = c * index_bytes;
    for (std::int64_t b = t.tile_begin(index_total); b < t.tile_end(index_total); b += t.threads)
      payload[4 + b] = sparse[b];
    const auto* values = reinterpret_cast<const float*>(sparse + index_total);
    const float top = *reinterpret_cast<const float*>(payload);
    const std::int64_t bytes = (c + 1) / 2;
    for (std::int64_t b = t.tile_begin(bytes); b < t.tile_end(bytes); b += t.threads) {
      std::uint32_t byte = to_power_code(values[2 * b], top);
      if (2 * b + 1 < c) byte |= to_power_code(values[2 * b + 1], top) << 4;
      payload[4 + index_total + b] = static_cast<std::byte>(byte);
    }
  }
};

/// out[index_p] = +-top 2^-k_p onto zeros (indices are distinct).
struct ExpandPowerCodes {
  const std::byte* payload;
  std::int64_t c;
  bool wide;
  float* out;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const float top = *reinterpret_cast<const float*>(payload);
    const std::byte* indices = payload + 4;
    const std::byte* codes = indices + c * (wide ? 8 : 4);
    for (std::int64_t p = t.tile_begin(c); p < t.tile_end(c); p += t.threads) {
      const std::int64_t i = wide ? reinterpret_cast<const std::int64_t*>(indices)[p]
                                  : reinterpret_cast<const std::int32_t*>(indices)[p];
      const std::uint32_t code = (static_cast<std::uint32_t>(codes[p / 2]) >> (4 * (p % 2))) & 15u;
      out[i] = from_power_code(code, top);
    }
  }
};

/// The variance_based kernels on launcher `Launch`.
template <class Launch>
class VarianceBasedKernels final : public SparseKernels<Launch> {
 public:
  VarianceBasedKernels(Device& device, const Options& options)
      : SparseKernels<Launch>(device), device_(device), sparse_(device), partial_(device) {
    OptionReader reader("compressor 'variance_based'", options);
    reader.real("alpha", 2.0, 0.0, 1e30, true);  // the variance rule runs on the host only (it needs the samples)
    reader.real("zeta", 0.999, 0.0, 1.0);
    density_ = reader.real("density", 0.01, 0.0, 1.0, true);
    reader.finish();
  }
  void compress(const float* grad, std::int64_t n, TensorId, std::uint64_t, DeviceBuffer<std::byte>& payload) override {
    std::int64_t c = 0;
    if (n > 0) {
      const std::int64_t k = std::max<std::int64_t>(1, static_cast<std::int64_t>(static_cast<double>(n) * density_));
      this->largest(grad, n, k);
      if (this->threshold() == 0) this->above(0);  // fewer than k non-zeros: all of them
      c = this->count(grad, n);
      this->write(grad, n, c, sparse_);
    }
    const int ib = n >= (std::int64_t{1} << 31) ? 8 : 4;
    payload.resize(static_cast<std::size_t>(4 + c * ib + (c + 1) / 2));
    auto* top = reinterpret_cast<float*>(payload.data());
    if (c == 0) return device_.zero(top, 4);
    reduce<Launch>(reinterpret_cast<const float*>(sparse_.data() + c * ib), c, partial_, StoreTop{top});
    Launch{}(grid_for(c * ib), PowerCodes{sparse_.data(), payload.data(), c, ib});
  }
  void decompress(const std::byte* payload, std::size_t bytes, float* out, std::int64_t n, TensorId,
                  std::uint64_t) override {
    if (n == 0) return;
    device_.zero(out, sizeof(float) * static_cast<std::size_t>(n));
    const bool wide = n >= (std::int64_t{1} << 31);
    const auto c = static_cast<std::int64_t>(2 * (bytes - 4) / (2 * (wide ? 8 : 4) + 1));
    if (c > 0) Launch{}(grid_for(c), ExpandPowerCodes{payload, c, wide, out});
  }

 private:
  Device& device_;
  DeviceBuffer<std::byte> sparse_;
  DeviceBuffer<TopMagnitude> partial_;
  double density_ = 0.01;
};

}  // namespace dtsim::compressors::device
