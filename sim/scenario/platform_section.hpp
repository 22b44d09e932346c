#pragma once
/// Validates a platform table (a platforms/*.toml file merged with the scenario's [platform] overrides).
#include <toml++/toml.h>

#include "sim/platform/platform_spec.hpp"

namespace dtsim::scenario {

/// Reads topology, sizes, links and network model; throws core::InputError at the offending key.
platform::PlatformSpec load_platform(toml::table& table);

}  // namespace dtsim::scenario
