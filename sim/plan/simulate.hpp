#pragma once
/// Simulating a plan's candidates in the search order, so that the answer does not depend on how many run at once
/// (-j), nor on how the candidates are spread over the tasks of a Slurm job array (--shard).
///
/// The rule: the candidates to simulate are taken cheapest lower bound first; a candidate is dropped
/// ("dominated") when a candidate before it in that order, simulated and itself kept, is faster, cheaper and uses
/// less energy than its lower bounds. Which candidates are kept is a function of the order and the simulated
/// results alone. The work runs in rounds of max(8, 4 x jobs) candidates at once: a candidate of a round that an
/// earlier candidate of the same round turns out to dominate was simulated for nothing, and is dropped all the
/// same (its point stays in the cache), so -j 1 and -j 64 keep the same candidates.
#include <ostream>
#include <string>
#include <vector>

#include "sim/plan/evaluate.hpp"
#include "sim/plan/search.hpp"

namespace dtsim::plan {

/// Runs `which` at `fidelity` (`dtsim run` processes, options.jobs at once) and stores each result in its outcome;
/// a run that fails prunes its candidate as "failed". Flow re-checks also write their timeline.json.
void simulate(const scenario::PlanSpec& plan, const EvaluateOptions& options, const std::string& fidelity,
              std::vector<Outcome>& outcomes, const std::vector<int>& which, std::ostream& progress, bool terminal);

/// Simulates `order` (indices into `outcomes`, cheapest lower bound first) at the analytic level under the rule
/// above; with `prune_dominated` false every candidate is simulated. Returns the simulated candidates that reached
/// their goal and were not dropped, in the order. Progress and an ETA go to `progress`.
std::vector<int> simulate_in_order(const scenario::PlanSpec& plan, const EvaluateOptions& options,
                                   std::vector<Outcome>& outcomes, const std::vector<int>& order, bool prune_dominated,
                                   std::ostream& progress, bool terminal);

/// The folder, relative to the plan's output folder ("points/<key>"), of the run whose timeline.json shows the
/// recommended candidate: its flow re-check, or else its analytic run made once more with the timeline written
/// (content-keyed like every point, so made once). Empty when nothing is recommended or that run fails.
std::string recommended_timeline(const scenario::PlanSpec& plan, const EvaluateOptions& options, const PlanResult& r,
                                 std::ostream& progress, bool terminal);

}  // namespace dtsim::plan
