#include "compressors/top_k_select.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

constexpr std::size_t kBlock = 64;
constexpr std::size_t kSample = 1 << 16;
constexpr std::size_t kSampleRuns = 256;  // kSample / kSampleRuns contiguous elements per run

std::int32_t key_at(const float* p) {
  std::uint32_t bits;
  std::memcpy(&bits, p, 4);
  return magnitude_key(bits);
}

// Positions (ascending) of elements with key >= threshold. SSE2: a 16-bit mask per 16 elements,
// then one step per hit; portable: a branch-free pass over blocks of 64 that skips empty blocks.
void filter(std::span<const float> x, std::int32_t threshold, std::vector<std::uint32_t>& out) {
  out.resize(std::max<std::size_t>(out.capacity(), 4 * kBlock));
  std::size_t c = 0;
  const std::size_t n = x.size();
  std::size_t base = 0;
#if defined(__SSE2__)
  const __m128i abs_mask = _mm_set1_epi32(0x7fffffff);
  const __m128i below = _mm_set1_epi32(threshold - 1);  // key >= threshold <=> key > threshold - 1
  auto hits4 = [&](const float* p) {
    const __m128i key = _mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), abs_mask);
    return static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(key, below))));
  };
  for (; base + 16 <= n; base += 16) {
    const float* p = x.data() + base;
    unsigned mask = hits4(p) | hits4(p + 4) << 4 | hits4(p + 8) << 8 | hits4(p + 12) << 12;
    if (mask == 0) continue;
    if (out.size() < c + 16) out.resize(2 * out.size());
    for (; mask != 0; mask &= mask - 1) out[c++] = static_cast<std::uint32_t>(base + static_cast<std::size_t>(std::countr_zero(mask)));
  }
#else
  for (; base + kBlock <= n; base += kBlock) {
    const float* p = x.data() + base;
    std::int32_t keys[kBlock];
    std::memcpy(keys, p, sizeof(keys));
    unsigned hits = 0;
    for (std::size_t j = 0; j < kBlock; ++j) {
      keys[j] &= 0x7fffffff;
      hits += keys[j] >= threshold;
    }
    if (hits == 0) continue;
    if (out.size() < c + kBlock) out.resize(2 * out.size());
    std::uint32_t* dst = out.data() + c;
    std::size_t m = 0;
    for (std::size_t j = 0; j < kBlock; ++j) {
      dst[m] = static_cast<std::uint32_t>(base + j);
      m += keys[j] >= threshold;
    }
    c += m;
  }
#endif
  if (out.size() < c + kBlock) out.resize(c + kBlock);
  for (; base < n; ++base) {
    out[c] = static_cast<std::uint32_t>(base);
    c += key_at(x.data() + base) >= threshold;
  }
  out.resize(c);
}

// Exact selection among ascending candidate positions: ranks by (key desc, position asc).
void select_among(std::span<const float> x, const std::vector<std::uint32_t>& cand, std::size_t k,
                  std::vector<std::int64_t>& indices) {
  std::vector<std::uint64_t> order(cand.size());
  for (std::size_t i = 0; i < cand.size(); ++i) {
    order[i] = (static_cast<std::uint64_t>(key_at(x.data() + cand[i])) << 32) | (0xffffffffu - cand[i]);
  }
  std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k - 1), order.end(),
                   std::greater<>());
  const std::uint64_t kth = order[k - 1];
  indices.clear();
  indices.reserve(k);
  for (const std::uint32_t i : cand) {
    const std::uint64_t o = (static_cast<std::uint64_t>(key_at(x.data() + i)) << 32) | (0xffffffffu - i);
    if (o >= kth) indices.push_back(i);
  }
}

}  // namespace

void select_at_least(std::span<const float> x, std::int32_t key_threshold, std::vector<std::int64_t>& indices) {
  std::vector<std::uint32_t> cand;
  DTSIM_CHECK(x.size() < (std::size_t{1} << 32), "selection supports tensors below 2^32 elements");
  filter(x, key_threshold, cand);
  indices.assign(cand.begin(), cand.end());
}

void select_top_k(std::span<const float> x, std::size_t k, std::vector<std::int64_t>& indices) {
  const std::size_t n = x.size();
  DTSIM_CHECK(n < (std::size_t{1} << 32), "selection supports tensors below 2^32 elements");
  indices.clear();
  if (k == 0) return;
  if (k >= n) {
    indices.resize(n);
    for (std::size_t i = 0; i < n; ++i) indices[i] = static_cast<std::int64_t>(i);
    return;
  }
  std::vector<std::uint32_t> cand;
  if (n >= 4 * kSample && 8 * k <= n) {
    // Sample rank with a 4-sigma margin, so the candidates hold the k largest almost always.
    const std::size_t stride = n / kSampleRuns;  // runs of contiguous elements: cache- and TLB-friendly
    const double expected = static_cast<double>(k) * kSample / static_cast<double>(n);
    const auto rank = static_cast<std::size_t>(expected + 4.0 * std::sqrt(expected) + 2.0);
    if (rank < kSample) {
      std::vector<std::int32_t> sample(kSample);
      for (std::size_t r = 0; r < kSampleRuns; ++r) {
        const float* run = x.data() + r * stride;
        for (std::size_t j = 0; j < kSample / kSampleRuns; ++j) sample[r * (kSample / kSampleRuns) + j] = key_at(run + j);
      }
      std::nth_element(sample.begin(), sample.begin() + static_cast<std::ptrdiff_t>(rank), sample.end(),
                       std::greater<>());
      filter(x, sample[rank], cand);
    }
  }
  if (cand.size() < k) {  // no sample, or it over-estimated the threshold: select among everything
    cand.resize(n);
    for (std::size_t i = 0; i < n; ++i) cand[i] = static_cast<std::uint32_t>(i);
  }
  select_among(x, cand, k, indices);
}

}  // namespace dtsim::compressors
