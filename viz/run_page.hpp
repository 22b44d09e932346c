#pragma once
/// The body of a run's HTML report: the answer first, then the detail.
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace dtsim::viz {

/// A stopped run's banner (when, after how many iterations, why), the iteration time, throughput and efficiency,
/// what bounds them with the evidence, the what-ifs (simulated and ranked when `explain`, explain.json, is this
/// run's; else proposed), then the detail: one worker's timeline, exposure per bucket, link utilisation,
/// failures, breakdown, critical path, iterations, setup. `svgs` maps plot names ("gantt", "exposure",
/// "breakdown", "training") to their SVG text; missing plots are left out.
std::string run_page(const nlohmann::json& report, const std::map<std::string, std::string>& svgs,
                     const nlohmann::json& explain);

}  // namespace dtsim::viz
