#pragma once
/// One self-contained HTML page for a run or sweep folder: its tables and its plots (inline SVG).
#include <string>

namespace dtsim::viz {

/// Draws the folder's plots (plots/ inside it) and writes `<folder>/report.html` with the setup, summary and
/// per-iteration tables of a run (report.json) or the results table of a sweep (results.csv), and every plot
/// inlined, so the page needs no other file. Returns the page's path.
std::string write_html_report(const std::string& folder);

}  // namespace dtsim::viz
