#pragma once
/// The breakdown of one iteration averaged over its workers.
#include "sim/results/run_result.hpp"

namespace dtsim::viz {

/// Mean of each breakdown field over `iteration.per_worker`.
run::Breakdown mean_breakdown(const run::IterationResult& iteration);

}  // namespace dtsim::viz
