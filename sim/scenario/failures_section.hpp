#pragma once
/// The [[failures]] array: worker crashes and link failures at given times.
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/section.hpp"

namespace dtsim::scenario {

/// Reads every [[failures]] entry into `s.failures` (in time order); needs s.platform and s.workers.
void load_failures(std::vector<Section> entries, Scenario& s);

}  // namespace dtsim::scenario
