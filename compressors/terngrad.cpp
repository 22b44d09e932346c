/// terngrad: stochastic ternarisation with gradient clipping (Wen et al., "TernGrad: Ternary
/// Gradients to Reduce Communication in Distributed Deep Learning", NeurIPS 2017), GRACE
/// semantics: sigma = population std of x, clip to +-clip * sigma, s = max|clipped|,
/// b = sign * 1[u * s < |clipped|] (unbiased for the clipped gradient).
/// Wire: [fp32 s][ceil(n / 4) bytes of 2-bit codes, 4 per byte LSB first: 0 = 0, 1 = +s, 2 = -s].
/// Aggregation allgather. Parameters: clip (2.5 standard deviations; 0 = no clipping), seed (0).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "compressors/factories.hpp"
#include "compressors/reductions.hpp"
#include "compressors/rng.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

constexpr std::size_t kChunk = 256;

class TernGrad final : public Compressor {
 public:
  TernGrad(double clip, std::uint64_t seed) : clip_(clip), seed_(seed) {}
  std::string_view name() const override { return "terngrad"; }
  bool unbiased() const override { return clip_ == 0.0; }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    const std::uint64_t step = next_step(id);
    start_message(msg, grad, id, step, Aggregation::kAllGather);
    const std::size_t n = grad.size();
    const Moments stats = moments(grad);
    float bound = INFINITY;
    if (clip_ > 0.0 && n > 0) {
      const double mean = stats.sum / static_cast<double>(n);
      const double var = std::max(0.0, stats.sum_squares / static_cast<double>(n) - mean * mean);
      bound = static_cast<float>(clip_ * std::sqrt(var));
    }
    const float s = std::min(stats.max_abs, bound);  // max of the clipped magnitudes
    wire::put_one(msg.payload, s);
    msg.payload.resize(4 + (n + 3) / 4);
    auto* codes = reinterpret_cast<std::uint8_t*>(msg.payload.data() + 4);
    UniformStream rng(stream_seed(seed_, id, step));
    std::uint32_t u[kChunk];
    std::uint32_t c[kChunk];
    for (std::size_t base = 0; base < n; base += kChunk) {
      rng.fill(u);
      const std::size_t m = std::min(kChunk, n - base);
      const float* x = grad.data() + base;
      for (std::size_t j = 0; j < m; ++j) {
        const float a = std::fabs(x[j]) < bound ? std::fabs(x[j]) : bound;
        const float draw = static_cast<float>(static_cast<std::int32_t>(u[j] >> 8)) * 0x1p-24f;
        const std::uint32_t keep = draw * s < a;
        c[j] = keep + (keep & static_cast<std::uint32_t>(x[j] < 0.0f));  // 0, 1 = +s, 2 = -s
      }
      for (std::size_t j = m; j < (m + 3) / 4 * 4; ++j) c[j] = 0;
      for (std::size_t j = 0; j < m; j += 4) {
        codes[(base + j) / 4] = static_cast<std::uint8_t>(c[j] | c[j + 1] << 2 | c[j + 2] << 4 | c[j + 3] << 6);
      }
    }
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    DTSIM_CHECK(msg.payload.size() == 4 + (out.size() + 3) / 4, "terngrad payload does not match the tensor");
    const float s = wire::get<float>(msg.payload, 0);
    const float value[4] = {0.0f, s, -s, 0.0f};
    float quad[256][4];  // the four outputs of every code byte
    for (unsigned b = 0; b < 256; ++b) {
      for (unsigned j = 0; j < 4; ++j) quad[b][j] = value[(b >> (2 * j)) & 3u];
    }
    const auto* codes = reinterpret_cast<const std::uint8_t*>(msg.payload.data() + 4);
    const std::size_t full = out.size() / 4;
    for (std::size_t b = 0; b < full; ++b) std::memcpy(out.data() + 4 * b, quad[codes[b]], sizeof(quad[0]));
    for (std::size_t i = 4 * full; i < out.size(); ++i) out[i] = value[(codes[i / 4] >> (2 * (i % 4))) & 3u];
  }

 private:
  double clip_;
  std::uint64_t seed_;
};

}  // namespace

std::unique_ptr<Compressor> make_terngrad(const Options& options) {
  OptionReader reader("compressor 'terngrad'", options);
  const double clip = reader.real("clip", 2.5, 0.0, 1e9);
  const auto seed = reader.integer("seed", 0, 0, INT64_MAX);
  reader.finish();
  return std::make_unique<TernGrad>(clip, static_cast<std::uint64_t>(seed));
}

}  // namespace dtsim::compressors
