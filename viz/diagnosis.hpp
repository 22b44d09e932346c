#pragma once
/// What bounds a run's iteration time and which what-ifs would change it, read from its report.json.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dtsim::viz {

/// One what-if dtsim can run: the command to copy and why it would help.
struct WhatIf {
  std::string command;  ///< "dtsim run scenario.toml --set strategy.scheduler=mg_wfbp"
  std::string why;
  std::vector<std::string> settings;  ///< the change alone: "strategy.scheduler=mg_wfbp"
};

/// The answer a report opens with.
struct Diagnosis {
  std::string bound;                  ///< "communication", "stragglers", "compute" or "memory"
  std::string answer;                 ///< one sentence: "Bounded by exposed communication: ..."
  std::vector<std::string> evidence;  ///< the numbers behind it, each with its units
  std::vector<WhatIf> what_ifs;       ///< proposed, never run
};

/// Reads the breakdown, per-worker compute, exposed communication per bucket, link utilisation and critical
/// path of `report` (schema dtsim.report/2): the largest overhead over the compute of the median worker,
/// exposed communication (latency- or bandwidth-bound, on which links) or stragglers, bounds the run when it
/// costs at least a fifth of the iteration; otherwise compute does (memory when the memory-bound optimizer
/// step is a quarter of it). The what-ifs rerun the run's scenario with its --set overrides (provenance) and
/// the change.
Diagnosis diagnose(const nlohmann::json& report);

}  // namespace dtsim::viz
