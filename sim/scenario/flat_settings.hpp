#pragma once
/// A resolved scenario (report.json's provenance.resolved_scenario) as a flat list of settings, for diffs.
#include <map>
#include <string>

namespace dtsim::scenario {

/// Every value of the TOML text `toml_text` by its dotted key ("strategy.scheduler", "platform.links[1].latency"
/// for the tables of an array), written as `--set` reads it back. `where` names the text in a parse error
/// (core::InputError).
std::map<std::string, std::string> flat_settings(const std::string& toml_text, const std::string& where);

}  // namespace dtsim::scenario
