#include "viz/run_comparison.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "sim/core/units.hpp"
#include "viz/path_kinds.hpp"

namespace dtsim::viz {
namespace {

using nlohmann::json;

/// The breakdown fields of report.json, in the console summary's order, with their words.
constexpr std::pair<const char*, const char*> breakdown_fields[] = {
    {"forward_s", "forward"}, {"backward_s", "backward"}, {"update_s", "update"},
    {"exposed_comm_s", "exposed communication"}, {"idle_s", "idle"}};

json run_json(const ComparedRun& run) {
  const json& report = run.report;
  const json& summary = report["summary"];
  json out = {{"folder", run.folder},
              {"dtsim_version", report["provenance"]["dtsim_version"]},
              {"scenario", report["setup"]["scenario"]},
              {"command_line", report["provenance"]["command_line"]},
              {"scenario_digest", report["provenance"]["scenario_digest"]},
              {"fidelity", report["setup"]["fidelity"]},
              {"iterations_completed", report["iterations"].size()},
              {"stopped", report["stopped"]},
              {"mean_iteration_s", summary["mean_iteration_s"]},
              {"samples_per_s", summary["samples_per_s"]},
              {"scaling_efficiency", summary["scaling_efficiency"]}};
  if (summary.contains("mfu")) out["mfu"] = summary["mfu"];
  return out;
}

/// Each breakdown field averaged over the run's completed iterations (null without one).
json breakdown_rows(const std::vector<ComparedRun>& runs) {
  json rows = json::array();
  for (const auto& [field, words] : breakdown_fields) {
    json values = json::array();
    for (const ComparedRun& run : runs) {
      const json& iterations = run.report["iterations"];
      if (iterations.empty()) {
        values.push_back(nullptr);
        continue;
      }
      double sum = 0;
      for (const json& it : iterations) sum += it["breakdown_mean"][field].get<double>();
      values.push_back(sum / static_cast<double>(iterations.size()));
    }
    rows.push_back({{"field", field}, {"values", values}});
  }
  return rows;
}

/// The critical path's length and its seconds per kind (viz::path_kinds), kinds in order of first appearance.
json critical_path_rows(const std::vector<ComparedRun>& runs) {
  std::vector<PathKinds> paths;
  std::vector<std::string> categories;
  for (const ComparedRun& run : runs) {
    paths.push_back(path_kinds(run.report["critical_path"]));
    for (const PathKind& k : paths.back().kinds)
      if (std::find(categories.begin(), categories.end(), k.category) == categories.end()) categories.push_back(k.category);
  }
  json rows = json::array();
  for (const std::string& c : categories) {
    json values = json::array();
    for (const PathKinds& p : paths) values.push_back(p.seconds(c));
    rows.push_back({{"category", c}, {"values", values}});
  }
  json lengths = json::array();
  for (const PathKinds& p : paths) lengths.push_back(p.length_s);
  return {{"length_s", lengths}, {"kinds", rows}};
}

/// The union of every run's kComparedLinks busiest links (report.json lists them busiest first), each with every
/// run's load (null where the run's fabric has no traffic on it).
json link_rows(const std::vector<ComparedRun>& runs) {
  std::vector<std::string> names;
  for (const ComparedRun& run : runs) {
    const json& links = run.report["links"];
    for (std::size_t i = 0; i < std::min(links.size(), kComparedLinks); ++i) {
      const std::string name = links[i]["name"];
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  json rows = json::array();
  for (const std::string& name : names) {
    json bytes = json::array(), utilisation = json::array();
    for (const ComparedRun& run : runs) {
      const json& links = run.report["links"];
      const auto it = std::find_if(links.begin(), links.end(), [&](const json& l) { return l["name"] == name; });
      bytes.push_back(it == links.end() ? json(nullptr) : (*it)["bytes_per_iteration"]);
      utilisation.push_back(it == links.end() ? json(nullptr) : (*it)["utilisation"]);
    }
    rows.push_back({{"name", name}, {"bytes_per_iteration", bytes}, {"utilisation", utilisation}});
  }
  return rows;
}

/// The resolved settings that differ between the runs, by key, with each run's value (null: absent).
json setting_rows(const std::vector<ComparedRun>& runs) {
  std::set<std::string> keys;
  for (const ComparedRun& run : runs)
    for (const auto& [key, value] : run.settings) keys.insert(key);
  keys.erase("output.dir");
  json rows = json::array();
  for (const std::string& key : keys) {
    json values = json::array();
    for (const ComparedRun& run : runs) {
      const auto it = run.settings.find(key);
      values.push_back(it == run.settings.end() ? json(nullptr) : json(it->second));
    }
    if (std::any_of(values.begin(), values.end(), [&](const json& v) { return v != values.front(); }))
      rows.push_back({{"key", key}, {"values", values}});
  }
  return rows;
}

/// A table whose first column is left-aligned and the others right-aligned; a row of one cell is a heading,
/// printed as it is.
void print_table(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size() && row.size() > 1; ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], row[c].size());
    }
  for (const auto& row : rows) {
    std::string line = row.size() == 1 ? "  " + row.front() : "  ";
    for (std::size_t c = 0; c < row.size() && row.size() > 1; ++c)
      line += c == 0 ? fmt::format("{:<{}}", row[c], width[c]) : fmt::format("  {:>{}}", row[c], width[c]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    fmt::print(out, "{}\n", line);
  }
}

/// Each run's value and, after the first run's, its change from it: "+5.1 %", "same", or "" where either is
/// missing or the first is 0.
std::vector<std::string> cells(const json& values, std::string (*text)(double)) {
  std::vector<std::string> out;
  const json& first = values.front();
  for (std::size_t i = 0; i < values.size(); ++i) {
    const json& v = values[i];
    out.push_back(v.is_null() ? "-" : text(v.get<double>()));
    if (i == 0) continue;
    if (v.is_null() || first.is_null())
      out.emplace_back("");
    else if (v.get<double>() == first.get<double>())
      out.emplace_back("same");
    else if (first.get<double>() != 0)
      out.push_back(fmt::format("{:+.1f} %", 100 * (v.get<double>() - first.get<double>()) / first.get<double>()));
    else
      out.emplace_back("");
  }
  return out;
}

std::string duration(double s) { return core::format_duration(s); }
std::string rate(double r) { return fmt::format("{:.1f}", r); }
std::string percentage(double f) { return fmt::format("{:.1f}%", 100 * f); }
std::string bytes(double b) { return core::format_bytes(b); }

std::vector<std::string> row(const std::string& name, std::vector<std::string> values) {
  values.insert(values.begin(), name);
  return values;
}

json column(const json& runs, const char* key) {
  json values = json::array();
  for (const json& r : runs) values.push_back(r.contains(key) ? r[key] : json(nullptr));
  return values;
}

}  // namespace

json comparison_json(const std::vector<ComparedRun>& runs) {
  json listed = json::array();
  std::set<std::string> versions;
  for (const ComparedRun& run : runs) {
    listed.push_back(run_json(run));
    versions.insert(listed.back()["dtsim_version"].get<std::string>());
  }
  return {{"schema", "dtsim.compare/1"},
          {"runs", listed},
          {"versions_differ", versions.size() > 1},
          {"breakdown", breakdown_rows(runs)},
          {"critical_path", critical_path_rows(runs)},
          {"links", link_rows(runs)},
          {"settings_differ", setting_rows(runs)}};
}

void print_comparison(std::ostream& out, const json& c) {
  const json& runs = c["runs"];
  std::vector<std::string> header{""}, labels;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string label = std::string(1, static_cast<char>('A' + i % 26)) + (i >= 26 ? std::to_string(i / 26) : "");
    labels.push_back(label);
    header.push_back(label);
    if (i > 0) header.push_back(label + " vs A");
    fmt::print(out, "{}  {}  (dtsim {}, {} fidelity, {} iterations{})\n", label, runs[i]["folder"].get<std::string>(),
               runs[i]["dtsim_version"].get<std::string>(), runs[i]["fidelity"].get<std::string>(),
               runs[i]["iterations_completed"].get<std::size_t>(),
               runs[i]["stopped"].get<std::string>().empty() ? "" : ", STOPPED: " + runs[i]["stopped"].get<std::string>());
  }
  if (c["versions_differ"].get<bool>())
    fmt::print(out, "warning: the runs come from different dtsim versions: a difference may be the simulator's, "
                    "not the scenario's\n");
  fmt::print(out, "\n");
  std::vector<std::vector<std::string>> table{header};
  table.push_back(row("mean iteration", cells(column(runs, "mean_iteration_s"), duration)));
  table.push_back(row("samples/s", cells(column(runs, "samples_per_s"), rate)));
  table.push_back(row("scaling efficiency", cells(column(runs, "scaling_efficiency"), percentage)));
  if (std::all_of(runs.begin(), runs.end(), [](const json& r) { return r.contains("mfu"); }))
    table.push_back(row("model FLOPs utilisation", cells(column(runs, "mfu"), percentage)));
  table.push_back({"breakdown (mean over workers and iterations)"});
  for (const json& b : c["breakdown"]) {
    const auto* field = std::find_if(std::begin(breakdown_fields), std::end(breakdown_fields),
                                     [&](const auto& f) { return b["field"] == f.first; });
    table.push_back(row("  " + std::string(field->second), cells(b["values"], duration)));
  }
  table.push_back({"critical path of the last iteration (worker 0), by kind"});
  for (const json& k : c["critical_path"]["kinds"])
    table.push_back(row("  " + k["category"].get<std::string>(), cells(k["values"], duration)));
  table.push_back(row("  length", cells(c["critical_path"]["length_s"], duration)));
  if (!c["links"].empty()) {
    table.push_back({"busiest links: bytes per iteration"});
    for (const json& l : c["links"])
      table.push_back(row("  " + l["name"].get<std::string>(), cells(l["bytes_per_iteration"], bytes)));
    table.push_back({"busiest links: utilisation"});
    for (const json& l : c["links"])
      table.push_back(row("  " + l["name"].get<std::string>(), cells(l["utilisation"], percentage)));
  }
  print_table(out, table);
  const json& settings = c["settings_differ"];
  if (settings.empty()) {
    fmt::print(out, "\nsettings: the resolved scenarios are the same (output.dir aside)\n");
    return;
  }
  fmt::print(out, "\nsettings that differ (resolved scenarios):\n");
  std::vector<std::string> names{""};
  names.insert(names.end(), labels.begin(), labels.end());
  std::vector<std::vector<std::string>> diff{names};
  for (const json& s : settings) {
    std::vector<std::string> values;
    for (const json& v : s["values"]) values.push_back(v.is_null() ? "(absent)" : v.get<std::string>());
    diff.push_back(row(s["key"].get<std::string>(), values));
  }
  print_table(out, diff);
}

}  // namespace dtsim::viz
