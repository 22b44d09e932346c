// local_sgd (Stich, ICLR 2019; Lin et al., ICLR 2020): iterations compute locally; every `period`-th averages
// the models (same bytes as a gradient exchange).
#include "sim/sync/periodic_scheme.hpp"

namespace dtsim::sync {
namespace {

class LocalSgd final : public PeriodicScheme {
 public:
  std::string title() const override { return "local SGD"; }
  std::vector<SchemeOption> options() const override {
    return {{"period", "integer", "4", "iterations per model average (tau)", 1, 100000, &SyncPolicy::period}};
  }
  std::string describe(const SyncPolicy& p) const override {
    return "local_sgd (period " + std::to_string(p.period) + ")";
  }
};

}  // namespace

const Scheme& local_sgd_scheme() {
  static const LocalSgd scheme;
  return scheme;
}

}  // namespace dtsim::sync
