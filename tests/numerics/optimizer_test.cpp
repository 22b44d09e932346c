// Optimizers: one step against hand computation, warm-up, weight decay, validation.
#include <gtest/gtest.h>

#include <cmath>

#include "numerics/optimizer.hpp"
#include "sim/core/error.hpp"

namespace dtsim::numerics {
namespace {

std::vector<float> steps(const OptimizerConfig& config, std::vector<float> x, const std::vector<std::vector<float>>& grads) {
  auto optimizer = make_optimizer(config);
  for (const auto& g : grads) optimizer->step(x, g);
  return x;
}

TEST(Optimizer, AdamFirstStepMovesByLearningRateTimesSign) {
  // m1 = 0.1 g, m2 = 0.001 g^2; bias-corrected: g and g^2; step = lr g / (|g| + eps).
  const OptimizerConfig c{.name = "adam", .learning_rate = 0.01};
  const auto x = steps(c, {1.0f, -2.0f}, {{0.5f, -4.0f}});
  EXPECT_FLOAT_EQ(x[0], 1.0f - 0.01f * 0.5f / (0.5f + 1e-8f));
  EXPECT_FLOAT_EQ(x[1], -2.0f + 0.01f * 4.0f / (4.0f + 1e-8f));
  // Two steps, g = 1 then g = 3, computed by hand in double from the formulas.
  const auto y = steps(c, {0.0f}, {{1.0f}, {3.0f}});
  const double m1 = 0.9 * 0.1 + 0.1 * 3.0, m2 = 0.999 * 0.001 + 0.001 * 9.0;
  const double expected = -0.01 - 0.01 * (m1 / (1 - 0.81)) / (std::sqrt(m2 / (1 - 0.998001)) + 1e-8);
  EXPECT_NEAR(y[0], expected, 1e-6 * std::fabs(expected));  // float arithmetic
}

TEST(Optimizer, NesterovAndMomentumTwoSteps) {
  // v1 = g1 = 1; v2 = 0.9 + 2 = 2.9. momentum: x = -lr (1 + 2.9); nesterov: x = -lr (1 + 0.9) - lr (2 + 0.9 * 2.9).
  const auto momentum = steps({.name = "momentum", .learning_rate = 0.1}, {0.0f}, {{1.0f}, {2.0f}});
  const auto nesterov = steps({.name = "nesterov", .learning_rate = 0.1}, {0.0f}, {{1.0f}, {2.0f}});
  EXPECT_FLOAT_EQ(momentum[0], -0.1f * 3.9f);
  EXPECT_FLOAT_EQ(nesterov[0], -0.1f * 1.9f - 0.1f * (2.0f + 0.9f * 2.9f));
}

TEST(Optimizer, WarmupAndWeightDecay) {
  const OptimizerConfig c{.name = "sgd", .learning_rate = 0.4, .warmup_steps = 4, .weight_decay = 0.5};
  auto optimizer = make_optimizer(c);
  EXPECT_DOUBLE_EQ(optimizer->learning_rate(1), 0.1);
  EXPECT_DOUBLE_EQ(optimizer->learning_rate(4), 0.4);
  EXPECT_DOUBLE_EQ(optimizer->learning_rate(9), 0.4);
  std::vector<float> x = {2.0f};
  optimizer->step(x, std::vector<float>{1.0f});  // g + wd x = 2, lr 0.1
  EXPECT_FLOAT_EQ(x[0], 1.8f);
}

TEST(Optimizer, Errors) {
  try {
    make_optimizer({.name = "lamb"});
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_STREQ(e.what(), "unknown optimizer 'lamb'; known: sgd, momentum, nesterov, adam");
  }
  EXPECT_THROW(make_optimizer({.name = "sgd", .learning_rate = 0.0}), core::InputError);
  EXPECT_THROW(make_optimizer({.name = "adam", .beta2 = 1.0}), core::InputError);
}

}  // namespace
}  // namespace dtsim::numerics
