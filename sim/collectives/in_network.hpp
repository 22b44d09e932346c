#pragma once
/// In-network aggregation: every rank sends its vector to a switch that sums (switch endpoint 0) and receives the
/// sum back, pipelined in chunks, as SwitchML (Sapio et al., "Scaling Distributed Machine Learning with In-Network
/// Aggregation", NSDI 2021), ATP (Lao et al., NSDI 2021), InfiniBand SHARP (Graham et al., COMHPC 2016) and NVLink
/// SHARP do. Each rank's link carries n bytes up and n bytes down, whatever the number of ranks.
///
///   step      0        1 .. k-1                  k
///   rank r    c0 ->    c_i ->  <- sum(c_{i-1})   <- sum(c_{k-1})      (-> up to the switch, <- down from it)
///
/// The switch sends the sum of chunk i once every rank's chunk i is in (a switch endpoint takes part in a step
/// as a rank does: schedule_time_s).
#include <cstdint>
#include <string>

#include "sim/collectives/collective.hpp"

namespace dtsim::collectives {

/// The most chunks a vector is cut into (a message-level plan has 2 k p transfers).
constexpr int kMaxInNetworkChunks = 64;

/// Chunks for `bytes` on a way to the switch costing `to_switch`: the k minimising (k + 1)(alpha + n beta / k),
/// round(sqrt(n beta / alpha)), between 1 and kMaxInNetworkChunks (the pipelined trees' rule).
int in_network_chunks(double bytes, AlphaBeta to_switch);

/// The plan over `ranks` ranks and switch endpoint 0: `chunks` chunks (chunk_bytes), each step paying `latency_s`.
Schedule in_network_plan(int ranks, std::int64_t bytes, int chunks, double step_latency_s = 0);

/// The plan's time for `group` on `costs`, each step `step_latency_s` more: sum over its k + 1 steps of
/// (step latency + alpha + max(c_i beta_up, c_{i-1} beta_down)), chunks c_0 .. c_{k-1}, alpha and beta_down the
/// way to the switch (costs.to_switch), beta_up switch_cost's (the inputs may be capped by the switch's summing
/// rate; the sums go out at line rate).
double in_network_time_s(std::int64_t bytes, int chunks, const Group& group, const LinkCosts& costs,
                         double step_latency_s = 0);

/// Why `group` cannot sum at a switch of `network`, or "" when it can: the platform has no reducing switch, or
/// it is a node's NVSwitch and the group spans several nodes.
std::string in_network_refusal(const Group& group, const LinkCosts& network);

/// One message's cost between a rank and the network's reducing switch for `group` on `costs` (costs.to_switch,
/// its beta at least group.ranks x costs.switch_reduce_s_per_byte: the ranks' inputs share the switch's summing).
AlphaBeta switch_cost(const Group& group, const LinkCosts& costs);

}  // namespace dtsim::collectives
