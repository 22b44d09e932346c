#include "compressors/wire.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "compressors/simd.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors::wire {

void put_selected(std::vector<std::byte>& out, std::span<const float> grad, std::span<const std::int64_t> indices,
                  std::vector<float>& values) {
  values.resize(indices.size());
  for (std::size_t i = 0; i < indices.size(); ++i) values[i] = grad[static_cast<std::size_t>(indices[i])];
  put_sparse(out, static_cast<std::int64_t>(grad.size()), indices, values);
}

void put_sparse(std::vector<std::byte>& out, std::int64_t n, std::span<const std::int64_t> indices,
                std::span<const float> values) {
  DTSIM_CHECK(indices.size() == values.size(), "sparse indices and values differ in count");
  put_indices(out, n, indices);
  put(out, values);
}

void put_indices(std::vector<std::byte>& out, std::int64_t n, std::span<const std::int64_t> indices) {
  if (index_bytes(n) == 4) {
    const std::size_t at = out.size();
    out.resize(at + 4 * indices.size());
    std::byte* dst = out.data() + at;
    for (std::size_t i = 0; i < indices.size(); ++i) {
      const auto v = static_cast<std::int32_t>(indices[i]);
      std::memcpy(dst + 4 * i, &v, 4);
    }
  } else {
    put(out, indices);
  }
}

std::size_t sparse_count(std::size_t bytes, std::int64_t n) {
  const std::size_t pair = index_bytes(n) + sizeof(float);
  DTSIM_CHECK(bytes % pair == 0, "a sparse payload is a whole number of (index, value) pairs");
  return bytes / pair;
}

void scatter_sparse(std::span<const std::byte> in, std::span<float> out) {
  const auto n = static_cast<std::int64_t>(out.size());
  const std::size_t c = sparse_count(in.size(), n);
  const std::size_t ib = index_bytes(n);
  std::fill(out.begin(), out.end(), 0.0f);
  const std::byte* values = in.data() + c * ib;
  for (std::size_t i = 0; i < c; ++i) {
    const std::int64_t at = ib == 4 ? get<std::int32_t>(in, 4 * i) : get<std::int64_t>(in, 8 * i);
    DTSIM_CHECK(at >= 0 && at < n, "sparse index out of range");
    float v;
    std::memcpy(&v, values + 4 * i, 4);
    out[static_cast<std::size_t>(at)] += v;
  }
}

void put_bits(std::vector<std::byte>& out, std::span<const std::uint8_t> flags) {
  const std::size_t at = out.size();
  out.resize(at + bit_bytes(static_cast<std::int64_t>(flags.size())), std::byte{0});
  std::byte* dst = out.data() + at;
  const std::size_t full = flags.size() / 8;
  for (std::size_t b = 0; b < full; ++b) {
    unsigned v = 0;
    for (unsigned j = 0; j < 8; ++j) v |= static_cast<unsigned>(flags[8 * b + j] & 1u) << j;
    dst[b] = static_cast<std::byte>(v);
  }
  unsigned v = 0;
  for (std::size_t i = 8 * full; i < flags.size(); ++i) v |= static_cast<unsigned>(flags[i] & 1u) << (i - 8 * full);
  if (8 * full < flags.size()) dst[full] = static_cast<std::byte>(v);
}

#if defined(__x86_64__) && defined(__GNUC__)
namespace {

// put_sign_bits' words and lane sums on eight floats per step: lane j of each double register is
// lane j of the SSE2 path, and the additions come in the same order.
__attribute__((target("avx2"))) void sign_words_avx2(const float* x, std::size_t words, std::byte* dst, double* s,
                                                     double* a, double* q, std::int64_t& count) {
  __m256d sum = _mm256_setzero_pd(), sum_abs = sum, squares = sum;
  const __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
  const __m256 zero = _mm256_setzero_ps();
  for (std::size_t w = 0; w < words; ++w) {
    std::uint64_t word = 0;
    const float* p = x + 64 * w;
    simd::prefetch_ahead(p, 256);
    for (unsigned j = 0; j < 64; j += 8) {
      const __m256 v = _mm256_loadu_ps(p + j);
      word |= static_cast<std::uint64_t>(_mm256_movemask_ps(_mm256_cmp_ps(v, zero, _CMP_GE_OQ))) << j;
      const __m256d lo = _mm256_cvtps_pd(_mm256_castps256_ps128(v)), hi = _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1));
      sum = _mm256_add_pd(_mm256_add_pd(sum, lo), hi);
      sum_abs = _mm256_add_pd(_mm256_add_pd(sum_abs, _mm256_and_pd(lo, abs_mask)), _mm256_and_pd(hi, abs_mask));
      squares = _mm256_add_pd(_mm256_add_pd(squares, _mm256_mul_pd(lo, lo)), _mm256_mul_pd(hi, hi));
    }
    count += std::popcount(word);
    std::memcpy(dst + 8 * w, &word, 8);
  }
  _mm256_storeu_pd(s, sum);
  _mm256_storeu_pd(a, sum_abs);
  _mm256_storeu_pd(q, squares);
}

