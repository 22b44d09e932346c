#include "sim/scenario/section.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/core/nearest_names.hpp"
#include "sim/core/printable.hpp"
#include "sim/core/units.hpp"

namespace dtsim::scenario {

std::string where(const toml::source_region& source) {
  const std::string path = source.path ? *source.path : std::string("<input>");
  if (path.rfind("--set ", 0) == 0) return path;
  const auto line = source.begin.line == 0 ? 1u : source.begin.line;
  const auto column = source.begin.column == 0 ? 1u : source.begin.column;
  return path + ":" + std::to_string(line) + ":" + std::to_string(column);
}

Section::Section(toml::table& table, std::string name) : table_(&table), name_(std::move(name)) {}

namespace {

/// Where a node was written: its own place, or for a table that --set made (no place of its own) the place of its
/// first value that has one ("--set k=v"); nothing for a recorded default.
std::optional<std::string> written_at(const toml::node& n) {
  if (n.source().path) return where(n.source());
  if (const toml::table* t = n.as_table())
    for (const auto& [key, value] : *t)
      if (auto w = written_at(value)) return w;
  return std::nullopt;
}

/// Where a key was written: its own place in a file, or its value's when --set added it.
std::string where_key_of(const toml::key& key, const toml::node& value) {
  return key.source().path ? where(key.source()) : written_at(value).value_or(where(value.source()));
}

}  // namespace

std::string Section::where_table() const { return written_at(*table_).value_or(where(table_->source())); }

std::string Section::where_key(const std::string& key) const {
  const toml::node* n = table_->get(key);
  const auto w = n ? written_at(*n) : std::nullopt;
  return w ? *w : where_table();  // a recorded default has no place
}

std::string Section::dotted(const std::string& key) const { return name_.empty() ? key : name_ + "." + key; }

const toml::node* Section::node(const std::string& key) {
  read_.insert(key);
  return table_->get(key);
}

bool Section::has(const std::string& key) { return node(key) != nullptr; }

void Section::type_error(const std::string& key, const std::string& expected) const {
  const toml::node* n = table_->get(key);
  throw core::InputError(where(n->source()),
                         "'" + dotted(key) + "' has type " + std::string(toml::impl::node_type_friendly_names
                                                                              [static_cast<int>(n->type())]),
                         "it must be " + expected);
}

std::optional<std::string> Section::optional_string(const std::string& key) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  if (!n->is_string()) type_error(key, "a string");
  return n->value<std::string>();
}

std::string Section::string(const std::string& key, const std::string& fallback) {
  if (auto v = optional_string(key)) return *v;
  return record_default(key, fallback);
}

std::string Section::required_string(const std::string& key) {
  auto v = optional_string(key);
  if (!v) throw core::InputError(where_table(), "missing key '" + dotted(key) + "'", "it is required here");
  return *v;
}

std::string Section::choice(const std::string& key, const std::string& fallback,
                            const std::vector<std::string>& allowed) {
  std::string v = string(key, fallback);
  for (const std::string& a : allowed)
    if (a == v) return v;
  throw core::unknown_name(dotted(key), v, allowed).at(where_key(key));
}

std::int64_t Section::integer(const std::string& key, std::int64_t fallback, std::int64_t min, std::int64_t max) {
  const toml::node* n = node(key);
  if (!n) return record_default(key, fallback);
  if (!n->is_integer()) type_error(key, "an integer");
  const std::int64_t v = *n->value<std::int64_t>();
  if (v < min || v > max)
    throw core::InputError(where(n->source()), "'" + dotted(key) + "' = " + std::to_string(v) + " is out of range",
                           "allowed: " + std::to_string(min) + " to " + std::to_string(max));
  return v;
}

std::optional<std::vector<std::int64_t>> Section::integers(const std::string& key, std::int64_t min,
                                                           std::int64_t max) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  if (!n->is_array()) type_error(key, "an array of integers, e.g. [1, 2]");
  std::vector<std::int64_t> values;
  for (const toml::node& e : *n->as_array()) {
    if (!e.is_integer())
      throw core::InputError(where(e.source()), "an entry of '" + dotted(key) + "' is not an integer",
                             "integers from " + std::to_string(min) + " to " + std::to_string(max));
    const std::int64_t v = *e.value<std::int64_t>();
    if (v < min || v > max)
      throw core::InputError(where(e.source()), "'" + dotted(key) + "' entry " + std::to_string(v) + " is out of range",
                             "integers from " + std::to_string(min) + " to " + std::to_string(max));
    values.push_back(v);
  }
  return values;
}

