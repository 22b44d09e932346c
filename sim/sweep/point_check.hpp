#pragma once
/// Every point of a sweep is checked before the first one runs: a value that does not load is the sweep file's
/// mistake, reported at its line and column, not a failed point.
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"
#include "sim/scenario/sweep_spec.hpp"
#include "sim/sweep/point_result.hpp"

namespace dtsim::sweep {

/// The scenario of the sweep's base with `overrides` (point_overrides) applied, loaded and validated, not simulated.
scenario::Scenario load_point(const scenario::SweepSpec& spec, const std::vector<std::string>& overrides);

/// point_keys(spec, dtsim_binary) once every point's settings load. Otherwise throws core::InputError for the
/// first point that does not, at the value that breaks it: the first of the point's [set] values and axis
/// values (in that order) whose addition makes the point fail to load, "file:line:col: axis 'key' value V
/// (point N): problem; allowed"; an error of the base scenario itself as the loader reports it.
std::vector<PointKey> checked_point_keys(const scenario::SweepSpec& spec, const std::string& dtsim_binary);

}  // namespace dtsim::sweep