// pack_signs on eight floats per byte; returns how many elements (a multiple of 8) it packed.
__attribute__((target("avx2"))) std::size_t pack_signs_avx2(const float* x, std::size_t n, std::byte* dst) {
  const __m256 zero = _mm256_setzero_ps();
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    simd::prefetch_ahead(x + i, 128);
    std::uint32_t word = 0;
    for (unsigned j = 0; j < 32; j += 8) {
      word |= static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(x + i + j), zero, _CMP_GE_OQ))) << j;
    }
    std::memcpy(dst + i / 8, &word, 4);
  }
  for (; i + 8 <= n; i += 8) {
    dst[i / 8] = static_cast<std::byte>(_mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(x + i), zero, _CMP_GE_OQ)));
  }
  return i;
}

}  // namespace
#endif

namespace {

// The sign words and lane sums of the first 64 * words elements: lane j of every group of four.
void sign_words(const float* x, std::size_t full, std::byte* dst, double* s, double* a, double* q, std::int64_t& count) {
#if defined(__SSE2__)
  __m128d s01 = _mm_setzero_pd(), s23 = s01, a01 = s01, a23 = s01, q01 = s01, q23 = s01;
  const __m128d abs_mask = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
  const __m128 zero = _mm_setzero_ps();
  for (std::size_t w = 0; w < full; ++w) {
    std::uint64_t word = 0;
    const float* p = x + 64 * w;
    for (unsigned j = 0; j < 64; j += 4) {
      const __m128 v = _mm_loadu_ps(p + j);
      word |= static_cast<std::uint64_t>(_mm_movemask_ps(_mm_cmpge_ps(v, zero))) << j;
      const __m128d lo = _mm_cvtps_pd(v), hi = _mm_cvtps_pd(_mm_movehl_ps(v, v));
      s01 = _mm_add_pd(s01, lo);
      s23 = _mm_add_pd(s23, hi);
      a01 = _mm_add_pd(a01, _mm_and_pd(lo, abs_mask));
      a23 = _mm_add_pd(a23, _mm_and_pd(hi, abs_mask));
      q01 = _mm_add_pd(q01, _mm_mul_pd(lo, lo));
      q23 = _mm_add_pd(q23, _mm_mul_pd(hi, hi));
    }
    count += std::popcount(word);
    std::memcpy(dst + 8 * w, &word, 8);
  }
  _mm_storeu_pd(s, s01);
  _mm_storeu_pd(s + 2, s23);
  _mm_storeu_pd(a, a01);
  _mm_storeu_pd(a + 2, a23);
  _mm_storeu_pd(q, q01);
  _mm_storeu_pd(q + 2, q23);
#else
  for (std::size_t w = 0; w < full; ++w) {
    std::uint64_t word = 0;
    const float* p = x + 64 * w;
    for (unsigned j = 0; j < 64; ++j) {
      word |= static_cast<std::uint64_t>(p[j] >= 0.0f) << j;
      const double d = p[j];
      s[j % 4] += d;
      a[j % 4] += std::fabs(d);
      q[j % 4] += d * d;
    }
    count += std::popcount(word);
    std::memcpy(dst + 8 * w, &word, 8);
  }
#endif
}

}  // namespace

void pack_signs(std::span<const float> x, std::byte* dst) {
  std::size_t i = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  if (simd::kHasAvx2) i = pack_signs_avx2(x.data(), x.size(), dst);
#endif
#if defined(__SSE2__)
  const __m128 zero = _mm_setzero_ps();
  for (; i + 8 <= x.size(); i += 8) {
    const int lo = _mm_movemask_ps(_mm_cmpge_ps(_mm_loadu_ps(x.data() + i), zero));
    const int hi = _mm_movemask_ps(_mm_cmpge_ps(_mm_loadu_ps(x.data() + i + 4), zero));
    dst[i / 8] = static_cast<std::byte>(lo | hi << 4);
  }
#endif
  for (; i < x.size(); i += 8) {
    unsigned v = 0;
    for (std::size_t j = i; j < std::min(x.size(), i + 8); ++j) v |= static_cast<unsigned>(x[j] >= 0.0f) << (j - i);
    dst[i / 8] = static_cast<std::byte>(v);
  }
}

