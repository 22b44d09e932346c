#include "compressors/reductions.hpp"

#include <cmath>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
  float m[kLanes] = {};
  const std::size_t full = x.size() / kLanes * kLanes;
  for (std::size_t i = 0; i < full; i += kLanes) {
    for (std::size_t j = 0; j < kLanes; ++j) {
      const float a = std::fabs(x[i + j]);
      m[j] = a > m[j] ? a : m[j];
    }
  }
  float best = 0.0f;
  for (std::size_t i = full; i < x.size(); ++i) {
    const float a = std::fabs(x[i]);
    best = a > best ? a : best;
  }
  for (const float a : m) best = a > best ? a : best;
  return best;
}

Moments moments(std::span<const float> x) {
  // Four lanes (element i goes to lane i % 4), combined in a fixed order: the SSE2 and the
  // portable paths agree bit for bit.
  double s[4] = {}, q[4] = {};
  float m[4] = {};
  const std::size_t full = x.size() / 4 * 4;
#if defined(__SSE2__)
  __m128d s01 = _mm_setzero_pd(), s23 = s01, q01 = s01, q23 = s01;
  __m128 top = _mm_setzero_ps();
  const __m128 abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
  for (std::size_t i = 0; i < full; i += 4) {
    const __m128 v = _mm_loadu_ps(x.data() + i);
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
