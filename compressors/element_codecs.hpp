#pragma once
/// The per-element work of the element-wise compressors, written once for the host CPU kernels and the device
/// kernels (compressors/device/): every function is pure integer or IEEE arithmetic, so both give the same bits.
#include <cmath>
#include <cstdint>

#include "compressors/host_device.hpp"

namespace dtsim::compressors {

/// sum / count as a float on the wire, 0 when count is 0; a NaN is always the canonical quiet NaN (0x7fc00000):
/// which NaN a sum of +inf, -inf and NaNs ends in depends on the order of the additions (x86 makes
/// inf - inf the negative "default NaN"), and host and device add in different orders.
DTSIM_HOST_DEVICE inline float wire_mean(double sum, std::int64_t count) {
  if (count == 0) return 0.0f;
  const auto mean = static_cast<float>(sum / static_cast<double>(count));
  return mean != mean ? bits_float(0x7fc00000u) : mean;
}

/// fp32 -> IEEE binary16, round to nearest even, overflow to +-Inf, NaN stays a quiet NaN (after F. Giesen,
/// "float->half variants", 2016).
DTSIM_HOST_DEVICE inline std::uint16_t to_half(float f) {
  const std::uint32_t bits = float_bits(f);
  const std::uint32_t sign = (bits >> 16) & 0x8000u;
  const std::uint32_t a = bits & 0x7fffffffu;
  // Normal range: rebias the exponent and round the 13 dropped mantissa bits to nearest even.
  const std::uint32_t normal = (a + 0xc8000fffu + ((a >> 13) & 1u)) >> 13;
  // Subnormal range: let the FPU align the mantissa by adding 0.5 (exponent 126).
  const std::uint32_t sub = float_bits(bits_float(a) + 0.5f) - 0x3f000000u;
  const auto signed_a = static_cast<std::int32_t>(a);
  std::uint32_t h = signed_a < 0x38800000 ? sub : normal;
  h = signed_a >= 0x477ff000 ? 0x7c00u : h;                             // past 65504: infinity
  h = signed_a > 0x7f800000 ? 0x7e00u | ((a >> 13) & 0x1ffu) : h;  // NaN stays a quiet NaN
  return static_cast<std::uint16_t>(h | sign);
}

/// IEEE binary16 -> fp32 (exact).
DTSIM_HOST_DEVICE inline float from_half(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t a = static_cast<std::uint32_t>(h & 0x7fffu) << 13;
  const std::uint32_t exp = a & 0x0f800000u;
  const std::uint32_t normal = a + 0x38000000u;
  const std::uint32_t special = a + 0x70000000u;  // Inf / NaN: exponent all ones
  const std::uint32_t sub = float_bits(bits_float(a + 0x38800000u) - 6.103515625e-05f);  // 2^-14
  std::uint32_t r = exp == 0x0f800000u ? special : normal;
  r = exp == 0 ? sub : r;
  return bits_float(r | sign);
}

/// fp32 -> bfloat16, round to nearest even, NaN stays a quiet NaN.
DTSIM_HOST_DEVICE inline std::uint16_t to_bf16(float f) {
  const std::uint32_t bits = float_bits(f);
  const std::uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  const bool nan = (bits & 0x7fffffffu) > 0x7f800000u;
  return static_cast<std::uint16_t>(nan ? (bits >> 16) | 0x40u : rounded);
}

/// bfloat16 -> fp32 (exact).
DTSIM_HOST_DEVICE inline float from_bf16(std::uint16_t h) { return bits_float(static_cast<std::uint32_t>(h) << 16); }

/// int8 code of x at inv = 127 / max|x|: round half away from zero, clamp to [-127, 127], NaN -> -127.
DTSIM_HOST_DEVICE inline std::int8_t to_int8(float x, float inv) {
  float v = x * inv;
  v = v + (v < 0.0f ? -0.5f : 0.5f);  // copysign(0.5, v); NaN stays NaN
  v = v > -127.0f ? v : -127.0f;      // also maps NaN to -127
  v = v < 127.0f ? v : 127.0f;
  return static_cast<std::int8_t>(static_cast<int>(v));
}

/// natural compression's 8-bit code of x with the 32-bit draw u: with r = u >> 9 (23 bits), adding 2^23 - 1 - r
/// to the magnitude's bits carries into the exponent exactly when r < mantissa, probability m.
DTSIM_HOST_DEVICE inline std::uint8_t to_natural(float x, std::uint32_t u) {
  const std::uint32_t bits = float_bits(x);
  std::uint32_t e = ((bits & 0x7fffffffu) + (~u >> 9)) >> 23;  // rounded biased exponent, 0 to 256
  e = e < 145u ? e : 145u;
  e = e > 18u ? e : 18u;  // code exponent e - 18: 0 below 19
  return static_cast<std::uint8_t>((bits >> 31) << 7 | (e - 18u));
}

/// The value of a natural compression code: +-2^(E - 127), or 0 for code exponent 0.
DTSIM_HOST_DEVICE inline float from_natural(std::uint8_t code) {
  const std::uint32_t c = code;
  const std::uint32_t e = c & 0x7fu;
  return bits_float(((c & 0x80u) << 24) | (e == 0 ? 0u : (e + 18u) << 23));
}

/// TernGrad's 2-bit code of x (0, 1 = +s, 2 = -s) with the 32-bit draw u: |x| clipped to `bound` is kept with
/// probability |x| / s, the draw taken as (u >> 8) 2^-24.
DTSIM_HOST_DEVICE inline std::uint32_t to_ternary(float x, std::uint32_t u, float bound, float s) {
  const float m = bits_float(float_bits(x) & 0x7fffffffu);
  const float a = m < bound ? m : bound;
  const float draw = static_cast<float>(static_cast<std::int32_t>(u >> 8)) * 0x1p-24f;
  const std::uint32_t keep = draw * s < a;
  return keep + (keep & static_cast<std::uint32_t>(x < 0.0f));
}

/// QSGD's l2 norm of a bucket x[0, m) in fp32 (as GRACE): element i adds to lane i % 8, the lanes are combined
/// pairwise, then the tail after the full groups of eight adds in order.
DTSIM_HOST_DEVICE inline float qsgd_bucket_norm(const float* x, std::int64_t m) {
  float lane[8] = {};
  const std::int64_t full = m / 8 * 8;
  for (std::int64_t i = 0; i < full; i += 8)
    for (int j = 0; j < 8; ++j) lane[j] += x[i + j] * x[i + j];
  float total = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
  for (std::int64_t i = full; i < m; ++i) total += x[i] * x[i];
  return sqrtf(total);
}

/// QSGD's level of x with the 32-bit draw u: floor(l) + 1[draw < frac(l)], l = min(|x| inv, s) (NaN gives s),
/// draw = (u >> 8) 2^-24.
DTSIM_HOST_DEVICE inline std::int32_t qsgd_level(float x, std::uint32_t u, float inv, float s) {
  float l = bits_float(float_bits(x) & 0x7fffffffu) * inv;
  l = l < s ? l : s;
  const auto lf = static_cast<std::int32_t>(l);
  const float frac = l - static_cast<float>(lf);
  const float draw = static_cast<float>(static_cast<std::int32_t>(u >> 8)) * 0x1p-24f;
  return lf + (draw < frac ? 1 : 0);
}

/// QSGD's 1 / unit: s / norm, or 0 when the norm is 0, Inf or NaN.
DTSIM_HOST_DEVICE inline float qsgd_inverse_unit(float norm, float s) {
  const bool finite = (float_bits(norm) & 0x7f800000u) != 0x7f800000u;
  return norm > 0.0f && finite ? s / norm : 0.0f;
}

/// ECQ-SGD's level of v (compressors/ecqsgd.cpp) with the 32-bit draw u: a = min(|v| inv, s) (NaN gives level
/// 0), floor(a) + 1[draw < frac(a)] below s, draw = (u >> 8) 2^-24.
DTSIM_HOST_DEVICE inline std::int32_t ecqsgd_level(float v, std::uint32_t u, float inv, std::int32_t s) {
  const auto top = static_cast<float>(s);
  float a = bits_float(float_bits(v) & 0x7fffffffu) * inv;
  a = top < a ? top : a;  // std::min(a, s): NaN stays NaN
  if (a != a) return 0;
  const auto l = static_cast<std::int32_t>(a);
  const float draw = static_cast<float>(static_cast<std::int32_t>(u >> 8)) * 0x1p-24f;
  return l + (l < s && draw < a - static_cast<float>(l) ? 1 : 0);
}

/// srq's level of a rotated coordinate z (compressors/srq.cpp) with the 32-bit draw u: l = (z - lo) inv in
/// [0, top] (NaN gives 0), floor(l) + 1[draw < frac(l)] below top, draw = (u >> 8) 2^-24.
DTSIM_HOST_DEVICE inline std::uint32_t srq_level(float z, std::uint32_t u, float lo, float inv, std::uint32_t top) {
  const float l = (z - lo) * inv;
  std::uint32_t floor_l = 0;
  if (l == l) {
    floor_l = l < static_cast<float>(top) ? static_cast<std::uint32_t>(l) : top;
  }
  const float draw = static_cast<float>(static_cast<std::int32_t>(u >> 8)) * 0x1p-24f;
  return floor_l + (floor_l < top && draw < l - static_cast<float>(floor_l) ? 1u : 0u);
}

/// A uniform double in [0, 1) from two 32-bit draws: 27 + 26 bits (the 53 of a double's mantissa).
DTSIM_HOST_DEVICE inline double uniform53(std::uint32_t u0, std::uint32_t u1) {
  return (static_cast<double>(u0 >> 5) * 67108864.0 + static_cast<double>(u1 >> 6)) * 0x1p-53;
}

/// eightbit's code of x at inv = 1 / max|x| (compressors/eightbit_table.hpp): t = x inv rounds to the nearest
/// table value (ties to the lower one) by scanning the midpoints from start[top 16 bits of t]; NaN gives `zero`.
DTSIM_HOST_DEVICE inline std::uint8_t eightbit_code(float x, float inv, const std::uint8_t* start, const float* mid,
                                                    std::uint8_t zero) {
  const float t = x * inv;
  if (t != t) return zero;
  std::uint32_t q = start[float_bits(t) >> 16];
  while (q < 255u && mid[q] < t) ++q;
  return static_cast<std::uint8_t>(q);
}

/// Magnitude order key of a float: |x| as an integer; NaN ranks above +Inf.
DTSIM_HOST_DEVICE inline std::int32_t magnitude_key(std::uint32_t bits) {
  return static_cast<std::int32_t>(bits & 0x7fffffffu);
}

/// variance_based's 4-bit code of v against `top` >= |v| (the largest magnitude sent): bit 3 the sign, bits 0-2 the
/// k in [0, 7] for which top 2^-k is nearest to |v| in the log domain (|v| / top = (1 + m) 2^e rounds to 2^(e+1)
/// when 1 + m > sqrt 2); below top 2^-7 it is 7, a NaN ratio gives 0.
DTSIM_HOST_DEVICE inline std::uint32_t to_power_code(float v, float top) {
  const std::uint32_t sign = float_bits(v) >> 31;
  const std::uint32_t t = float_bits(bits_float(float_bits(v) & 0x7fffffffu) / top);
  const int e = static_cast<int>(t >> 23) - 127 + ((t & 0x7fffffu) > 0x3504f3u ? 1 : 0);  // 0x3504f3: (sqrt 2 - 1) 2^23
  const int k = -e < 0 ? 0 : (-e > 7 ? 7 : -e);
  return sign << 3 | static_cast<std::uint32_t>(k);
}

/// The value of a variance_based code: +-top 2^-k (exact).
DTSIM_HOST_DEVICE inline float from_power_code(std::uint32_t code, float top) {
  const float magnitude = top * bits_float((127u - (code & 7u)) << 23);
  return bits_float(float_bits(magnitude) ^ ((code & 8u) << 28));
}

}  // namespace dtsim::compressors
