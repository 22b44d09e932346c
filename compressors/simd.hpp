#pragma once
/// Loops written once in plain C++ and compiled twice: for the SSE2 baseline and, picked at run
/// time, for AVX2. Both builds run the same IEEE operations in the same order (the library is
/// compiled without FMA contraction), so they give the same bits; AVX2 only widens the vectors.
///
///   simd::dispatch([&]() DTSIM_SIMD_BODY { for (i...) out[i] = f(x[i]); });
#include <cstddef>

namespace dtsim::compressors::simd {

/// How far ahead a streaming pass asks for its input: on the benchmark machine one core's hardware
/// prefetchers alone leave the element-wise kernels well below memcpy speed on tensors past the L2.
constexpr std::size_t kPrefetchBytes = 2048;

/// Prefetches the cache lines of [p + kPrefetchBytes, p + kPrefetchBytes + bytes) (never faults).
inline void prefetch_ahead(const void* p, std::size_t bytes = 64) {
  for (std::size_t at = 0; at < bytes; at += 64) __builtin_prefetch(static_cast<const char*>(p) + kPrefetchBytes + at);
}

#if defined(__x86_64__) && defined(__GNUC__)
/// Marks a lambda passed to dispatch: it is inlined into each build, so it is vectorised for each.
#define DTSIM_SIMD_BODY __attribute__((always_inline))

/// True when the CPU runs AVX2.
inline const bool kHasAvx2 = __builtin_cpu_supports("avx2");

template <class Body>
__attribute__((target("avx2"))) void run_avx2(Body& body) {
  body();
}

/// Runs `body` in its AVX2 build when the CPU has AVX2, else in its baseline build.
template <class Body>
void dispatch(Body&& body) {
  if (kHasAvx2) {
    run_avx2(body);
  } else {
    body();
  }
}
#else
#define DTSIM_SIMD_BODY

/// Runs `body` (one build only on this platform).
template <class Body>
void dispatch(Body&& body) {
  body();
}
#endif

}  // namespace dtsim::compressors::simd
