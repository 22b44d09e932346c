#include "viz/run_folder.hpp"

#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"

namespace dtsim::viz {
namespace fs = std::filesystem;

std::vector<std::string> run_output_names(bool timeline) {
  std::vector<std::string> names{"report.json", "summary.csv"};
  if (timeline) names.emplace_back("timeline.json");
  return names;
}

void check_run_folder(const std::string& folder) {
  const fs::path dir(folder);
  if (fs::exists(dir / "results.csv") || fs::exists(dir / "points"))
    throw core::InputError(folder, "the folder holds a sweep's results",
                           "write the run into another folder (--out or output.dir)");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw core::InputError(folder, "cannot create the output folder: " + (ec ? ec.message() : "a file has that name"),
                           "give a writable folder (--out or output.dir)");
}

std::vector<std::string> claim_run_folder(const std::string& folder) {
  check_run_folder(folder);
  const fs::path dir(folder);
  std::error_code ec;
  std::set<std::string> stale{"report.json", "summary.csv", "timeline.json", "report.html", "plots"};
  std::ifstream in(dir / "report.json");
  // Only the earlier report's "outputs" is read: every other top-level value is skipped as it is parsed, not built
  // (a 100,000-rank report's workers would cost more than the run's own analytic level).
  const auto outputs_only = [](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    return depth != 1 || event != nlohmann::json::parse_event_t::key || parsed == "outputs";
  };
  const nlohmann::json old = in ? nlohmann::json::parse(in, outputs_only, false) : nlohmann::json();
  if (old.is_object() && old.contains("outputs") && old["outputs"].is_array())
    for (const nlohmann::json& name : old["outputs"])
      if (name.is_string() && fs::path(name.get<std::string>()).is_relative() &&
          name.get<std::string>().find("..") == std::string::npos)
        stale.insert(name.get<std::string>());
  std::vector<std::string> removed;
  for (const std::string& name : stale) {
    const fs::path path = dir / name;
    if (!fs::exists(fs::symlink_status(path))) continue;
    fs::remove_all(path, ec);
    if (ec)
      throw core::InputError(path.string(), "cannot remove an earlier run's output: " + ec.message(),
                             "a run owns its output folder: make it writable or write elsewhere (--out)");
    removed.push_back(path.string());
  }
  return removed;
}

nlohmann::json read_run_report(const std::string& folder) {
  const fs::path dir(folder);
  const std::string allowed = "give the output folder of `dtsim run --out DIR` (it holds report.json)";
  if (!fs::is_directory(dir)) throw core::InputError(folder, "no such folder", allowed);
  if (fs::exists(dir / "results.csv") || fs::exists(dir / "points"))
    throw core::InputError(folder, "the folder holds a sweep's results, not a run's", allowed);
  if (!fs::exists(dir / "report.json") && fs::exists(dir / "plan.json"))
    throw core::InputError(folder, "the folder holds a plan's results, not a run's", allowed);
  const fs::path path = dir / "report.json";
  std::ifstream in(path);
  if (!in) throw core::InputError(folder, "no report.json in this folder", allowed);
  const nlohmann::json report = nlohmann::json::parse(in, nullptr, false);
  if (!report.is_object() || !report.contains("schema") || !report["schema"].is_string() ||
      !report["schema"].get<std::string>().starts_with("dtsim.report/"))
    throw core::InputError(path.string(), "not a dtsim report (a JSON object whose schema is dtsim.report/N)", allowed);
  for (const char* key : {"provenance", "setup", "summary", "iterations", "critical_path", "links"})
    if (!report.contains(key))
      throw core::InputError(path.string(), std::string("the report has no \"") + key + "\" (written by an older dtsim?)",
                             "re-run `dtsim run --out DIR` with this dtsim");
  return report;
}

}  // namespace dtsim::viz
