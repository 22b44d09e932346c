// r2sp, Round-Robin Synchronous Parallel (Chen, Wang & Li, "Round-Robin Synchronization: Mitigating
// Communication Bottlenecks in Parameter Servers", INFOCOM 2019): instead of every worker pushing at once, the
// workers update the server one after another in a fixed order, evenly gapped. dtsim enforces the order at the
// server: worker w's k-th push of a partition waits until worker w - 1's k-th (worker 0: worker n - 1's
// (k-1)-th) was applied; a worker then pulls the model its push made, as in asp. With compute C, push P and
// pull Q of one worker alone, each worker's cycle is max(C + P + Q, n P): the pushes never share the server's
// link. The updates meet as asp's on a server (numerics: round-robin pushes, each one server step). The
// paper's batch-size tuning for heterogeneous clusters is not modelled.
#include "sim/sync/scheme.hpp"

namespace dtsim::sync {
namespace {

class R2sp final : public Scheme {
 public:
  std::string title() const override { return "round-robin synchronous parallel"; }
  std::string incompatibility(const SyncPolicy&, const ArchitectureTraits& architecture) const override {
    if (architecture.meets != Meets::kServers)
      return "R2SP orders the workers' updates at a parameter server: it needs architecture " +
             architectures_meeting(Meets::kServers);
    return "";
  }
  std::optional<int> staleness_bound(const SyncPolicy&) const override { return std::nullopt; }
  bool pushes_in_turn() const override { return true; }
  Meeting meeting() const override { return Meeting::kAsyncPushes; }
};

}  // namespace

const Scheme& r2sp_scheme() {
  static const R2sp scheme;
  return scheme;
}

}  // namespace dtsim::sync
