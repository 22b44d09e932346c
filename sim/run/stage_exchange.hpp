#pragma once
/// A layout stage's data-parallel gradients at parameter servers or with neighbouring replicas (architecture.hpp):
/// the architecture's analytic fragment over the stage's data-parallel groups (one per tensor and context rank of a
/// replica's stage), which run in lockstep and so push, or gossip, at the same time.
#include <vector>

#include "sim/parallel/layout.hpp"
#include "sim/parallel/workload.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/run/architecture.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scheduling/iteration_plan.hpp"

namespace dtsim::run {

/// One stage's exchange: per bucket its costs (and with servers its sum), and one iteration's traffic per link.
struct StageExchange {
  AnalyticExchange exchange;
  std::vector<double> link_bytes;
};

/// How `s`'s layout meets its data-parallel gradients (workload.hpp's WorkloadInput::data_meeting).
parallel::ExchangeFragment::Kind data_meeting(const scenario::Scenario& s);

/// The data-parallel groups of stage `stage` (hosts), one per tensor and context rank of a replica's stage.
std::vector<std::vector<int>> stage_data_groups(const scenario::Scenario& s, const parallel::Placement& placement,
                                                int stage);

/// The exchange of stage `stage`'s buckets `plan` under `s`'s architecture (data_meeting not collective).
StageExchange stage_exchange(const scenario::Scenario& s, const parallel::Placement& placement,
                             const platform::Fabric& fabric, int stage, const scheduling::IterationPlan& plan);

}  // namespace dtsim::run
