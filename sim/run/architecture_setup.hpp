#pragma once
/// From a scenario and its buckets' work to the parameter-server or gossip simulation's setup, and the
/// traffic of one iteration as a host-to-host plan for per-link accounting.
#include <vector>

#include "sim/actors/gossip_exchanger.hpp"
#include "sim/actors/ps_exchanger.hpp"
#include "sim/collectives/schedule.hpp"
#include "sim/core/path_model.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scheduling/iteration_plan.hpp"

namespace dtsim::run {

/// Servers on the hosts after the workers, one node after another (dedicated), or on the first workers' hosts
/// (colocated). A push carries each
/// exchange's payload; a pull carries the same for summable formats (dense, fp16, ...), and for gathered
/// payloads (sparse, signs) the dense bucket or, with pull = "compressed", one payload.
actors::PsSetup ps_setup(const scenario::Scenario& s, const scheduling::IterationPlan& plan,
                         const std::vector<scheduling::BucketWork>& work);

/// PowerGossip's rounds per bucket of `plan`, in bytes one edge direction carries: X^T p of each matrix and
/// each vector whole, then X q of each matrix (numerics::power_gossip_edge_bytes; shape[0] rows, the rest
/// columns), each tensor with the first bucket that holds it, a round of no bytes left out.
std::vector<std::vector<std::int64_t>> power_gossip_rounds(const scenario::Scenario& s,
                                                           const scheduling::IterationPlan& plan);

/// The scenario's graph; every exchange sends its payload to each neighbour (SGP: to one peer). With
/// PowerGossip, each bucket's exchanges are its power_gossip_rounds.
actors::GossipSetup gossip_setup(const scenario::Scenario& s, const scheduling::IterationPlan& plan,
                                 const std::vector<scheduling::BucketWork>& work);

/// One exchange of a parameter-server run phase by phase, hosts as ranks: the node's other GPUs to its first
/// (per-node aggregation), each participant's pieces to their servers, the pulls back, the first GPU back to the
/// others; and the bytes each server sums (every participant's push of each piece it holds, a colocated
/// server's own host's included).
struct PsPhases {
  collectives::Step gather, push, pull, scatter;
  std::vector<std::int64_t> summed;  ///< per server
};
PsPhases ps_phases(const actors::PsSetup& setup, const std::vector<actors::PsPiece>& pieces,
                   const actors::PsExchange& exchange);

/// One iteration's pushes, pulls and per-node transfers, one step per bucket exchange (hosts as ranks).
collectives::Schedule ps_traffic(const actors::PsSetup& setup, int hosts);
/// The time of `step`'s transfers started together over `network` (collectives::schedule_time_s; hosts as
/// ranks, `hosts` of them); 0 for none.
double step_time_s(const collectives::Step& step, int hosts, const core::PathModel& network);

/// One iteration's gossip messages (SGP: iteration 0's peers).
collectives::Schedule gossip_traffic(const actors::GossipSetup& setup);

}  // namespace dtsim::run
