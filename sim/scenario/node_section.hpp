#pragma once
/// The [platform.node] table: the inside of a two_level platform's nodes (sim/platform/node_fabric.cpp).
#include <toml++/toml.h>

#include <string>

#include "sim/platform/platform_spec.hpp"
#include "sim/scenario/section.hpp"

namespace dtsim::scenario {

/// A split-duplex link table [<prefix><key>] with bandwidth and latency; throws when it is absent.
platform::LinkSpec load_link(Section& parent, const std::string& prefix, const std::string& key);

/// Reads [platform.node] (its TOML table `table`, where defaults are recorded) into spec.node;
/// spec.gpus_per_node is already set.
/// Throws core::InputError at the offending key, with what is allowed.
void load_node(Section& node, toml::table& table, platform::PlatformSpec& spec);

}  // namespace dtsim::scenario
