#pragma once
/// aqsgd on the device (compressors/aqsgd.cpp's wire): the tensor's levels written into the payload, ||x||_2 by
/// reduce.hpp (a sum of squares in double in another order than the host kernel's, so the norm may differ from it
/// in the last bit), then one thread per group of 8 elements writes their codes (code_stream.hpp) with
/// aqsgd_levels.hpp's rounding. Element i rounds with word i % 4 of Philox block i / 4 of the stream
/// stream_seed(seed, tensor, step); the host kernel draws from xoshiro256** instead: same law, other bits. ALQ's
/// coordinate descent runs on the host, as the host kernel's, on the normalised magnitudes read back (sorting them
/// is the step the device does not do).
#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "compressors/aqsgd_levels.hpp"
#include "compressors/device/code_stream.hpp"
#include "compressors/device/reduce.hpp"
#include "compressors/device/scaled_sign_kernels.hpp"
#include "compressors/rng.hpp"

namespace dtsim::compressors::device {

/// The shape of an aqsgd payload.
struct AqsgdLayout {
  std::int64_t n = 0;   ///< elements
  int bits = 3;         ///< bits per code
  std::int32_t s = 3;   ///< levels besides 0
  /// Bytes before the codes: s levels and the norm.
  DTSIM_HOST_DEVICE std::int64_t header() const { return 4 * (std::int64_t{s} + 1); }
  /// Bytes of the code stream.
  DTSIM_HOST_DEVICE std::int64_t code_bytes() const { return (n * bits + 7) / 8; }
};

/// The payload's norm word: sqrt of the sum of squares.
struct AqsgdNorm {
  float* norm;
  DTSIM_HOST_DEVICE void operator()(const SumOf<RootMeanSquare>& sum) const { *norm = static_cast<float>(sqrt(sum.s)); }
};

/// Codes of elements [8g, 8g + 8): the rounded level index, the sign on top.
struct AqsgdEncode {
  const float* x;
  const float* levels;  ///< l_1..l_s, then the norm
  std::uint8_t* codes;
  AqsgdLayout q;
  std::uint64_t key;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const float norm = levels[q.s];
    const float inv = norm > 0.0f ? 1.0f / norm : 0.0f;
    const std::uint32_t sign = 1u << (q.bits - 1);
    encode_groups(t, q.n, q.bits, codes, key, [&](std::int64_t i, std::uint32_t u) {
      const float r = bits_float(float_bits(x[i]) & 0x7fffffffu) * inv;
      const float draw = static_cast<float>(u >> 8) * 0x1p-24f;
      return static_cast<std::uint32_t>(aqsgd_index(r, draw, levels, q.s)) | (x[i] < 0.0f ? sign : 0u);
    });
  }
};

/// out[i] = sign ||x|| l_index.
struct AqsgdDecode {
  const float* levels;  ///< l_1..l_s, then the norm
  const std::uint8_t* codes;
  float* out;
  AqsgdLayout q;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const std::uint32_t sign = 1u << (q.bits - 1);
    for (std::int64_t i = t.tile_begin(q.n); i < t.tile_end(q.n); i += t.threads) {
      const std::uint32_t code = read_code(codes, q.code_bytes(), i, q.bits);
      const std::uint32_t index = code & (sign - 1u);
      const float v = index == 0 ? 0.0f : levels[q.s] * levels[index - 1];
      out[i] = (code & sign) != 0 ? -v : v;
    }
  }
};

/// The aqsgd kernels on launcher `Launch`.
template <class Launch>
class AqsgdKernels final : public KernelsOn<Launch> {
 public:
  AqsgdKernels(Device& device, const Options& options) : device_(device), squares_(device) {
    OptionReader reader("compressor 'aqsgd'", options);
    bits_ = static_cast<int>(reader.integer("bits", 3, 2, 8));
    seed_ = static_cast<std::uint64_t>(reader.integer("seed", 0, 0, INT64_MAX));
    reader.finish();
  }
  Aggregation how() const override { return Aggregation::kAllGather; }
  void compress(const float* grad, std::int64_t n, TensorId id, std::uint64_t step,
                DeviceBuffer<std::byte>& payload) override {
    const AqsgdLayout q = layout(n);
    std::vector<float>& levels = levels_.try_emplace(id, aqsgd_initial_levels(q.s)).first->second;
    payload.resize(static_cast<std::size_t>(q.header() + q.code_bytes()));
    auto* head = reinterpret_cast<float*>(payload.data());
    device_.to_device(head, levels.data(), sizeof(float) * levels.size());
    reduce<Launch>(grad, n, squares_, AqsgdNorm{head + q.s});
    if (n == 0) return;
    Launch{}(grid_for((n + 7) / 8), AqsgdEncode{grad, head, reinterpret_cast<std::uint8_t*>(payload.data() + q.header()),
                                                q, stream_seed(seed_, id, step)});
    // ALQ's step on the host: the magnitudes normalised as the encoder did, sorted, fitted.
    float norm = 0.0f;
    device_.to_host(&norm, head + q.s, sizeof norm);
    sorted_.resize(static_cast<std::size_t>(n));
    device_.to_host(sorted_.data(), grad, sizeof(float) * sorted_.size());
    const float inv = norm > 0.0f ? 1.0f / norm : 0.0f;
    std::size_t kept = 0;
    for (const float x : sorted_) {
      const float r = std::fabs(x) * inv;
      if (std::isfinite(r)) sorted_[kept++] = std::min(r, 1.0f);
    }
    sorted_.resize(kept);
    std::sort(sorted_.begin(), sorted_.end());
    aqsgd_fit(sorted_, levels);
  }
  void decompress(const std::byte* payload, std::size_t, float* out, std::int64_t n, TensorId,
                  std::uint64_t) override {
    const AqsgdLayout q = layout(n);
    if (n > 0)
      Launch{}(grid_for(n), AqsgdDecode{reinterpret_cast<const float*>(payload),
                                        reinterpret_cast<const std::uint8_t*>(payload + q.header()), out, q});
  }

 private:
  AqsgdLayout layout(std::int64_t n) const { return {n, bits_, (1 << (bits_ - 1)) - 1}; }

  Device& device_;
  DeviceBuffer<SumOf<RootMeanSquare>> squares_;
  std::map<TensorId, std::vector<float>> levels_;
  std::vector<float> sorted_;
  int bits_ = 3;
  std::uint64_t seed_ = 0;
};

}  // namespace dtsim::compressors::device
