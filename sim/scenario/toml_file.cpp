#include "sim/scenario/toml_file.hpp"

#include <fstream>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/scenario/section.hpp"

namespace dtsim::scenario {

toml::table parse_toml_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::InputError(path, "cannot read " + what + " '" + path + "'", "give the path of a readable file");
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return toml::parse(text.str(), path);
  } catch (const toml::parse_error& e) {
    throw core::InputError(where(e.source()), std::string(e.description()), "the file must be valid TOML v1.0");
  }
}

std::string toml_text(const toml::node& value) {
  std::ostringstream out;
  value.visit([&](const auto& v) { out << toml::toml_formatter(v, toml::format_flags::none); });
  return out.str();
}

}  // namespace dtsim::scenario
