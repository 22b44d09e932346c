#pragma once
/// Typed, located access to one TOML table; every key read is checked, every unread key is an error.
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <toml++/toml.h>

namespace dtsim::scenario {

/// "file:line:col" of a node, or "--set key=value" for a value given on the command line.
std::string where(const toml::source_region& source);

/// One table of a scenario or platform file, e.g. [gpu]. Reads mark keys as known; finish() rejects the rest.
/// A read that falls back to a default writes the default into the table, so that after loading the table
/// holds every setting the loader used: the resolved scenario that report.json carries and sweeps key on.
class Section {
 public:
  /// `name` is the dotted table name used in messages ("" for the top level).
  Section(toml::table& table, std::string name);

  /// Location of the table itself (for errors about missing keys).
  std::string where_table() const;
  /// Location of key `key` (the table's location when it is absent).
  std::string where_key(const std::string& key) const;
  /// True if `key` is present (marks it known).
  bool has(const std::string& key);

  std::optional<std::string> optional_string(const std::string& key);
  std::string string(const std::string& key, const std::string& fallback);
  std::string required_string(const std::string& key);
  /// A string that must be one of `allowed`.
  std::string choice(const std::string& key, const std::string& fallback, const std::vector<std::string>& allowed);
  std::int64_t integer(const std::string& key, std::int64_t fallback, std::int64_t min, std::int64_t max);
  std::int64_t required_integer(const std::string& key, std::int64_t min, std::int64_t max);
  /// An array of integers each in [min, max] (nothing when absent); errors located at the offending entry.
  std::optional<std::vector<std::int64_t>> integers(const std::string& key, std::int64_t min, std::int64_t max);
  /// A non-negative number (integer or float) in [min, max].
  double number(const std::string& key, double min, double max);
  bool boolean(const std::string& key, bool fallback);
  /// Strings with units (sim/core/units.hpp), located errors.
  double bandwidth(const std::string& key);
  double duration(const std::string& key);
  std::int64_t size(const std::string& key);
  std::optional<double> optional_duration(const std::string& key);
  std::optional<double> optional_bandwidth(const std::string& key);
  /// The string of a value with a unit; a bare number is refused with a hint ("25" -> "25MiB" for example_unit
  /// "MiB"): its unit would be a guess.
  std::string unit_string(const std::string& key, const std::string& example_unit);
  /// A sub-table; throws if `key` is not a table. Empty when absent.
  std::optional<Section> table(const std::string& key);
  /// An array of tables ([[key]]); throws if `key` is something else.
  std::vector<Section> tables(const std::string& key);
  /// Throws at the first key of the table that is not in `known` (typos, keys from another section), saying
  /// hint(key) when it says something, else "did you mean" the nearest known keys (core::did_you_mean).
  void allow(const std::vector<std::string>& known,
             const std::function<std::string(const std::string&)>& hint = nullptr) const;
  /// Throws at the first key that is known but was never read: it does not apply in this configuration
  /// (for example `nodes` in a star platform).
  void finish() const;

 private:
  const toml::node* node(const std::string& key);
  /// Records `value` as the setting of the absent `key`.
  template <class T>
  T record_default(const std::string& key, T value) {
    table_->insert(key, value);
    return value;
  }
  [[noreturn]] void type_error(const std::string& key, const std::string& expected) const;
  std::string dotted(const std::string& key) const;

  toml::table* table_;
  std::string name_;
  std::set<std::string> read_;
};

}  // namespace dtsim::scenario
