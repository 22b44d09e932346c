// gaussiank: Gaussian-k of Shi et al. (2019): the normal-fit threshold, its corrections and the wire bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "compressors/registry.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"
#include "tests/compressors/test_data.hpp"

namespace dtsim::compressors {
namespace {

TEST(GaussianK, OnGaussianDataKeepsAboutKOfTheLargest) {
  // On N(0, 1) data the first threshold, Phi^-1(1 - ratio / 2) sigma = 2.576, passes between 2k/3 and 4k/3
  // elements: no correction; the first k of them in index order are sent, so nothing before the last one sent
  // was left above it.
  const auto x = testing::gaussian(100000, 5);
  auto c = make_compressor("gaussiank", {{"ratio", 0.01}});
  const Compressed msg = c->compress(x, 1);
  const std::vector<std::int64_t> sent = testing::sparse_indices(msg);
  EXPECT_GE(3 * sent.size(), 2 * 1000u);
  EXPECT_LE(sent.size(), 1000u);
  EXPECT_EQ(msg.wire_size, static_cast<core::Bytes>(8 * sent.size()));
  float smallest_sent = HUGE_VALF, largest_skipped = 0.0f;
  std::size_t next = 0;
  for (std::size_t i = 0; i <= static_cast<std::size_t>(sent.back()); ++i) {
    if (static_cast<std::int64_t>(i) == sent[next]) {
      smallest_sent = std::min(smallest_sent, std::fabs(x[i]));
      ++next;
    } else {
      largest_skipped = std::max(largest_skipped, std::fabs(x[i]));
    }
  }
  EXPECT_GT(smallest_sent, largest_skipped);
  EXPECT_NEAR(smallest_sent, 2.5758, 0.01);  // the first element above tau = mu + 2.5758 sigma
  EXPECT_NEAR(largest_skipped, 2.5758, 0.01);
}

TEST(GaussianK, HeavyTailsMoveTheThresholdAsTheReferenceLoopDoes) {
  // Laplace data (sigma = sqrt 2): 2.576 sigma passes e^-3.64 = 2.6 % > 4k/3, so tau x 1.5 passes 0.4 % < 2k/3,
  // so tau / 2 passes 6.5 %; three rounds done, the first k (index order) above that last threshold are sent.
  const auto x = testing::laplace(30000, 6);
  const std::size_t n = x.size(), k = 300;
  double sum = 0, sum_squares = 0;
  for (const float v : x) {
    sum += v;
    sum_squares += static_cast<double>(v) * v;
  }
  const double mean = sum / n, sigma = std::sqrt((sum_squares - sum * mean) / (n - 1));
  auto tau = static_cast<float>(mean + 2.5758293035489004 * sigma);  // Phi^-1(0.995)
  auto count = [&](float t) { return std::count_if(x.begin(), x.end(), [&](float v) { return std::fabs(v) > t; }); };
  EXPECT_GT(3 * count(tau), 4 * static_cast<long>(k));
  tau *= 1.5f;
  EXPECT_LT(3 * count(tau), 2 * static_cast<long>(k));
  tau *= 0.5f;
  EXPECT_GT(3 * count(tau), 4 * static_cast<long>(k));
  std::vector<std::int64_t> expected;
  for (std::size_t i = 0; i < n && expected.size() < k; ++i)
    if (std::fabs(x[i]) > tau) expected.push_back(static_cast<std::int64_t>(i));

  auto c = make_compressor("gaussiank", {{"ratio", 0.01}});
  const Compressed msg = c->compress(x, 1);
  EXPECT_EQ(testing::sparse_indices(msg), expected);
  EXPECT_EQ(msg.wire_size, static_cast<core::Bytes>(8 * k));
  std::vector<float> out(n);
  c->decompress(msg, out);
  for (const auto i : expected) EXPECT_EQ(out[static_cast<std::size_t>(i)], x[static_cast<std::size_t>(i)]);
}

TEST(GaussianK, ConstantTensorHalvesThenRaisesTheThresholdAndSendsTheFirstK) {
  // sigma = 0: tau = 0.25 passes nothing, 0.125 passes all 1000 (> 4k/3), 0.1875 passes all again: the rounds
  // end there and the first k = 10 go.
  const std::vector<float> x(1000, 0.25f);
  auto c = make_compressor("gaussiank");
  const Compressed msg = c->compress(x, 1);
  const std::vector<std::int64_t> first_ten = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_EQ(testing::sparse_indices(msg), first_ten);
  EXPECT_THROW(make_compressor("gaussiank", {{"ratio", 0.0}}), core::InputError);
}

}  // namespace
}  // namespace dtsim::compressors
