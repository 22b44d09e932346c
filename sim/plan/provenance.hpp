#pragma once
/// What made a plan's answer: which dtsim, which command and which resolved settings (plan.json's "provenance",
/// the shards' summaries, the HTML report's footer).
#include <string>

#include <nlohmann/json.hpp>

#include "sim/scenario/plan_spec.hpp"

namespace dtsim::plan {

/// {"dtsim_version", "dtsim_digest" (of the running executable: the digest that keys every point), "command_line",
/// "plan", "plan_digest", "base", "set", "settings"}: `command` is the command that makes this answer (the flags
/// that choose only how it runs, -j, --slurm, --shard, --merge, are left out), "settings" the plan's resolved
/// search (platforms as absolute paths, nodes, oversubscriptions, every axis and its values, re-checks) and
/// [goodput] with every default filled in. Each candidate's resolved scenario is in its runs' report.json.
nlohmann::json plan_provenance(const scenario::PlanSpec& plan, const std::string& command);

}  // namespace dtsim::plan
