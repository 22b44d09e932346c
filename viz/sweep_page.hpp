#pragma once
/// The body of a sweep's HTML report: its results table, readable, and its plots.
#include <string>

namespace dtsim::viz {

/// "architecture=ps, ps.servers=2" for the inline table `{ architecture = "ps", ps = { servers = 2 } }`: an axis
/// value as a name; any other value without its quotes.
std::string axis_value_name(const std::string& value);
/// The results table of `csv` (results.csv): swept values by name, times, rates, shares and sizes with units
/// and three significant digits.
std::string sweep_table(const std::string& csv);

}  // namespace dtsim::viz
