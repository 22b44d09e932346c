#include "viz/html_report.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/core/atomic_file.hpp"
#include "viz/html.hpp"
#include "viz/plan_page.hpp"
#include "viz/plots.hpp"
#include "viz/run_page.hpp"
#include "viz/sweep_page.hpp"

namespace dtsim::viz {
namespace fs = std::filesystem;
namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

constexpr const char* style = R"(body { font-family: sans-serif; margin: 2em auto; max-width: 1300px; padding: 0 1em; color: #222; }
h2 { border-bottom: 1px solid #ddd; padding-bottom: 0.2em; margin-top: 1.6em; }
table { border-collapse: collapse; margin-bottom: 1.5em; font-size: 13px; }
td, th { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
th { background: #eee; }
table.results td { text-align: right; white-space: nowrap; }
.wide { overflow-x: auto; }
code { background: #f4f4f4; padding: 1px 4px; user-select: all; }
.setup { color: #555; }
.stopped { background: #fde8e8; border: 2px solid #c0392b; color: #7b1e15; padding: 0.8em 1em; font-size: 1.15em;
  margin: 1em 0; }
.answer { background: #f5f8fc; border-left: 4px solid #4c72b0; padding: 0.6em 1.2em; }
.figures { display: flex; gap: 3em; margin: 0.4em 0; }
.figures div { font-size: 13px; color: #555; }
.figures b { display: block; font-size: 26px; color: #222; }
.bound { font-size: 1.15em; font-weight: bold; }
.bar { display: inline-block; height: 10px; background: #4c72b0; vertical-align: middle; }
figure { margin: 1em 0; }
figure svg { max-width: 100%; height: auto; }
figcaption { color: #555; font-size: 13px; }
)";

/// Sweep plots in the order a reader wants them (plots are named by viz/plot.py).
std::string sweep_figures(const std::map<std::string, std::string>& svgs) {
  const std::pair<const char*, const char*> order[] = {
      {"scaling", "Throughput and scaling efficiency against workers; dashed: ideal (linear) scaling"},
      {"against_", "Mean iteration time and throughput against a numeric swept key"},
      {"heatmap", "Mean iteration time over the first two swept keys"},
      {"breakdown", "Where the time goes, per point"}};
  std::string out = "<h2>Plots</h2>\n";
  for (const auto& [prefix, caption] : order)
    for (const auto& [name, svg] : svgs)
      if (name.rfind(prefix, 0) == 0) out += html::figure(name, svg, caption);
  return out;
}

}  // namespace

std::string write_html_report(const std::string& folder) {
  const fs::path dir(folder);
  const bool sweep = fs::exists(dir / "results.csv");
  const bool plan = !sweep && !fs::exists(dir / "report.json") && fs::exists(dir / "plan.json");
  std::map<std::string, std::string> svgs;
  for (const std::string& p : draw_plots(folder, (dir / "plots").string(), "svg"))
    if (fs::path(p).extension() == ".svg") svgs[fs::path(p).stem().string()] = read_file(p);
  const std::string body = sweep  ? sweep_table(read_file(dir / "results.csv")) + sweep_figures(svgs)
                           : plan ? plan_page(nlohmann::json::parse(read_file(dir / "plan.json")), svgs)
                                  : run_page(nlohmann::json::parse(read_file(dir / "report.json")), svgs,
                                             nlohmann::json::parse(read_file(dir / "explain" / "explain.json"), nullptr, false));
  const std::string kind = sweep ? "sweep" : plan ? "plan" : "run";
  const std::string title = "dtsim " + kind + ": " + fs::absolute(dir).filename().string();
  const std::string path = (dir / "report.html").string();
  core::write_atomically(path, [&](std::ostream& out) {
    out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" << html::escape(title)
        << "</title>\n<style>\n" << style << "</style>\n</head>\n<body>\n<h1>" << html::escape(title) << "</h1>\n"
        << body << "</body>\n</html>\n";
  });
  return path;
}

}  // namespace dtsim::viz
