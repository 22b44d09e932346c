// Error feedback layer: telescoping, DGC momentum correction and masking, clipping.
#include <gtest/gtest.h>

#include <cmath>

#include "compressors/error_feedback.hpp"
#include "compressors/registry.hpp"
#include "sim/core/error.hpp"
#include "tests/compressors/test_data.hpp"

namespace dtsim::compressors {
namespace {

using testing::gaussian;

std::vector<float> send(Compressor& c, const std::vector<float>& g, TensorId id) {
  std::vector<float> out(g.size());
  exchange_local(c, g, id, out);
  return out;
}

TEST(ErrorFeedback, ALowRankSecondRoundRunAgainKeepsTheSameResidual) {
  // compression_work times next_round several times on one message: each run must find the compressed tensor and
  // leave the residual e = t - P Q^T as the first did (it once found nothing and divided by a zero row count).
  for (const char* name : {"powersgd", "gradzip"}) {
    auto c = make_error_feedback("residual", make_compressor(name));
    auto* feedback = static_cast<ErrorFeedback*>(c.get());
    const auto x = testing::gaussian(900, 6);
    const Compressed first = c->compress(x, 2);
    const Compressed p = c->reduce(std::span(&first, 1));
    c->next_round(p);
    const std::vector<float> once(feedback->memory(2).begin(), feedback->memory(2).end());
    c->next_round(p);
    const std::vector<float> twice(feedback->memory(2).begin(), feedback->memory(2).end());
    ASSERT_EQ(once.size(), x.size()) << name;
    EXPECT_EQ(once, twice) << name;
  }
}

TEST(ErrorFeedback, ResidualTelescopes) {
  for (const std::string name : {"topk", "efsignsgd", "qsgd", "threshold", "powersgd", "onebit", "polar"}) {
    auto inner = make_compressor(name);
    auto* raw = new ErrorFeedback(std::move(inner), FeedbackKind::kResidual, FeedbackParams{.gamma = 0.5});
    std::unique_ptr<Compressor> c(raw);
    const std::size_t n = 2048;
    std::vector<double> sent(n, 0.0), grads(n, 0.0);
    for (int step = 0; step < 6; ++step) {
      const auto g = gaussian(n, 100 + step);
      const auto out = send(*c, g, 4);
      for (std::size_t i = 0; i < n; ++i) {
        sent[i] += out[i];
        grads[i] += 0.5 * g[i];
      }
    }
    const auto e = raw->memory(4);
    ASSERT_EQ(e.size(), n);
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs(sent[i] + e[i] - grads[i]));
    EXPECT_LT(worst, 1e-4) << name;  // sum sent + residual = sum of (scaled) gradients
  }
}

TEST(ErrorFeedback, DgcAtFullDensityIsMomentumSgdWithoutMaskingAndSgdWithIt) {
  const std::size_t n = 256;
  for (const bool masking : {false, true}) {
    auto c = make_error_feedback("dgc", make_compressor("topk", {{"ratio", 1.0}}), {{"masking", masking}});
    std::vector<float> u(n, 0.0f);
    for (int step = 0; step < 5; ++step) {
      const auto g = gaussian(n, 200 + step);
      const auto out = send(*c, g, 1);
      for (std::size_t i = 0; i < n; ++i) {
        u[i] = 0.9f * u[i] + g[i];
        EXPECT_FLOAT_EQ(out[i], masking ? g[i] : u[i]) << step;
      }
    }
  }
}

TEST(ErrorFeedback, DgcKeepsTheUnsentVelocity) {
  const std::size_t n = 4000;
  auto* raw = new ErrorFeedback(make_compressor("topk", {{"ratio", 0.01}}), FeedbackKind::kDgc, FeedbackParams{});
  std::unique_ptr<Compressor> c(raw);
  const auto g = gaussian(n, 300);
  const auto out = send(*c, g, 2);
  const auto v = raw->memory(2);
  for (std::size_t i = 0; i < n; ++i) {
    if (out[i] != 0.0f) {
      EXPECT_EQ(v[i], 0.0f);
    } else {
      EXPECT_EQ(v[i], g[i]);  // first step: v = u = g
    }
  }
}

TEST(ErrorFeedback, LocalClippingScalesByOneOverSqrtN) {
  auto c = make_error_feedback("none", make_compressor("none"), {{"clip_norm", 2.0}, {"workers", std::int64_t{4}}});
  const std::vector<float> g = {3.0f, 4.0f};  // norm 5 -> clipped to 2 / sqrt(4) = 1
  const auto out = send(*c, g, 1);
  EXPECT_FLOAT_EQ(out[0], 0.6f);
  EXPECT_FLOAT_EQ(out[1], 0.8f);
  const Options bad = {{"momentum", 0.5}};
  EXPECT_THROW(make_error_feedback("residual", make_compressor("none"), bad), core::InputError);
}

}  // namespace
}  // namespace dtsim::compressors
