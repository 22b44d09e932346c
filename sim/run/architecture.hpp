#pragma once
/// Architectures of data-parallel training (survey seed 001, section 4): how the workers' gradients meet. Each
/// is one file of sim/run/architectures and one line of the registry (architectures/registry.cpp), under the name
/// of its row in sim/sync/architecture_traits.cpp (where its updates meet: a collective architecture's exchanges
/// are the configured collective's plans, planned per bucket and timed in closed form at the analytic level; the
/// others give the analytic level their exchange as a fragment of the iteration's task graph, timed in closed
/// form, and run an exchanger of their own at the simulated levels). Nothing else compares architecture names in
/// sim/run.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/actors/collective_exchanger.hpp"
#include "sim/actors/ps_exchanger.hpp"
#include "sim/actors/rank_steps.hpp"
#include "sim/actors/server_runs.hpp"
#include "sim/actors/simgrid_run.hpp"
#include "sim/memory/memory_breakdown.hpp"
#include "numerics/sync_config.hpp"
#include "sim/parallel/data_parallel.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/run/data_parallel_timeline.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scheduling/iteration_plan.hpp"
#include "sim/sync/scheme.hpp"

namespace dtsim::run {

/// What the flow and message levels run for an architecture: its exchanger, the host pairs its traffic uses
/// (their routes are built), and the actors it keeps alive at most.
struct SimulatedExchange {
  actors::ExchangerFactory make;
  std::vector<std::pair<int, int>> pairs;
  std::int64_t peak_actors = 0;
};

/// What an architecture is given to set up its exchange.
struct ExchangeInput {
  const scenario::Scenario& scenario;
  const scheduling::IterationPlan& plan;
  const std::vector<scheduling::BucketWork>& work;
  const actors::FlowsOf& flows;                        ///< collective architectures: each iteration's bucket flows
  const std::vector<std::pair<int, int>>& flow_pairs;  ///< collective architectures: the pairs those flows use
  const platform::Fabric& fabric;
  std::vector<double>& link_bytes;                     ///< per directed link: add one iteration's traffic
  actors::SkipUpload skip;                             ///< LAG's skipped uploads (numerics mode)
};

/// What the analytic level runs for an architecture whose exchanges are not the collective's plans: the
/// fragment each bucket's exchange is in the iteration's task graph, and per bucket its tasks' closed-form costs.
struct AnalyticExchange {
  parallel::ExchangeFragment fragment;
  std::vector<BucketCost> costs;  ///< per bucket
};

/// What an architecture is given to time its exchange in closed form.
struct AnalyticInput {
  const scenario::Scenario& scenario;
  const scheduling::IterationPlan& plan;
  const std::vector<scheduling::BucketWork>& work;
  const platform::Fabric& fabric;
  std::vector<double>& link_bytes;  ///< per directed link: add one iteration's traffic
  /// The workers that meet, as groups of hosts exchanging at the same time, each among itself (a layout stage's
  /// data-parallel groups, one per tensor and context rank, whose ranks run in lockstep); empty: one group,
  /// worker r on host r for r < scenario.workers.
  std::vector<std::vector<int>> groups = {};
};

/// One architecture.
class Architecture {
 public:
  virtual ~Architecture() = default;
  /// The architecture in words, with the parameters that shape it (console, report).
  virtual std::string describe(const scenario::Scenario& s) const = 0;
  /// Its exchange at the simulated levels; adds one iteration's traffic to in.link_bytes where the collective
  /// plans did not; refuses, before SimGrid starts, a run whose actors would not fit (capacity.hpp).
  virtual SimulatedExchange simulated(ExchangeInput& in) const = 0;
  /// Its exchange at the analytic level, in rounds (the loader refused the rest: sync = "bsp" or a local-SGD
  /// scheme, every worker pushing, no credit); adds one iteration's traffic to in.link_bytes. None: the
  /// configured collective's plans (run_simulation's prepare_collectives).
  virtual std::optional<AnalyticExchange> analytic(AnalyticInput& /*in*/) const { return std::nullopt; }
  /// A layout's simulated levels: the flows of one bucket's exchange (`work`) on one data-parallel group of
  /// `ranks` ranks, in group ranks, a step per exchange whose step latency is its local work before it, fused at
  /// the flow level (`fuse`); none where the architecture's exchange is not a plan among the group's ranks (servers:
  /// layout_servers).
  virtual std::optional<std::vector<std::vector<actors::Flow>>> layout_flows(const scenario::Scenario& /*s*/,
                                                                             const scheduling::BucketWork& /*work*/,
                                                                             int /*ranks*/, bool /*fuse*/) const {
    return std::nullopt;
  }
  /// A layout's simulated levels at parameter servers: the exchange of one stage's buckets (`plan`, `work`) among
  /// its data-parallel `groups` (hosts; AnalyticInput::groups) as actors::ServerRuns runs it; none where the
  /// architecture does not meet at servers.
  virtual std::optional<actors::ServerExchange> layout_servers(const scenario::Scenario& /*s*/,
                                                               const scheduling::IterationPlan& /*plan*/,
                                                               const std::vector<scheduling::BucketWork>& /*work*/,
                                                               const std::vector<std::vector<int>>& /*groups*/) const {
    return std::nullopt;
  }
  /// Numerics mode: sets how the workers' models meet when the architecture decides it (gossip: mixing with
  /// neighbours, or push-sum), given how the scheme meets them, and returns true; false leaves it to the scheme.
  virtual bool set_meeting(numerics::SyncConfig& /*config*/, const scenario::Scenario& /*s*/,
                           sync::Meeting /*meeting*/) const {
    return false;
  }
  /// Its GPU buffers beyond the scheduler's buckets, added to `item` (where: which GPU is fullest, if not every
  /// worker), for `replicas` workers meeting (scenario.workers; a layout's data-parallel replicas, whose stage
  /// `plan` is).
  virtual void add_buffers(const scenario::Scenario& /*s*/, const scheduling::IterationPlan& /*plan*/, int /*replicas*/,
                           memory::MemoryItem& /*item*/, std::string& /*where*/) const {}
};

/// One registered architecture.
struct ArchitectureEntry {
  std::string_view name;                ///< as written in `strategy.architecture`
  const Architecture& (*architecture)();
};

/// Every registered architecture, in documentation order.
std::span<const ArchitectureEntry> architecture_registry();
/// The architecture named `name` (the loader checked it: another name is a bug).
const Architecture& architecture_named(std::string_view name);

/// Adds `bytes` of what `words` say to a memory item.
void add_to(memory::MemoryItem& item, double bytes, const std::string& words);
/// Bytes of every parameter's gradient on the wire (fp32): the buckets' total.
double gradient_wire_bytes(const scheduling::IterationPlan& plan);

}  // namespace dtsim::run
