#pragma once
/// A sweep file: a base scenario and axes over any scenario key (grid or zip).
#include <string>
#include <vector>

namespace dtsim::scenario {

/// One swept key and its values, each kept as TOML text ("16", "\"wfbp\"", "true").
struct Axis {
  std::string key;
  std::vector<std::string> values;
  std::vector<std::string> locations;  ///< "file:line:col" of each value in the sweep file ("" when made in code)
};

/// One point of a sweep: its index and the `--set key=value` overrides that make it.
struct SweepPoint {
  int index = 0;
  std::vector<std::pair<std::string, std::string>> settings;  ///< (key, TOML value), in axis order
  std::vector<std::string> locations;  ///< "file:line:col" of each setting's value ("" when made in code)
};

/// A validated sweep file.
struct SweepSpec {
  std::string source;                     ///< the sweep file
  std::string base;                       ///< base scenario path, "" for the built-in default
  std::vector<std::string> base_settings; ///< [set] overrides applied to every point ("key=value")
  std::vector<std::string> base_setting_locations;  ///< "file:line:col" of each [set] value ("" when made in code)
  bool zip = false;                       ///< zip: the i-th values of every axis together; grid: all combinations
  std::vector<Axis> axes;
  std::string output_dir;                 ///< relative to the working directory; default "<sweep file stem>-out"
  int jobs = 1;                           ///< points run at once
  /// Every point, in order (grid: the last axis varies fastest).
  std::vector<SweepPoint> points() const;
};

/// Reads and validates a sweep file; errors are core::InputError "file:line:col: problem; allowed".
SweepSpec load_sweep(const std::string& path);

}  // namespace dtsim::scenario
