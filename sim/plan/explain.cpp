#include "sim/plan/explain.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "sim/core/atomic_file.hpp"
#include "sim/core/error.hpp"
#include "sim/core/shell_quote.hpp"
#include "sim/plan/layout_neighbours.hpp"
#include "sim/scenario/flat_settings.hpp"
#include "sim/scenario/load.hpp"
#include "sim/scenario/parallel_section.hpp"
#include "viz/diagnosis.hpp"
#include "viz/quantity_text.hpp"

namespace dtsim::plan {
namespace fs = std::filesystem;
namespace {

using nlohmann::json;

/// Time on the critical path of the last iteration by category (compute, comm, ...), in path order; time between
/// one task's end and the next one's start (an exchange's launch) is "idle between tasks".
std::string critical_path_sentence(const json& report) {
  std::vector<std::pair<std::string, double>> by_category;
  const auto add = [&](const std::string& category, double s) {
    auto it = std::find_if(by_category.begin(), by_category.end(), [&](const auto& c) { return c.first == category; });
    if (it == by_category.end())
      by_category.emplace_back(category, s);
    else
      it->second += s;
  };
  std::optional<double> previous_end;
  for (const auto& e : report["critical_path"]) {
    const double start = e["start_s"].get<double>(), end = e["end_s"].get<double>();
    if (previous_end && start > *previous_end * (1 + 1e-12)) add("idle between tasks", start - *previous_end);
    add(e["category"], end - start);
    previous_end = end;
  }
  if (by_category.empty()) return "";
  std::string parts;
  for (const auto& [category, s] : by_category) parts += (parts.empty() ? "" : ", ") + category + " " + viz::duration_text(s);
  const bool chained = std::none_of(by_category.begin(), by_category.end(), [](const auto& c) { return c.first == "idle between tasks"; });
  return fmt::format("The critical path of the last iteration ({} tasks{}): {}.", report["critical_path"].size(),
                     chained ? ", each started by the end of the one before" : "", parts);
}

/// Worker 0's last iteration by kind of kernel, exposed communication and waits (report.json time_by_class), and the
/// model FLOPs utilisation that gives.
std::string time_by_class_sentence(const json& report) {
  if (!report.contains("time_by_class") || report["time_by_class"].empty()) return "";
  std::vector<std::pair<std::string, double>> parts;
  for (const auto& p : report["time_by_class"]) parts.emplace_back(p["name"], p["seconds"].get<double>());
  return fmt::format("Worker 0's last iteration goes to {}; model FLOPs utilisation {}.", viz::parts_text(parts),
                     viz::percent_text(report["summary"]["mfu"].get<double>()));
}

/// The slowest traced worker's compute against the median's, when they differ by more than 1 %.
std::string straggler_sentence(const json& report) {
  std::vector<double> compute;
  for (const auto& it : report["iterations"]) {
    const auto& per_worker = it["breakdown_per_worker"];
    compute.resize(std::max(compute.size(), per_worker.size()));
    for (std::size_t w = 0; w < per_worker.size(); ++w)
      compute[w] += per_worker[w]["forward_s"].get<double>() + per_worker[w]["backward_s"].get<double>() +
                    per_worker[w]["update_s"].get<double>();
  }
  if (compute.size() < 2) return "";
  std::vector<double> sorted = compute;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[(sorted.size() - 1) / 2];  // the lower median: with two workers, the faster
  const auto slowest = std::max_element(compute.begin(), compute.end()) - compute.begin();
  const double iterations = static_cast<double>(report["iterations"].size());
  if (compute[slowest] <= 1.01 * median)
    return fmt::format("No straggler: the {} traced workers compute within 1 % of each other.", compute.size());
  return fmt::format("Straggler: worker {} computes {} per iteration, {} more than the median traced worker.", slowest,
                     viz::duration_text(compute[slowest] / iterations),
                     viz::duration_text((compute[slowest] - median) / iterations));
}

std::pair<std::string, std::string> split(const std::string& setting) {
  const auto eq = setting.find('=');
  return {setting.substr(0, eq), setting.substr(eq + 1)};
}

/// The settings as the --set flags that make them: "--set parallel.tensor=4 --set parallel.data=16".
std::string flags_text(const std::vector<std::pair<std::string, std::string>>& settings) {
  std::string flags;
  for (const auto& [key, value] : settings) flags += (flags.empty() ? "--set " : " --set ") + core::shell_quote(key + "=" + value);
  return flags;
}

/// The run's command: its scenario file (or the built-in default) and --set overrides.
struct RunCommand {
  std::string scenario;
  std::vector<std::string> overrides;
  scenario::Scenario load(const std::vector<std::string>& more) const {
    std::vector<std::string> all = overrides;
    all.insert(all.end(), more.begin(), more.end());
    return scenario.starts_with("built-in") ? scenario::load_default_scenario(all) : scenario::load_scenario(scenario, all);
  }
};

/// The run's command when it still makes the run (the same digest: the file is where it was, unchanged).
std::optional<RunCommand> reproducing_command(const json& report) {
  RunCommand c{report["setup"]["scenario"], report["provenance"]["overrides"]};
  try {
    if (c.load({}).provenance.digest == report["provenance"]["scenario_digest"]) return c;
  } catch (const core::InputError&) {
  }
  return std::nullopt;
}

/// A layout run's neighbouring layouts (those not yet among `e`'s), each checked as `dtsim run` checks it before
/// simulating: refused ones go to e.not_run, those that do not fit to `unfit`, the others to e.neighbours. When the
/// run's command still makes the run, each one's flags are checked to make from it the scenario explain simulates
/// (a key its file sets that the change leaves inapplicable would be refused); one whose flags do not is not run.
void add_layout_neighbours(Explanation& e, std::vector<Neighbour>& unfit, const scenario::Scenario& run,
                           const std::string& base, const std::optional<RunCommand>& command) {
  for (LayoutWhatIf& w : layout_what_ifs(run)) {
    if (std::any_of(e.neighbours.begin(), e.neighbours.end(), [&](const Neighbour& n) { return n.settings == w.settings; }))
      continue;
    const std::string flags = flags_text(w.settings);
    if (!w.not_run.empty()) {
      e.not_run.push_back(fmt::format("{}: {}", flags, w.not_run));
      continue;
    }
    const WhatIfCheck check = check_what_if(base, w.settings);
    if (!check.refused.empty()) {
      e.not_run.push_back(fmt::format("{} ({}): refused: {}", flags, w.why, check.refused));
      continue;
    }
    if (command) {
      std::vector<std::string> flags_set;
      for (const auto& [key, value] : w.settings) flags_set.push_back(key + "=" + value);
      std::string differs = "it makes another scenario than the one explain would simulate";
      try {
        if (command->load(flags_set).provenance.digest == check.digest) differs.clear();
      } catch (const core::InputError& refused) {
        differs = "it is refused: " + refused.problem().substr(0, refused.problem().find('\n'));
      }
      if (!differs.empty()) {
        e.not_run.push_back(fmt::format("{} ({}): from {}, {}", flags, w.why, command->scenario, differs));
        continue;
      }
    }
    Neighbour n{std::move(w.settings), std::move(w.why), {}, ""};
    n.result.error = check.does_not_fit;
    (check.does_not_fit.empty() ? e.neighbours : unfit).push_back(std::move(n));
  }
}

}  // namespace

Explanation explanation(const json& report) {
  Explanation e;
  e.iteration_s = report["summary"]["mean_iteration_s"].get<double>();
  if (report.contains("provenance")) e.scenario_digest = report["provenance"]["scenario_digest"];
  const viz::Diagnosis d = viz::diagnose(report);
  const json& setup = report["setup"];
  e.sentences.push_back(fmt::format("{} iterations of {} on {} {} GPUs ({}, {} level) take {} each on average.",
                                    report["iterations"].size(), setup["model"].get<std::string>(),
                                    setup["workers"].get<int>(), setup["gpu"].get<std::string>(),
                                    setup["platform"].get<std::string>(), setup["fidelity"].get<std::string>(),
                                    viz::duration_text(report["summary"]["mean_iteration_s"].get<double>())));
  e.sentences.push_back(d.answer);
  e.sentences.insert(e.sentences.end(), d.evidence.begin(), d.evidence.end());
  for (const std::string& s :
       {critical_path_sentence(report), time_by_class_sentence(report), straggler_sentence(report)})
    if (!s.empty()) e.sentences.push_back(s);
  // The diagnosis' what-ifs, then the neighbours every run has: the other common schedulers (not under a layout)
  // and half precision (faster layers; the gradients keep the dtype the resolved scenario gives them).
  std::vector<std::pair<std::vector<std::string>, std::string>> what_ifs;
  for (const viz::WhatIf& w : d.what_ifs) what_ifs.push_back({w.settings, w.why});
  // A 3D-parallel layout reduces each layer's gradients itself: other schedulers do not apply (they are refused).
  const bool layout = setup.contains("replicas") && setup["replicas"] != setup["workers"];
  for (const char* s : {"wfbp", "ddp", "mg_wfbp"})
    if (!layout && setup["scheduler"] != s)
      what_ifs.push_back({{std::string("strategy.scheduler=") + s}, std::string("the ") + s + " scheduler"});
  // The built-in platforms (`dtsim list platforms`) with this run's GPUs and room for its workers: clusters that
  // exist, each with its network and nodes.
  for (const std::string& name : scenario::builtin_platform_names()) {
    const scenario::Scenario other = scenario::load_default_scenario({"platform=" + name, "workers=1"});
    if (name != setup["platform"] && other.platform.gpu == setup["gpu"] && other.platform.hosts() >= setup["workers"])
      what_ifs.push_back({{"platform=" + name}, "the built-in platform " + name + ": " + other.platform.description});
  }
  if (setup["precision"] == "fp32" || setup["precision"] == "tf32")
    what_ifs.push_back({{"gpu.precision=fp16"}, "half precision: faster layers"});
  const bool reproducible = !report.contains("provenance") || report["provenance"].value("reproducible", true);
  std::vector<std::vector<std::string>> seen;
  for (auto& [settings, why] : what_ifs) {
    if (std::find(seen.begin(), seen.end(), settings) != seen.end()) continue;
    seen.push_back(settings);
    // Under the kernel model (the default) a compression what-if is as reproducible as the run; a run that timed
    // its kernels on this host would pass that on to it.
    if (!reproducible &&
        std::any_of(settings.begin(), settings.end(), [](const std::string& s) { return s.starts_with("compression."); })) {
      e.not_run.push_back(fmt::format("--set {} ({}): its kernel times would be measured on this machine; run it "
                                      "with compression.kernel_time = \"model\"",
                                      core::shell_quote(settings.front()), why));
      continue;
    }
    Neighbour n;
    for (const std::string& s : settings) n.settings.push_back(split(s));
    n.why = why;
    e.neighbours.push_back(std::move(n));
  }
  return e;
}

Explanation explain_run(const std::string& run_dir, const EvaluateOptions& options, std::ostream& progress,
                        bool terminal) {
  const fs::path report_path = fs::path(run_dir) / "report.json";
  std::ifstream in(report_path);
  if (!in)
    throw core::InputError(run_dir, "no report.json in this folder", "give the output folder of `dtsim run`");
  const json report = json::parse(in, nullptr, false);
  if (!report.is_object() || !report.contains("provenance") || report["iterations"].empty())
    throw core::InputError(report_path.string(), "not a report of a completed run",
                           "give the output folder of a `dtsim run` that completed an iteration");
  Explanation e = explanation(report);
  // The neighbours change the run's resolved scenario (every setting, the platform inline), one change each.
  scenario::PlanSpec plan;
  plan.source = report_path.string();
  plan.output_dir = (fs::path(run_dir) / "explain").string();
  plan.base = fs::absolute(fs::path(plan.output_dir) / "scenario.toml").string();
  fs::create_directories(plan.output_dir);
  const std::string resolved = report["provenance"]["resolved_scenario"];
  core::write_atomically(plan.base, [&](std::ostream& out) { out << resolved; });
  const scenario::Scenario run = scenario::load_scenario(plan.base);
  const bool layout = scenario::uses_layout(run);
  std::vector<Neighbour> unfit;
  if (layout) {
    // Keys a neighbour could make inapplicable, at their defaults: the same scenario without them.
    const std::string base = scenario::without_settings(resolved, inapplicable_defaults(run), plan.base);
    core::write_atomically(plan.base, [&](std::ostream& out) { out << base; });
    add_layout_neighbours(e, unfit, run, plan.base, reproducing_command(report));
  }
  // A run with stragglers: what they cost, the slow workers at full speed and the noise off.
  const scenario::Stragglers& slow = run.stragglers;
  if (!slow.slow_workers.empty())
    e.neighbours.push_back({{{"stragglers.slow_factor", "1"}}, "the slow workers at full speed: what they cost", {}, ""});
  if (slow.noise != "none")
    e.neighbours.push_back({{{"stragglers.noise", "none"}}, "no compute noise: what the random slowdowns cost", {}, ""});
  std::vector<Candidate> candidates;
  for (const Neighbour& n : e.neighbours) candidates.push_back({static_cast<int>(candidates.size()), n.settings, n.why, ""});
  std::vector<const Candidate*> pointers;
  for (const Candidate& c : candidates) pointers.push_back(&c);
  EvaluateOptions at = options;
  at.fidelity = report["setup"]["fidelity"];
  const std::vector<Evaluation> results = evaluate(plan, pointers, at, progress, terminal);
  for (std::size_t i = 0; i < results.size(); ++i) {
    Neighbour& n = e.neighbours[i];
    n.result = results[i];
    // A layout's what-if says what it changed: the kinds of task on the critical path, the wait, the memory.
    if (layout && n.result.ok) {
      std::ifstream report_in(n.result.report_path);
      const json neighbour = json::parse(report_in, nullptr, false);
      if (neighbour.is_object()) n.why += "; " + simulated_difference(report, neighbour);
    }
  }
  std::stable_sort(e.neighbours.begin(), e.neighbours.end(), [](const Neighbour& a, const Neighbour& b) {
    if (a.result.ok != b.result.ok) return a.result.ok;
    return a.result.iteration_s < b.result.iteration_s;
  });
  e.neighbours.insert(e.neighbours.end(), unfit.begin(), unfit.end());
  for (Neighbour& n : e.neighbours) {
    std::vector<std::string> settings;
    for (const auto& [key, value] : n.settings) settings.push_back(key + "=" + value);
    n.command = viz::run_command(report, settings);
  }
  return e;
}

double effect(const Neighbour& n, double now_s) { return (n.result.iteration_s - now_s) / now_s; }

json explanation_json(const Explanation& e) {
  json neighbours = json::array();
  for (const Neighbour& n : e.neighbours) {
    json settings = json::object();
    for (const auto& [key, value] : n.settings) settings[key] = value;
    json entry = {{"settings", settings}, {"command", n.command}, {"why", n.why}, {"ok", n.result.ok}};
    if (n.result.ok) {
      entry["mean_iteration_s"] = n.result.iteration_s;
      entry["effect"] = effect(n, e.iteration_s);
      entry["exposed_comm_s"] = n.result.exposed_comm_s;
    } else {
      entry["error"] = n.result.error;
    }
    neighbours.push_back(std::move(entry));
  }
  return {{"schema", "dtsim.explain/2"},     {"scenario_digest", e.scenario_digest}, {"mean_iteration_s", e.iteration_s},
          {"sentences", e.sentences},       {"neighbours", neighbours},           {"not_run", e.not_run}};
}

namespace {

std::string change_text(const Neighbour& n) { return flags_text(n.settings); }

}  // namespace

void print_what_ifs(std::ostream& out, const Explanation& e, std::size_t shown) {
  const double now = e.iteration_s;
  // Fewer than all: the best of each kind (the keys a what-if sets), in rank order.
  std::vector<const Neighbour*> listed;
  std::vector<std::vector<std::string>> kinds;
  for (const Neighbour& n : e.neighbours) {
    std::vector<std::string> keys;
    for (const auto& [key, value] : n.settings) keys.push_back(key);
    if (listed.size() == shown) break;
    if (shown < e.neighbours.size() && std::find(kinds.begin(), kinds.end(), keys) != kinds.end()) continue;
    kinds.push_back(keys);
    listed.push_back(&n);
  }
  for (const Neighbour* listed_one : listed) {
    const Neighbour& n = *listed_one;
    if (!n.result.ok) {
      const std::string error = n.result.error.substr(0, n.result.error.find('\n'));
      fmt::print(out, "  {:>9} {:>10}  {}: {}\n", "refused", "", change_text(n), error);
      continue;
    }
    fmt::print(out, "  {:>+8.1f} % {:>10}  {}  ({})\n", 100 * effect(n, now), viz::duration_text(n.result.iteration_s),
               change_text(n), n.why);
  }
  if (listed.size() < e.neighbours.size())
    fmt::print(out, "  ... {} more in explain.json (the best of each kind of change shown)\n",
               e.neighbours.size() - listed.size());
  else
    for (const std::string& s : e.not_run) fmt::print(out, "  not run: {}\n", s);
  if (!e.neighbours.empty() && e.neighbours.front().result.ok) {
    const Neighbour& best = e.neighbours.front();
    const double moved = 100 * effect(best, now);
    if (moved < 0)
      fmt::print(out, "The knob that moves it most: {} takes the iteration from {} to {} ({:+.1f} %).\n",
                 change_text(best), viz::duration_text(now), viz::duration_text(best.result.iteration_s), moved);
    else
      fmt::print(out, "No neighbouring what-if makes the iteration shorter; the least harmful is {} ({:+.1f} %).\n",
                 change_text(best), moved);
  }
}

void print_explanation(std::ostream& out, const Explanation& e) {
  for (const std::string& s : e.sentences) fmt::print(out, "{}\n", s);
  fmt::print(out, "\nNeighbouring what-ifs, fastest first (one change each: the run's command with these --set flags, "
                  "as explain.json's \"command\"):\n");
  print_what_ifs(out, e, e.neighbours.size());
}

}  // namespace dtsim::plan
