#pragma once
/// The registry of scenario keys: what the loader accepts and checks, and what docs/scenario-reference.md
/// lists (generated from this table by `dtsim list keys`, so the two cannot drift).
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace dtsim::scenario {

class Section;

/// One key of a scenario file.
struct KeySpec {
  std::string table;        ///< dotted table it lives in: "" (top level), "gpu", "strategy.fusion", "model.layers"
  std::string key;
  std::string type;         ///< integer, number, string, boolean, duration, bandwidth, size, compute rate, table
  std::string default_text; ///< as written in a file; "required" or "-" (absent means not used) when there is none
  std::string description;
  std::int64_t min = 0;     ///< integers and numbers: inclusive range
  std::int64_t max = 0;
  std::function<std::vector<std::string>()> choices;  ///< names accepted, when the value is a name
  /// What is allowed, in words (choices, range or unit).
  std::string allowed() const;
};

/// Every scenario key, in documentation order.
const std::vector<KeySpec>& scenario_keys();
/// The spec of `key` in `table`; a missing entry is a bug (DTSIM_CHECK).
const KeySpec& key_spec(std::string_view table, std::string_view key);
/// The keys a table accepts (Section::allow).
std::vector<std::string> keys_of(std::string_view table);
/// Reads `key` of `section` (table `table` of the registry) as one of the key's choices, its default when absent.
std::string choice_key(Section& section, const std::string& table, const std::string& key);
/// docs/scenario-reference.md.
std::string scenario_reference_markdown();

}  // namespace dtsim::scenario
