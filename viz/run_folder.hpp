#pragma once
/// A run owns its output folder: before a run writes, whatever an earlier run (and the plots and HTML report
/// made from it) left there is removed, so that no stale file is ever read back as this run's.
#include <string>
#include <vector>

namespace dtsim::viz {

/// Files a run writes into its folder, relative to it, in the order report.json lists them.
std::vector<std::string> run_output_names(bool timeline);

/// Prepares `folder` for a new run: creates it, refuses (core::InputError) a folder that holds a sweep, and
/// removes the earlier run's outputs (report.json's "outputs", and every file name dtsim writes there: reports,
/// timeline, plots/, report.html). Returns the removed paths. Files dtsim does not write are left alone.
std::vector<std::string> claim_run_folder(const std::string& folder);

}  // namespace dtsim::viz
