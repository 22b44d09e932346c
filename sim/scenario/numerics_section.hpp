#pragma once
/// The [numerics] table: real training of a small model (numerics/) whose layers are also the simulated model.
#include <toml++/toml.h>

#include "numerics/dataset.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/section.hpp"

namespace dtsim::scenario {

/// Reads [numerics] into `s.numerics` and sets `s.model` to the trained model's layer table; `base` is the
/// scenario's folder (data file paths are relative to it).
void load_numerics(Section& n, const toml::table& table, const std::string& base, Scenario& s);

/// Example shape and classes of the configured dataset.
numerics::InputShape numerics_input_shape(const Numerics& n);

}  // namespace dtsim::scenario
