#pragma once
/// PNG and SVG plots of a run or sweep folder, drawn by viz/plot.py (compiled into the binary) with
/// Debian's python3-matplotlib.
#include <string>
#include <vector>

namespace dtsim::viz {

/// Draws the plots of `results` (a run folder with report.json or a sweep folder with results.csv) into
/// `out` in `formats` ("png,svg", or "svg"); returns the files written. Throws std::runtime_error when
/// python3-matplotlib is missing or the script fails, with its message.
std::vector<std::string> draw_plots(const std::string& results, const std::string& out,
                                    const std::string& formats = "png,svg");

}  // namespace dtsim::viz
