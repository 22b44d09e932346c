#pragma once
/// What `dtsim plan` says: the recommendation with why, the Pareto front as a table, and plan.json.
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/plan/search.hpp"

namespace dtsim::plan {

/// Sentences with numbers: what the recommended cluster is, what bounds it, what the next cheaper option
/// misses the target by; or why nothing meets the target.
std::vector<std::string> recommendation(const scenario::PlanSpec& plan, const PlanResult& r);

/// The console answer: the recommendation and a table of the Pareto front.
void print_plan(std::ostream& out, const scenario::PlanSpec& plan, const PlanResult& r);

/// plan.json (schema dtsim.plan/1): provenance, job, target, costs, every candidate with its bounds, results and
/// why it was pruned, the front, the recommendation and the run folder with its timeline. `command_line` is the
/// command that makes the answer (plan_provenance).
nlohmann::json plan_json(const scenario::PlanSpec& plan, const PlanResult& r, const std::string& command_line);

}  // namespace dtsim::plan
