#include "viz/plan_page.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "sim/core/units.hpp"
#include "viz/html.hpp"
#include "viz/quantity_text.hpp"

namespace dtsim::viz {
namespace {

/// "7.12 h" for times to train, which run to hours.
std::string train_time(double s) { return s >= 3600 ? fmt::format("{:.2f} h", s / 3600) : duration_text(s); }

/// One row per simulated candidate: what it is, its time, cost and energy, and whether it meets the target.
std::string candidates_table(const nlohmann::json& plan) {
  const std::string currency = plan["costs"]["currency"];
  std::string out = "<div class=\"wide\"><table class=\"results\">\n" +
                    html::row({"#", "candidate", "GPUs", "time to train", "cost (" + currency + ")", "energy (kWh)",
                               "iteration", "exposed communication", "level", "target"},
                              "th");
  for (const auto& c : plan["candidates"]) {
    if (c["pruned"] != "") continue;
    const int index = c["index"].get<int>();
    const nlohmann::json& e = c.contains("flow") ? c["flow"] : c["analytic"];
    std::string verdict = index == plan["recommended"].get<int>() ? "recommended" : "met";
    if (!c["misses"].empty()) verdict = "misses: " + c["misses"][0].get<std::string>();
    out += html::row({std::to_string(index), c["label"].get<std::string>(), std::to_string(c["cluster"]["gpus"].get<int>()),
                      train_time(c["time_s"].get<double>()), fmt::format("{:.2f}", c["cost"].get<double>()),
                      fmt::format("{:.1f}", c["energy_kwh"].get<double>()), duration_text(e["mean_iteration_s"].get<double>()),
                      duration_text(e["exposed_comm_s"].get<double>()), c["estimate"].get<std::string>(), verdict});
  }
  return out + "</table></div>\n";
}

/// How many candidates each pruning rule removed, and why the first of each was removed.
std::string pruned_list(const nlohmann::json& plan) {
  std::string out;
  for (const char* rule : {"memory", "bound", "dominated", "invalid", "failed"}) {
    int count = 0;
    std::string example;
    for (const auto& c : plan["candidates"])
      if (c["pruned"] == rule && count++ == 0) example = c["label"].get<std::string>() + ": " + c["pruned_why"].get<std::string>();
    if (count > 0) out += "<li>" + html::escape(fmt::format("{} ({}), e.g. {}", rule, count, example)) + "</li>\n";
  }
  return out.empty() ? "" : "<h2>Not simulated</h2>\n<ul>\n" + out + "</ul>\n";
}

/// A duration that may be infinite (null in plan.json: nothing fails).
std::string maybe_time(const nlohmann::json& s) { return s.is_null() ? "never" : train_time(s.get<double>()); }

/// Under [goodput]: the failure rate, the checkpoint and where the wall time goes, for the recommended candidate
/// and those of the fronts.
std::string goodput_section(const nlohmann::json& plan, const std::map<std::string, std::string>& svgs) {
  std::vector<int> shown;
  if (plan["recommended"].get<int>() >= 0) shown.push_back(plan["recommended"].get<int>());
  for (const char* front : {"front", "energy_front"})
    for (const auto& i : plan[front])
      if (std::find(shown.begin(), shown.end(), i.get<int>()) == shown.end()) shown.push_back(i.get<int>());
  std::string rows;
  for (int i : shown) {
    const nlohmann::json& c = plan["candidates"][static_cast<std::size_t>(i)];
    if (!c.contains("goodput")) continue;
    const nlohmann::json& g = c["goodput"];
    rows += html::row({(i == plan["recommended"].get<int>() ? "* " : "") + c["label"].get<std::string>(),
                       percent_text(g["fraction"].get<double>()), maybe_time(g["mtbf_s"]),
                       core::format_bytes(g["checkpoint_bytes"].get<double>()), duration_text(g["checkpoint_s"].get<double>()),
                       maybe_time(g["interval_s"]), maybe_time(g["young_daly_s"]), maybe_time(g["optimum_s"]),
                       duration_text(g["restart_s"].get<double>()), percent_text(g["lost"]["checkpoint"].get<double>()),
                       percent_text(g["lost"]["lost_work"].get<double>()), percent_text(g["lost"]["restart"].get<double>()),
                       train_time(g["training_s"].get<double>()), train_time(c["time_s"].get<double>())});
  }
  if (rows.empty()) return "";
  std::string out = "<h2>Goodput: failures, restarts and checkpoints</h2>\n";
  const auto plot = svgs.find("goodput");
  if (plot != svgs.end())
    out += html::figure("goodput", plot->second,
                        "Shares of the wall time: training, writing checkpoints, work lost since the last checkpoint, "
                        "restarts and restores (Daly's model at the checkpoint interval chosen; docs/plan.md)");
  return out + "<div class=\"wide\"><table class=\"results\">\n" +
         html::row({"candidate (* recommended)", "goodput", "a failure every", "checkpoint", "written in", "interval",
                    "Young/Daly", "optimum", "restart and restore", "checkpoints", "lost work", "restarts", "training",
                    "wall time"},
                   "th") +
         rows + "</table></div>\n";
}

/// Which dtsim, which command and which resolved settings made the answer.
std::string provenance_section(const nlohmann::json& plan) {
  const nlohmann::json& p = plan["provenance"];
  const auto text = [](const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
  std::string rows = html::row({"dtsim", p["dtsim_version"].get<std::string>() + " (executable digest " +
                                             p.value("dtsim_digest", std::string("?")) + ")"}) +
                     html::row({"command", p["command_line"].get<std::string>()}) +
                     html::row({"plan", p["plan"].get<std::string>() + " (digest " + p.value("plan_digest", std::string("?")) + ")"}) +
                     html::row({"base scenario", p["base"].get<std::string>().empty() ? "built-in default" : p["base"].get<std::string>()}) +
                     html::row({"[set]", text(p["set"])}) + html::row({"costs", plan["costs"]["source"].get<std::string>()});
  if (p.contains("settings"))
    for (const auto& [key, value] : p["settings"].items()) rows += html::row({"resolved " + key, text(value)});
  const int best = plan["recommended"].get<int>();
  if (best >= 0) {
    const nlohmann::json& c = plan["candidates"][static_cast<std::size_t>(best)];
    const nlohmann::json& e = c.contains("flow") ? c["flow"] : c["analytic"];
    if (e.contains("run"))
      rows += html::row({"the recommended candidate's scenario",
                         "resolved in " + e["run"].get<std::string>() + "/report.json (provenance.resolved_scenario)"});
  }
  return "<h2>Made by</h2>\n<table>\n" + rows + "</table>\n";
}

}  // namespace

std::string plan_page(const nlohmann::json& plan, const std::map<std::string, std::string>& svgs) {
  std::string out = "<div class=\"answer\">\n";
  for (const auto& sentence : plan["recommendation"]) out += "<p>" + html::escape(sentence.get<std::string>()) + "</p>\n";
  out += "</div>\n";
  const auto pareto = svgs.find("pareto");
  if (pareto != svgs.end())
    out += html::figure("pareto", pareto->second,
                        "Time to train against cost and energy of every simulated candidate; the line is the Pareto front, "
                        "the star the recommendation");
  const auto timeline = svgs.find("timeline");
  if (timeline != svgs.end())
    out += html::figure("timeline", timeline->second,
                        "The recommended candidate's last iteration (" + plan["timeline"].get<std::string>() +
                            "/timeline.json: open it in ui.perfetto.dev)");
  out += goodput_section(plan, svgs);
  out += "<h2>Simulated candidates</h2>\n" + candidates_table(plan) + pruned_list(plan);
  return out + provenance_section(plan);
}

}  // namespace dtsim::viz
