#include "viz/run_page.hpp"

#include <fmt/format.h>

#include "sim/core/units.hpp"
#include "viz/diagnosis.hpp"
#include "viz/html.hpp"
#include "viz/quantity_text.hpp"

namespace dtsim::viz {
namespace {

using nlohmann::json;
using html::escape;
using html::row;

std::string text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }
double number(const json& v) { return v.get<double>(); }

/// Links and iterations beyond these counts are summarised, not listed.
constexpr std::size_t links_listed = 10;
constexpr std::size_t iterations_listed = 20;

std::string stopped_banner(const json& report) {
  if (text(report["stopped"]).empty()) return "";
  const std::string when = report.contains("stopped_at_s") ? " at " + duration_text(number(report["stopped_at_s"])) : "";
  return fmt::format("<div class=\"stopped\" role=\"alert\"><strong>STOPPED{} after {} of {} iterations</strong>: "
                     "{}. Everything below covers the completed iterations only.</div>\n",
                     when, report["iterations"].size(),
                     text(report["setup"]["iterations"]), escape(text(report["stopped"])));
}

/// A banner when the provenance says the result is not reproducible (kernels timed on the host).
std::string not_reproducible_banner(const json& report) {
  if (!report.contains("provenance") || !report["provenance"].contains("not_reproducible")) return "";
  return fmt::format("<div class=\"stopped\" role=\"alert\"><strong>NOT REPRODUCIBLE</strong>: {}.</div>\n",
                     escape(text(report["provenance"]["not_reproducible"])));
}

std::string setup_line(const json& s) {
  return fmt::format("<p class=\"setup\">{} ({:.3g} M parameters), batch {} per GPU, {} {} &middot; {} workers on {} "
                     "({}) &middot; {} sync, {}, scheduler {} ({} buckets){} &middot; fidelity {}</p>\n",
                     escape(text(s["model"])), number(s["parameters"]) / 1e6, text(s["batch_per_worker"]),
                     escape(text(s["gpu"])), escape(text(s["precision"])), text(s["workers"]), escape(text(s["platform"])),
                     escape(text(s["topology"])), escape(text(s["sync"])), escape(text(s["architecture"])),
                     escape(text(s["scheduler"])), text(s["buckets"]),
                     text(s["compression"]).empty() ? "" : ", compression " + escape(text(s["compression"])),
                     escape(text(s["fidelity"])));
}

std::string answer(const json& report, const Diagnosis& d) {
  const json& summary = report["summary"];
  std::string out = "<section class=\"answer\">\n<div class=\"figures\">";
  if (!report["iterations"].empty())
    out += fmt::format("<div><b>{}</b>per iteration</div><div><b>{:.0f} samples/s</b>throughput</div>"
                       "<div><b>{}</b>scaling efficiency (1 GPU: {})</div>",
                       duration_text(number(summary["mean_iteration_s"])), number(summary["samples_per_s"]),
                       percent_text(number(summary["scaling_efficiency"])),
                       duration_text(number(summary["single_worker_iteration_s"])));
  if (!report["iterations"].empty() && summary.contains("mfu"))
    out += fmt::format("<div><b>{}</b>model FLOPs utilisation</div>", percent_text(number(summary["mfu"])));
  if (report.contains("memory"))
    out += fmt::format("<div><b>{}</b>memory per GPU of {}</div>", core::format_bytes(number(report["memory"]["peak_bytes"])),
                       core::format_bytes(number(report["memory"]["capacity_bytes"])));
  out += "</div>\n<p class=\"bound\" data-bound=\"" + escape(d.bound) + "\">" + escape(d.answer) + "</p>\n<ul>\n";
  for (const std::string& e : d.evidence) out += "<li>" + escape(e) + "</li>\n";
  out += "</ul>\n</section>\n";
  if (d.what_ifs.empty()) return out;
  out += "<h2>What would change it</h2>\n<p>What-ifs dtsim can answer, chosen for what bounds this run; not simulated "
         "yet: <code>dtsim explain</code> on this folder runs each (with the schedulers' and precision's) and ranks "
         "them by effect, and this page then shows those effects.</p>\n<table class=\"whatif\">\n" +
         row({"command", "why"}, "th");
  for (const WhatIf& w : d.what_ifs)
    out += "<tr><td><code>" + escape(w.command) + "</code></td><td>" + escape(w.why) + "</td></tr>\n";
  return out + "</table>\n";
}

/// explain.json's what-ifs, simulated and ranked, when they belong to this run (its digest and iteration).
std::string simulated_what_ifs(const json& explain) {
  std::string out = "<h2>What would change it</h2>\n<p>Simulated by <code>dtsim explain</code>: one change each to "
                    "this run's resolved scenario, fastest first, against " +
                    duration_text(number(explain["mean_iteration_s"])) + " now.</p>\n<table class=\"whatif\">\n" +
                    row({"change", "iteration", "effect", "why"}, "th");
  for (const json& n : explain["neighbours"]) {
    std::string change;
    for (const auto& [key, value] : n["settings"].items()) change += (change.empty() ? "--set " : " --set ") + key + "=" + text(value);
    if (!n["ok"].get<bool>()) {
      const std::string error = text(n["error"]);
      out += "<tr><td><code>" + escape(change) + "</code></td><td colspan=\"2\">refused</td><td>" +
             escape(error.substr(0, error.find('\n'))) + "</td></tr>\n";
      continue;
    }
    out += "<tr><td><code>" + escape(change) + "</code></td><td>" + duration_text(number(n["mean_iteration_s"])) +
           "</td><td>" + fmt::format("{:+.1f} %", 100 * number(n["effect"])) + "</td><td>" + escape(text(n["why"])) +
           "</td></tr>\n";
  }
  out += "</table>\n";
  for (const json& s : explain["not_run"]) out += "<p>Not run: " + escape(text(s)) + ".</p>\n";
  return out;
}

/// Whether `explain` (explain.json) is the explanation of this very run.
bool explains(const json& report, const json& explain) {
  return explain.is_object() && explain.value("schema", "") == "dtsim.explain/2" && report.contains("provenance") &&
         explain["scenario_digest"] == report["provenance"]["scenario_digest"] &&
         explain["mean_iteration_s"] == report["summary"]["mean_iteration_s"];
}

std::string links_table(const json& links) {
  if (links.empty()) return "";
  std::string out = "<h3>Link utilisation</h3>\n<table>\n" + row({"link", "per iteration", "utilisation"}, "th");
  for (std::size_t i = 0; i < std::min(links.size(), links_listed); ++i) {
    const json& l = links[i];
    const double u = number(l["utilisation"]);
    out += fmt::format("<tr><td>{}</td><td>{}</td><td><span class=\"bar\" style=\"width:{:.0f}px\"></span> {}</td></tr>\n",
                       escape(link_class_text(text(l["name"]), l.value("count", std::int64_t{1}))), core::format_bytes(number(l["bytes_per_iteration"])),
                       std::min(1.0, u) * 120, percent_text(u));
  }
  out += "</table>\n";
  if (links.size() > links_listed) {
    std::int64_t more = 0;  // each entry stands for `count` links (schema 2: one)
    for (std::size_t i = links_listed; i < links.size(); ++i) more += links[i].value("count", std::int64_t{1});
    out += fmt::format("<p>{} more links carry traffic, each busy at most {}.</p>\n", more,
                       percent_text(number(links[links_listed]["utilisation"])));
  }
  return out;
}

/// The peak memory of the fullest GPU, part by part (report.json "memory").
std::string memory_table(const json& report) {
  if (!report.contains("memory")) return "";
  const json& m = report["memory"];
  const double capacity = number(m["capacity_bytes"]);
  std::string out = fmt::format("<h3>Memory per GPU ({})</h3>\n{}<table>\n", escape(text(m["where"])),
                                m["fits"].get<bool>() ? "" : "<p class=\"stopped\">The peak exceeds the GPU's memory: "
                                                             "this run would not fit (memory.check = \"warn\").</p>\n") +
                    row({"part", "bytes", "of the GPU", "how"}, "th");
  for (const json& i : m["items"])
    out += row({text(i["name"]), core::format_bytes(number(i["bytes"])), percent_text(number(i["bytes"]) / capacity),
                text(i["detail"])});
  out += row({"peak", core::format_bytes(number(m["peak_bytes"])), percent_text(number(m["peak_bytes"]) / capacity),
              "of " + core::format_bytes(capacity) + " on " + text(m["gpu"])});
  out += "</table>\n";
  for (const json& n : m["not_counted"]) out += "<p>Not counted: " + escape(text(n)) + ".</p>\n";
  return out;
}

std::string failures(const json& report) {
  if (report["failures"].empty()) return "";
  std::string out = "<h2>Failures</h2>\n<ul>\n";
  for (const auto& f : report["failures"]) out += "<li>" + escape(text(f)) + "</li>\n";
  return out + "</ul>\n";
}

/// Consecutive tasks of one category are one row: "forward conv1 .. fc (174 tasks)".
std::string critical_path(const json& report) {
  const json& path = report["critical_path"];
  if (path.empty() || report["iterations"].empty()) return "";
  const double begin_s = number(report["iterations"].back()["start_s"]);
  std::string out = "<h3>Critical path of the last iteration (worker 0)</h3>\n<table>\n" +
                    row({"tasks", "category", "start in the iteration", "duration"}, "th");
  for (std::size_t i = 0; i < path.size();) {
    std::size_t j = i;
    while (j + 1 < path.size() && path[j + 1]["category"] == path[i]["category"]) ++j;
    const std::string tasks = i == j ? text(path[i]["name"])
                                     : fmt::format("{} .. {} ({} tasks)", text(path[i]["name"]), text(path[j]["name"]),
                                                   j - i + 1);
    out += row({tasks, text(path[i]["category"]), duration_text(number(path[i]["start_s"]) - begin_s),
                duration_text(number(path[j]["end_s"]) - number(path[i]["start_s"]))});
    i = j + 1;
  }
  return out + "</table>\n";
}

std::string iterations_table(const json& iterations) {
  std::string out = "<h3>Iterations</h3>\n<table>\n" + row({"iteration", "time", "samples/s", "scaling efficiency",
                                                             "forward", "backward", "update", "exposed comm", "idle"},
                                                            "th");
  for (std::size_t i = 0; i < iterations.size(); ++i) {
    if (iterations.size() > iterations_listed && i == iterations_listed / 2) {
      out += fmt::format("<tr><td colspan=\"9\">... {} more ...</td></tr>\n", iterations.size() - iterations_listed);
      i = iterations.size() - iterations_listed / 2;
    }
    const json& it = iterations[i];
    const json& m = it["breakdown_mean"];
    out += row({text(it["index"]), duration_text(number(it["time_s"])), fmt::format("{:.0f}", number(it["samples_per_s"])),
                percent_text(number(it["scaling_efficiency"])), duration_text(number(m["forward_s"])),
                duration_text(number(m["backward_s"])), duration_text(number(m["update_s"])),
                duration_text(number(m["exposed_comm_s"])), duration_text(number(m["idle_s"]))});
  }
  return out + "</table>\n";
}

/// The setup, and the provenance of the run when report.json has it (version, command line, digest).
std::string setup_table(const json& report) {
  json rows = report["setup"];
  if (report.contains("provenance"))
    for (const char* key : {"dtsim_version", "command_line", "scenario_digest"}) rows[key] = report["provenance"][key];
  std::string out = "<h3>Setup</h3>\n<table>\n";
  for (const auto& [key, value] : rows.items()) {
    std::string shown = text(value);
    if (value.is_array()) {
      shown.clear();
      for (const auto& v : value) shown += (shown.empty() ? "" : ", ") + text(v);
    }
    out += row({key, shown});
  }
  return out + "</table>\n";
}

std::string plot(const std::map<std::string, std::string>& svgs, const std::string& name, const std::string& caption) {
  const auto it = svgs.find(name);
  return it == svgs.end() ? "" : html::figure(name, it->second, caption);
}

}  // namespace

std::string run_page(const json& report, const std::map<std::string, std::string>& svgs, const json& explain) {
  Diagnosis d = diagnose(report);
  const bool simulated = explains(report, explain);
  if (simulated) d.what_ifs.clear();
  std::string out = stopped_banner(report) + not_reproducible_banner(report) + setup_line(report["setup"]) +
                    answer(report, d);
  if (simulated) out += simulated_what_ifs(explain);
  out += "<h2>Detail</h2>\n";
  out += plot(svgs, "gantt", "The last iteration of worker 0 (and of the slowest and fastest workers when their compute "
                          "differs): compute and communication lanes, one bar per bucket");
  out += plot(svgs, "exposure", "Exposed communication per bucket: what backward could not hide");
  out += links_table(report["links"]);
  out += memory_table(report);
  out += failures(report);
  out += plot(svgs, "breakdown", "Where each iteration's time goes, mean over workers");
  out += plot(svgs, "training", "Test loss and accuracy against simulated time");
  out += critical_path(report);
  out += iterations_table(report["iterations"]);
  return out + setup_table(report);
}

}  // namespace dtsim::viz
