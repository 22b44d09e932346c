#pragma once
/// One rank's part of a collective plan on SimGrid: the message and flow levels' point-to-point executor.
#include <string>
#include <vector>

#include "sim/actors/rank_steps.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/results/run_result.hpp"

namespace dtsim::actors {

/// Per step, waits the step's own latency (Step::latency_s, summed over fused steps), posts every receive and
/// send, then waits for all of them. A flow standing for k fused steps first waits k-1 path latencies (the
/// start-ups of the steps it replaces; with several such sends the longest path's), then sends the summed bytes. `channel` separates collectives that may run at the same
/// time (their messages must not match). Message arrows go to `arrows` for receivers below `trace_workers`.
void execute_steps(int rank, const std::vector<RankStep>& steps, const platform::Fabric& fabric,
                   const std::string& channel, run::WorkerTraffic& traffic,
                   std::vector<run::MessageArrow>* arrows = nullptr, int trace_workers = 0);

}  // namespace dtsim::actors
