// adacomm, AdaComm (Wang & Joshi, "Adaptive Communication Strategies to Achieve the Best Error-Runtime
// Trade-off in Local-Update SGD", SysML 2019): local SGD whose period adapts to the training loss. Training is
// cut into intervals; the period of interval l is tau_l = ceil(sqrt(F(x_l) / F(x_0)) tau_0), F(x_l) the loss
// when the interval starts and F(x_0) the initial loss: infrequent averaging while the loss is high, more
// frequent as it falls. The paper measures intervals in wall-clock time (T0); dtsim's numerics mode decides the
// periods before the time line exists, so an interval is `interval` iterations, and the loss is the workers'
// mean mini-batch loss of the iteration that starts a period (the averaged model's, on their mini-batches).
// The periods come from numerics mode (SyncPolicy::decided); the time line follows the same decisions.
#include <algorithm>
#include <cmath>
#include <utility>

#include "sim/sync/periodic_scheme.hpp"

namespace dtsim::sync {
namespace {

/// The last period of `decided` (the distance between its last two exchanges, from iteration -1 for the first).
int last_period(const std::vector<bool>& decided, int fallback) {
  int last = -1, before = -1;
  for (int i = 0; i < static_cast<int>(decided.size()); ++i)
    if (decided[static_cast<std::size_t>(i)]) before = std::exchange(last, i);
  return last < 0 ? fallback : last - before;
}

class AdaComm final : public Scheme {
 public:
  std::string title() const override { return "AdaComm"; }
  std::vector<SchemeOption> options() const override {
    return {{"period", "integer", "4", "the first period, tau_0 (iterations per model average)", 1, 100000,
             &SyncPolicy::period},
            {"interval", "integer", "required", "iterations between period updates (the paper's T0, in iterations)", 1,
             100000, nullptr, "the length of its intervals", "iterations"}};
  }
  std::string describe(const SyncPolicy& p) const override {
    return "adacomm (first period " + std::to_string(p.period) + ", updated every " +
           std::to_string(static_cast<int>(p.parameter("interval"))) + " iterations)";
  }
  bool exchanges(const SyncPolicy& p, int iteration) const override {
    if (!p.decided) return ends_period(iteration, 0, p.period);
    const std::vector<bool>& d = *p.decided;
    if (iteration < static_cast<int>(d.size())) return d[static_cast<std::size_t>(iteration)];
    int last = static_cast<int>(d.size()) - 1;
    while (last >= 0 && !d[static_cast<std::size_t>(last)]) --last;
    return ends_period(iteration, last + 1, last_period(d, p.period));
  }
  bool averages_models(const SyncPolicy&, int) const override { return true; }
  Meeting meeting() const override { return Meeting::kModels; }
  std::optional<int> repeating_period(const SyncPolicy& p) const override {
    return p.decided ? last_period(*p.decided, p.period) : p.period;
  }
  LossRule loss_rule(const SyncPolicy& p) const override {
    struct State {
      double first_loss = 0;
      int period = 0;
      int next_exchange = 0;     // the iteration that ends the current period
      int next_update = 0;       // the first iteration of the next interval
    };
    const int tau0 = p.period;
    const int interval = static_cast<int>(p.parameter("interval"));
    return [tau0, interval, s = State{0, tau0, tau0 - 1, interval}](int iteration, double loss) mutable {
      if (iteration == 0) s.first_loss = loss;
      const bool starts_period = iteration > 0 && iteration == s.next_exchange + 1;
      if (starts_period) {
        if (const double ratio = loss / s.first_loss; iteration >= s.next_update && std::isfinite(ratio)) {
          s.period = static_cast<int>(std::clamp(std::ceil(std::sqrt(ratio) * tau0), 1.0, 100000.0));
          s.next_update = iteration + interval;
        }
        s.next_exchange = iteration + s.period - 1;
      }
      return iteration == s.next_exchange;
    };
  }
};

}  // namespace

const Scheme& adacomm_scheme() {
  static const AdaComm scheme;
  return scheme;
}

}  // namespace dtsim::sync
