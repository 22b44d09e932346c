#include "sim/run/stage_exchange.hpp"

#include "sim/core/error.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/sync/architecture_traits.hpp"

namespace dtsim::run {

parallel::ExchangeFragment::Kind data_meeting(const scenario::Scenario& s) {
  using Kind = parallel::ExchangeFragment::Kind;
  switch (sync::architecture_named(s.architecture).meets) {
    case sync::Meets::kServers: return Kind::push_pull;
    case sync::Meets::kNeighbours: return Kind::neighbours;
    case sync::Meets::kCollective: break;
  }
  return Kind::collective;
}

std::vector<std::vector<int>> stage_data_groups(const scenario::Scenario& s, const parallel::Placement& placement,
                                                int stage) {
  std::vector<std::vector<int>> groups;
  for (int rank = 0; rank < s.workers; ++rank)
    if (placement.stage(rank) == stage && placement.leads(rank, "data")) groups.push_back(placement.members(rank, "data"));
  return groups;
}

StageExchange stage_exchange(const scenario::Scenario& s, const parallel::Placement& placement,
                             const platform::Fabric& fabric, int stage, const scheduling::IterationPlan& plan) {
  StageExchange out;
  out.link_bytes.assign(static_cast<std::size_t>(fabric.link_count()), 0.0);
  const std::vector<scheduling::BucketWork> work = bucket_work(plan);
  AnalyticInput in{s, plan, work, fabric, out.link_bytes};
  in.groups = stage_data_groups(s, placement, stage);
  std::optional<AnalyticExchange> exchange = architecture_named(s.architecture).analytic(in);
  DTSIM_CHECK(exchange.has_value(), "architecture " + s.architecture + " times its exchange at the analytic level");
  out.exchange = std::move(*exchange);
  return out;
}

}  // namespace dtsim::run
