#include "sim/scenario/overrides.hpp"

#include "sim/core/error.hpp"

namespace dtsim::scenario {
namespace {

std::vector<std::string> split_dotted(const std::string& key) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  while (true) {
    const std::size_t dot = key.find('.', begin);
    parts.push_back(key.substr(begin, dot - begin));
    if (dot == std::string::npos) break;
    begin = dot + 1;
  }
  return parts;
}

/// The value of one override, with "--set <argument>" as its source so errors point back to it.
toml::table parse_value(const std::string& value, const std::string& argument) {
  const std::string source = "--set " + argument;
  try {
    return toml::parse("v = " + value, source);
  } catch (const toml::parse_error&) {
    std::string quoted;
    for (char c : value) {
      if (c == '"' || c == '\\') quoted += '\\';
      quoted += c;
    }
    try {
      return toml::parse("v = \"" + quoted + "\"", source);
    } catch (const toml::parse_error& e) {
      throw core::InputError(source, "the value cannot be read: " + std::string(e.description()),
                             "give a TOML value or a plain string without control characters");
    }
  }
}

}  // namespace

void apply_overrides(toml::table& root, const std::vector<std::string>& overrides) {
  for (const std::string& argument : overrides) {
    const std::size_t eq = argument.find('=');
    const std::string allowed = "write --set section.key=value, e.g. --set strategy.scheduler=none";
    if (eq == std::string::npos || eq == 0)
      throw core::InputError("--set " + argument, "expected key=value", allowed);
    const std::vector<std::string> path = split_dotted(argument.substr(0, eq));
    for (const std::string& part : path)
      if (part.empty()) throw core::InputError("--set " + argument, "the key has an empty part", allowed);
    if (path.size() > 1 && path[0] == "platform") {
      if (toml::node* ref = root.get("platform"); ref && ref->is_string()) {
        toml::table as_table;
        as_table.insert("file", std::move(*ref->as_string()));
        root.insert_or_assign("platform", std::move(as_table));
      }
    }
    toml::table* table = &root;
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
      toml::node* next = table->get(path[i]);
      if (!next) next = &table->insert(path[i], toml::table{}).first->second;
      if (!next->is_table())
        throw core::InputError("--set " + argument, "'" + path[i] + "' is not a table in the scenario",
                               "only keys inside tables can be set with a dotted key");
      table = next->as_table();
    }
    toml::table parsed = parse_value(argument.substr(eq + 1), argument);
    toml::node& value = *parsed.get("v");
    // An inline table merges into the table it names (--set 'strategy={architecture="ps"}' keeps the rest).
    if (toml::node* existing = table->get(path.back()); existing && existing->is_table() && value.is_table())
      merge_into(*existing->as_table(), std::move(*value.as_table()));
    else
      table->insert_or_assign(path.back(), std::move(value));
  }
}

void merge_into(toml::table& base, toml::table&& overlay) {
  for (auto&& [key, value] : overlay) {
    toml::node* existing = base.get(key);
    if (existing && existing->is_table() && value.is_table())
      merge_into(*existing->as_table(), std::move(*value.as_table()));
    else
      base.insert_or_assign(key, std::move(value));
  }
}

}  // namespace dtsim::scenario
