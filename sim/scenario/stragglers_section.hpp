#pragma once
/// The [stragglers] table: slow workers, compute noise, periodic interference and trace-driven speed profiles.
#include <filesystem>

#include <toml++/toml.h>

#include "sim/scenario/scenario.hpp"
#include "sim/scenario/section.hpp"

namespace dtsim::scenario {

/// Reads [stragglers] into `s.stragglers` (needs s.workers); speed profile files are relative to `base`.
void load_stragglers(Section& t, const toml::table& table, const std::filesystem::path& base, Scenario& s);

}  // namespace dtsim::scenario
