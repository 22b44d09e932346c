/// terngrad: stochastic ternarisation with gradient clipping (Wen et al., "TernGrad: Ternary
/// Gradients to Reduce Communication in Distributed Deep Learning", NeurIPS 2017), GRACE
/// semantics: sigma = population std of x, clip to +-clip * sigma, s = max|clipped|,
/// b = sign * 1[u * s < |clipped|] (unbiased for the clipped gradient).
/// Wire: [fp32 s][ceil(n / 4) bytes of 2-bit codes, 4 per byte LSB first: 0 = 0, 1 = +s, 2 = -s].
/// Aggregation allgather. Parameters: clip (2.5 standard deviations; 0 = no clipping), seed (0).
#include <algorithm>
#include <cmath>
#include <cstring>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "compressors/element_codecs.hpp"
#include "compressors/factories.hpp"
#include "compressors/reductions.hpp"
#include "compressors/rng.hpp"
#include "compressors/simd.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

constexpr std::size_t kChunk = 256;

// 2-bit codes of x[0, m) with the draws u[0, m), four per byte from codes[0] (m a multiple of 4, or the end).
void ternary_codes(const float* x, const std::uint32_t* u, std::size_t m, float bound, float s, std::uint8_t* codes) {
  std::uint32_t c[kChunk];
  for (std::size_t j = 0; j < m; ++j) c[j] = to_ternary(x[j], u[j], bound, s);
  for (std::size_t j = m; j < (m + 3) / 4 * 4; ++j) c[j] = 0;
  for (std::size_t j = 0; j < m; j += 4) {
    codes[j / 4] = static_cast<std::uint8_t>(c[j] | c[j + 1] << 2 | c[j + 2] << 4 | c[j + 3] << 6);
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// ternary_codes on eight lanes, the same arithmetic; returns how many elements (a multiple of 32) it coded.
__attribute__((target("avx2"))) std::size_t ternary_codes_avx2(const float* x, const std::uint32_t* u, std::size_t m,
                                                               float bound, float s, std::uint8_t* codes) {
  const __m256 vbound = _mm256_set1_ps(bound), vs = _mm256_set1_ps(s), unit = _mm256_set1_ps(0x1p-24f);
  const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)), zero = _mm256_setzero_ps();
  const __m256i one = _mm256_set1_epi32(1), order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  const __m256i pair = _mm256_set1_epi16(0x0401), quad = _mm256_set1_epi32(0x00100001);  // weights 1, 4 and 1, 16
  std::size_t j = 0;
  for (; j + 32 <= m; j += 32) {
    simd::prefetch_ahead(x + j, 128);
    __m256i c[4];
    for (std::size_t k = 0; k < 4; ++k) {
      const __m256 v = _mm256_loadu_ps(x + j + 8 * k);
      const __m256 a = _mm256_min_ps(_mm256_and_ps(v, magnitude), vbound);  // NaN gives bound
      const __m256i r = _mm256_srli_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(u + j + 8 * k)), 8);
      const __m256 draw = _mm256_mul_ps(_mm256_cvtepi32_ps(r), unit);
      const __m256i keep = _mm256_castps_si256(_mm256_cmp_ps(_mm256_mul_ps(draw, vs), a, _CMP_LT_OQ));
      const __m256i neg = _mm256_castps_si256(_mm256_cmp_ps(v, zero, _CMP_LT_OQ));
      c[k] = _mm256_and_si256(keep, _mm256_sub_epi32(one, neg));  // 0, 1 = +s, 2 = -s
    }
    const __m256i bytes = _mm256_permutevar8x32_epi32(
        _mm256_packus_epi16(_mm256_packs_epi32(c[0], c[1]), _mm256_packs_epi32(c[2], c[3])), order);
    const __m256i packed = _mm256_madd_epi16(_mm256_maddubs_epi16(bytes, pair), quad);  // c0 + 4 c1 + 16 c2 + 64 c3
    const __m256i narrow = _mm256_packus_epi16(_mm256_packus_epi32(packed, packed), _mm256_setzero_si256());
    _mm_storel_epi64(reinterpret_cast<__m128i*>(codes + j / 4),
                     _mm_unpacklo_epi32(_mm256_castsi256_si128(narrow), _mm256_extracti128_si256(narrow, 1)));
  }
  return j;
}
#endif

class TernGrad final : public Compressor {
 public:
  TernGrad(double clip, std::uint64_t seed) : clip_(clip), seed_(seed) {}
  std::string_view name() const override { return "terngrad"; }
  /// sigma (one reduction of the sum and the sum of squares), max |clipped| (a second), then one ternarising
  /// kernel; one expanding kernel.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    return {2 * kernel::reduction(n) + kernel::encode(n, wire), {}, kernel::decode(n, wire)};
  }
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
    alignas(32) std::uint32_t u[kChunk];
    for (std::size_t base = 0; base < n; base += kChunk) {
      rng.fill(u);
      const std::size_t m = std::min(kChunk, n - base);
      std::size_t done = 0;
#if defined(__x86_64__) && defined(__GNUC__)
      if (simd::kHasAvx2) done = ternary_codes_avx2(grad.data() + base, u, m, bound, s, codes + base / 4);
#endif
      ternary_codes(grad.data() + base + done, u + done, m - done, bound, s, codes + (base + done) / 4);
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
