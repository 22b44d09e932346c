#pragma once
/// One rank's part of a collective plan on SimGrid: the message and flow levels' point-to-point executor.
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <simgrid/s4u/Barrier.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <xbt/config.hpp>

#include "sim/actors/rank_steps.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/results/run_result.hpp"

namespace dtsim::actors {

/// What execute_steps keeps for one run (one SimGrid engine), owned by the run so that nothing outlives it: a
/// run stopped mid-step (failures: Actor::kill_all) leaves no half-filled barrier to the next run of the process.
struct StepContext {
  const platform::Fabric& fabric;
  /// The default channel's mailboxes by (to, from): looked up by name once per pair, as building and hashing a
  /// name per message would cost as much as the simulation of the message.
  std::unordered_map<std::uint64_t, simgrid::s4u::Mailbox*> mailboxes;
  /// In-network steps: the ranks sharing a step with a switch meet here, by (channel, ranks).
  std::map<std::pair<std::string, int>, simgrid::s4u::BarrierPtr> barriers;
  /// What the network model multiplies each message's route latency by (SimGrid's network/latency-factor: 13.01
  /// under LV08, 1 under CM02 and alpha_beta), read once the platform is built: the start-ups of the steps a flow
  /// stands for are the messages' latencies the message level would pay, factor included.
  double latency_factor = simgrid::config::get_value<double>("network/latency-factor");
};

/// Per step, waits the step's own latency (Step::latency_s, summed over fused steps), posts every receive and
/// send, then waits for all of them. A flow standing for k fused steps first waits k-1 path latencies times the
/// model's latency factor (the start-ups of the steps it replaces; with several such sends the longest path's),
/// then sends the summed bytes. `channel` separates collectives that may run at the same
/// time (their messages must not match). Message arrows go to `arrows` for receivers below `trace_workers`.
void execute_steps(int rank, const std::vector<RankStep>& steps, StepContext& context,
                   const std::string& channel, run::WorkerTraffic& traffic,
                   std::vector<run::MessageArrow>* arrows = nullptr, int trace_workers = 0);

}  // namespace dtsim::actors
