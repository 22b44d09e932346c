#pragma once
/// A run owns its output folder: before a run writes, whatever an earlier run (and the plots and HTML report
/// made from it) left there is removed, so that no stale file is ever read back as this run's.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dtsim::viz {

/// Files a run writes into its folder, relative to it, in the order report.json lists them.
std::vector<std::string> run_output_names(bool timeline);

/// Refuses (core::InputError), before a run is simulated, a folder it could not claim: one that holds a sweep, or a
/// file in its place. Creates and removes nothing (a refused run leaves no folder).
void check_run_folder(const std::string& folder);

/// Prepares `folder` for a new run: check_run_folder, then removes the earlier run's outputs (report.json's "outputs", and every file name dtsim writes there: reports,
/// timeline, plots/, report.html). Returns the removed paths. Files dtsim does not write are left alone.
std::vector<std::string> claim_run_folder(const std::string& folder);

/// The report.json of the run folder `folder` (written by `dtsim run --out DIR`); a folder that is not one (no
/// folder, a sweep's or plan's folder, no report.json, one that is not a dtsim report) is a core::InputError
/// that says which.
nlohmann::json read_run_report(const std::string& folder);

}  // namespace dtsim::viz
