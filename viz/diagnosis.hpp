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

/// A whole that the sentences split into parts, quoting each part's share of it: the parts are at least 0 and
/// add up to the whole.
struct Account {
  std::string whole;  ///< "critical path of the last iteration"
  double whole_s = 0;
  std::vector<std::pair<std::string, double>> parts_s;  ///< (part, seconds)
};

/// The answer a report opens with.
struct Diagnosis {
  std::string bound;                  ///< "communication", "stragglers", "compute" or "memory"
  std::string answer;                 ///< one sentence: "Bounded by exposed communication: ..."
  std::vector<std::string> evidence;  ///< the numbers behind it, each with its units
  std::vector<WhatIf> what_ifs;       ///< proposed, never run
  std::vector<Account> accounts;      ///< the wholes the answer and evidence quote shares of
};

/// Reads `report` (schema dtsim.report/3). A bsp run (every layout) is read from the critical path of its last
/// iteration summed by kind of task (path_kinds): stragglers (where every worker is a whole replica) bound it when
/// they cost a fifth of the iteration, else communication when everything but computation holds a fifth of the
/// path and more than computation does (the answer names the kind that holds the most), else compute (memory when
/// the optimizer step is a quarter of the computation on the path; communication that holds a fifth is named with
/// its what-ifs). Other schemes, whose iterations differ by design, are read from the workers' breakdown over all
/// iterations: exposed communication (when more than compute) or stragglers, the larger, when a fifth of the
/// iteration, else compute. The what-ifs rerun the run's scenario with its --set overrides (provenance) and the
/// change; a faster link is the next product of its kind (link_products.hpp).
Diagnosis diagnose(const nlohmann::json& report);

/// The command that reruns the run of `report` (its scenario and --set overrides, from its provenance) with
/// `settings` ("key=value") set: "dtsim run scenario.toml --set strategy.scheduler=mg_wfbp".
std::string run_command(const nlohmann::json& report, const std::vector<std::string>& settings);

}  // namespace dtsim::viz
