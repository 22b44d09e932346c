#pragma once
/// The body of a plan's HTML report: the recommendation with why, every simulated candidate, the plot.
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace dtsim::viz {

/// The page of `plan` (plan.json of `dtsim plan`), with the plots in `svgs` (by name) inlined.
std::string plan_page(const nlohmann::json& plan, const std::map<std::string, std::string>& svgs);

}  // namespace dtsim::viz