SignSums put_sign_bits(std::vector<std::byte>& out, std::span<const float> x) {
  const std::size_t at = out.size();
  out.resize(at + bit_bytes(static_cast<std::int64_t>(x.size())), std::byte{0});
  std::byte* dst = out.data() + at;
  // Lane j of every group of four elements has its own accumulators; the lanes are combined in a
  // fixed order, so the AVX2, SSE2 and portable paths agree bit for bit.
  double s[4] = {}, a[4] = {}, q[4] = {};
  std::int64_t count = 0;
  const std::size_t full = x.size() / 64;
#if defined(__x86_64__) && defined(__GNUC__)
  if (simd::kHasAvx2) {
    sign_words_avx2(x.data(), full, dst, s, a, q, count);
  } else {
    sign_words(x.data(), full, dst, s, a, q, count);
  }
#else
  sign_words(x.data(), full, dst, s, a, q, count);
#endif
  SignSums sums{(s[0] + s[1]) + (s[2] + s[3]), (a[0] + a[1]) + (a[2] + a[3]), (q[0] + q[1]) + (q[2] + q[3]), count};
  for (std::size_t i = 64 * full; i < x.size(); ++i) {
    const double d = x[i];
    sums.sum += d;
    sums.sum_abs += std::fabs(d);
    sums.sum_squares += d * d;
    if (x[i] >= 0.0f) {
      dst[i / 8] |= static_cast<std::byte>(1u << (i % 8));
      ++sums.non_negative;
    }
  }
  return sums;
}

void expand_bits(std::span<const std::byte> bits, float low, float high, std::span<float> out) {
  DTSIM_CHECK(bits.size() >= bit_bytes(static_cast<std::int64_t>(out.size())), "bit payload too short");
  const std::size_t full = out.size() / 8;
#if defined(__SSE2__)
  alignas(16) static constexpr std::uint32_t kMasks[16][4] = {
      {0, 0, 0, 0}, {~0u, 0, 0, 0}, {0, ~0u, 0, 0}, {~0u, ~0u, 0, 0}, {0, 0, ~0u, 0}, {~0u, 0, ~0u, 0},
      {0, ~0u, ~0u, 0}, {~0u, ~0u, ~0u, 0}, {0, 0, 0, ~0u}, {~0u, 0, 0, ~0u}, {0, ~0u, 0, ~0u}, {~0u, ~0u, 0, ~0u},
      {0, 0, ~0u, ~0u}, {~0u, 0, ~0u, ~0u}, {0, ~0u, ~0u, ~0u}, {~0u, ~0u, ~0u, ~0u}};
  const __m128 lo = _mm_set1_ps(low), hi = _mm_set1_ps(high);
  for (std::size_t b = 0; b < full; ++b) {
    const auto byte = static_cast<unsigned>(bits[b]);
    const __m128 m0 = _mm_load_ps(reinterpret_cast<const float*>(kMasks[byte & 15u]));
    const __m128 m1 = _mm_load_ps(reinterpret_cast<const float*>(kMasks[byte >> 4]));
    _mm_storeu_ps(out.data() + 8 * b, _mm_or_ps(_mm_and_ps(m0, hi), _mm_andnot_ps(m0, lo)));
    _mm_storeu_ps(out.data() + 8 * b + 4, _mm_or_ps(_mm_and_ps(m1, hi), _mm_andnot_ps(m1, lo)));
  }
#else
  const float table[2] = {low, high};
  for (std::size_t b = 0; b < full; ++b) {
    const auto byte = static_cast<unsigned>(bits[b]);
    for (unsigned j = 0; j < 8; ++j) out[8 * b + j] = table[(byte >> j) & 1u];
  }
#endif
  for (std::size_t i = 8 * full; i < out.size(); ++i) {
    out[i] = (static_cast<unsigned>(bits[i / 8]) >> (i % 8)) & 1u ? high : low;
  }
}

}  // namespace dtsim::compressors::wire
