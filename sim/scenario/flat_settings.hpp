#pragma once
/// A resolved scenario (report.json's provenance.resolved_scenario) as a flat list of settings, for diffs, and
/// less some settings.
#include <map>
#include <string>
#include <vector>

namespace dtsim::scenario {

/// Every value of the TOML text `toml_text` by its dotted key ("strategy.scheduler", "platform.links[1].latency"
/// for the tables of an array), written as `--set` reads it back. `where` names the text in a parse error
/// (core::InputError).
std::map<std::string, std::string> flat_settings(const std::string& toml_text, const std::string& where);

/// The TOML text `toml_text` less the settings `keys` (dotted keys of tables, as flat_settings names them): a
/// resolved scenario without keys that a change would make inapplicable (`dtsim explain`'s neighbours).
std::string without_settings(const std::string& toml_text, const std::vector<std::string>& keys,
                             const std::string& where);

}  // namespace dtsim::scenario
