// asp, asynchronous parallel (Hogwild, Recht et al. 2011; Downpour, Dean et al. 2012): a worker pulls right
// after its own push was applied. On gossip it is SGP's push-sum (Assran et al., ICML 2019).
#include "sim/sync/scheme.hpp"

namespace dtsim::sync {
namespace {

class Asp final : public Scheme {
 public:
  std::string title() const override { return "asynchronous parallel"; }
  std::string incompatibility(const SyncPolicy&, const ArchitectureTraits& architecture) const override {
    if (architecture.meets == Meets::kCollective)
      return "asp needs a server that applies each worker's gradient as it arrives; an all-reduce sums every "
             "worker's gradient at once (survey Table 5: not applicable)";
    return "";
  }
  std::optional<int> staleness_bound(const SyncPolicy&) const override { return std::nullopt; }
  Meeting meeting() const override { return Meeting::kAsyncPushes; }
};

}  // namespace

const Scheme& asp_scheme() {
  static const Asp scheme;
  return scheme;
}

}  // namespace dtsim::sync
