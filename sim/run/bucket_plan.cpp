#include "sim/run/bucket_plan.hpp"

#include <algorithm>

#include "models/kernel_launch.hpp"
#include "sim/collectives/block_collective.hpp"
#include "sim/collectives/nccl_allreduce.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/scheduling/framework.hpp"
#include "sim/scheduling/scheduler.hpp"

namespace dtsim::run {

collectives::AlphaBeta allreduce_alpha_beta(const scenario::Scenario& s, const collectives::Group& group) {
  const collectives::LinkCosts costs = platform::link_costs(s.platform);
  const auto collective = collectives::make_collective(s.collective, costs, s.nccl);
  constexpr std::int64_t kProbeBytes = 1 << 30;
  const double a = collective->closed_form_s(group, 0, costs);
  return {a, (collective->closed_form_s(group, kProbeBytes, costs) - a) / static_cast<double>(kProbeBytes)};
}

scheduling::CopyCosts copy_costs(const scenario::Scenario& s) {
  const models::LaunchCosts launch = models::launch_costs(s.gpu.launch);
  return {s.gpu.memory_Bps * s.gpu.memory_efficiency, launch.dispatch_s, launch.gap_s};
}

scheduling::FrameworkCosts framework_costs(const scenario::Scenario& s, std::size_t tensors) {
  scheduling::FrameworkCosts costs;
  costs.copy = copy_costs(s);
  if (s.framework != "horovod" || s.workers < 2) return costs;  // only Horovod negotiates
  const collectives::LinkCosts links = platform::link_costs(s.platform);
  const collectives::Group all{s.workers, s.platform.gpus_per_node};
  if (s.framework_options.horovod_response_cache) {
    // One bit per tensor in 64-bit words, and a word of status bits (response_cache.cc CacheCoordinator::sync),
    // AND-ed and OR-ed over all ranks by two recursive-doubling all-reduces.
    const double bitvector_bytes = 8.0 * static_cast<double>((tensors + 63) / 64 + 1);
    costs.negotiation_s =
        2 * collectives::make_collective("recursive_doubling")->closed_form_s(all, bitvector_bytes, links);
  } else {
    // The coordinator gathers every rank's requests (MPI_Gather of their sizes, then MPI_Gatherv) and broadcasts
    // the response list (MPI_Bcast of its size, then of it): two binomial gathers and two binomial broadcasts. A
    // request is a tensor's name, type and shape, tens of bytes: the messages are counted by their latency only.
    const std::vector<std::int64_t> none(static_cast<std::size_t>(s.workers), 0);
    costs.negotiation_s = 2 * (collectives::make_gather("binomial")->closed_form_s(all, none, links) +
                               collectives::make_broadcast("binomial")->closed_form_s(all, 0, links));
  }
  return costs;
}

void plan_buckets(const scenario::Scenario& s, const scheduling::SchedulingInput& input, const GradientPieces& pieces,
                  int ranks, scheduling::IterationPlan& plan, std::string* note, std::span<const float> real_gradient) {
  const auto scheduler = scheduling::make_scheduler(s.scheduler, s.scheduler_options);
  plan.buckets = scheduler->buckets(input);
  plan.buckets = scheduling::make_framework(s.framework, s.framework_options)
                     ->carry(std::move(plan.buckets), input, framework_costs(s, plan.buckets.size()));
  plan.credit_bytes = scheduler->credit_bytes();
  if (s.compression.compressor.empty()) return;
  std::string said;
  plan.work = compression_work(s, plan.buckets, pieces, ranks, said, real_gradient);
  if (note) *note = said;
}

}  // namespace dtsim::run
