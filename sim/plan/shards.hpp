#pragma once
/// A plan spread over the tasks of a Slurm job array (`dtsim plan --slurm --shards K`, each task running
/// `dtsim plan PLAN --shard I --shards K`), then merged (`dtsim plan PLAN --merge`) into the answer a local run
/// gives, byte for byte.
///
/// A shard: every task enumerates, prices and bounds all the candidates and prunes by the memory model and the
/// lower bounds as a local run does (no simulation: the same everywhere), orders the rest cheapest lower bound
/// first, and takes those at positions I, I + K, I + 2K, ... of that order, so each task holds cheap and dear
/// candidates alike. It simulates them at the analytic level under simulate.hpp's rule applied to its own (a
/// candidate that one of its own, earlier in the order, dominates is dropped), then re-checks its own best at the
/// flow level as a local run re-checks the plan's. Its runs are points of the plan's output folder (content-keyed:
/// the digest of the resolved scenario and of the dtsim executable), and it writes shards/shard-I-of-K.json.
///
/// The merge is the local search over every candidate: each simulation it needs is a point a task made, reused.
/// A candidate a task dropped the merge drops too: what dominated it there precedes it in the order, and its
/// simulated time, cost and energy are at least its own lower bounds, so the first candidate the merge keeps of
/// those before it dominates it as well. The plan's best are their tasks' own best, so their flow re-checks are
/// found too (unless a task's own best crowd one out). A point the merge finds missing (a task that failed or has
/// not run, a lower bound that did not hold) it simulates itself: a resumed plan.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/plan/search.hpp"

namespace dtsim::plan {

/// The candidates of shard `shard` of `shards`: the entries of `order` at positions shard, shard + shards, ...
std::vector<int> shard_of(const std::vector<int>& order, int shard, int shards);

/// <output>/shards/shard-<shard>-of-<shards>.json.
std::string shard_summary_path(const scenario::PlanSpec& plan, int shard, int shards);

/// The shard's summary (schema dtsim.plan-shard/1): provenance, the shard, and each of its candidates with what
/// it did (simulated, dropped, failed, re-checked at the flow level) and its runs' folders.
nlohmann::json shard_summary(const scenario::PlanSpec& plan, const PlanResult& r, int shard, int shards,
                             const std::string& command);

/// What the merge finds of the shards' work, in one line per job array: "2 of 3 shards (of 3) have finished;
/// shard 1 has not: its candidates are simulated here"; summaries made by another dtsim or another version of the
/// plan file are named as such (their points are not reused). Empty when the folder holds no summary.
std::vector<std::string> shard_status(const scenario::PlanSpec& plan);

}  // namespace dtsim::plan
