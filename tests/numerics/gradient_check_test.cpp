// Every model's backward pass against central finite differences of its loss.
#include <gtest/gtest.h>

#include <cmath>

#include "numerics/model.hpp"
#include "sim/core/error.hpp"

namespace dtsim::numerics {
namespace {

void check_gradient(const ModelSpec& spec, const InputShape& shape) {
  auto model = make_model(spec, shape, 3);
  compressors::Rng rng(5);
  Matrix x(6, shape.features());
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(rng.normal());
  std::vector<int> labels;
  for (int i = 0; i < 6; ++i) labels.push_back(static_cast<int>(rng.below(static_cast<std::uint64_t>(shape.classes))));
  std::vector<float> grad(model->parameters().size()), scratch(grad.size());
  model->loss_and_gradient(x, labels, grad);
  const double h = 2e-3;
  for (const TensorInfo& t : model->tensors()) {
    const std::int64_t stride = std::max<std::int64_t>(1, t.numel() / 12);
    for (std::int64_t j = 0; j < t.numel(); j += stride) {
      float& p = model->parameters()[static_cast<std::size_t>(t.offset + j)];
      const float saved = p;
      p = static_cast<float>(saved + h);
      const double up = model->loss_and_gradient(x, labels, scratch);
      p = static_cast<float>(saved - h);
      const double down = model->loss_and_gradient(x, labels, scratch);
      p = saved;
      const double numeric = (up - down) / (2 * h);
      const double analytic = grad[static_cast<std::size_t>(t.offset + j)];
      EXPECT_NEAR(analytic, numeric, 2e-3 + 0.02 * std::fabs(numeric)) << spec.name << " " << t.name << "[" << j << "]";
    }
  }
}

TEST(GradientCheck, SoftmaxRegression) { check_gradient({.name = "softmax_regression"}, {1, 1, 7, 3}); }

TEST(GradientCheck, Mlp) { check_gradient({.name = "mlp", .hidden = {9, 5}}, {1, 1, 7, 4}); }

TEST(GradientCheck, Cnn) {
  check_gradient({.name = "cnn", .conv1_channels = 3, .conv2_channels = 4}, {2, 8, 12, 3});
}

TEST(GradientCheck, TensorsDescribeTheBuffer) {
  const auto cnn = make_model({.name = "cnn", .conv1_channels = 8, .conv2_channels = 16}, {1, 28, 28, 10}, 1);
  std::vector<std::string> names;
  std::int64_t offset = 0;
  for (const TensorInfo& t : cnn->tensors()) {
    names.push_back(t.name + " " + std::to_string(t.rows) + "x" + std::to_string(t.cols));
    EXPECT_EQ(t.offset, offset);
    offset += t.numel();
  }
  EXPECT_EQ(names, (std::vector<std::string>{"conv1.weight 8x25", "conv1.bias 8x1", "conv2.weight 16x200",
                                             "conv2.bias 16x1", "fc.weight 10x784", "fc.bias 10x1"}));
  EXPECT_EQ(static_cast<std::int64_t>(cnn->parameters().size()), offset);
  const auto again = make_model({.name = "cnn", .conv1_channels = 8, .conv2_channels = 16}, {1, 28, 28, 10}, 1);
  EXPECT_TRUE(std::equal(cnn->parameters().begin(), cnn->parameters().end(), again->parameters().begin()));
}

struct Batch {
  Matrix x;
  std::vector<int> labels;
};

Batch random_batch(const InputShape& shape, Eigen::Index examples) {
  compressors::Rng rng(8);
  Batch b{Matrix(examples, shape.features()), {}};
  for (Eigen::Index i = 0; i < b.x.size(); ++i) b.x.data()[i] = static_cast<float>(rng.normal());
  for (Eigen::Index i = 0; i < examples; ++i)
    b.labels.push_back(static_cast<int>(rng.below(static_cast<std::uint64_t>(shape.classes))));
  return b;
}

TEST(SecondMoment, MlpClosedFormIsTheSumOverExamplesOfTheirSquaredShares) {
  // dense_second_moment against Model's generic loop (one backward pass per example; fp32 sums in another order, so
  // within 1e-5), and the same gradient.
  for (const ModelSpec& spec : {ModelSpec{.name = "softmax_regression"}, ModelSpec{.name = "mlp", .hidden = {9, 5}}}) {
    const InputShape shape{1, 1, 7, 4};
    auto model = make_model(spec, shape, 3);
    const Batch b = random_batch(shape, 6);
    const std::size_t n = model->parameters().size();
    std::vector<float> grad(n), m(n), loop_grad(n), loop_m(n), plain(n);
    const double loss = model->loss_gradient_and_second_moment(b.x, b.labels, grad, m);
    const double loop_loss = model->Model::loss_gradient_and_second_moment(b.x, b.labels, loop_grad, loop_m);
    EXPECT_EQ(loss, model->loss_and_gradient(b.x, b.labels, plain));
    EXPECT_EQ(loss, loop_loss);
    EXPECT_EQ(grad, plain);
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_NEAR(m[i], loop_m[i], 1e-5 * loop_m[i] + 1e-12) << spec.name << " " << i;
      EXPECT_GE(6 * m[i], grad[i] * grad[i] * (1 - 1e-5)) << i;  // B sum (g_z / B)^2 >= (sum g_z / B)^2
    }
  }
}

TEST(SecondMoment, OfOneExampleItIsTheSquaredGradientForTheCnnToo) {
  const InputShape shape{2, 8, 12, 3};
  auto cnn = make_model({.name = "cnn", .conv1_channels = 3, .conv2_channels = 4}, shape, 3);
  const Batch b = random_batch(shape, 1);
  std::vector<float> grad(cnn->parameters().size()), m(grad.size());
  cnn->loss_gradient_and_second_moment(b.x, b.labels, grad, m);
  for (std::size_t i = 0; i < grad.size(); ++i) EXPECT_EQ(m[i], grad[i] * grad[i]) << i;
}

TEST(GradientCheck, ModelErrors) {
  try {
    make_model({.name = "resnet"}, {1, 1, 4, 2}, 1);
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_STREQ(e.what(), "unknown model 'resnet'; known: softmax_regression, mlp, cnn");
  }
  try {
    make_model({.name = "cnn"}, {3, 30, 30, 10}, 1);
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_STREQ(e.what(),
                 "cnn input of 30 x 30 pixels cannot be pooled twice; image height and width multiples of 4 "
                 "(MNIST 28 x 28, CIFAR-10 32 x 32)");
  }
}

}  // namespace
}  // namespace dtsim::numerics
