#pragma once
/// `--set key=value` overrides and table merging, applied to parsed TOML before validation.
#include <string>
#include <vector>

#include <toml++/toml.h>

namespace dtsim::scenario {

/// Applies each "dotted.key=value" to `root`. The value is read as TOML ("8", "true", "\"x\"", "[1, 2]") and
/// otherwise taken as a bare string ("wfbp", "10Gbps"). Errors name "--set <argument>".
/// A key under `platform.` turns `platform = "name"` into a table { file = "name", ... }.
void apply_overrides(toml::table& root, const std::vector<std::string>& overrides);

/// Deep-merges `overlay` into `base` by moving its nodes (moves keep their file:line:col; toml++ copies do
/// not): tables merge key by key, any other value replaces.
void merge_into(toml::table& base, toml::table&& overlay);

}  // namespace dtsim::scenario
