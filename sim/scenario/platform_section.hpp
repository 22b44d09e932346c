#pragma once
/// Validates a platform table (a platforms/*.toml file merged with the scenario's [platform] overrides).
#include <toml++/toml.h>

#include "sim/platform/platform_spec.hpp"

namespace dtsim::scenario {

/// Reads topology, sizes, links and network model; throws core::InputError at the offending key.
platform::PlatformSpec load_platform(toml::table& table);
/// Refuses a wrong value of a platform file that `overlay` (the scenario's [platform] keys and --set platform.*)
/// replaces: "nodes = true" is the file's mistake even where the scenario happens to override it. `file` is the
/// file as read (a copy of a toml::table loses where its values were written).
void check_replaced_values(toml::table file, const toml::table& overlay);
/// How to grow `spec` to at least `gpus` GPUs: "--set platform.nodes=32 (nodes of 4 GPUs)" where one key sets the
/// size, else which keys do.
std::string larger_platform(const platform::PlatformSpec& spec, int gpus);

}  // namespace dtsim::scenario
