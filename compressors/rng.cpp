#include "compressors/rng.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "compressors/portable_math.hpp"
#include "compressors/simd.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  std::uint64_t s = seed;
  std::uint64_t h = splitmix64(s);
  s = h ^ a;
  h = splitmix64(s);
  s = h ^ b;
  return splitmix64(s);
}

double portable_log(double x) {
  DTSIM_CHECK(x > 0.0 && std::isfinite(x), "portable_log needs a finite positive argument");
  return log_by_series(x);
}

Rng::Rng(std::uint64_t seed) {
  for (auto& word : s_) word = splitmix64(seed);
}

std::uint64_t Rng::next() {
  const std::uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = std::rotl(s_[3], 45);
  return result;
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }

std::uint64_t Rng::below(std::uint64_t n) {
  DTSIM_CHECK(n > 0, "Rng::below needs n > 0");
  const std::uint64_t limit = -n % n;  // 2^64 mod n: reject the low values to remove the bias
  std::uint64_t r = next();
  while (r < limit) r = next();
  return r % n;
}

double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_normal_;
  }
  double u = 0.0, v = 0.0, s = 0.0;
  do {
    u = 2.0 * uniform() - 1.0;
    v = 2.0 * uniform() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double f = std::sqrt(-2.0 * portable_log(s) / s);  // sqrt is correctly rounded by IEEE 754
  spare_normal_ = v * f;
  has_spare_ = true;
  return u * f;
}

UniformStream::UniformStream(std::uint64_t seed) {
  for (std::size_t j = 0; j < kLanes; ++j) {
    const std::uint64_t a = splitmix64(seed), b = splitmix64(seed);
    s0_[j] = static_cast<std::uint32_t>(a);
    s1_[j] = static_cast<std::uint32_t>(a >> 32);
    s2_[j] = static_cast<std::uint32_t>(b);
    s3_[j] = static_cast<std::uint32_t>(b >> 32) | 1u;  // never the all-zero state
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
namespace {

// The eight lanes in one AVX2 register: the same arithmetic as the SSE2 and portable paths.
__attribute__((target("avx2"))) void fill_avx2(std::uint32_t* s0_, std::uint32_t* s1_, std::uint32_t* s2_,
                                               std::uint32_t* s3_, std::uint32_t* dst, std::size_t count) {
  __m256i s0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(s0_));
  __m256i s1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(s1_));
  __m256i s2 = _mm256_load_si256(reinterpret_cast<const __m256i*>(s2_));
  __m256i s3 = _mm256_load_si256(reinterpret_cast<const __m256i*>(s3_));
  for (std::size_t i = 0; i < count; i += 8) {
    const __m256i x = _mm256_add_epi32(s1, _mm256_slli_epi32(s1, 2));
    const __m256i r = _mm256_or_si256(_mm256_slli_epi32(x, 7), _mm256_srli_epi32(x, 25));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_add_epi32(r, _mm256_slli_epi32(r, 3)));
    const __m256i t = _mm256_slli_epi32(s1, 9);
    s2 = _mm256_xor_si256(s2, s0);
    s3 = _mm256_xor_si256(s3, s1);
    s1 = _mm256_xor_si256(s1, s2);
    s0 = _mm256_xor_si256(s0, s3);
    s2 = _mm256_xor_si256(s2, t);
    s3 = _mm256_or_si256(_mm256_slli_epi32(s3, 11), _mm256_srli_epi32(s3, 21));
  }
  _mm256_store_si256(reinterpret_cast<__m256i*>(s0_), s0);
  _mm256_store_si256(reinterpret_cast<__m256i*>(s1_), s1);
  _mm256_store_si256(reinterpret_cast<__m256i*>(s2_), s2);
  _mm256_store_si256(reinterpret_cast<__m256i*>(s3_), s3);
}

