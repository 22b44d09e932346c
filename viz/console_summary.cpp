#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "sim/core/units.hpp"
#include "viz/diagnosis.hpp"
#include "viz/mean_breakdown.hpp"
#include "viz/quantity_text.hpp"
#include "viz/reports.hpp"

namespace dtsim::viz {

namespace {

/// Waiting per worker, staleness and server load: only where they say something (not every worker waits
/// the same, pulls were stale, there are servers).
void print_sync_summary(std::ostream& out, const run::RunResult& r) {
  if (r.workers.empty()) return;
  const auto [least, most] = std::minmax_element(r.workers.begin(), r.workers.end(), [](const auto& a, const auto& b) {
    return a.waiting_s < b.waiting_s;
  });
  int fewest = r.workers.front().iterations, most_iterations = fewest, dropped = 0, skipped = 0, total = 0;
  for (const run::WorkerSummary& w : r.workers) {
    fewest = std::min(fewest, w.iterations);
    most_iterations = std::max(most_iterations, w.iterations);
    dropped += w.dropped;
    skipped += w.skipped;
    total += w.iterations;
  }
  if (skipped > 0) fmt::print(out, "LAG: {} of {} uploads skipped ({:.1f}%)\n", skipped, total, 100.0 * skipped / total);
  if (most->waiting_s - least->waiting_s > 1e-9 * std::max(1.0, most->waiting_s) || fewest != most_iterations)
    fmt::print(out, "waiting per worker: {} (worker {}) to {} (worker {}); iterations per worker {} to {}{}\n",
               core::format_duration(least->waiting_s), least - r.workers.begin(),
               core::format_duration(most->waiting_s), most - r.workers.begin(), fewest, most_iterations,
               dropped > 0 ? fmt::format(", {} gradients dropped", dropped) : std::string());
  if (!r.staleness.empty()) {
    fmt::print(out, "staleness of pulls (iterations behind the slowest worker):");
    for (std::size_t s = 0; s < r.staleness.size(); ++s)
      if (r.staleness[s] > 0) fmt::print(out, "  {}: {}", s, r.staleness[s]);
    fmt::print(out, "\n");
  }
  for (std::size_t s = 0; s < r.servers.size(); ++s) {
    const run::ServerLoad& l = r.servers[s];
    const double run_s = r.iterations.empty() ? 0 : r.iterations.back().end_s;
    fmt::print(out, "server {} (host {}): pushes in {}, pulls out {} per iteration, summing {:.0f}% of the time\n", s,
               l.host, core::format_bytes(static_cast<double>(l.bytes_in) / r.info.iterations),
               core::format_bytes(static_cast<double>(l.bytes_out) / r.info.iterations),
               run_s > 0 ? 100 * l.busy_s / run_s : 0.0);
  }
}

/// What bounds the run, as the HTML report opens with it (its what-ifs are proposed once simulated: dtsim explain).
void print_diagnosis(std::ostream& out, const nlohmann::json& report) {
  const Diagnosis d = diagnose(report);
  if (d.bound != "none") fmt::print(out, "{}\n", d.answer);
}

/// "STOPPED at 500.000 ms after 1 of 3 iterations: worker 1 crashed; ...": first and last thing printed.
void print_stopped(std::ostream& out, const run::RunResult& r) {
  if (!r.stopped.empty())
    fmt::print(out, "STOPPED at {} after {} of {} iterations: {}\n", core::format_duration(r.stopped_at_s),
               r.iterations.size(), r.info.iterations, r.stopped);
}

/// "memory     11.57 GiB of 16.00 GiB per GPU (72.3%): weights ..., gradients ..." (report.json has the details).
void print_memory(std::ostream& out, const memory::MemoryBreakdown& m) {
  std::vector<std::string> parts;
  for (const memory::MemoryItem& i : m.items)
    if (i.bytes > 0) parts.push_back(i.name + " " + core::format_bytes(i.bytes));
  fmt::print(out, "  memory     {} of {} per GPU ({:.1f}%{}): {}\n", core::format_bytes(m.total_bytes()),
             core::format_bytes(m.capacity_bytes), 100 * m.total_bytes() / m.capacity_bytes,
             m.fits() ? "" : ", DOES NOT FIT: memory.check = \"warn\"", fmt::join(parts, ", "));
}

}  // namespace

void print_console_summary(std::ostream& out, const run::RunResult& r, const nlohmann::json& report) {
  const run::RunInfo& i = r.info;
  fmt::print(out, "dtsim {}: {}\n", i.dtsim_version, i.scenario);
  if (!i.overrides.empty()) fmt::print(out, "  overrides  --set {}\n", fmt::join(i.overrides, " --set "));
  fmt::print(out, "  model      {} ({} parameters, {} gradient tensors), batch {} per {}, {} {}, gradients {}\n",
             i.model, i.parameters, i.gradient_tensors, i.batch_per_worker, i.replicas > 0 ? "replica" : "GPU", i.gpu,
             i.precision, i.gradient_dtype);
  const bool platform_modified = std::any_of(i.overrides.begin(), i.overrides.end(),
                                            [](const std::string& o) { return o.starts_with("platform."); });
  fmt::print(out, "  cluster    {} workers on {}{} ({}), network model {}\n", i.workers, i.platform,
             platform_modified ? " (modified by --set platform.*)" : "", i.topology, i.network_model);
  fmt::print(out, "  strategy   {} sync, {}, scheduler {} ({} buckets), fidelity {}\n", i.sync, i.architecture,
             i.scheduler, i.buckets, i.fidelity);
  if (!i.compression.empty()) fmt::print(out, "  compress   {}\n", i.compression);
  if (!i.not_reproducible.empty()) fmt::print(out, "NOT REPRODUCIBLE: {}\n", i.not_reproducible);
  if (!r.nccl_choice_per_bucket.empty()) {
    std::map<std::string, int> buckets_of;  // NCCL's (algorithm, protocol) -> buckets that got it
    for (const std::string& c : r.nccl_choice_per_bucket) ++buckets_of[c];
    fmt::print(out, "  nccl      ");
    for (const auto& [choice, count] : buckets_of) fmt::print(out, " {} x{}", choice, count);
    fmt::print(out, " (buckets)\n");
  }
  fmt::print(out, "  overlap    compute {:g}x slower while its exchanges run, {} to launch an exchange\n",
             i.overlap_slowdown, core::format_duration(i.collective_launch_s));
  print_memory(out, r.memory);
  fmt::print(out, "\n");
  print_stopped(out, r);
  fmt::print(out, "{:>5} {:>12} {:>12} {:>10} {:>11} {:>11} {:>11} {:>11} {:>11}\n", "iter", "time", "samples/s",
             "scaling", "forward", "backward", "update", "exposed", "idle");
  for (const run::IterationResult& it : r.iterations) {
    const run::Breakdown b = mean_breakdown(it);
    fmt::print(out, "{:>5} {:>12} {:>12.1f} {:>9.1f}% {:>11} {:>11} {:>11} {:>11} {:>11}\n", it.index,
               core::format_duration(it.time_s), it.samples_per_s, 100 * it.scaling_efficiency,
               core::format_duration(b.forward_s), core::format_duration(b.backward_s),
               core::format_duration(b.update_s), core::format_duration(b.exposed_comm_s),
               core::format_duration(b.idle_s));
  }
  fmt::print(out, "\nmean iteration {}  |  {:.1f} samples/s  |  scaling efficiency {:.1f}% (1 GPU: {})\n",
             core::format_duration(r.mean_iteration_s), r.samples_per_s, 100 * r.scaling_efficiency,
             core::format_duration(r.single_worker_iteration_s));
  const bool tera = r.model_flops_per_sample >= 1e12;
  fmt::print(out, "model FLOPs utilisation {:.1f}% ({:.2f} {}FLOP per sample for forward and backward, peak {:.4g} TFLOP/s per GPU)\n",
             100 * r.mfu, r.model_flops_per_sample / (tera ? 1e12 : 1e9), tera ? "T" : "G", r.peak_flops_per_gpu / 1e12);
  if (!r.time_by_class.empty()) {
    std::vector<std::pair<std::string, double>> parts;
    for (const run::TimeShare& t : r.time_by_class) parts.emplace_back(t.name, t.seconds);
    fmt::print(out, "where worker 0's last iteration goes: {}\n", parts_text(parts));
  }
  if (!r.critical_path.empty()) {
    std::map<std::string, std::pair<int, double>> by_category;  // tasks and time on the path per category
    for (const run::TraceEvent& e : r.critical_path) {
      auto& [count, time] = by_category[e.category];
      ++count;
      time += e.end_s - e.start_s;
    }
    fmt::print(out, "critical path of the last iteration, {} tasks:", r.critical_path.size());
    // The known kinds in iteration order, then any other (none is left out).
    for (const char* category :
         {"forward", "recompute", "backward", "comm", "compress", "tp", "cp", "dp", "gather", "pp", "update"})
      if (auto it = by_category.find(category); it != by_category.end()) {
        fmt::print(out, "  {} {} x{}", category, core::format_duration(it->second.second), it->second.first);
        by_category.erase(it);
      }
    for (const auto& [category, path] : by_category)
      fmt::print(out, "  {} {} x{}", category, core::format_duration(path.second), path.first);
    fmt::print(out, "\n");
  }
  if (!r.curve.empty()) {
    const run::CurvePoint& last = r.curve.back();
    fmt::print(out, "training: test accuracy {:.3f}, loss {:.4f} after {} steps ({} simulated)", last.accuracy,
               last.loss, last.step, core::format_duration(last.simulated_time_s));
    if (r.target_accuracy > 0)
      fmt::print(out, "; {:.3f} accuracy {}", r.target_accuracy,
                 r.time_to_accuracy_s ? "reached at " + core::format_duration(*r.time_to_accuracy_s)
                                      : std::string("not reached"));
    fmt::print(out, "\n");
  }
  if (!r.links.empty()) {
    fmt::print(out, "hottest links:");
    for (std::size_t i = 0; i < std::min<std::size_t>(3, r.links.size()); ++i)
      fmt::print(out, "  {} {}/iteration ({:.0f}% busy)", link_class_text(r.links[i].name, r.links[i].count),
                 core::format_bytes(r.links[i].bytes_per_iteration), 100 * r.links[i].utilisation);
    fmt::print(out, "\n");
  }
  print_sync_summary(out, r);
  print_diagnosis(out, report);
  for (const std::string& f : r.failures) fmt::print(out, "failure: {}\n", f);
  print_stopped(out, r);
  if (!r.traffic.empty())
    fmt::print(out, "worker 0 sent {} and received {} over the run ({} iterations asked)\n",
               core::format_bytes(static_cast<double>(r.traffic[0].bytes_sent)),
               core::format_bytes(static_cast<double>(r.traffic[0].bytes_received)), i.iterations);
}

}  // namespace dtsim::viz
