#pragma once
/// Reading a whole TOML file with located errors, and writing one value back as the text `--set` reads.
#include <string>
#include <vector>

#include <toml++/toml.h>

namespace dtsim::scenario {

/// Parses the file `path` (`what` names it in the error when it cannot be read: "sweep file").
toml::table parse_toml_file(const std::string& path, const std::string& what);
/// A TOML value as the text `--set` reads back: strings quoted, numbers and booleans as written.
std::string toml_text(const toml::node& value);

class Section;
/// The `base` scenario of a sweep or plan file (`what`) at `path`, relative to the file; "" when absent (the
/// built-in default).
std::string base_scenario(Section& top, const std::string& path, const std::string& what);
/// The `[set]` table of a sweep or plan file as "key=value" overrides of every point; `places`, when given,
/// receives each one's "file:line:col" in that file.
std::vector<std::string> set_overrides(const toml::table& root, Section& top, std::vector<std::string>* places = nullptr);

}  // namespace dtsim::scenario
