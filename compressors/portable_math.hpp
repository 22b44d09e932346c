#pragma once
/// exp and log1p from IEEE basic operations only (+, -, *, /, floor: correctly rounded everywhere), for device
/// kernels whose bits must not depend on where they run: CUDA's exp / log1p and the host's libm round differently.
/// Accurate to a few ulp (range reduction as fdlibm's e_exp.c, Taylor / atanh series to below 1e-20).
#include <cmath>
#include <cstdint>
#include <cstring>

#include "compressors/host_device.hpp"

namespace dtsim::compressors {

/// 2^e for e in [-1022, 1023], from its bits.
DTSIM_HOST_DEVICE inline double power_of_two(std::int64_t e) {
  const std::uint64_t bits = static_cast<std::uint64_t>(e + 1023) << 52;
  double d;
#if defined(__CUDA_ARCH__)
  d = __longlong_as_double(static_cast<long long>(bits));
#else
  std::memcpy(&d, &bits, 8);
#endif
  return d;
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
