// The Polar-code lossy source coder against the distortion table of the seed-002 thesis.
#include <gtest/gtest.h>

#include <cmath>

#include "compressors/polar_code.hpp"

namespace dtsim::compressors {
namespace {

constexpr double kRates[] = {0.1, 0.3, 0.5, 0.7, 0.9};
constexpr std::size_t kLengths[] = {256, 512, 1024, 2048};
// Thesis table (3 blocks per cell) and the extraction's 1000-block reproduction at 5 dB.
constexpr double kThesis[4][5] = {{0.37369792, 0.24088542, 0.14453125, 0.07942708, 0.02604167},
                                  {0.36653646, 0.21614583, 0.13151042, 0.07291667, 0.02213542},
                                  {0.3531901, 0.21386719, 0.13151042, 0.06445312, 0.02018229},
                                  {0.35579427, 0.21809896, 0.12906901, 0.06852214, 0.02001953}};
constexpr double kReproduced[4][5] = {{0.3647, 0.2239, 0.1377, 0.0733, 0.0252},
                                      {0.3633, 0.2185, 0.1337, 0.0705, 0.0220},
                                      {0.3583, 0.2149, 0.1315, 0.0687, 0.0208},
                                      {0.3566, 0.2161, 0.1303, 0.0668, 0.0202}};

double distortion(std::size_t n, double rate, PolarDesign design, std::size_t blocks, std::uint64_t seed) {
  PolarCode code(n, static_cast<std::size_t>(std::lround(rate * static_cast<double>(n))), design, 5.0);
  Rng rng(seed);
  std::vector<std::uint8_t> y(n), u(code.k()), x(n);
  std::size_t flips = 0;
  for (std::size_t b = 0; b < blocks; ++b) {
    for (auto& bit : y) bit = static_cast<std::uint8_t>(rng.next() >> 63);
    code.compress(y, rng, u);
    code.decompress(u, x);
    for (std::size_t i = 0; i < n; ++i) flips += x[i] != y[i];
  }
  return static_cast<double>(flips) / static_cast<double>(n * blocks);
}

TEST(Polar, ReproducesTheThesisDistortionTable) {
  const std::size_t blocks = 24;
  double chi2 = 0.0;
  for (std::size_t a = 0; a < 4; ++a) {
    for (std::size_t b = 0; b < 5; ++b) {
      const std::size_t n = kLengths[a];
      const double d = distortion(n, kRates[b], PolarDesign::kPyPolar, blocks, 1000 * a + b);
      const double ours_sd = std::sqrt(d * (1 - d) / static_cast<double>(blocks * n));
      const double thesis_sd = std::sqrt(d * (1 - d) / static_cast<double>(3 * n));
      EXPECT_NEAR(d, kReproduced[a][b], 4.5 * ours_sd) << "N=" << n << " R=" << kRates[b];
      EXPECT_NEAR(kThesis[a][b], d, 4.5 * std::hypot(ours_sd, thesis_sd)) << "N=" << n << " R=" << kRates[b];
      EXPECT_GT(d, shannon_distortion(kRates[b])) << "below the rate-distortion bound";
      chi2 += std::pow((kThesis[a][b] - d) / std::hypot(ours_sd, thesis_sd), 2);
    }
  }
  EXPECT_LT(chi2, 45.0);  // 20 cells; the extraction found 4.5 for 5 dB
}

TEST(Polar, TextbookDesignIsNearTheBound) {
  const double d = distortion(1024, 0.5, PolarDesign::kBsc, 20, 7);
  EXPECT_NEAR(d, 0.1375, 4.5 * std::sqrt(0.1375 * 0.8625 / (20 * 1024.0)));
}

TEST(Polar, FrozenSetAndTransform) {
  PolarCode code(8, 4, PolarDesign::kPyPolar, 5.0);
  // Bhattacharyya order of N = 8: the most reliable four are 7, 6, 5, 3.
  EXPECT_EQ(code.frozen(), (std::vector<std::uint8_t>{1, 1, 1, 0, 1, 0, 0, 0}));
  std::vector<std::uint8_t> x(8);
  code.decompress(std::vector<std::uint8_t>{1, 0, 0, 0}, x);  // u_3 = 1: row 3 of F^(x)3
  EXPECT_EQ(x, (std::vector<std::uint8_t>{1, 1, 1, 1, 0, 0, 0, 0}));
  EXPECT_NEAR(shannon_distortion(0.5), 0.1100, 1e-4);
}

}  // namespace
}  // namespace dtsim::compressors
