#pragma once
/// The record of one sweep point: varied keys, status, and the metrics read from its report.json.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario/sweep_spec.hpp"

namespace dtsim::sweep {

/// A point's content key: the digest of its fully resolved scenario (every key, defaults included, the files it
/// reads, the dtsim version) and of the dtsim executable that runs it. Equal keys, equal results.
struct PointKey {
  std::string key;              ///< names the point's folder
  std::string scenario_digest;  ///< scenario::Provenance::digest; empty when the settings do not load
};

/// The key of every point of `spec`, in spec.points() order; `dtsim_binary` is the executable that runs them.
std::vector<PointKey> point_keys(const scenario::SweepSpec& spec, const std::string& dtsim_binary);

/// Folder of the point with content key `key` under the sweep's output folder.
std::string point_dir(const scenario::SweepSpec& spec, const PointKey& key);

/// {"point", "key", "status": "ok", "keys": {...}, "metrics": {...}} from the point's report.json.
nlohmann::json successful_point(const scenario::SweepPoint& point, const PointKey& key,
                                const std::string& report_json_path);

/// {"point", "key", "status": "failed", "keys": {...}, "exit_code", "error"}.
nlohmann::json failed_point(const scenario::SweepPoint& point, const PointKey& key, int exit_code,
                            const std::string& error);

/// The point's varied keys as JSON values ({"workers": 4, "strategy.scheduler": "wfbp"}).
nlohmann::json settings_json(const scenario::SweepPoint& point);

/// The `--set` arguments that make `point` from the sweep's base: [set] first, then the point's axes.
std::vector<std::string> point_overrides(const scenario::SweepSpec& spec, const scenario::SweepPoint& point);

/// The metric names every successful point carries, in CSV column order.
const std::vector<std::string>& metric_names();

}  // namespace dtsim::sweep
