#include "viz/run_folder.hpp"

#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"

namespace dtsim::viz {
namespace fs = std::filesystem;

constexpr const char* kWritableFolder = "give a writable folder (--out or output.dir)";

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
  if (fs::exists(dir) && !fs::is_directory(dir))
    throw core::InputError(folder, "cannot create the output folder: a file has that name", kWritableFolder);
}

namespace {

/// The strings of an earlier report's top-level "outputs" array, read without building the report: a SAX handler
/// that keeps nothing else and stops after that array (a 100,000-rank report is megabytes). Not JSON, or no such
/// array: none.
class OutputsOnly final : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::vector<std::string> outputs;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t& value) override {
    if (in_outputs_ && depth_ == 2) outputs.push_back(value);
    return true;
  }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return open(false); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_array() override { return close(); }
  bool key(string_t& name) override {
    outputs_next_ = depth_ == 1 && name == "outputs";
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    outputs.clear();
    return false;
  }

 private:
  bool open(bool array) {
    if (depth_ == 0 && array) return false;  // a top-level array: not a report
    if (depth_ == 1) in_outputs_ = array && outputs_next_;
    ++depth_;
    return true;
  }
  bool close() {
    --depth_;
    return !(in_outputs_ && depth_ == 1);  // the outputs read: stop
  }
  int depth_ = 0;
  bool outputs_next_ = false;
  bool in_outputs_ = false;
};

std::vector<std::string> report_outputs(std::istream& in) {
  OutputsOnly handler;
  nlohmann::json::sax_parse(in, &handler, nlohmann::json::input_format_t::json, false);
  return handler.outputs;
}

}  // namespace

std::vector<std::string> claim_run_folder(const std::string& folder) {
  check_run_folder(folder);
  const fs::path dir(folder);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw core::InputError(folder, "cannot create the output folder: " + (ec ? ec.message() : "a file has that name"),
                           kWritableFolder);
  std::set<std::string> stale{"report.json", "summary.csv", "timeline.json", "report.html", "plots"};
  std::ifstream in(dir / "report.json");
  if (in)
    for (const std::string& name : report_outputs(in))
      if (fs::path(name).is_relative() && name.find("..") == std::string::npos) stale.insert(name);
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
