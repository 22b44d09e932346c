#include "sim/plan/evaluate.hpp"

#include <algorithm>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "sim/sweep/point_result.hpp"
#include "sim/sweep/sweep_runner.hpp"

namespace dtsim::plan {
namespace {

/// The time to accuracy of a numerics-mode run (report.json "training"), from its curve of test accuracy
/// against simulated time.
void read_training(const std::string& report_path, Evaluation& e) {
  std::ifstream in(report_path);
  const nlohmann::json report = nlohmann::json::parse(in, nullptr, false);
  if (!report.is_object() || !report.contains("training") || !report["training"].contains("target_accuracy")) return;
  const nlohmann::json& t = report["training"];
  const double target = t["target_accuracy"].get<double>();
  e.trained = true;
  if (!t["time_to_accuracy_s"].is_null()) e.time_to_accuracy_s = t["time_to_accuracy_s"].get<double>();
  bool reached = false;
  for (const nlohmann::json& point : t["curve"]) {
    const double accuracy = point["accuracy"].get<double>();
    e.best_accuracy = std::max(e.best_accuracy, accuracy);
    e.steps_run = point["step"].get<double>();
    e.trained_s = point["simulated_time_s"].get<double>();
    if (accuracy >= target && !reached) e.steps_to_accuracy = e.steps_run;
    reached = reached || accuracy >= target;
  }
}

Evaluation read_point(const std::string& dir) {
  const std::string path = dir + "/point.json";
  Evaluation e;
  std::ifstream in(path);
  const nlohmann::json point = nlohmann::json::parse(in, nullptr, false);
  if (!point.is_object()) {
    e.error = "no result was recorded (" + path + ")";
    return e;
  }
  if (point.value("status", "") != "ok") {
    e.error = point.value("error", "the run failed");
    return e;
  }
  const nlohmann::json& m = point["metrics"];
  e.ok = true;
  e.iteration_s = m["mean_iteration_s"].get<double>();
  e.samples_per_s = m["samples_per_s"].get<double>();
  e.scaling_efficiency = m["scaling_efficiency"].get<double>();
  e.exposed_comm_s = m["exposed_comm_s"].get<double>();
  e.idle_s = m["idle_s"].get<double>();
  e.report_path = dir + "/report.json";
  read_training(e.report_path, e);
  return e;
}

}  // namespace

std::vector<Evaluation> evaluate(const scenario::PlanSpec& plan, const std::vector<const Candidate*>& candidates,
                                 const EvaluateOptions& options, std::ostream& progress, bool terminal) {
  // Candidates that set the same keys (compression "none" sets none) share one zip sweep.
  std::map<std::vector<std::string>, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    std::vector<std::string> keys;
    for (const auto& [key, value] : candidates[i]->settings) keys.push_back(key);
    groups[keys].push_back(i);
  }
  std::vector<Evaluation> out(candidates.size());
  for (const auto& [keys, members] : groups) {
    scenario::SweepSpec spec;
    spec.source = plan.source;
    spec.base = plan.base;
    spec.base_settings = plan.base_settings;
    spec.base_settings.push_back("strategy.fidelity=\"" + options.fidelity + "\"");
    if (options.timeline) spec.base_settings.push_back("output.timeline=true");
    spec.zip = true;
    spec.output_dir = plan.output_dir;
    spec.jobs = options.jobs;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      scenario::Axis axis{keys[k], {}, {}};
      for (std::size_t m : members) axis.values.push_back(candidates[m]->settings[k].second);
      spec.axes.push_back(std::move(axis));
    }
    const std::vector<sweep::PointKey> point_keys = sweep::point_keys(spec, options.dtsim_binary);
    sweep::run_sweep(spec, point_keys, {options.dtsim_binary, options.jobs, 0, 1}, progress, terminal);
    for (std::size_t p = 0; p < members.size(); ++p) {
      out[members[p]] = read_point(sweep::point_dir(spec, point_keys[p]));
      out[members[p]].run = "points/" + point_keys[p].key;
    }
  }
  return out;
}

}  // namespace dtsim::plan
