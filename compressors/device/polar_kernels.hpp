#pragma once
/// polar on the device (compressors/polar.cpp's wire): scale = mean |x| by reduce.hpp (in double, in another
/// order than the host kernel's: it may differ from it in the last bit), then one thread per block of N sign bits
/// runs successive cancellation (compressors/polar_code.cpp's recursion, unrolled into a loop over the tree with
/// one LLR level per depth in device memory) and writes the block's K kept bits; one thread per block expands
/// them with the polar transform. The check nodes and the rounding probabilities use portable_math.hpp's exp and
/// log1p (the same bits on every launcher), and leaf i of block b draws uniform53(words 2 (j % 2), 2 (j % 2) + 1
/// of Philox block j / 2), j = b N + i, of the stream stream_seed(seed, tensor, step); the host kernel draws from
/// xoshiro256** with libm's exp and log1p instead: same law, other bits. The code is sequential within a block:
/// the GPU runs ceil(n / N) threads.
#include <cmath>
#include <vector>

#include "compressors/device/code_stream.hpp"
#include "compressors/device/reduce.hpp"
#include "compressors/device/scaled_sign_kernels.hpp"
#include "compressors/element_codecs.hpp"
#include "compressors/philox.hpp"
#include "compressors/polar_code.hpp"
#include "compressors/portable_math.hpp"
#include "compressors/rng.hpp"

namespace dtsim::compressors::device {

/// The LLR of the first child of a check node: log((1 + e^(a+b)) / (e^a + e^b)), exactly as polar_code.cpp writes it.
DTSIM_HOST_DEVICE inline double polar_check_node(double a, double b) {
  const double sign = (a < 0) != (b < 0) ? -1.0 : 1.0;
  const double fa = fabs(a), fb = fabs(b);
  return sign * (fa < fb ? fa : fb) + portable_log1p(portable_exp(-fabs(a + b))) -
         portable_log1p(portable_exp(-fabs(a - b)));
}

/// scale = mean |x| (0 for an empty tensor) to the payload.
struct PolarScale {
  float* scale;
  std::int64_t n;
  DTSIM_HOST_DEVICE void operator()(const SumOf<MeanAbs>& sum) const {
    *scale = n == 0 ? 0.0f : static_cast<float>(sum.s / static_cast<double>(n));
  }
};

/// The shape of a polar payload.
struct PolarLayout {
  std::int64_t n = 0, blocks = 0;  ///< elements, blocks of N
  std::int64_t block = 1024, kept = 512;  ///< N, K
};

/// One thread per block b: successive cancellation of the sign bits of x[bN, bN + N) (0 past n), the kept bits
/// to bits [b K, (b + 1) K) of `words`.
struct PolarEncode {
  const float* x;
  const std::uint8_t* frozen;
  double magnitude;  ///< |LLR| of a source bit
  double* llr;       ///< 2N - 1 doubles a block: level d (N >> d values) from 2N - 2 (N >> d) on
  std::uint8_t* bits;  ///< N bytes a block: the partial sums
  std::uint32_t* words;
  PolarLayout q;
  std::uint64_t key;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    for (std::int64_t b = t.tile_begin(q.blocks); b < t.tile_end(q.blocks); b += t.threads) encode(b);
  }

 private:
  DTSIM_HOST_DEVICE void encode(std::int64_t b) const {
    const std::int64_t big = q.block;
    double* base = llr + b * (2 * big - 1);
    std::uint8_t* x_bits = bits + b * big;
    for (std::int64_t i = 0; i < big; ++i) {
      const std::int64_t at = b * big + i;
      base[i] = at < q.n && x[at] < 0.0f ? -magnitude : magnitude;
    }
    BitWriter out{words, static_cast<unsigned long long>(b * q.kept)};
    int stage[17] = {};
    std::int64_t offset[17] = {};
    std::int64_t leaf = 0;
    int d = 0;
    while (d >= 0) {
      const std::int64_t m = big >> d;
      double* level = base + 2 * big - 2 * m;
      if (m == 1) {  // a leaf: u = 1 with probability 1 / (1 + e^L) where not frozen
        std::uint32_t u = 0;
        if (!frozen[leaf]) {
          const std::uint64_t j = static_cast<std::uint64_t>(b * big + leaf);
          const Philox4x32 r = philox_block(key, j / 2);
          const int w = 2 * static_cast<int>(j % 2);
          u = uniform53(r.v[w], r.v[w + 1]) < 1.0 / (1.0 + portable_exp(level[0])) ? 1u : 0u;
          out.put(u);
        }
        x_bits[offset[d]] = static_cast<std::uint8_t>(u);
        ++leaf;
        --d;
        continue;
      }
      const std::int64_t half = m / 2;
      double* child = level + m;  // level d + 1
      std::uint8_t* xs = x_bits + offset[d];
      if (stage[d] == 0) {
        for (std::int64_t j = 0; j < half; ++j) child[j] = polar_check_node(level[j], level[j + half]);
        offset[d + 1] = offset[d];
      } else if (stage[d] == 1) {
        for (std::int64_t j = 0; j < half; ++j) child[j] = level[j + half] + (xs[j] ? -level[j] : level[j]);
        offset[d + 1] = offset[d] + half;
      } else {
        for (std::int64_t j = 0; j < half; ++j) xs[j] ^= xs[j + half];
        stage[d] = 0;
        --d;
        continue;
      }
      ++stage[d];
      stage[d + 1] = 0;
      ++d;
    }
    out.finish();
  }
};

