#include "sim/scenario/flat_settings.hpp"

#include <sstream>

#include <toml++/toml.h>

#include "sim/core/error.hpp"
#include "sim/scenario/section.hpp"
#include "sim/scenario/toml_file.hpp"

namespace dtsim::scenario {
namespace {

bool is_array_of_tables(const toml::node& node) {
  const toml::array* a = node.as_array();
  return a && !a->empty() && a->is_array_of_tables();
}

void flatten(const toml::node& node, const std::string& key, std::map<std::string, std::string>& out) {
  if (const toml::table* t = node.as_table()) {
    for (const auto& [name, value] : *t)
      flatten(value, key.empty() ? std::string(name.str()) : key + "." + std::string(name.str()), out);
    return;
  }
  if (is_array_of_tables(node)) {
    const toml::array& a = *node.as_array();
    for (std::size_t i = 0; i < a.size(); ++i) flatten(a[i], key + "[" + std::to_string(i) + "]", out);
    return;
  }
  out[key] = toml_text(node);
}

toml::table parse_resolved(const std::string& toml_text, const std::string& where_text) {
  try {
    return toml::parse(toml_text, where_text);
  } catch (const toml::parse_error& e) {
    throw core::InputError(where(e.source()), std::string(e.description()),
                           "the resolved scenario must be valid TOML v1.0");
  }
}

}  // namespace

std::map<std::string, std::string> flat_settings(const std::string& toml_text, const std::string& where_text) {
  const toml::table root = parse_resolved(toml_text, where_text);
  std::map<std::string, std::string> out;
  flatten(root, "", out);
  return out;
}

std::string without_settings(const std::string& toml_text, const std::vector<std::string>& keys,
                             const std::string& where_text) {
  toml::table root = parse_resolved(toml_text, where_text);
  for (const std::string& key : keys) {
    const auto dot = key.rfind('.');
    toml::table* table = dot == std::string::npos ? &root : root.at_path(key.substr(0, dot)).as_table();
    if (table) table->erase(dot == std::string::npos ? key : key.substr(dot + 1));
  }
  std::ostringstream text;
  text << toml::toml_formatter(root, toml::format_flags::none);
  return text.str();
}

}  // namespace dtsim::scenario
