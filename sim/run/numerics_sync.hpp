#pragma once
/// Numerics mode under the scenario's synchronisation scheme and architecture: the Trainer's SyncConfig
/// (numerics/sync_config.hpp), built from sim/sync's policy, gossip graph and the straggler model.
#include <cstdint>
#include <vector>

#include "numerics/sync_config.hpp"
#include "sim/run/stragglers.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::run {

/// allreduce, ps, byteps: bsp averages gradients, ssp takes them `staleness` steps old, asp pushes one by one,
/// local_sgd and post_local_sgd average models; gossip: D-PSGD with Metropolis-Hastings weights on the graph
/// (sync bsp, local_sgd, post_local_sgd) or SGP push-sum to push_sum_peer (sync asp); [strategy.lag] turns on
/// LAG (numerics/lag.hpp), which the Trainer accepts on dense bsp only. `seed` breaks ties among equally slow
/// workers (backup workers).
numerics::SyncConfig numerics_sync(const scenario::Scenario& s, std::uint64_t seed);

/// Backup workers: the workers whose gradients the server uses in `iteration`. It drops the
/// s.sync.backup_workers slowest participants (a BytePS node, hierarchical, counts as one, as slow as its
/// slowest GPU), slowest by the compute slowdown of the straggler model; equal slowdowns (no stragglers)
/// are ordered by a random draw from `seed` and the iteration, so every worker is dropped as often.
std::vector<bool> kept_workers(const scenario::Scenario& s, const Slowdown& slowdown, std::uint64_t seed,
                               std::int64_t iteration);

}  // namespace dtsim::run
