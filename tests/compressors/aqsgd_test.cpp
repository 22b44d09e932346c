// aqsgd: ALQ of Faghri et al. (NeurIPS 2020): the exponential starting levels, the exact wire bytes, coordinate
// descent reaching each level's variance minimiser, and the levels adapting to the gradients from step to step.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "compressors/aqsgd_levels.hpp"
#include "compressors/bit_codes.hpp"
#include "compressors/registry.hpp"
#include "compressors/wire.hpp"
#include "tests/compressors/test_data.hpp"

namespace dtsim::compressors {
namespace {

// sum over r of the variance of rounding r between the levels around it, (hi - r)(r - lo); levels l_1..l_s.
double variance(const std::vector<float>& r, const std::vector<float>& levels) {
  double v = 0.0;
  for (const float x : r) {
    float lo = 0.0f;
    for (const float l : levels) {
      if (x <= l) {
        v += (static_cast<double>(l) - x) * (static_cast<double>(x) - lo);
        break;
      }
      lo = l;
    }
  }
  return v;
}

std::vector<float> levels_of(const Compressed& msg, int s) {
  std::vector<float> levels(static_cast<std::size_t>(s));
  for (int j = 0; j < s; ++j) levels[static_cast<std::size_t>(j)] = wire::get<float>(msg.payload, 4 * static_cast<std::size_t>(j));
  return levels;
}

TEST(Aqsgd, FirstExchangeUsesNuqsgdLevelsAndSendsExactBytes) {
  // bits = 3: s = 3 levels 1/4, 1/2, 1. x = (-3, 4, 0): ||x|| = 5, r = 0.6 and 0.8 lie in [1/2, 1), so each goes
  // to 2.5 or 5 with its sign; 0 is index 0. Wire: 3 levels + norm + ceil(3 x 3 / 8) = 2 code bytes = 18 bytes.
  auto c = make_compressor("aqsgd", {{"bits", std::int64_t{3}}});
  const std::vector<float> x{-3.0f, 4.0f, 0.0f};
  const Compressed msg = c->compress(x, 1);
  ASSERT_EQ(msg.wire_size, 18);
  EXPECT_EQ(levels_of(msg, 3), (std::vector<float>{0.25f, 0.5f, 1.0f}));
  EXPECT_EQ(wire::get<float>(msg.payload, 12), 5.0f);
  const std::uint32_t c0 = bit_codes::get(msg.payload, 128, 3, 0), c1 = bit_codes::get(msg.payload, 128, 3, 1);
  EXPECT_TRUE(c0 == (4u | 2u) || c0 == (4u | 3u)) << c0;  // sign bit 4, index 2 or 3
  EXPECT_TRUE(c1 == 2u || c1 == 3u) << c1;
  EXPECT_EQ(bit_codes::get(msg.payload, 128, 3, 2), 0u);
  std::vector<float> out(3);
  c->decompress(msg, out);
  EXPECT_EQ(out[0], c0 == 6u ? -2.5f : -5.0f);
  EXPECT_EQ(out[1], c1 == 2u ? 2.5f : 5.0f);
  EXPECT_EQ(out[2], 0.0f);
}

TEST(Aqsgd, CoordinateDescentPutsEveryLevelAtItsVarianceMinimiser) {
  // Half-normal magnitudes; after the fit, no value of r between a level's neighbours gives a smaller variance
  // there (the variance is piecewise linear in the level, so its minimum over the interval lies on a data point).
  auto x = testing::gaussian(4000, 12);
  std::vector<float> r;
  for (const float v : x) r.push_back(std::fabs(v) / 4.0f);
  for (float& v : r) v = std::min(v, 1.0f);
  std::sort(r.begin(), r.end());
  std::vector<float> levels = aqsgd_initial_levels(7);
  const double before = variance(r, levels);
  aqsgd_fit(r, levels);
  EXPECT_LT(variance(r, levels), 0.5 * before);
  EXPECT_EQ(levels.back(), 1.0f);
  for (std::size_t j = 0; j + 1 < levels.size(); ++j) {
    const float a = j == 0 ? 0.0f : levels[j - 1], b = levels[j + 1];
    ASSERT_LT(a, levels[j]);
    ASSERT_LT(levels[j], b);
    const double best = variance(r, levels);
    for (const float candidate : r) {
      if (candidate <= a || candidate >= b) continue;
      std::vector<float> moved = levels;
      moved[j] = candidate;
      EXPECT_GE(variance(r, moved), best - 1e-9) << "level " << j << " at " << candidate;
    }
  }
}

TEST(Aqsgd, LevelsAdaptFromOneExchangeToTheNextAndLowerTheVariance) {
  const auto x = testing::gaussian(20000, 4);
  auto c = make_compressor("aqsgd", {{"bits", std::int64_t{4}}});
  const Compressed first = c->compress(x, 7), second = c->compress(x, 7);
  const std::vector<float> start = levels_of(first, 7), adapted = levels_of(second, 7);
  EXPECT_EQ(start, aqsgd_initial_levels(7));
  const float norm = wire::get<float>(first.payload, 28);
  std::vector<float> r;
  for (const float v : x) r.push_back(std::min(std::fabs(v) * (1.0f / norm), 1.0f));  // as the encoder does
  std::sort(r.begin(), r.end());
  std::vector<float> fitted = start;
  aqsgd_fit(r, fitted);
  EXPECT_EQ(adapted, fitted);
  // On N(0, 1) with n = 20000, r is about 1/141 at most: NUQSGD's levels put most of it below 1/64.
  EXPECT_LT(variance(r, adapted), 0.2 * variance(r, start));
  // Another tensor keeps its own levels.
  EXPECT_EQ(levels_of(c->compress(x, 8), 7), start);
}

}  // namespace
}  // namespace dtsim::compressors
