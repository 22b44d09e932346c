#pragma once
/// Reading a whole TOML file with located errors, and writing one value back as the text `--set` reads.
#include <string>

#include <toml++/toml.h>

namespace dtsim::scenario {

/// Parses the file `path` (`what` names it in the error when it cannot be read: "sweep file").
toml::table parse_toml_file(const std::string& path, const std::string& what);
/// A TOML value as the text `--set` reads back: strings quoted, numbers and booleans as written.
std::string toml_text(const toml::node& value);

}  // namespace dtsim::scenario
