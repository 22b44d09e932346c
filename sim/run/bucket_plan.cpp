#include "sim/run/bucket_plan.hpp"

#include "sim/collectives/nccl_allreduce.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/scheduling/scheduler.hpp"

namespace dtsim::run {

collectives::AlphaBeta allreduce_alpha_beta(const scenario::Scenario& s, const collectives::Group& group) {
  const collectives::LinkCosts costs = platform::link_costs(s.platform);
  const auto collective = collectives::make_collective(s.collective, costs, s.nccl);
  constexpr std::int64_t kProbeBytes = 1 << 30;
  const double a = collective->closed_form_s(group, 0, costs);
  return {a, (collective->closed_form_s(group, kProbeBytes, costs) - a) / static_cast<double>(kProbeBytes)};
}

void plan_buckets(const scenario::Scenario& s, const scheduling::SchedulingInput& input, const GradientPieces& pieces,
                  int ranks, scheduling::IterationPlan& plan, std::string* note, std::span<const float> real_gradient) {
  const auto scheduler = scheduling::make_scheduler(s.scheduler, s.scheduler_options);
  plan.buckets = scheduler->buckets(input);
  plan.credit_bytes = scheduler->credit_bytes();
  if (s.compression.compressor.empty()) return;
  std::string said;
  plan.work = compression_work(s, plan.buckets, pieces, ranks, said, real_gradient);
  if (note) *note = said;
}

}  // namespace dtsim::run
