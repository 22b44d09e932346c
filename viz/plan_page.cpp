#include "viz/plan_page.hpp"

#include <fmt/format.h>

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
  out += "<h2>Simulated candidates</h2>\n" + candidates_table(plan) + pruned_list(plan);
  out += "<p class=\"setup\">" + html::escape("costs: " + plan["costs"]["source"].get<std::string>() + "; made by dtsim " +
                                              plan["provenance"]["dtsim_version"].get<std::string>() + ": " +
                                              plan["provenance"]["command_line"].get<std::string>()) +
         "</p>\n";
  return out;
}

}  // namespace dtsim::viz
