#pragma once
/// The [strategy] table: architecture, synchronisation, collective, scheduler, fidelity and their option tables.
#include <string>

#include "sim/scenario/scenario.hpp"
#include "sim/scenario/section.hpp"

namespace dtsim::scenario {

/// Where the strategy keys that later checks point at were written.
struct StrategyWhere {
  std::string architecture;
  std::string sync;
  std::string fidelity;
};

/// Reads [strategy] into `s`; throws core::InputError at the offending key. Needs s.platform and s.workers.
StrategyWhere load_strategy(Section& strategy, Scenario& s);

/// Reads strategy.gradient_dtype into `s` once [parallel] is loaded (its default follows the layout's framework:
/// parallel::default_gradient_dtype); refuses it where the exchange is not of gradients in that dtype.
void load_gradient_dtype(Section& strategy, Scenario& s);

/// Refuses strategies that do not fit the rest of the scenario (compression, numerics), with the reason.
void check_strategy(const Scenario& s, const StrategyWhere& where);

}  // namespace dtsim::scenario