// The same with AVX-512VL: one-instruction rotates and three-way xors, still eight lanes in one register.
__attribute__((target("avx512f,avx512vl"))) void fill_avx512(std::uint32_t* s0_, std::uint32_t* s1_, std::uint32_t* s2_,
                                                              std::uint32_t* s3_, std::uint32_t* dst, std::size_t count) {
  constexpr int kXor3 = 0x96;  // vpternlogd truth table of a ^ b ^ c
  __m256i s0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(s0_));
  __m256i s1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(s1_));
  __m256i s2 = _mm256_load_si256(reinterpret_cast<const __m256i*>(s2_));
  __m256i s3 = _mm256_load_si256(reinterpret_cast<const __m256i*>(s3_));
  for (std::size_t i = 0; i < count; i += 8) {
    const __m256i r = _mm256_rol_epi32(_mm256_add_epi32(s1, _mm256_slli_epi32(s1, 2)), 7);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_add_epi32(r, _mm256_slli_epi32(r, 3)));
    const __m256i t = _mm256_slli_epi32(s1, 9);
    const __m256i s2_next = _mm256_ternarylogic_epi32(s2, s0, t, kXor3);  // s2 ^ s0, then ^ t
    const __m256i s1_next = _mm256_ternarylogic_epi32(s1, s2, s0, kXor3);  // s1 ^ (s2 ^ s0)
    s0 = _mm256_ternarylogic_epi32(s0, s3, s1, kXor3);                     // s0 ^ (s3 ^ s1)
    s3 = _mm256_rol_epi32(_mm256_xor_si256(s3, s1), 11);
    s1 = s1_next;
    s2 = s2_next;
  }
  _mm256_store_si256(reinterpret_cast<__m256i*>(s0_), s0);
  _mm256_store_si256(reinterpret_cast<__m256i*>(s1_), s1);
  _mm256_store_si256(reinterpret_cast<__m256i*>(s2_), s2);
  _mm256_store_si256(reinterpret_cast<__m256i*>(s3_), s3);
}

const bool kHasAvx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");

}  // namespace
#endif

void UniformStream::fill(std::span<std::uint32_t> out) {
  DTSIM_CHECK(out.size() % kLanes == 0, "UniformStream::fill needs a multiple of kLanes");
  std::uint32_t* dst = out.data();
#if defined(__x86_64__) && defined(__GNUC__)
  if (kHasAvx512) {
    fill_avx512(s0_, s1_, s2_, s3_, dst, out.size());
    return;
  }
  if (simd::kHasAvx2) {
    fill_avx2(s0_, s1_, s2_, s3_, dst, out.size());
    return;
  }
#endif
#if defined(__SSE2__)
  // Two registers of four lanes each; x * 5 and x * 9 as shift-and-add (SSE2 has no 32-bit multiply).
  auto load = [](const std::uint32_t* p) { return _mm_load_si128(reinterpret_cast<const __m128i*>(p)); };
  auto rotl = [](__m128i x, int k) { return _mm_or_si128(_mm_slli_epi32(x, k), _mm_srli_epi32(x, 32 - k)); };
  __m128i a0 = load(s0_), a1 = load(s1_), a2 = load(s2_), a3 = load(s3_);
  __m128i b0 = load(s0_ + 4), b1 = load(s1_ + 4), b2 = load(s2_ + 4), b3 = load(s3_ + 4);
  auto step = [&](__m128i& s0, __m128i& s1, __m128i& s2, __m128i& s3, std::uint32_t* to) {
    const __m128i r = rotl(_mm_add_epi32(s1, _mm_slli_epi32(s1, 2)), 7);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(to), _mm_add_epi32(r, _mm_slli_epi32(r, 3)));
    const __m128i t = _mm_slli_epi32(s1, 9);
    s2 = _mm_xor_si128(s2, s0);
    s3 = _mm_xor_si128(s3, s1);
    s1 = _mm_xor_si128(s1, s2);
    s0 = _mm_xor_si128(s0, s3);
    s2 = _mm_xor_si128(s2, t);
    s3 = rotl(s3, 11);
  };
  for (std::size_t i = 0; i < out.size(); i += kLanes) {
    step(a0, a1, a2, a3, dst + i);
    step(b0, b1, b2, b3, dst + i + 4);
  }
  auto store = [](std::uint32_t* p, __m128i v) { _mm_store_si128(reinterpret_cast<__m128i*>(p), v); };
  store(s0_, a0), store(s1_, a1), store(s2_, a2), store(s3_, a3);
  store(s0_ + 4, b0), store(s1_ + 4, b1), store(s2_ + 4, b2), store(s3_ + 4, b3);
#else
  for (std::size_t i = 0; i < out.size(); i += kLanes) {
    for (std::size_t j = 0; j < kLanes; ++j) {
      const std::uint32_t x = s1_[j] * 5u;
      dst[i + j] = std::rotl(x, 7) * 9u;
      const std::uint32_t t = s1_[j] << 9;
      s2_[j] ^= s0_[j];
      s3_[j] ^= s1_[j];
      s1_[j] ^= s2_[j];
      s0_[j] ^= s3_[j];
      s2_[j] ^= t;
      s3_[j] = std::rotl(s3_[j], 11);
    }
  }
#endif
}

}  // namespace dtsim::compressors
