#pragma once
/// One cluster and strategy the plan may recommend: the scenario settings that make it from the plan's base.
#include <string>
#include <utility>
#include <vector>

#include "sim/scenario/plan_spec.hpp"

namespace dtsim::plan {

/// A point of the search: a platform template at a node count, and one value of every searched axis. Its
/// settings are `--set` overrides in order (platform first), so a new search dimension (a parallel layout)
/// is one more PlanAxis and nothing else.
struct Candidate {
  int index = 0;
  std::vector<std::pair<std::string, std::string>> settings;  ///< (scenario key, TOML value)
  std::string label;  ///< "v100_8x.toml x 4 nodes, nic=100Gbps, scheduler=ddp"
};

/// Every combination of the plan's platforms, nodes and axes (the last axis varies fastest); `gpus_per_node`
/// of each platform template sets `workers` (every GPU of every node trains).
std::vector<Candidate> enumerate_candidates(const scenario::PlanSpec& plan, const std::vector<int>& gpus_per_node);

/// The candidate's settings as `--set` arguments ("key=value"), after the plan's [set].
std::vector<std::string> candidate_overrides(const scenario::PlanSpec& plan, const Candidate& c);

}  // namespace dtsim::plan
