#pragma once
/// One cluster and strategy the plan may recommend: the scenario settings that make it from the plan's base.
#include <string>
#include <utility>
#include <vector>

#include "sim/platform/platform_spec.hpp"
#include "sim/scenario/plan_spec.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::plan {

/// A point of the search: a platform template at a node count, and one value of every searched axis. Its
/// settings are `--set` overrides in order (platform first), so a new search dimension (a parallel layout)
/// is one more PlanAxis and nothing else.
struct Candidate {
  int index = 0;
  std::vector<std::pair<std::string, std::string>> settings;  ///< (scenario key, TOML value)
  std::string label;  ///< "v100_8x.toml x 4 nodes, nic=100Gbps, scheduler=ddp"
  std::string invalid;  ///< why the template cannot be built this way (not loaded then); empty when it can
  /// Its data-parallel replicas once known (a layout searched, or the global batch derived); for a cluster without
  /// a layout that splits the global batch, its workers (which every layout's replicas divide).
  int data = 0;
  bool batch_indivisible = false;  ///< invalid because its replicas do not divide the plan's global batch
};

/// The samples a step the plan fixes ([job] global_batch, or global_batch_tokens over `model`'s sequence length);
/// 0 when it fixes none. Throws core::InputError at the key when the tokens are not whole sequences.
int global_batch_samples(const scenario::PlanSpec& plan, const models::Model& model);

/// The layout dimensions the plan searches (sim/plan/layout_space.hpp): all for "auto", else those listed; less
/// those a key of [set] or a [[search.axis]] fixes ("auto" only: a listed one fixed so is refused). Throws
/// core::InputError at the list for an unknown name.
std::vector<std::string> searched_dimensions(const scenario::PlanSpec& plan);

/// Every combination of the plan's platforms, nodes, oversubscriptions and axes (the last axis varies fastest);
/// `templates` are the platforms as loaded: their GPUs per node set `workers` (every GPU of every node trains).
/// A fat tree of two switch levels gets nodes as leaves of down[0] nodes (down = [down[0], nodes / down[0]]),
/// switch links as fast as the NICs, and up[1] = down[0] / oversubscription uplinks per leaf; other topologies
/// have no oversubscription to choose, and one node no NIC to choose: those values are one candidate. A star's
/// hosts are its nodes and its host links their NICs (platform.hosts, platform.link.bandwidth).
/// With [search] layout, each cluster is one candidate per layout (enumerate_layouts at the global batch) of
/// `base` (the plan's base with its [set], required then); a cluster with none is one invalid candidate, saying why.
std::vector<Candidate> enumerate_candidates(const scenario::PlanSpec& plan,
                                            const std::vector<platform::PlatformSpec>& templates,
                                            const scenario::Scenario* base = nullptr);

/// The candidate's settings as `--set` arguments ("key=value"), after the plan's [set].
std::vector<std::string> candidate_overrides(const scenario::PlanSpec& plan, const Candidate& c);

}  // namespace dtsim::plan
