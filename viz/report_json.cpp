#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/atomic_file.hpp"
#include "viz/mean_breakdown.hpp"
#include "viz/reports.hpp"

namespace dtsim::viz {
namespace {

nlohmann::json breakdown_json(const run::Breakdown& b) {
  return {{"forward_s", b.forward_s},       {"backward_s", b.backward_s}, {"update_s", b.update_s},
          {"exposed_comm_s", b.exposed_comm_s}, {"idle_s", b.idle_s}};
}

nlohmann::json memory_json(const memory::MemoryBreakdown& m) {
  nlohmann::json items = nlohmann::json::array();
  for (const memory::MemoryItem& i : m.items) items.push_back({{"name", i.name}, {"bytes", i.bytes}, {"detail", i.detail}});
  return {{"gpu", m.gpu},           {"where", m.where},      {"capacity_bytes", m.capacity_bytes},
          {"peak_bytes", m.total_bytes()}, {"fits", m.fits()}, {"items", items},
          {"not_counted", m.notes}};
}

/// The wall time in [start_s, end_s] during which worker 0 has an exchange in flight: the union of its events on
/// every lane but computation's and compression's (overlapping buckets, tensor and data groups counted once).
double exchanges_in_flight_s(const std::vector<run::TraceEvent>& events, double start_s, double end_s) {
  std::vector<std::pair<double, double>> spans;
  for (const run::TraceEvent& e : events)
    if (e.worker == 0 && e.lane != "compute" && e.lane != "compress" && e.end_s > start_s && e.start_s < end_s)
      spans.emplace_back(std::max(e.start_s, start_s), std::min(e.end_s, end_s));
  std::sort(spans.begin(), spans.end());
  double total = 0, covered_to = start_s;
  for (const auto& [from, to] : spans) {
    if (to <= covered_to) continue;
    total += to - std::max(from, covered_to);
    covered_to = to;
  }
  return total;
}

/// Runs of consecutive workers with equal `T`s (each worker's entry in `per_worker`) as "worker" (the run's first),
/// "count" (its workers) and the fields `fields` gives: one entry per role on a symmetric cluster, and what
/// every worker holds, exactly, in any case.
template <typename T, typename Fields>
nlohmann::json worker_runs(const std::vector<T>& per_worker, Fields fields) {
  nlohmann::json runs = nlohmann::json::array();
  for (std::size_t from = 0, to = 0; from < per_worker.size(); from = to) {
    for (to = from + 1; to < per_worker.size() && per_worker[to] == per_worker[from];) ++to;
    nlohmann::json entry = fields(per_worker[from]);
    entry["worker"] = from;
    entry["count"] = to - from;
    runs.push_back(std::move(entry));
  }
  return runs;
}

}  // namespace

nlohmann::json report_json(const run::RunResult& r, const std::vector<std::string>& outputs) {
  const run::RunInfo& i = r.info;
  nlohmann::json report;
  report["schema"] = "dtsim.report/3";
  nlohmann::json inputs = nlohmann::json::array();
  for (const auto& [file, digest] : i.inputs) inputs.push_back({{"path", file}, {"digest", digest}});
  report["provenance"] = {{"dtsim_version", i.dtsim_version},
                          {"command_line", i.command_line},
                          {"overrides", i.overrides},
                          {"scenario_digest", i.scenario_digest},
                          {"inputs", inputs},
                          {"resolved_scenario", i.resolved_scenario},
                          {"reproducible", i.not_reproducible.empty()}};
  if (!i.not_reproducible.empty()) report["provenance"]["not_reproducible"] = i.not_reproducible;
  report["outputs"] = outputs;
  report["setup"] = {{"scenario", i.scenario},
                     {"model", i.model},
                     {"parameters", i.parameters},
                     {"gradient_tensors", i.gradient_tensors},
                     {"gpu", i.gpu},
                     {"precision", i.precision},
                     {"gradient_dtype", i.gradient_dtype},
                     {"batch_per_worker", i.batch_per_worker},
                     {"replicas", i.replicas > 0 ? i.replicas : i.workers},
                     {"workers", i.workers},
                     {"platform", i.platform},
                     {"topology", i.topology},
                     {"network_model", i.network_model},
                     {"network_settings", i.network_settings},
                     {"sync", i.sync},
                     {"architecture", i.architecture},
                     {"collective", i.collective},
                     {"scheduler", i.scheduler},
                     {"buckets", i.buckets},
                     {"fidelity", i.fidelity},
                     {"compression", i.compression},
                     {"overlap_slowdown", i.overlap_slowdown},
                     {"collective_launch_s", i.collective_launch_s},
                     {"iterations", i.iterations}};
  report["summary"] = {{"mean_iteration_s", r.mean_iteration_s},
                       {"samples_per_s", r.samples_per_s},
                       {"single_worker_iteration_s", r.single_worker_iteration_s},
                       {"scaling_efficiency", r.scaling_efficiency},
                       {"model_flops_per_sample", r.model_flops_per_sample},
                       {"peak_flops_per_gpu", r.peak_flops_per_gpu},
                       {"mfu", r.mfu}};
  report["memory"] = memory_json(r.memory);
  nlohmann::json iterations = nlohmann::json::array();
  for (const run::IterationResult& it : r.iterations) {
    nlohmann::json workers = nlohmann::json::array();
    for (int w = 0; w < i.trace_workers; ++w) workers.push_back(breakdown_json(it.per_worker[static_cast<std::size_t>(w)]));
    iterations.push_back({{"index", it.index},
                          {"start_s", it.start_s},
                          {"end_s", it.end_s},
                          {"time_s", it.time_s},
                          {"samples_per_s", it.samples_per_s},
                          {"scaling_efficiency", it.scaling_efficiency},
                          {"breakdown_mean", breakdown_json(mean_breakdown(it))},
                          {"exchanges_in_flight_s", exchanges_in_flight_s(r.events, it.start_s, it.end_s)},
                          {"breakdown_per_worker", workers}});
  }
  report["iterations"] = iterations;
  report["traffic"] = worker_runs(r.traffic, [](const run::WorkerTraffic& t) -> nlohmann::json {
    return {{"bytes_sent", t.bytes_sent}, {"bytes_received", t.bytes_received}};
  });
  report["workers"] = worker_runs(r.workers, [](const run::WorkerSummary& w) -> nlohmann::json {
    return {{"iterations", w.iterations}, {"dropped", w.dropped}, {"skipped", w.skipped}, {"waiting_s", w.waiting_s}};
  });
  nlohmann::json links = nlohmann::json::array();
  for (const run::LinkUse& l : r.links)
    links.push_back({{"name", l.name},
                     {"count", l.count},
                     {"bytes_per_iteration", l.bytes_per_iteration},
                     {"utilisation", l.utilisation},
                     {"bandwidth_Bps", l.bandwidth_Bps},
                     {"line_rate_Bps", l.line_rate_Bps}});
  report["links"] = std::move(links);
  nlohmann::json servers = nlohmann::json::array();
  for (std::size_t s = 0; s < r.servers.size(); ++s)
    servers.push_back({{"server", s}, {"host", r.servers[s].host}, {"bytes_in", r.servers[s].bytes_in},
                       {"bytes_out", r.servers[s].bytes_out}, {"busy_s", r.servers[s].busy_s}});
  report["servers"] = servers;
  report["staleness"] = r.staleness;
  report["failures"] = r.failures;
  report["stopped"] = r.stopped;
  if (!r.stopped.empty()) report["stopped_at_s"] = r.stopped_at_s;
  nlohmann::json critical = nlohmann::json::array();
  for (const run::TraceEvent& e : r.critical_path)
    critical.push_back({{"name", e.name}, {"category", e.category}, {"start_s", e.start_s}, {"end_s", e.end_s}});
  report["critical_path"] = critical;
  report["exposed_comm_per_bucket_s"] = r.exposed_comm_per_bucket_s;
  nlohmann::json by_class = nlohmann::json::array();
  for (const run::TimeShare& t : r.time_by_class) by_class.push_back({{"name", t.name}, {"seconds", t.seconds}});
  report["time_by_class"] = by_class;
  if (!r.nccl_choice_per_bucket.empty()) report["nccl_choice_per_bucket"] = r.nccl_choice_per_bucket;
  if (!r.curve.empty()) {
    nlohmann::json curve = nlohmann::json::array();
    for (const run::CurvePoint& p : r.curve)
      curve.push_back({{"step", p.step}, {"simulated_time_s", p.simulated_time_s}, {"loss", p.loss},
                       {"accuracy", p.accuracy}, {"consensus_distance", p.consensus_distance}});
    report["training"] = {{"curve", curve},
                          {"target_accuracy", r.target_accuracy},
                          {"time_to_accuracy_s", r.time_to_accuracy_s ? nlohmann::json(*r.time_to_accuracy_s)
                                                                      : nlohmann::json(nullptr)}};
  }
  return report;
}

void write_report_json(const std::string& path, const nlohmann::json& report) {
  const std::string text = report.dump(2);
  core::write_atomically(path, [&](std::ostream& out) { out << text << '\n'; });
}

}  // namespace dtsim::viz
