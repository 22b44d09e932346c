// exp, log and log1p from IEEE basic operations (compressors/portable_math.hpp), which the device kernels use so
// that every launcher gives the same bits: they agree with libm to a few ulp.
#include <gtest/gtest.h>

#include <cmath>

#include "compressors/portable_math.hpp"
#include "compressors/rng.hpp"

namespace dtsim::compressors {
namespace {

TEST(PortableMath, ExpAndLog1pAgreeWithLibmToAFewUlp) {
  Rng rng(5);
  for (int i = 0; i < 20000; ++i) {
    const double x = -740.0 + 1449.0 * rng.uniform();
    const double want = std::exp(x);
    ASSERT_NEAR(portable_exp(x), want, 1e-15 * want + 1e-320) << x;
    const double y = rng.uniform();
    ASSERT_NEAR(portable_log1p(y), std::log1p(y), 1e-15 * std::log1p(y) + 1e-300) << y;
  }
  EXPECT_EQ(portable_exp(0.0), 1.0);
  EXPECT_EQ(portable_exp(710.0), HUGE_VAL);
  EXPECT_EQ(portable_exp(-746.0), 0.0);
  EXPECT_EQ(portable_log1p(0.0), 0.0);
  EXPECT_NEAR(portable_log1p(1.0), std::log(2.0), 1e-15);
}

TEST(PortableMath, LogBySeriesAgreesWithLibmAndIsPortableLog) {
  Rng rng(6);
  for (int i = 0; i < 20000; ++i) {
    const double x = std::exp(-700.0 + 1400.0 * rng.uniform());
    ASSERT_NEAR(log_by_series(x), std::log(x), 1e-15 * std::fabs(std::log(x)) + 1e-15) << x;
    ASSERT_EQ(log_by_series(x), portable_log(x)) << x;
  }
  EXPECT_NEAR(log_by_series(1e-310), std::log(1e-310), 1e-12);  // subnormal
  EXPECT_EQ(log_by_series(1.0), 0.0);
  EXPECT_EQ(log_by_series(0.0), -HUGE_VAL);
  EXPECT_EQ(log_by_series(HUGE_VAL), HUGE_VAL);
  EXPECT_TRUE(std::isnan(log_by_series(-1.0)));
  EXPECT_TRUE(std::isnan(log_by_series(std::nan(""))));
}


}  // namespace
}  // namespace dtsim::compressors
