#include "viz/html_report.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/atomic_file.hpp"
#include "viz/plots.hpp"

namespace dtsim::viz {
namespace fs = std::filesystem;
namespace {

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string row(const std::vector<std::string>& cells, const char* tag = "td") {
  std::string html = "<tr>";
  for (const std::string& c : cells) html += fmt::format("<{0}>{1}</{0}>", tag, escape(c));
  return html + "</tr>\n";
}

std::string value_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string run_tables(const nlohmann::json& report) {
  std::string html = "<h2>Setup</h2>\n<table>\n";
  for (const auto& [key, value] : report["setup"].items()) html += row({key, value_text(value)});
  html += "</table>\n<h2>Summary</h2>\n<table>\n";
  for (const auto& [key, value] : report["summary"].items()) html += row({key, value_text(value)});
  html += "</table>\n<h2>Iterations</h2>\n<table>\n";
  html += row({"iteration", "time (ms)", "samples/s", "scaling efficiency", "forward (ms)", "backward (ms)",
               "update (ms)", "exposed comm (ms)", "idle (ms)"},
              "th");
  for (const auto& it : report["iterations"]) {
    const auto& mean = it["breakdown_mean"];
    auto ms = [&](const char* phase) { return fmt::format("{:.3f}", mean[phase].get<double>() * 1e3); };
    html += row({value_text(it["index"]), fmt::format("{:.3f}", it["time_s"].get<double>() * 1e3),
                 fmt::format("{:.1f}", it["samples_per_s"].get<double>()),
                 fmt::format("{:.1f} %", 100 * it["scaling_efficiency"].get<double>()), ms("forward_s"),
                 ms("backward_s"), ms("update_s"), ms("exposed_comm_s"), ms("idle_s")});
  }
  html += "</table>\n";
  if (!report["critical_path"].empty()) {
    // Consecutive tasks of one category are one row: "forward conv1 .. fc (174 tasks)".
    html += "<h2>Critical path of the last iteration (worker 0)</h2>\n<table>\n";
    html += row({"tasks", "category", "start (ms)", "duration (ms)"}, "th");
    const auto& path = report["critical_path"];
    for (std::size_t i = 0; i < path.size();) {
      std::size_t j = i;
      while (j + 1 < path.size() && path[j + 1]["category"] == path[i]["category"]) ++j;
      const std::string tasks = i == j ? value_text(path[i]["name"])
                                       : fmt::format("{} .. {} ({} tasks)", value_text(path[i]["name"]),
                                                     value_text(path[j]["name"]), j - i + 1);
      html += row({tasks, value_text(path[i]["category"]), fmt::format("{:.3f}", path[i]["start_s"].get<double>() * 1e3),
                   fmt::format("{:.3f}", (path[j]["end_s"].get<double>() - path[i]["start_s"].get<double>()) * 1e3)});
      i = j + 1;
    }
    html += "</table>\n";
  }
  return html;
}

std::string sweep_table(const std::string& csv) {
  std::string html = "<h2>Results</h2>\n<table>\n";
  std::istringstream lines(csv);
  std::string line;
  bool header = true;
  while (std::getline(lines, line)) {
    std::vector<std::string> cells;
    std::string cell;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        cells.push_back(cell);
        cell.clear();
      } else {
        cell += c;
      }
    }
    cells.push_back(cell);
    html += row(cells, header ? "th" : "td");
    header = false;
  }
  return html + "</table>\n";
}

}  // namespace

std::string write_html_report(const std::string& folder) {
  const fs::path dir(folder);
  const bool sweep = fs::exists(dir / "results.csv");
  std::vector<std::string> plots = draw_plots(folder, (dir / "plots").string());
  std::string body = sweep ? sweep_table(read_file(dir / "results.csv"))
                           : run_tables(nlohmann::json::parse(read_file(dir / "report.json")));
  body += "<h2>Plots</h2>\n";
  for (const std::string& p : plots) {
    if (fs::path(p).extension() != ".svg") continue;
    std::string svg = read_file(p);
    if (const auto start = svg.find("<svg"); start != std::string::npos) svg = svg.substr(start);
    body += "<figure>" + svg + "<figcaption>" + escape(fs::path(p).stem().string()) + "</figcaption></figure>\n";
  }
  const std::string title = "dtsim " + std::string(sweep ? "sweep" : "run") + ": " + fs::absolute(dir).filename().string();
  const std::string path = (dir / "report.html").string();
  core::write_atomically(path, [&](std::ostream& out) {
    out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" << escape(title)
        << "</title>\n<style>\nbody { font-family: sans-serif; margin: 2em; max-width: 1200px; }\n"
           "table { border-collapse: collapse; margin-bottom: 1.5em; font-size: 13px; }\n"
           "td, th { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }\n"
           "th { background: #eee; }\nfigure { margin: 1em 0; }\nfigure svg { max-width: 100%; height: auto; }\n"
           "</style>\n</head>\n<body>\n<h1>"
        << escape(title) << "</h1>\n"
        << body << "</body>\n</html>\n";
  });
  return path;
}

}  // namespace dtsim::viz
