#pragma once
/// One self-contained HTML page for a run or sweep folder: the answer, its tables and its plots (inline SVG).
#include <string>

namespace dtsim::viz {

/// Draws the folder's plots as SVG (plots/ inside it) and writes `<folder>/report.html`: for a run (report.json)
/// the answer (what bounds it, what-ifs) and the detail (viz/run_page.hpp), for a sweep (results.csv) its readable
/// results table and plots, for a plan (plan.json) its recommendation, candidates and Pareto plot, every plot inlined, so the page needs no other file. Returns the page's path.
std::string write_html_report(const std::string& folder);

}  // namespace dtsim::viz
