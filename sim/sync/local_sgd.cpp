// local_sgd (Stich, ICLR 2019; Lin et al., ICLR 2020): iterations compute locally; every `period`-th averages
// the models (same bytes as a gradient exchange).
#include "sim/sync/local_periods.hpp"
#include "sim/sync/scheme.hpp"

namespace dtsim::sync {
namespace {

class LocalSgd final : public Scheme {
 public:
  std::string title() const override { return "local SGD"; }
  std::vector<SchemeOption> options() const override {
    return {{"period", "integer", "4", "iterations per model average (tau)", 1, 100000, &SyncPolicy::period}};
  }
  std::string describe(const SyncPolicy& p) const override {
    return "local_sgd (period " + std::to_string(p.period) + ")";
  }
  bool exchanges(const SyncPolicy& p, int iteration) const override { return ends_period(iteration, 0, p.period); }
  Meeting meeting() const override { return Meeting::kModels; }
  int whole_iterations(const SyncPolicy& p, int iterations) const override {
    return whole_periods(iterations, 0, p.period);
  }
  std::optional<int> repeating_period(const SyncPolicy& p) const override { return p.period; }
};

}  // namespace

const Scheme& local_sgd_scheme() {
  static const LocalSgd scheme;
  return scheme;
}

}  // namespace dtsim::sync
