#pragma once
/// Runs side by side (`dtsim compare`): iteration time and throughput, the breakdown, the critical path by kind,
/// the busiest links and the settings that differ.
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dtsim::viz {

/// One run to compare: its folder, its report.json (read_run_report) and its resolved scenario flattened
/// (scenario::flat_settings).
struct ComparedRun {
  std::string folder;
  nlohmann::json report;
  std::map<std::string, std::string> settings;
};

/// Busiest links listed per run; the comparison lists the union of every run's busiest.
inline constexpr std::size_t kComparedLinks = 5;

/// compare.json (schema dtsim.compare/1): per run its figures, the breakdown averaged over the completed
/// iterations, the critical path by kind, the union of the runs' busiest links with each run's load, and the
/// resolved settings that differ (output.dir left out: where, not what) with each run's value (null: absent).
nlohmann::json comparison_json(const std::vector<ComparedRun>& runs);

/// The comparison as console tables; the columns after the first say the change from the first run.
void print_comparison(std::ostream& out, const nlohmann::json& comparison);

}  // namespace dtsim::viz
