#pragma once
/// The body of a plan's HTML report: the recommendation with why, the Pareto fronts, the recommended candidate's
/// timeline, the goodput breakdown ([goodput] plans), every simulated candidate, and what made the answer.
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace dtsim::viz {

/// The page of `plan` (plan.json of `dtsim plan`), with the plots in `svgs` (by name) inlined.
std::string plan_page(const nlohmann::json& plan, const std::map<std::string, std::string>& svgs);

}  // namespace dtsim::viz
