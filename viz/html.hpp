#pragma once
/// Small HTML building blocks shared by the run and sweep pages of the report.
#include <string>
#include <vector>

namespace dtsim::viz::html {

/// `text` with &, <, > and " escaped.
std::string escape(const std::string& text);
/// One table row of escaped cells; `tag` is "td" or "th".
std::string row(const std::vector<std::string>& cells, const char* tag = "td");
/// A <figure id="`id`"> with an inline SVG (the file's text from "<svg" on) and its caption; empty when `svg`
/// holds no SVG.
std::string figure(const std::string& id, const std::string& svg, const std::string& caption);

}  // namespace dtsim::viz::html
