#include "numerics/optimizer.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"

namespace dtsim::numerics {

double Optimizer::learning_rate(std::int64_t t) const {
  if (config_.warmup_steps <= 0) return config_.learning_rate;
  return config_.learning_rate * std::min(1.0, static_cast<double>(t) / static_cast<double>(config_.warmup_steps));
}

void Optimizer::step(std::span<float> params, std::span<const float> grad) {
  DTSIM_CHECK(params.size() == grad.size(), "optimizer step: gradient and parameters differ in size");
  const std::int64_t t = ++steps_;
  const auto lr = static_cast<float>(learning_rate(t));
  if (config_.weight_decay == 0.0) {
    update(params, grad, lr, t);
    return;
  }
  decayed_.resize(grad.size());
  const auto wd = static_cast<float>(config_.weight_decay);
  for (std::size_t i = 0; i < grad.size(); ++i) decayed_[i] = grad[i] + wd * params[i];
  update(params, decayed_, lr, t);
}

namespace {

class Sgd final : public Optimizer {
 public:
  using Optimizer::Optimizer;
  std::string_view name() const override { return "sgd"; }
  void update(std::span<float> x, std::span<const float> g, float lr, std::int64_t) override {
    for (std::size_t i = 0; i < x.size(); ++i) x[i] -= lr * g[i];
  }
};

class Momentum final : public Optimizer {
 public:
  Momentum(const OptimizerConfig& config, bool nesterov) : Optimizer(config), nesterov_(nesterov) {}
  std::string_view name() const override { return nesterov_ ? "nesterov" : "momentum"; }
  std::span<float> momentum_buffer(std::size_t parameters) override {
    v_.resize(parameters, 0.0f);
    return v_;
  }
  void update(std::span<float> x, std::span<const float> g, float lr, std::int64_t) override {
    v_.resize(x.size(), 0.0f);
    const auto m = static_cast<float>(config().momentum);
    for (std::size_t i = 0; i < x.size(); ++i) {
      v_[i] = m * v_[i] + g[i];
      x[i] -= lr * (nesterov_ ? g[i] + m * v_[i] : v_[i]);
    }
  }

 private:
  bool nesterov_;
  std::vector<float> v_;
};

class Adam final : public Optimizer {
 public:
  using Optimizer::Optimizer;
  std::string_view name() const override { return "adam"; }
  void update(std::span<float> x, std::span<const float> g, float lr, std::int64_t) override {
    m1_.resize(x.size(), 0.0f);
    m2_.resize(x.size(), 0.0f);
    b1_power_ *= config().beta1;
    b2_power_ *= config().beta2;
    const auto b1 = static_cast<float>(config().beta1), b2 = static_cast<float>(config().beta2);
    const auto a1 = static_cast<float>(1.0 - config().beta1), a2 = static_cast<float>(1.0 - config().beta2);
    const auto c1 = static_cast<float>(1.0 / (1.0 - b1_power_)), c2 = static_cast<float>(1.0 / (1.0 - b2_power_));
    const auto eps = static_cast<float>(config().epsilon);
    for (std::size_t i = 0; i < x.size(); ++i) {
      m1_[i] = b1 * m1_[i] + a1 * g[i];
      m2_[i] = b2 * m2_[i] + a2 * g[i] * g[i];
      x[i] -= lr * (m1_[i] * c1) / (std::sqrt(m2_[i] * c2) + eps);
    }
  }

 private:
  std::vector<float> m1_, m2_;
  double b1_power_ = 1.0, b2_power_ = 1.0;
};

void check_range(const char* key, double value, double lo, double hi, bool lo_open) {
  if (!(lo_open ? value > lo : value >= lo) || !(value < hi) || !std::isfinite(value)) {
    throw core::InputError("optimizer " + std::string(key) + " " + std::to_string(value) + " is out of range",
                           std::string(key) + " in " + (lo_open ? "(" : "[") + std::to_string(lo) + ", " +
                               std::to_string(hi) + ")");
  }
}

void check_config(const OptimizerConfig& c) {
  check_range("learning_rate", c.learning_rate, 0.0, 1e30, true);
  check_range("weight_decay", c.weight_decay, 0.0, 1e30, false);
  check_range("momentum", c.momentum, 0.0, 1.0, false);
  check_range("beta1", c.beta1, 0.0, 1.0, false);
  check_range("beta2", c.beta2, 0.0, 1.0, false);
  check_range("epsilon", c.epsilon, 0.0, 1e30, true);
  if (c.warmup_steps < 0) {
    throw core::InputError("optimizer warmup_steps " + std::to_string(c.warmup_steps) + " is negative",
                           "warmup_steps >= 0");
  }
}

std::unique_ptr<Optimizer> make_sgd(const OptimizerConfig& c) { return std::make_unique<Sgd>(c); }
std::unique_ptr<Optimizer> make_momentum(const OptimizerConfig& c) { return std::make_unique<Momentum>(c, false); }
std::unique_ptr<Optimizer> make_nesterov(const OptimizerConfig& c) { return std::make_unique<Momentum>(c, true); }
std::unique_ptr<Optimizer> make_adam(const OptimizerConfig& c) { return std::make_unique<Adam>(c); }

constexpr OptimizerEntry kOptimizers[] = {
    {"sgd", "plain SGD", &make_sgd},
    {"momentum", "heavy-ball momentum", &make_momentum},
    {"nesterov", "Nesterov momentum (PyTorch form)", &make_nesterov},
    {"adam", "Adam with bias correction", &make_adam},
};

}  // namespace

std::span<const OptimizerEntry> optimizer_registry() { return kOptimizers; }

std::unique_ptr<Optimizer> make_optimizer(const OptimizerConfig& config) {
  std::vector<std::string> known;
  for (const OptimizerEntry& entry : kOptimizers) {
    if (entry.name == config.name) {
      check_config(config);
      return entry.make(config);
    }
    known.emplace_back(entry.name);
  }
  throw core::unknown_name("optimizer", config.name, known);
}

}  // namespace dtsim::numerics
