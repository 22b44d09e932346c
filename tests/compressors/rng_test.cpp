// The portable generator: known answers, moments, determinism.
#include <gtest/gtest.h>

#include <cmath>

#include "compressors/rng.hpp"

namespace dtsim::compressors {
namespace {

TEST(Rng, SplitMixKnownAnswer) {
  std::uint64_t state = 0;
  EXPECT_EQ(splitmix64(state), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(splitmix64(state), 0x6e789e6aa1b965f4ULL);
}

TEST(Rng, SameSeedSameStreamOtherSeedOtherStream) {
  Rng a(42), b(42), c(43);
  for (int i = 0; i < 100; ++i) {
    const auto x = a.next();
    EXPECT_EQ(x, b.next());
    EXPECT_NE(x, c.next());
  }
  EXPECT_NE(stream_seed(1, 2, 3), stream_seed(1, 3, 2));
}

TEST(Rng, UniformAndNormalMoments) {
  Rng rng(7);
  const int n = 200000;
  double su = 0, sn = 0, sn2 = 0;
  for (int i = 0; i < n; ++i) {
    const double u = rng.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    su += u;
    const double z = rng.normal();
    sn += z;
    sn2 += z * z;
  }
  EXPECT_NEAR(su / n, 0.5, 5 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(sn / n, 0.0, 5 * std::sqrt(1.0 / n));
  EXPECT_NEAR(sn2 / n, 1.0, 5 * std::sqrt(2.0 / n));
  std::vector<int> hist(10, 0);
  for (int i = 0; i < 100000; ++i) ++hist[rng.below(10)];
  for (const int h : hist) EXPECT_NEAR(h, 10000, 500);
}

TEST(Rng, PortableLogMatchesTheLibrary) {
  for (const double x : {1e-300, 4.9e-324, 1e-5, 0.3, 1.0, 1.5, 2.0, 10.0, 12345.678, 1e300}) {
    EXPECT_NEAR(portable_log(x), std::log(x), 4e-16 * std::max(1.0, std::fabs(std::log(x)))) << x;
  }
}

TEST(Rng, UniformStreamLanesDiffer) {
  UniformStream s(5), t(5);
  std::vector<std::uint32_t> a(64), b(64);
  s.fill(a);
  t.fill(b);
  EXPECT_EQ(a, b);
  EXPECT_NE(a[0], a[1]);
  s.fill(b);
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace dtsim::compressors
