/// fp16: IEEE 754 binary16 with round-to-nearest-even (GRACE's FP16Compressor); scalar conversion in
/// compressors/element_codecs.hpp, shared with the device kernels.
/// Wire: [n x binary16]; aggregation allreduce (payloads summed in fp32, rounded once).
/// Overflow gives +-Inf, NaN stays a (quiet) NaN. No parameters.
#include <cstring>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "compressors/element_codecs.hpp"
#include "compressors/sum_16bit.hpp"
#include "compressors/factories.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

#if defined(__x86_64__) && defined(__GNUC__)
// F16C converts with the same round-to-nearest-even and NaN quieting as to_half / from_half.
__attribute__((target("avx,f16c"))) void to_half_f16c(const float* src, std::uint16_t* dst, std::size_t n) {
  for (std::size_t i = 0; i + 8 <= n; i += 8) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
  }
}

__attribute__((target("avx,f16c"))) void from_half_f16c(const std::uint16_t* src, float* dst, std::size_t n) {
  for (std::size_t i = 0; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
  }
}

const bool kHasF16c = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
#endif

#if defined(__SSE2__)
// to_half on four lanes, results in the low 16 bits of each 32-bit lane.
__m128i to_half4(__m128 f) {
  const __m128i bits = _mm_castps_si128(f);
  const __m128i sign = _mm_and_si128(_mm_srli_epi32(bits, 16), _mm_set1_epi32(0x8000));
  const __m128i a = _mm_and_si128(bits, _mm_set1_epi32(0x7fffffff));
  const __m128i odd = _mm_and_si128(_mm_srli_epi32(a, 13), _mm_set1_epi32(1));
  const __m128i normal = _mm_srli_epi32(_mm_add_epi32(_mm_add_epi32(a, _mm_set1_epi32(static_cast<int>(0xc8000fffu))), odd), 13);
  const __m128 sub_f = _mm_add_ps(_mm_castsi128_ps(a), _mm_set1_ps(0.5f));
  const __m128i sub = _mm_sub_epi32(_mm_castps_si128(sub_f), _mm_set1_epi32(0x3f000000));
  auto pick = [](__m128i m, __m128i x, __m128i y) { return _mm_or_si128(_mm_and_si128(m, x), _mm_andnot_si128(m, y)); };
  __m128i h = pick(_mm_cmplt_epi32(a, _mm_set1_epi32(0x38800000)), sub, normal);
  h = pick(_mm_cmpgt_epi32(a, _mm_set1_epi32(0x477fefff)), _mm_set1_epi32(0x7c00), h);
  const __m128i nan = _mm_or_si128(_mm_set1_epi32(0x7e00), _mm_and_si128(_mm_srli_epi32(a, 13), _mm_set1_epi32(0x1ff)));
  h = pick(_mm_cmpgt_epi32(a, _mm_set1_epi32(0x7f800000)), nan, h);
  return _mm_or_si128(h, sign);
}
#endif

class Fp16 final : public Compressor {
 public:
  std::string_view name() const override { return "fp16"; }
  /// One conversion kernel each way (GRACE's FP16Compressor: tensor.type(torch.float16) and back).
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    return {kernel::encode(n, wire), {}, kernel::decode(n, wire)};
  }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    start_message(msg, grad, id, next_step(id), Aggregation::kAllReduce);
    msg.payload.resize(2 * grad.size());
    auto* dst = reinterpret_cast<std::uint16_t*>(msg.payload.data());
    const float* src = grad.data();
    std::size_t i = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    if (kHasF16c) {
      to_half_f16c(src, dst, grad.size());
      i = grad.size() / 8 * 8;
    }
#endif
#if defined(__SSE2__)
    for (; i + 8 <= grad.size(); i += 8) {
      const __m128i bias = _mm_set1_epi32(0x8000);  // pack unsigned 16-bit through signed saturation
      const __m128i a = _mm_sub_epi32(to_half4(_mm_loadu_ps(src + i)), bias);
      const __m128i b = _mm_sub_epi32(to_half4(_mm_loadu_ps(src + i + 4)), bias);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm_xor_si128(_mm_packs_epi32(a, b), _mm_set1_epi16(-0x8000)));
    }
#endif
    for (; i < grad.size(); ++i) dst[i] = to_half(src[i]);
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    DTSIM_CHECK(msg.payload.size() == 2 * out.size(), "fp16 payload does not match the tensor");
    const auto* src = reinterpret_cast<const std::uint16_t*>(msg.payload.data());
    float* dst = out.data();
    std::size_t i = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    if (kHasF16c) {
      from_half_f16c(src, dst, out.size());
      i = out.size() / 8 * 8;
    }
#endif
    for (; i < out.size(); ++i) dst[i] = from_half(src[i]);
  }

  Compressed reduce(std::span<const Compressed> msgs) const override {
    return sum_16bit(
        msgs, [this](const Compressed& m, std::span<float> out) { decompress(m, out); },
        [](float x) { return to_half(x); });
  }
};

}  // namespace

std::unique_ptr<Compressor> make_fp16(const Options& options) {
  OptionReader("compressor 'fp16'", options).finish();
  return std::make_unique<Fp16>();
}

}  // namespace dtsim::compressors
