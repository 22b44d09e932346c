// overlap_local_sgd, Overlap Local-SGD (Wang, Liang & Joshi, ICASSP 2020, "Overlap Local-SGD: An Algorithmic
// Approach to Hide Communication Delays in Distributed SGD"; their code: github.com/JYWa/Overlap_Local_SGD,
// distoptim/OverlapLocalSGD.py). Workers run `period` local steps; at the end of a period each worker is pulled
// towards the anchor model z, x_i <- x_i - alpha (x_i - z), and a non-blocking all-reduce of the pulled models
// starts (on a parameter server: a push and a pull), whose mean becomes the anchor of the next period. The all-reduce thus overlaps the next period's local
// steps: a worker waits for it only at the next period's end (exchanges_in_flight = 1). The anchor's global
// momentum (their gmf) is left at its default, 0. alpha defaults to their training script's 0.2.
#include <sstream>

#include "sim/sync/periodic_scheme.hpp"

namespace dtsim::sync {
namespace {

class OverlapLocalSgd final : public PeriodicScheme {
 public:
  std::string title() const override { return "Overlap Local-SGD"; }
  std::vector<SchemeOption> options() const override {
    return {{"period", "integer", "4", "iterations per model average (tau); the average arrives one period later", 1,
             100000, &SyncPolicy::period},
            {"alpha", "number", "0.2", "how far the anchor model pulls each worker at a period's end, in (0, 1)", 0, 1}};
  }
  std::optional<OptionProblem> check(const SyncPolicy& p, int) const override {
    const double alpha = p.parameter("alpha");
    if (alpha == 0 || alpha == 1)
      return OptionProblem{"alpha",
                           alpha == 0 ? "alpha = 0 never pulls the workers towards the anchor (they never meet)"
                                      : "alpha = 1 resets every worker to the anchor, which starts as the initial "
                                        "model and so never moves",
                           "allowed: a number in (0, 1)"};
    return std::nullopt;
  }
  std::string describe(const SyncPolicy& p) const override {
    std::ostringstream words;
    words << "overlap_local_sgd (period " << p.period << ", alpha " << p.parameter("alpha") << ")";
    return words.str();
  }
  std::string incompatibility(const SyncPolicy&, const ArchitectureTraits& architecture) const override {
    if (architecture.meets == Meets::kNeighbours)
      return "Overlap Local-SGD pulls every worker towards the global average of the models, which gossip does "
             "not form: it needs architecture " +
             quoted_names([](const ArchitectureTraits& a) { return a.meets != Meets::kNeighbours; });
    return "";
  }
  int exchanges_in_flight(const SyncPolicy&) const override { return 1; }
  Meeting meeting() const override { return Meeting::kOverlapModels; }
};

}  // namespace

const Scheme& overlap_local_sgd_scheme() {
  static const OverlapLocalSgd scheme;
  return scheme;
}

}  // namespace dtsim::sync
