/// int8: 8-bit linear quantisation with one per-tensor scale, round half away from zero
/// (the linear 8-bit baseline of Dettmers, "8-Bit Approximations for Parallelism in Deep
/// Learning", ICLR 2016).
/// Wire: [fp32 scale = max|x| / 127][n x int8 q]; x' = q * scale; aggregation allgather.
/// NaN elements are ignored by the max and encode as -127. No parameters.
#include <algorithm>
#include <cstring>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "compressors/element_codecs.hpp"
#include "compressors/factories.hpp"
#include "compressors/reductions.hpp"
#include "compressors/simd.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

#if defined(__x86_64__) && defined(__GNUC__)
// The SSE2 arithmetic on eight lanes; returns how many elements it quantised.
__attribute__((target("avx2"))) std::size_t quantise_avx2(const float* x, std::int8_t* q, std::size_t n, float inv) {
  const __m256 vinv = _mm256_set1_ps(inv), half = _mm256_set1_ps(0.5f), sign = _mm256_set1_ps(-0.0f);
  const __m256 lo = _mm256_set1_ps(-127.0f), hi = _mm256_set1_ps(127.0f);
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    simd::prefetch_ahead(x + i, 128);
    __m128i half_words[4];
    for (int k = 0; k < 4; ++k) {
      __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x + i + 8 * k), vinv);
      v = _mm256_add_ps(v, _mm256_or_ps(_mm256_and_ps(v, sign), half));
      v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
      const __m256i w = _mm256_cvttps_epi32(v);
      half_words[k] = _mm_packs_epi32(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + i), _mm_packs_epi16(half_words[0], half_words[1]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + i + 16), _mm_packs_epi16(half_words[2], half_words[3]));
  }
  return i;
}

#endif

class Int8 final : public Compressor {
 public:
  std::string_view name() const override { return "int8"; }
  /// max |x| (a reduction), then one quantising kernel; one dequantising kernel.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    return {kernel::reduction(n) + kernel::encode(n, wire), {}, kernel::decode(n, wire)};
  }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    start_message(msg, grad, id, next_step(id), Aggregation::kAllGather);
    const float* x = grad.data();
    const std::size_t n = grad.size();
    const float top = max_abs(grad);
    const float scale = top / 127.0f;
    const float inv = top > 0.0f ? 127.0f / top : 0.0f;
    wire::put_one(msg.payload, scale);
    msg.payload.resize(4 + n);
    auto* q = reinterpret_cast<std::int8_t*>(msg.payload.data() + 4);
    std::size_t i = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    if (simd::kHasAvx2) i = quantise_avx2(x, q, n, inv);
#endif
#if defined(__SSE2__)
    const __m128 vinv = _mm_set1_ps(inv), half = _mm_set1_ps(0.5f), sign = _mm_set1_ps(-0.0f);
    const __m128 lo = _mm_set1_ps(-127.0f), hi = _mm_set1_ps(127.0f);
    auto quantise = [&](const float* p) {  // same arithmetic as the scalar loop below
      __m128 v = _mm_mul_ps(_mm_loadu_ps(p), vinv);
      v = _mm_add_ps(v, _mm_or_ps(_mm_and_ps(v, sign), half));  // v + copysign(0.5, v)
      v = _mm_min_ps(_mm_max_ps(v, lo), hi);                    // max_ps returns -127 for NaN
      return _mm_cvttps_epi32(v);
    };
    for (; i + 16 <= n; i += 16) {
      const __m128i a = _mm_packs_epi32(quantise(x + i), quantise(x + i + 4));
      const __m128i b = _mm_packs_epi32(quantise(x + i + 8), quantise(x + i + 12));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(q + i), _mm_packs_epi16(a, b));
    }
#endif
    for (; i < n; ++i) q[i] = to_int8(x[i], inv);
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    DTSIM_CHECK(msg.payload.size() == 4 + out.size(), "int8 payload does not match the tensor");
    const float scale = wire::get<float>(msg.payload, 0);
    const auto* q = reinterpret_cast<const std::int8_t*>(msg.payload.data() + 4);
    float* dst = out.data();
    for (std::size_t i = 0; i < out.size(); ++i) dst[i] = static_cast<float>(q[i]) * scale;
  }
};

}  // namespace

std::unique_ptr<Compressor> make_int8(const Options& options) {
  OptionReader("compressor 'int8'", options).finish();
  return std::make_unique<Int8>();
}

}  // namespace dtsim::compressors
