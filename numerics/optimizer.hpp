#pragma once
/// Optimizers applied to the averaged gradient g (after communication), PyTorch conventions:
///   sgd:       x -= lr g
///   momentum:  v = m v + g;  x -= lr v
///   nesterov:  v = m v + g;  x -= lr (g + m v)      (Sutskever et al., ICML 2013)
///   adam:      m1 = b1 m1 + (1 - b1) g;  m2 = b2 m2 + (1 - b2) g^2;
///              x -= lr (m1 / (1 - b1^t)) / (sqrt(m2 / (1 - b2^t)) + eps)   (Kingma & Ba, ICLR 2015)
/// Weight decay is applied after communication, as in the PowerSGD and DGC reference code: g is
/// replaced by g + wd x before the rule above, so the decay term is never compressed. Learning-rate
/// warm-up: lr_t = lr * min(1, t / warmup_steps) for step t = 1, 2, ...
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dtsim::numerics {

/// Hyper-parameters of every optimizer; each rule reads the ones it needs.
struct OptimizerConfig {
  std::string name = "sgd";          ///< registry name: sgd, momentum, nesterov, adam
  double learning_rate = 0.1;        ///< peak learning rate
  std::int64_t warmup_steps = 0;     ///< linear warm-up length (0 = none)
  double weight_decay = 0.0;         ///< L2 coefficient added after communication
  double momentum = 0.9;             ///< momentum, nesterov: m
  double beta1 = 0.9;                ///< adam: b1
  double beta2 = 0.999;              ///< adam: b2
  double epsilon = 1e-8;             ///< adam: eps
};

/// A stateful update rule for one flat parameter buffer.
class Optimizer {
 public:
  /// Takes a validated configuration.
  explicit Optimizer(const OptimizerConfig& config) : config_(config) {}
  virtual ~Optimizer() = default;
  /// Registry name.
  virtual std::string_view name() const = 0;
  /// Applies one step with averaged gradient `grad` (weight decay and warm-up included).
  void step(std::span<float> params, std::span<const float> grad);
  /// Steps taken so far.
  std::int64_t steps() const { return steps_; }
  /// Learning rate of step t (1-based), warm-up included.
  double learning_rate(std::int64_t t) const;
  /// The momentum buffer v of a rule that keeps one (momentum, nesterov), sized for `parameters` values (zero
  /// before the first step); empty for the others.
  virtual std::span<float> momentum_buffer(std::size_t /*parameters*/) { return {}; }

 protected:
  /// The rule itself on the decayed gradient `g`, with learning rate `lr` at step `t` (1-based).
  virtual void update(std::span<float> params, std::span<const float> g, float lr, std::int64_t t) = 0;
  /// The configuration.
  const OptimizerConfig& config() const { return config_; }

 private:
  OptimizerConfig config_;
  std::int64_t steps_ = 0;
  std::vector<float> decayed_;
};

/// One registered optimizer: name, description, factory.
struct OptimizerEntry {
  std::string_view name;     ///< registry (TOML) name
  std::string_view summary;  ///< one line for docs and error messages
  std::unique_ptr<Optimizer> (*make)(const OptimizerConfig& config);  ///< factory
};

/// Every registered optimizer.
std::span<const OptimizerEntry> optimizer_registry();

/// Builds optimizer `config.name`; InputError on an unknown name or an out-of-range value.
std::unique_ptr<Optimizer> make_optimizer(const OptimizerConfig& config);

}  // namespace dtsim::numerics
