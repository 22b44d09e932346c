// local_sgd (Stich, ICLR 2019; Lin et al., ICLR 2020): iterations compute locally; every `period`-th averages
// the models (same bytes as a gradient exchange). With average_momentum, Momentum local SGD (Yu, Jin & Yang, "On
// the Linear Speedup Analysis of Communication Efficient Momentum SGD for Distributed Non-Convex Optimization",
// ICML 2019, Algorithm 1): the workers' momentum buffers are averaged with the models, twice the bytes.
#include "sim/sync/periodic_scheme.hpp"

namespace dtsim::sync {
namespace {

class LocalSgd final : public PeriodicScheme {
 public:
  std::string title() const override { return "local SGD"; }
  std::vector<SchemeOption> options() const override {
    return {{"period", "integer", "4", "iterations per model average (tau)", 1, 100000, &SyncPolicy::period},
            {"average_momentum", "boolean", "false",
             "average the momentum buffers with the models (Yu et al. 2019): an exchange moves both", 0, 1}};
  }
  std::string describe(const SyncPolicy& p) const override {
    return "local_sgd (period " + std::to_string(p.period) + (averages_momentum(p) ? ", momentum averaged)" : ")");
  }
  std::string incompatibility(const SyncPolicy& p, const ArchitectureTraits& architecture) const override {
    if (averages_momentum(p) && architecture.meets == Meets::kNeighbours)
      return "average_momentum averages every worker's momentum buffer with the global model average, which gossip "
             "does not form: it needs architecture " +
             quoted_names([](const ArchitectureTraits& a) { return a.meets != Meets::kNeighbours; });
    return "";
  }
  int exchanged_copies(const SyncPolicy& p) const override { return averages_momentum(p) ? 2 : 1; }
  bool averages_momentum(const SyncPolicy& p) const override { return p.parameter("average_momentum") != 0; }
};

}  // namespace

const Scheme& local_sgd_scheme() {
  static const LocalSgd scheme;
  return scheme;
}

}  // namespace dtsim::sync
