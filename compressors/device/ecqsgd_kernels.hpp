#pragma once
/// ecqsgd on the device (compressors/ecqsgd.cpp's wire): v = g + alpha h by one kernel, ||v|| by reduce.hpp (linf:
/// exact in any order, so the host's bits; l2: a sum of squares in double in another order than the host kernel's,
/// so the norm may differ from it in the last bit), then one thread per group of 8 elements writes their codes
/// (code_stream.hpp) and updates the accumulated errors h, kept in device memory per tensor. Element i rounds with
/// word i % 4 of Philox block i / 4 of the stream stream_seed(seed, tensor, step); the host kernel draws from
/// xoshiro256** instead: same law, other bits.
#include <bit>
#include <cmath>
#include <map>

#include "compressors/device/code_stream.hpp"
#include "compressors/device/reduce.hpp"
#include "compressors/device/scaled_sign_kernels.hpp"
#include "compressors/element_codecs.hpp"
#include "compressors/rng.hpp"

namespace dtsim::compressors::device {

/// v[i] = g[i] + alpha h[i].
struct Compensated {
  const float* g;
  const float* h;
  float alpha;
  float* v;
  std::int64_t n;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    for (std::int64_t i = t.tile_begin(n); i < t.tile_end(n); i += t.threads) v[i] = g[i] + alpha * h[i];
  }
};

/// The shape of an ecqsgd payload and its quantiser.
struct EcqsgdLayout {
  std::int64_t n = 0;  ///< elements
  int bits = 4;        ///< bits per code: bit_width(2 s)
  std::int32_t s = 4;  ///< levels
  /// Bytes of the code stream.
  DTSIM_HOST_DEVICE std::int64_t code_bytes() const { return (n * bits + 7) / 8; }
};

/// Codes of elements [8g, 8g + 8) (s + signed level) and the new errors h = (beta h + g) - g~.
struct EcqsgdEncode {
  const float* g;
  const float* v;
  const float* norm;
  float* h;
  float beta;
  std::uint8_t* codes;
  EcqsgdLayout q;
  std::uint64_t key;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const float top = static_cast<float>(q.s);
    const float inv = *norm > 0.0f ? top / *norm : 0.0f;
    const float step = *norm / top;
    encode_groups(t, q.n, q.bits, codes, key, [&](std::int64_t i, std::uint32_t u) {
      const std::int32_t level = ecqsgd_level(v[i], u, inv, q.s);
      const std::int32_t signed_level = v[i] < 0.0f ? -level : level;
      h[i] = (beta * h[i] + g[i]) - static_cast<float>(signed_level) * step;
      return static_cast<std::uint32_t>(q.s + signed_level);
    });
  }
};

/// out[i] = (code_i - s) ||v|| / s.
struct EcqsgdDecode {
  const float* norm;
  const std::uint8_t* codes;
  float* out;
  EcqsgdLayout q;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const float step = *norm / static_cast<float>(q.s);
    for (std::int64_t i = t.tile_begin(q.n); i < t.tile_end(q.n); i += t.threads)
      out[i] = static_cast<float>(static_cast<std::int32_t>(read_code(codes, q.code_bytes(), i, q.bits)) - q.s) * step;
  }
};

/// ||v||_2 as an fp32 (the payload's first word).
struct L2Norm {
  float* norm;
  DTSIM_HOST_DEVICE void operator()(const SumOf<RootMeanSquare>& sum) const { *norm = static_cast<float>(sqrt(sum.s)); }
};

/// ||v||_inf as an fp32 (NaN ignored, as the host's std::max).
struct LinfNorm {
  float* norm;
  DTSIM_HOST_DEVICE void operator()(const MaxAbs& m) const { *norm = m.m; }
};

/// The ecqsgd kernels on launcher `Launch`.
template <class Launch>
class EcqsgdKernels final : public KernelsOn<Launch> {
 public:
  EcqsgdKernels(Device& device, const Options& options) : device_(device), v_(device), squares_(device), max_(device) {
    OptionReader reader("compressor 'ecqsgd'", options);
    s_ = static_cast<std::int32_t>(reader.integer("levels", 4, 1, 32767));
    linf_ = reader.choice("norm", "l2", {"l2", "linf"}) == "linf";
    alpha_ = static_cast<float>(reader.real("alpha", 1.0, 0.0, 1e6));
    beta_ = static_cast<float>(reader.real("beta", 1.0, 0.0, 1.0));
    seed_ = static_cast<std::uint64_t>(reader.integer("seed", 0, 0, INT64_MAX));
    reader.finish();
  }
  Aggregation how() const override { return Aggregation::kAllGather; }
  void compress(const float* grad, std::int64_t n, TensorId id, std::uint64_t step,
                DeviceBuffer<std::byte>& payload) override {
    const EcqsgdLayout q = layout(n);
    payload.resize(static_cast<std::size_t>(4 + q.code_bytes()));
    auto [it, fresh] = errors_.try_emplace(id, device_);
    DeviceBuffer<float>& h = it->second;
    if (fresh || h.size() != static_cast<std::size_t>(n)) {
      h.resize(static_cast<std::size_t>(n));
      device_.zero(h.data(), sizeof(float) * static_cast<std::size_t>(n));
    }
    v_.resize(static_cast<std::size_t>(n));
    if (n > 0) Launch{}(grid_for(n), Compensated{grad, h.data(), alpha_, v_.data(), n});
    auto* norm = reinterpret_cast<float*>(payload.data());
    if (linf_) {
      reduce<Launch>(v_.data(), n, max_, LinfNorm{norm});
    } else {
      reduce<Launch>(v_.data(), n, squares_, L2Norm{norm});
    }
    if (n > 0)
      Launch{}(grid_for((n + 7) / 8), EcqsgdEncode{grad, v_.data(), norm, h.data(), beta_,
                                                   reinterpret_cast<std::uint8_t*>(payload.data() + 4), q,
                                                   stream_seed(seed_, id, step)});
  }
  void decompress(const std::byte* payload, std::size_t, float* out, std::int64_t n, TensorId,
                  std::uint64_t) override {
    if (n > 0)
      Launch{}(grid_for(n), EcqsgdDecode{reinterpret_cast<const float*>(payload),
                                         reinterpret_cast<const std::uint8_t*>(payload + 4), out, layout(n)});
  }

 private:
  EcqsgdLayout layout(std::int64_t n) const {
    return {n, static_cast<int>(std::bit_width(static_cast<std::uint64_t>(2 * s_))), s_};
  }

  Device& device_;
  DeviceBuffer<float> v_;
  DeviceBuffer<SumOf<RootMeanSquare>> squares_;
  DeviceBuffer<MaxAbs> max_;
  std::map<TensorId, DeviceBuffer<float>> errors_;
  std::int32_t s_ = 4;
  bool linf_ = false;
  float alpha_ = 1.0f, beta_ = 1.0f;
  std::uint64_t seed_ = 0;
};

}  // namespace dtsim::compressors::device
