#pragma once
/// Inputs for the device-kernel tests: Gaussian, Gaussian with special values, and heavy ties.
#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include <cstring>

#include "compressors/compressor.hpp"
#include "tests/compressors/test_data.hpp"

namespace dtsim::compressors::testing {

/// Three gradients of n elements from `seed`: N(0, 1); N(0, 1e-6) with NaN, +-Inf, +-0, subnormals and
/// huge values at both ends; and values from {-2, -1, 1, 2} (ties everywhere).
inline std::vector<std::vector<float>> device_inputs(std::size_t n, std::uint64_t seed) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const float special[] = {std::numeric_limits<float>::quiet_NaN(), kInf, -kInf, 0.0f, -0.0f, 1e-40f, -3e38f, 7e4f};
  std::vector<std::vector<float>> xs = {gaussian(n, seed), gaussian(n, seed + 1, 1e-3), gaussian(n, seed + 2)};
  for (std::size_t j = 0; j < std::size(special) && j < n; ++j) {
    xs[1][(7 * j) % n] = special[j];
    xs[1][n - 1 - (3 * j) % n] = special[j];
  }
  for (float& v : xs[2]) v = (v < 0 ? -1.0f : 1.0f) * (std::fabs(v) > 1.0f ? 2.0f : 1.0f);
  return xs;
}

/// Lengths around the grid's edges: tails of bytes and Philox blocks, one and several blocks.
inline const std::vector<std::size_t> kDeviceSizes = {1, 3, 8, 9, 255, 4096, 4097, 70001, 1 << 20};

/// The b-bit code i of an LSB-first bit stream.
inline std::uint32_t code_at(std::span<const std::byte> codes, std::size_t i, int b) {
  std::uint32_t c = 0;
  for (int k = 0; k < b; ++k) {
    const std::size_t bit = i * static_cast<std::size_t>(b) + static_cast<std::size_t>(k);
    c |= ((static_cast<std::uint32_t>(codes[bit / 8]) >> (bit % 8)) & 1u) << k;
  }
  return c;
}

/// Compresses x as tensor `id` with `want` and `got`: the same message (payload, wire size, aggregation,
/// elements; for a low-rank message also its second round from the reduced first, with the shared factor), and
/// the same expansion of it, bit for bit.
inline void expect_same_exchange(Compressor& want, Compressor& got, const std::vector<float>& x, TensorId id) {
  Compressed a = want.compress(x, id), b = got.compress(x, id);
  ASSERT_EQ(b.payload, a.payload);
  EXPECT_EQ(b.wire_size, a.wire_size);
  EXPECT_EQ(b.how, a.how);
  EXPECT_EQ(b.numel, a.numel);
  if (a.how == Aggregation::kLowRank) {
    a = want.next_round(want.reduce(std::span<const Compressed>(&a, 1)));
    b = got.next_round(got.reduce(std::span<const Compressed>(&b, 1)));
    ASSERT_EQ(b.payload, a.payload);
    ASSERT_EQ(0, std::memcmp(a.shared.data(), b.shared.data(), a.shared.size() * sizeof(float)));
  }
  std::vector<float> a_out(x.size()), b_out(x.size());
  want.decompress(a, a_out);
  got.decompress(b, b_out);
  EXPECT_EQ(0, std::memcmp(a_out.data(), b_out.data(), x.size() * sizeof(float)));
}

}  // namespace dtsim::compressors::testing
