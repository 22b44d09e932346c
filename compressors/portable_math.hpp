#pragma once
/// exp, log and log1p from IEEE basic operations only (+, -, *, /, floor: correctly rounded everywhere), for device
/// kernels whose bits must not depend on where they run: CUDA's exp / log1p and the host's libm round differently.
/// Accurate to a few ulp (range reduction as fdlibm's e_exp.c, Taylor / atanh series to below 1e-20).
#include <cmath>
#include <cstdint>
#include <cstring>

#include "compressors/host_device.hpp"

namespace dtsim::compressors {

/// The bits of a double.
DTSIM_HOST_DEVICE inline std::uint64_t double_bits(double d) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint64_t>(__double_as_longlong(d));
#else
  std::uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
#endif
}

/// The double of some bits.
DTSIM_HOST_DEVICE inline double bits_double(std::uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(u));
#else
  double d;
  std::memcpy(&d, &u, 8);
  return d;
#endif
}

/// ln x: x = m 2^e with m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh(s), s = (m - 1) / (m + 1), by its series;
/// NaN for NaN or x < 0, -Inf for 0, +Inf for +Inf (rng.hpp's portable_log, which checks x, is this).
DTSIM_HOST_DEVICE inline double log_by_series(double x) {
  if (x == 0.0) return -HUGE_VAL;
  if (!(x > 0.0)) return (x - x) / (x - x);  // NaN for NaN and for x < 0
  if (x > 1.7976931348623157e308) return x;  // +Inf
  std::uint64_t bits = double_bits(x);
  std::int64_t e = 0;
  if ((bits >> 52) == 0) {  // subnormal: scale into the normal range first
    x *= 0x1p54;
    bits = double_bits(x);
    e = -54;
  }
  e += static_cast<std::int64_t>((bits >> 52) & 0x7ff) - 1023;
  double m = bits_double((bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);
  if (m > 1.4142135623730951) {
    m *= 0.5;
    ++e;
  }
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  double term = s;
  double sum = 0.0;
  for (int k = 1; k < 40; k += 2) {
    sum += term / k;
    term *= s2;
  }
  return 2.0 * sum + static_cast<double>(e) * 0.6931471805599453;
}

/// 2^e for e in [-1022, 1023], from its bits.
DTSIM_HOST_DEVICE inline double power_of_two(std::int64_t e) {
  return bits_double(static_cast<std::uint64_t>(e + 1023) << 52);
}

/// e^x: x = k ln 2 + r, |r| <= ln 2 / 2, e^r by its Taylor series, times 2^k; +Inf above 709.78, 0 below -745.2.
DTSIM_HOST_DEVICE inline double portable_exp(double x) {
  if (x != x) return x;
  if (x > 709.782712893384) return HUGE_VAL;
  if (x < -745.2) return 0.0;
  constexpr double kLn2Hi = 6.93147180369123816490e-01, kLn2Lo = 1.90821492927058770002e-10;  // fdlibm e_exp.c
  const double k = floor(x * 1.44269504088896338700e+00 + 0.5);
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  double sum = 1.0, term = 1.0;
  for (int i = 1; i <= 20; ++i) {
    term = term * r / i;
    sum += term;
  }
  const auto e = static_cast<std::int64_t>(k);
  const std::int64_t half = e / 2;  // two factors keep 2^k inside the normal range down to 2^-1075
  return sum * power_of_two(half) * power_of_two(e - half);
}

/// ln(1 + y) for y in [0, 1]: 2 atanh(s), s = y / (2 + y) <= 1/3, by its series.
DTSIM_HOST_DEVICE inline double portable_log1p(double y) {
  const double s = y / (2.0 + y), s2 = s * s;
  double sum = 0.0, power = s;
  for (int k = 1; k < 50; k += 2) {
    sum += power / k;
    power *= s2;
  }
  return 2.0 * sum;
}

}  // namespace dtsim::compressors
