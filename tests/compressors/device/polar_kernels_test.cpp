// polar's device kernels through the CPU launcher: successive cancellation on the device reaches the thesis'
// distortion (the host kernel's law), and the host compressor expands the device's payload to the same bits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "compressors/device/device_compressor.hpp"
#include "compressors/polar_code.hpp"
#include "compressors/registry.hpp"
#include "compressors/rng.hpp"
#include "tests/compressors/device/device_test_data.hpp"

namespace dtsim::compressors::device {
namespace {

// Fraction of sign bits the device's polar code flips on `blocks` blocks of random signs.
double device_distortion(std::int64_t block, double rate, std::int64_t blocks, std::uint64_t seed) {
  const Options options{{"block", block}, {"rate", rate}, {"seed", static_cast<std::int64_t>(seed)}};
  auto dev = make_device_compressor("cpu", "polar", options);
  auto host = make_compressor("polar", options);
  Rng rng(seed);
  std::vector<float> x(static_cast<std::size_t>(block * blocks));
  for (float& v : x) v = rng.next() >> 63 ? -1.0f : 1.0f;
  const Compressed msg = dev->compress(x, 3);
  std::vector<float> out(x.size()), host_out(x.size());
  dev->decompress(msg, out);
  host->decompress(msg, host_out);
  EXPECT_EQ(0, std::memcmp(out.data(), host_out.data(), x.size() * sizeof(float))) << "host expansion";
  std::size_t flips = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(std::fabs(out[i]), 1.0f);  // scale = mean |x| = 1
    flips += (out[i] < 0) != (x[i] < 0);
  }
  return static_cast<double>(flips) / static_cast<double>(x.size());
}

TEST(PolarKernelsOnCpu, SuccessiveCancellationReachesTheThesisDistortion) {
  // compressors/polar_test.cpp's 1000-block reproduction of the thesis table at 5 dB (N = 256 and 1024).
  constexpr double kRates[] = {0.1, 0.3, 0.5, 0.7, 0.9};
  const struct {
    std::int64_t block;
    double d[5];
  } rows[] = {{256, {0.3647, 0.2239, 0.1377, 0.0733, 0.0252}}, {1024, {0.3583, 0.2149, 0.1315, 0.0687, 0.0208}}};
  const std::int64_t blocks = 24;
  for (const auto& row : rows)
    for (std::size_t r = 0; r < 5; ++r) {
      const double d = device_distortion(row.block, kRates[r], blocks, 100 + r);
      const double sd = std::sqrt(d * (1 - d) / static_cast<double>(blocks * row.block));
      EXPECT_NEAR(d, row.d[r], 4.5 * sd) << "N=" << row.block << " R=" << kRates[r];
      EXPECT_GT(d, shannon_distortion(kRates[r])) << "below the rate-distortion bound";
    }
}

TEST(PolarKernelsOnCpu, PayloadHasTheHostLayoutForEveryLength) {
  for (const std::size_t n : testing::kDeviceSizes) {
    if (n > 70001) continue;  // sequential within a block: the largest size adds nothing but time
    for (const auto& x : testing::device_inputs(n, n)) {
      auto dev = make_device_compressor("cpu", "polar", {{"block", std::int64_t{64}}, {"rate", 0.3}});
      auto host = make_compressor("polar", {{"block", std::int64_t{64}}, {"rate", 0.3}});
      const Compressed a = host->compress(x, 1), b = dev->compress(x, 1);
      SCOPED_TRACE("n " + std::to_string(n));
      ASSERT_EQ(b.payload.size(), a.payload.size());
      float host_scale = 0.0f, scale = 0.0f;
      std::memcpy(&host_scale, a.payload.data(), 4);
      std::memcpy(&scale, b.payload.data(), 4);
      if (std::isfinite(host_scale)) {
        EXPECT_NEAR(scale, host_scale, 1e-6f * host_scale);  // sums in another order
      } else {
        EXPECT_EQ(std::isnan(scale), std::isnan(host_scale));
      }
      std::vector<float> out(n), host_out(n);
      dev->decompress(b, out);
      host->decompress(b, host_out);
      ASSERT_EQ(0, std::memcmp(out.data(), host_out.data(), n * sizeof(float)));
    }
  }
}

}  // namespace
}  // namespace dtsim::compressors::device
