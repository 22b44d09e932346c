// allreduce: every worker's gradients meet in a collective of the configured algorithm (ring, NCCL's, ...), whose
// plans are made per bucket (run_simulation's prepare_collectives) and timed in closed form at the analytic level.
#include "sim/run/architecture.hpp"

#include <memory>

#include "sim/actors/collective_exchanger.hpp"
#include "sim/run/capacity.hpp"

namespace dtsim::run {
namespace {

class Allreduce final : public Architecture {
 public:
  std::string describe(const scenario::Scenario& s) const override { return s.collective + " all-reduce"; }
  SimulatedExchange simulated(ExchangeInput& in) const override {
    const scenario::Scenario& s = in.scenario;
    const bool fuse = s.fidelity == scenario::Fidelity::flow;
    const bool priority = in.plan.credit_bytes > 0;
    const actors::FlowsOf& flows = in.flows;
    return {[&flows, &s, fuse, priority](actors::RunContext& c) {
              return std::make_unique<actors::CollectiveExchanger>(c, flows, s.iterations, fuse, priority);
            },
            in.flow_pairs, allreduce_actors(in.plan, s.workers).actors};
  }
};

}  // namespace

const Architecture& allreduce_architecture() {
  static const Allreduce architecture;
  return architecture;
}

}  // namespace dtsim::run
