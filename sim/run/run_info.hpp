#pragma once
/// What every run's report says about the scenario that made it, whichever executor ran it.
#include "sim/results/run_result.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::run {

/// The run's identification from `s`: model, GPU, platform, strategy names, sizes and provenance. The executor
/// fills what only it knows (sync and architecture in words, buckets, launch cost).
RunInfo scenario_info(const scenario::Scenario& s);

/// Model FLOPs per sample, the GPU's peak and the model FLOPs utilisation of `r` (PaLM, appendix B).
void set_utilisation(const scenario::Scenario& s, RunResult& r);

}  // namespace dtsim::run
