#pragma once
/// What the server architectures (ps, byteps) share: the exchange a PsSetup describes, timed in closed form at the
/// analytic level and run by actors::PsExchanger at the simulated levels; each architecture file builds its setup
/// (where the servers are, how partitions are dealt, what a node does with each partition).
#include <memory>
#include <vector>

#include "sim/actors/ps_exchanger.hpp"
#include "sim/actors/server_runs.hpp"
#include "sim/run/architecture.hpp"

namespace dtsim::run {

/// The setup every server architecture starts from: the buckets' exchanges and layers, the scenario's summation,
/// credit, partition size, scheme and workers; no server placed yet. A push carries each exchange's payload; a
/// pull carries the same for summable formats (dense, fp16, ...), and for gathered payloads (sparse, signs) the
/// dense bucket or, with pull = "compressed", one payload.
actors::PsSetup server_setup(const scenario::Scenario& s, const scheduling::IterationPlan& plan,
                             const std::vector<scheduling::BucketWork>& work);

/// Dedicated servers' hosts: those after the workers, spread over nodes first (slot 0 of every free node, then
/// slot 1, ...): servers on machines of their own while there are machines (BytePS's CPU machines).
std::vector<int> dedicated_server_hosts(const scenario::Scenario& s);

/// The flow and message levels' exchange of `setup`; adds one iteration's traffic to in.link_bytes and refuses a
/// run whose actors would not fit.
SimulatedExchange server_simulated(std::shared_ptr<actors::PsSetup> setup, ExchangeInput& in);

/// The analytic level's exchange of `setup` (module comment of server_exchange.cpp); adds one iteration's traffic
/// to in.link_bytes.
AnalyticExchange server_analytic(const actors::PsSetup& setup, AnalyticInput& in);

/// A layout stage's exchange of `setup` among its data-parallel `groups` (AnalyticInput::groups) at the flow and
/// message levels: its pieces and, per exchange, the servers' sum of every group's pushes (as the analytic level's).
actors::ServerExchange layout_server_exchange(actors::PsSetup setup, const std::vector<std::vector<int>>& groups);

/// The places in `setup`'s exchange of data-parallel group `group` (hosts): with per-node aggregation one per node
/// the group spans (its hosts there, the first in the group's order the root), else one per host.
std::vector<actors::ServerRole> server_roles(const actors::PsSetup& setup, const std::vector<int>& group);

/// The bytes the fullest colocated server (one of `servers`, setup's pieces) sums, and its index.
std::pair<double, int> fullest_server(const actors::PsSetup& setup);

}  // namespace dtsim::run