std::int64_t Section::required_integer(const std::string& key, std::int64_t min, std::int64_t max) {
  if (!table_->get(key)) {
    read_.insert(key);
    throw core::InputError(where_table(), "missing key '" + dotted(key) + "'", "it is required here");
  }
  return integer(key, 0, min, max);
}

double Section::number(const std::string& key, double min, double max) {
  const toml::node* n = node(key);
  if (!n) throw core::InputError(where_table(), "missing key '" + dotted(key) + "'", "it is required here");
  if (!n->is_number()) type_error(key, "a number");
  const double v = *n->value<double>();
  if (!std::isfinite(v) || v < min || v > max)
    throw core::InputError(where(n->source()), "'" + dotted(key) + "' = " + std::to_string(v) + " is out of range",
                           "allowed: " + std::to_string(min) + " to " + std::to_string(max));
  return v;
}

bool Section::boolean(const std::string& key, bool fallback) {
  const toml::node* n = node(key);
  if (!n) return record_default(key, fallback);
  if (!n->is_boolean()) type_error(key, "true or false");
  return *n->value<bool>();
}

std::string Section::unit_string(const std::string& key, const std::string& example_unit) {
  const toml::node* n = node(key);
  if (n && n->is_number()) {
    std::ostringstream number;
    if (n->is_integer())
      number << *n->value<std::int64_t>();
    else
      number << *n->value<double>();
    throw core::InputError(where(n->source()), "'" + dotted(key) + "' = " + number.str() + " has no unit",
                           "write a string with its unit, e.g. \"" + number.str() + example_unit + "\"");
  }
  return required_string(key);
}

namespace {

template <class Parse>
double with_unit(Section& s, const std::string& key, const std::string& example_unit, Parse parse) {
  const std::string text = s.unit_string(key, example_unit);
  try {
    return parse(text);
  } catch (const core::InputError& e) {
    throw e.at(s.where_key(key));
  }
}

}  // namespace

double Section::bandwidth(const std::string& key) { return with_unit(*this, key, "Gbps", core::parse_bandwidth); }

double Section::duration(const std::string& key) { return with_unit(*this, key, "ms", core::parse_duration); }

std::int64_t Section::size(const std::string& key) {
  return static_cast<std::int64_t>(with_unit(*this, key, "MiB", [](std::string_view t) {
    return static_cast<double>(core::parse_size(t));
  }));
}

std::optional<double> Section::optional_bandwidth(const std::string& key) {
  if (!table_->get(key)) return std::nullopt;
  return bandwidth(key);
}

std::optional<double> Section::optional_duration(const std::string& key) {
  if (!table_->get(key)) return std::nullopt;
  return duration(key);
}

std::optional<Section> Section::table(const std::string& key) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  if (!n->is_table()) type_error(key, "a table");
  return Section(*table_->get(key)->as_table(), dotted(key));
}

std::vector<Section> Section::tables(const std::string& key) {
  std::vector<Section> out;
  const toml::node* n = node(key);
  if (!n) return out;
  if (!n->is_array_of_tables()) type_error(key, "an array of tables ([[" + dotted(key) + "]])");
  int i = 0;
  for (toml::node& element : *table_->get(key)->as_array())
    out.emplace_back(*element.as_table(), dotted(key) + "[" + std::to_string(i++) + "]");
  return out;
}

void Section::allow(const std::vector<std::string>& known,
                    const std::function<std::string(const std::string&)>& hint) const {
  for (const auto& [key, value] : *table_) {
    const std::string k(key.str());
    if (std::find(known.begin(), known.end(), k) != known.end()) continue;
    const std::string allowed = "allowed" + std::string(name_.empty() ? " at the top level" : " in [" + name_ + "]") +
                                ": " + core::join_names(known);
    const std::string hinted = hint ? hint(k) : "";
    throw core::InputError(where_key_of(key, value), "unknown key '" + core::printable(dotted(k)) + "'",
                           hinted.empty() ? core::with_suggestion(k, known, allowed) : hinted + " " + allowed);
  }
}

void Section::finish() const {
  for (const auto& [key, value] : *table_) {
    const std::string k(key.str());
    if (read_.count(k)) continue;
    throw core::InputError(where_key_of(key, value), "key '" + dotted(k) + "' does not apply here",
                           "used with these settings: " + core::join_names({read_.begin(), read_.end()}));
  }
}

}  // namespace dtsim::scenario
