#include "sim/scenario/toml_file.hpp"

#include <filesystem>
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

std::string base_scenario(Section& top, const std::string& path, const std::string& what) {
  const auto base = top.optional_string("base");
  if (!base) return "";
  const std::string resolved = (std::filesystem::path(path).parent_path() / *base).lexically_normal().string();
  if (!std::filesystem::exists(resolved))
    throw core::InputError(top.where_key("base"), "base scenario '" + resolved + "' does not exist",
                           "give a scenario path relative to the " + what + ", or leave base out for the built-in "
                           "default");
  return resolved;
}

std::vector<std::string> set_overrides(const toml::table& root, Section& top, std::vector<std::string>* places) {
  std::vector<std::string> out;
  const toml::node* set = root.get("set");
  if (!set) return out;
  if (!set->is_table()) throw core::InputError(where(set->source()), "'set' has the wrong type", "it must be a table of key = value");
  for (const auto& [key, value] : *set->as_table()) {
    out.push_back(std::string(key.str()) + "=" + toml_text(value));
    if (places) places->push_back(where(value.source()));
  }
  top.has("set");
  return out;
}

}  // namespace dtsim::scenario
