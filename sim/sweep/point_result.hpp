#pragma once
/// The record of one sweep point: varied keys, status, and the metrics read from its report.json.
#include <string>

#include <nlohmann/json.hpp>

#include "sim/scenario/sweep_spec.hpp"

namespace dtsim::sweep {

/// Folder of point `index` under the sweep's output folder.
std::string point_dir(const scenario::SweepSpec& spec, int index);

/// {"point", "status": "ok", "keys": {...}, "metrics": {...}} from the point's report.json.
nlohmann::json successful_point(const scenario::SweepPoint& point, const std::string& report_json_path);

/// {"point", "status": "failed", "keys": {...}, "exit_code", "error"}.
nlohmann::json failed_point(const scenario::SweepPoint& point, int exit_code, const std::string& error);

/// The metric names every successful point carries, in CSV column order.
const std::vector<std::string>& metric_names();

}  // namespace dtsim::sweep
