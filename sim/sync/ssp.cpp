// ssp, stale synchronous parallel (Ho et al., NeurIPS 2013): a worker pulls iteration i once every worker
// pushed i - s. It needs a global model that may miss recent gradients: a parameter server (survey Table 5).
#include "sim/sync/scheme.hpp"

namespace dtsim::sync {
namespace {

class Ssp final : public Scheme {
 public:
  std::string title() const override { return "stale synchronous parallel"; }
  std::vector<SchemeOption> options() const override {
    return {{"staleness", "integer", "3", "iterations a worker may run ahead of the slowest (s; 0 is bsp)", 0, 100000,
             &SyncPolicy::staleness}};
  }
  std::string describe(const SyncPolicy& p) const override {
    return "ssp (staleness " + std::to_string(p.staleness) + ")";
  }
  std::string incompatibility(const SyncPolicy&, const ArchitectureTraits& architecture) const override {
    if (architecture.meets == Meets::kCollective)
      return "ssp lets workers read a model missing others' recent gradients, which an all-reduce (every worker "
             "in every exchange) cannot serve (survey Table 5: not supported)";
    if (architecture.meets == Meets::kNeighbours)
      return "ssp bounds staleness against a global model, which gossip does not have (survey Table 5: not "
             "supported)";
    return "";
  }
  std::optional<int> staleness_bound(const SyncPolicy& p) const override { return p.staleness; }
  Meeting meeting() const override { return Meeting::kStaleGradients; }
};

}  // namespace

const Scheme& ssp_scheme() {
  static const Ssp scheme;
  return scheme;
}

}  // namespace dtsim::sync
