#pragma once
/// qsgd on the device (compressors/qsgd.cpp's wire): [nb x fp32 bucket norm][n codes of b = 1 + bit_width(s) bits,
/// LSB-first bit stream, level low, sign on top]. One thread per bucket takes its norm (qsgd_bucket_norm: the
/// host kernel's fp32 lane order, so the norms are the host's bits); one thread per group of 8 elements writes
/// their b bytes, element i rounding with word i % 4 of Philox block i / 4 of the stream
/// stream_seed(seed, tensor, step). The host kernel draws from xoshiro128** instead: same law, other bits.
#include <bit>

#include "compressors/device/code_stream.hpp"
#include "compressors/element_codecs.hpp"
#include "compressors/philox.hpp"
#include "compressors/rng.hpp"

namespace dtsim::compressors::device {

/// The shape of a qsgd payload.
struct QsgdLayout {
  std::int64_t n = 0, bucket = 0, buckets = 0;  ///< elements, elements per bucket, buckets
  int bits = 8;                                 ///< bits per code
  float s = 127.0f;                             ///< levels
  /// Bytes of the code stream.
  DTSIM_HOST_DEVICE std::int64_t code_bytes() const { return (n * bits + 7) / 8; }
  /// Code (level | sign << (bits - 1)) of x with the draw u, in a bucket of inverse unit `inv`.
  DTSIM_HOST_DEVICE std::uint32_t code(float x, float inv, std::uint32_t u) const {
    return static_cast<std::uint32_t>(qsgd_level(x, u, inv, s)) | (x < 0.0f ? 1u << (bits - 1) : 0u);
  }
};

/// norms[k] = the l2 norm of bucket k.
struct QsgdNorms {
  const float* x;
  float* norms;
  QsgdLayout q;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    for (std::int64_t k = t.tile_begin(q.buckets); k < t.tile_end(q.buckets); k += t.threads) {
      const std::int64_t lo = k * q.bucket, hi = lo + q.bucket < q.n ? lo + q.bucket : q.n;
      norms[k] = qsgd_bucket_norm(x + lo, hi - lo);
    }
  }
};

/// The codes of elements [8g, 8g + 8) fill bytes [g bits, (g + 1) bits) of the stream: one thread per group,
/// with the draws of Philox blocks 2g and 2g + 1.
struct QsgdEncode {
  const float* x;
  const float* norms;
  std::uint8_t* codes;
  QsgdLayout q;
  std::uint64_t key;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const std::int64_t groups = (q.n + 7) / 8;
    for (std::int64_t g = t.tile_begin(groups); g < t.tile_end(groups); g += t.threads) {
      const Philox4x32 u[2] = {philox_block(key, static_cast<std::uint64_t>(2 * g)),
                               philox_block(key, static_cast<std::uint64_t>(2 * g + 1))};
      CodeWriter w{codes, g * q.bits, q.bits};
      std::int64_t k = 8 * g / q.bucket;  // the bucket of the element (one division a group)
      float inv = qsgd_inverse_unit(norms[k], q.s);
      for (std::int64_t e = 0, i = 8 * g; e < 8 && i < q.n; ++e, ++i) {
        if (i == (k + 1) * q.bucket) inv = qsgd_inverse_unit(norms[++k], q.s);
        w.put(q.code(x[i], inv, u[e / 4].v[e % 4]));
      }
      w.finish();
    }
  }
};

/// out[i] = +-norm * level / s of element i's code.
struct QsgdDecode {
  const float* norms;
  const std::uint8_t* codes;
  float* out;
  QsgdLayout q;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const std::uint32_t level_mask = (1u << (q.bits - 1)) - 1u;
    for (std::int64_t i = t.tile_begin(q.n); i < t.tile_end(q.n); i += t.threads) {
      const std::uint32_t c = read_code(codes, q.code_bytes(), i, q.bits);
      const float mag = static_cast<float>(c & level_mask) * (norms[i / q.bucket] / q.s);
      out[i] = c & (level_mask + 1) ? -mag : mag;
    }
  }
};

/// The qsgd kernels on launcher `Launch`.
template <class Launch>
class QsgdKernels final : public KernelsOn<Launch> {
 public:
  QsgdKernels(Device&, const Options& options) {
    OptionReader reader("compressor 'qsgd'", options);
    levels_ = reader.integer("levels", 127, 1, 32767);
    bucket_ = reader.integer("bucket_size", 128, 0, INT64_MAX);
    seed_ = static_cast<std::uint64_t>(reader.integer("seed", 0, 0, INT64_MAX));
    reader.finish();
  }
  Aggregation how() const override { return Aggregation::kAllGather; }
  void compress(const float* grad, std::int64_t n, TensorId id, std::uint64_t step,
                DeviceBuffer<std::byte>& payload) override {
    const QsgdLayout q = layout(n);
    payload.resize(static_cast<std::size_t>(4 * q.buckets + q.code_bytes()));
    if (n == 0) return;
    auto* norms = reinterpret_cast<float*>(payload.data());
    Launch{}(grid_for(q.buckets), QsgdNorms{grad, norms, q});
    Launch{}(grid_for((n + 7) / 8), QsgdEncode{grad, norms, reinterpret_cast<std::uint8_t*>(payload.data() + 4 * q.buckets),
                                                  q, stream_seed(seed_, id, step)});
  }
  void decompress(const std::byte* payload, std::size_t, float* out, std::int64_t n, TensorId,
                  std::uint64_t) override {
    const QsgdLayout q = layout(n);
    if (n > 0)
      Launch{}(grid_for(n), QsgdDecode{reinterpret_cast<const float*>(payload),
                                       reinterpret_cast<const std::uint8_t*>(payload + 4 * q.buckets), out, q});
  }

 private:
  QsgdLayout layout(std::int64_t n) const {
    QsgdLayout q;
    q.n = n;
    q.bucket = bucket_ == 0 ? n : bucket_;
    q.buckets = q.bucket == 0 ? 0 : (n + q.bucket - 1) / q.bucket;
    q.bits = 1 + std::bit_width(static_cast<std::uint64_t>(levels_));
    q.s = static_cast<float>(levels_);
    return q;
  }

  std::int64_t levels_ = 127, bucket_ = 128;
  std::uint64_t seed_ = 0;
};

}  // namespace dtsim::compressors::device
