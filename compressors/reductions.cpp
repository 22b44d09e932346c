#include "compressors/reductions.hpp"

#include <cmath>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "compressors/simd.hpp"

namespace dtsim::compressors {
namespace {

constexpr std::size_t kLanes = 8;

template <class Term>
double lane_sum(std::span<const float> x, Term term) {
  double acc[kLanes] = {};
  const std::size_t full = x.size() / kLanes * kLanes;
  for (std::size_t i = 0; i < full; i += kLanes) {
    for (std::size_t j = 0; j < kLanes; ++j) acc[j] += static_cast<double>(term(x[i + j]));
  }
  double total = 0.0;
  for (std::size_t i = full; i < x.size(); ++i) total += static_cast<double>(term(x[i]));
  for (const double a : acc) total += a;
  return total;
}

}  // namespace

double sum_abs(std::span<const float> x) {
  return lane_sum(x, [](float v) { return std::fabs(v); });
}

double sum_squares(std::span<const float> x) {
  return lane_sum(x, [](float v) { return static_cast<double>(v) * v; });
}

float max_abs(std::span<const float> x) {
  // The maximum does not depend on the order: 32 lanes keep several vector registers busy.
  constexpr std::size_t kMaxLanes = 32;
  float best = 0.0f;
  simd::dispatch([&]() DTSIM_SIMD_BODY {
    const float* p = x.data();
    float m[kMaxLanes] = {};
    const std::size_t full = x.size() / kMaxLanes * kMaxLanes;
    for (std::size_t i = 0; i < full; i += kMaxLanes) {
      simd::prefetch_ahead(p + i, sizeof(m));
      for (std::size_t j = 0; j < kMaxLanes; ++j) {
        const float a = std::fabs(p[i + j]);
        m[j] = a > m[j] ? a : m[j];
      }
    }
    float top = 0.0f;
    for (std::size_t i = full; i < x.size(); ++i) {
      const float a = std::fabs(p[i]);
      top = a > top ? a : top;
    }
    for (const float a : m) top = a > top ? a : top;
    best = top;
  });
  return best;
}

namespace {

// The first `full` elements (a multiple of 4) of moments: element i goes to lane i % 4.
void moment_lanes(const float* x, std::size_t full, double* s, double* q, float* m) {
#if defined(__SSE2__)
  __m128d s01 = _mm_setzero_pd(), s23 = s01, q01 = s01, q23 = s01;
  __m128 top = _mm_setzero_ps();
  const __m128 abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
  for (std::size_t i = 0; i < full; i += 4) {
    const __m128 v = _mm_loadu_ps(x + i);
    const __m128d lo = _mm_cvtps_pd(v), hi = _mm_cvtps_pd(_mm_movehl_ps(v, v));
    s01 = _mm_add_pd(s01, lo);
    s23 = _mm_add_pd(s23, hi);
    q01 = _mm_add_pd(q01, _mm_mul_pd(lo, lo));
    q23 = _mm_add_pd(q23, _mm_mul_pd(hi, hi));
    top = _mm_max_ps(_mm_and_ps(v, abs_mask), top);  // max_ps keeps `top` when |v| is NaN
  }
  _mm_storeu_pd(s, s01);
  _mm_storeu_pd(s + 2, s23);
  _mm_storeu_pd(q, q01);
  _mm_storeu_pd(q + 2, q23);
  _mm_storeu_ps(m, top);
#else
  for (std::size_t i = 0; i < full; ++i) {
    const auto d = static_cast<double>(x[i]);
    s[i % 4] += d;
    q[i % 4] += d * d;
    const float a = std::fabs(x[i]);
    m[i % 4] = a > m[i % 4] ? a : m[i % 4];
  }
#endif
}

#if defined(__x86_64__) && defined(__GNUC__)
// moment_lanes with the four double lanes in one AVX2 register: the same additions in the same order.
__attribute__((target("avx2"))) void moment_lanes_avx2(const float* x, std::size_t full, double* s, double* q, float* m) {
  __m256d sum = _mm256_setzero_pd(), squares = sum;
  __m256 top = _mm256_setzero_ps();
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  const std::size_t pairs = full / 8 * 8;
  for (std::size_t i = 0; i < pairs; i += 8) {
    simd::prefetch_ahead(x + i);
    const __m256 v = _mm256_loadu_ps(x + i);
    const __m256d lo = _mm256_cvtps_pd(_mm256_castps256_ps128(v)), hi = _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1));
    sum = _mm256_add_pd(_mm256_add_pd(sum, lo), hi);
    squares = _mm256_add_pd(_mm256_add_pd(squares, _mm256_mul_pd(lo, lo)), _mm256_mul_pd(hi, hi));
    top = _mm256_max_ps(_mm256_and_ps(v, abs_mask), top);
  }
  if (pairs < full) {  // one group of four left
    const __m256d v = _mm256_cvtps_pd(_mm_loadu_ps(x + pairs));
    sum = _mm256_add_pd(sum, v);
    squares = _mm256_add_pd(squares, _mm256_mul_pd(v, v));
    top = _mm256_max_ps(_mm256_and_ps(_mm256_castps128_ps256(_mm_loadu_ps(x + pairs)), abs_mask), top);
  }
  _mm256_storeu_pd(s, sum);
  _mm256_storeu_pd(q, squares);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, top);
  for (std::size_t j = 0; j < 4; ++j) m[j] = lanes[j] > lanes[j + 4] ? lanes[j] : lanes[j + 4];
}
#endif

}  // namespace

Moments moments(std::span<const float> x) {
  // Four lanes (element i goes to lane i % 4), combined in a fixed order: the AVX2, SSE2 and
  // portable paths agree bit for bit.
  double s[4] = {}, q[4] = {};
  float m[4] = {};
  const std::size_t full = x.size() / 4 * 4;
#if defined(__x86_64__) && defined(__GNUC__)
  if (simd::kHasAvx2) {
    moment_lanes_avx2(x.data(), full, s, q, m);
  } else {
    moment_lanes(x.data(), full, s, q, m);
  }
#else
  moment_lanes(x.data(), full, s, q, m);
#endif
  Moments r{(s[0] + s[1]) + (s[2] + s[3]), (q[0] + q[1]) + (q[2] + q[3]), 0.0f};
  for (const float a : m) r.max_abs = a > r.max_abs ? a : r.max_abs;
  for (std::size_t i = full; i < x.size(); ++i) {
    const auto d = static_cast<double>(x[i]);
    r.sum += d;
    r.sum_squares += d * d;
    const float a = std::fabs(x[i]);
    r.max_abs = a > r.max_abs ? a : r.max_abs;
  }
  return r;
}

}  // namespace dtsim::compressors