/// One thread per block: u from the kept bits (frozen: 0), x = u F^(x)n, out = x ? -scale : scale.
struct PolarDecode {
  const std::uint8_t* kept;  ///< the payload's bit stream
  const float* scale;
  const std::uint8_t* frozen;
  std::uint8_t* bits;  ///< N bytes a block
  float* out;
  PolarLayout q;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const float s = *scale;
    for (std::int64_t b = t.tile_begin(q.blocks); b < t.tile_end(q.blocks); b += t.threads) {
      std::uint8_t* x = bits + b * q.block;
      std::int64_t j = b * q.kept;
      for (std::int64_t i = 0; i < q.block; ++i) {
        x[i] = frozen[i] ? 0 : (kept[j / 8] >> (j % 8)) & 1u;
        j += frozen[i] ? 0 : 1;
      }
      for (std::int64_t half = 1; half < q.block; half *= 2)
        for (std::int64_t base = 0; base < q.block; base += 2 * half)
          for (std::int64_t i = base; i < base + half; ++i) x[i] ^= x[i + half];
      for (std::int64_t i = 0; i < q.block && b * q.block + i < q.n; ++i) out[b * q.block + i] = x[i] ? -s : s;
    }
  }
};

/// The polar kernels on launcher `Launch`.
template <class Launch>
class PolarKernels final : public KernelsOn<Launch> {
 public:
  PolarKernels(Device& device, const Options& options)
      : device_(device), settings_(read_polar_settings(options)), frozen_(device), llr_(device), bits_(device),
        words_(device), partial_(device) {
    const PolarCode code = settings_.code();
    magnitude_ = code.llr_magnitude();
    frozen_.resize(code.frozen().size());
    device.to_device(frozen_.data(), code.frozen().data(), code.frozen().size());
  }
  Aggregation how() const override { return Aggregation::kAllGather; }
  void compress(const float* grad, std::int64_t n, TensorId id, std::uint64_t step,
                DeviceBuffer<std::byte>& payload) override {
    const PolarLayout q = layout(n);
    const std::int64_t stream = (q.blocks * q.kept + 7) / 8;
    payload.resize(static_cast<std::size_t>(4 + stream));
    reduce<Launch>(grad, n, partial_, PolarScale{reinterpret_cast<float*>(payload.data()), n});
    if (n == 0) return;
    llr_.resize(static_cast<std::size_t>(q.blocks * (2 * q.block - 1)));
    bits_.resize(static_cast<std::size_t>(q.blocks * q.block));
    words_.resize(static_cast<std::size_t>(q.blocks * q.kept / 32 + 1));
    device_.zero(words_.data(), words_.size() * sizeof(std::uint32_t));
    Launch{}(grid_for(q.blocks), PolarEncode{grad, frozen_.data(), magnitude_, llr_.data(), bits_.data(), words_.data(),
                                             q, stream_seed(settings_.seed, id, step)});
    Launch{}(grid_for(stream), CopyBytes{reinterpret_cast<const std::byte*>(words_.data()), payload.data() + 4, stream});
  }
  void decompress(const std::byte* payload, std::size_t, float* out, std::int64_t n, TensorId,
                  std::uint64_t) override {
    if (n == 0) return;
    const PolarLayout q = layout(n);
    bits_.resize(static_cast<std::size_t>(q.blocks * q.block));
    Launch{}(grid_for(q.blocks), PolarDecode{reinterpret_cast<const std::uint8_t*>(payload + 4),
                                             reinterpret_cast<const float*>(payload), frozen_.data(), bits_.data(), out, q});
  }

 private:
  PolarLayout layout(std::int64_t n) const {
    PolarLayout q;
    q.n = n;
    q.block = static_cast<std::int64_t>(settings_.block);
    q.kept = static_cast<std::int64_t>(settings_.kept);
    q.blocks = (n + q.block - 1) / q.block;
    return q;
  }

  Device& device_;
  PolarSettings settings_;
  double magnitude_ = 0.0;
  DeviceBuffer<std::uint8_t> frozen_;
  DeviceBuffer<double> llr_;
  DeviceBuffer<std::uint8_t> bits_;
  DeviceBuffer<std::uint32_t> words_;
  DeviceBuffer<SumOf<MeanAbs>> partial_;
};

}  // namespace dtsim::compressors::device
