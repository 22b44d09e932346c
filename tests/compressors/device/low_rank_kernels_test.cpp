// powersgd's and gradzip's device kernels through the CPU launcher: the two rounds, the warm start and residual error
// feedback agree with the host compressor (Eigen) to fp32 rounding, and a rank-r matrix comes back whole.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "compressors/device/device_compressor.hpp"
#include "compressors/error_feedback.hpp"
#include "compressors/registry.hpp"
#include "tests/compressors/device/device_test_data.hpp"

namespace dtsim::compressors::device {
namespace {

// |a - b| <= tol max |b| element by element (the kernels and Eigen add in different orders).
void expect_close(std::span<const float> a, std::span<const float> b, float tol, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  float scale = 0.0f;
  for (const float v : b) scale = std::max(scale, std::fabs(v));
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], tol * scale) << what << " element " << i;
}

std::span<const float> floats(const Compressed& msg) {
  return {reinterpret_cast<const float*>(msg.payload.data()), msg.payload.size() / 4};
}

struct Shape {
  std::int64_t rows, cols;  // 0 x 0: not declared (the padded square)
};

TEST(LowRankKernelsOnCpu, PowerSgdAndGradZipRoundsAndExpansionFollowTheHostOverWarmStartedSteps) {
  for (const std::string name : {"powersgd", "gradzip"}) {
    for (const std::int64_t rank : {std::int64_t{1}, std::int64_t{4}}) {
      for (const Shape shape : {Shape{64, 64}, Shape{17, 241}, Shape{300, 20}, Shape{0, 0}}) {
        const std::size_t n = shape.rows > 0 ? static_cast<std::size_t>(shape.rows * shape.cols) : 70001;
        for (const char* feedback : {"none", "residual"}) {
          const Options options{{"rank", rank}, {"seed", std::int64_t{3}}};
          auto host = make_error_feedback(feedback, make_compressor(name, options));
          auto dev = make_device_compressor("cpu", name, options, feedback);
          if (shape.rows > 0) {
            host->set_shape(1, shape.rows, shape.cols);
            dev->set_shape(1, shape.rows, shape.cols);
          }
          for (int step = 0; step < 3; ++step) {
            const std::string what = name + " rank " + std::to_string(rank) + " " + std::to_string(shape.rows) + " x " +
                                     std::to_string(shape.cols) + " " + feedback + " step " + std::to_string(step);
            const std::vector<float> x = testing::gaussian(n, 40 + static_cast<std::uint64_t>(step));
            Compressed a = host->compress(x, 1), b = dev->compress(x, 1);
            ASSERT_EQ(b.how, Aggregation::kLowRank) << what;
            ASSERT_EQ(b.wire_size, a.wire_size) << what;
            expect_close(floats(b), floats(a), 1e-4f, what + " P");
            a = host->next_round(host->reduce(std::span<const Compressed>(&a, 1)));
            b = dev->next_round(dev->reduce(std::span<const Compressed>(&b, 1)));
            ASSERT_EQ(b.round, 1) << what;
            ASSERT_EQ(b.wire_size, a.wire_size) << what;
            expect_close(b.shared, a.shared, 1e-4f, what + " P^");
            expect_close(floats(b), floats(a), 1e-4f, what + " Q");
            std::vector<float> a_out(n), b_out(n);
            host->decompress(a, a_out);
            dev->decompress(b, b_out);
            expect_close(b_out, a_out, 1e-4f, what + " expansion");
          }
        }
      }
    }
  }
}

TEST(LowRankKernelsOnCpu, PowerSgdRecoversARankOneMatrixInOneStep) {
  // M = a b^T: P = M q = a (b . q), P^ = a / |a|, Q = M^T P^ = b |a|, P^ Q^T = a b^T.
  const std::int64_t rows = 40, cols = 30;
  std::vector<float> x(static_cast<std::size_t>(rows * cols));
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t c = 0; c < cols; ++c) x[static_cast<std::size_t>(i * cols + c)] = (1.0f + 0.25f * static_cast<float>(i % 7)) * (static_cast<float>(c % 5) - 2.0f);
  auto dev = make_device_compressor("cpu", "powersgd", {});
  dev->set_shape(2, rows, cols);
  std::vector<float> out(x.size());
  exchange_local(*dev, x, 2, out);
  expect_close(out, x, 1e-5f, "rank one");
}

TEST(LowRankKernelsOnCpu, PowerSgdSendsATensorThatWouldNotShrinkAsItIs) {
  for (const std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{9}}) {
    auto host = make_compressor("powersgd", {{"rank", std::int64_t{2}}});
    auto dev = make_device_compressor("cpu", "powersgd", {{"rank", std::int64_t{2}}});
    const std::vector<float> x = testing::device_inputs(n, n)[1];
    SCOPED_TRACE("n " + std::to_string(n));
    testing::expect_same_exchange(*host, *dev, x, 4);
    EXPECT_EQ(dev->compress(x, 4).how, Aggregation::kAllReduce);
  }
}

}  // namespace
}  // namespace dtsim::compressors::device
