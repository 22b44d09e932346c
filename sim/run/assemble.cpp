#include "sim/run/assemble.hpp"

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/platform/link_traffic.hpp"

namespace dtsim::run {

std::vector<LinkUse> link_uses(const std::vector<double>& bytes, const platform::Fabric& fabric, double iteration_s) {
  std::vector<LinkUse> uses;
  for (const platform::LinkClass& c : platform::link_classes(fabric, bytes, iteration_s))
    uses.push_back({c.first.name, c.first.bytes, c.first.utilisation, c.first.bandwidth_Bps, c.first.line_rate_Bps,
                    c.count});
  return uses;
}

namespace {

/// End of each job iteration that completed. Workers in lockstep (every worker still in the run has the same
/// count, nothing dropped): when the last worker ends it. Otherwise iteration k ends when (k+1) x
/// gradients_per_step accepted gradients have been computed, the job's progress in bsp's units.
std::vector<double> iteration_ends(const Timeline& timeline, int iterations, int gradients_per_step) {
  std::size_t survivors_count = 0;
  bool lockstep = true, first = true;
  for (std::size_t w = 0; w < timeline.workers(); ++w) {
    const std::vector<IterationMarks>& marks = timeline.worker_marks(w);
    for (const IterationMarks& m : marks) lockstep = lockstep && !m.dropped;
    if (std::find(timeline.out.begin(), timeline.out.end(), static_cast<int>(w)) != timeline.out.end()) continue;
    if (first) survivors_count = marks.size();
    lockstep = lockstep && marks.size() == survivors_count;
    first = false;
  }
  std::vector<double> ends;
  if (lockstep) {
    ends.assign(std::min(survivors_count, static_cast<std::size_t>(iterations)), 0.0);
    for (const auto& worker : timeline.marks)  // every worker's list (a shared list once: the maximum is the same)
      for (std::size_t it = 0; it < ends.size() && it < worker.size(); ++it) ends[it] = std::max(ends[it], worker[it].end_s);
    return ends;
  }
  std::vector<double> accepted;
  for (std::size_t w = 0; w < timeline.workers(); ++w)
    for (const IterationMarks& m : timeline.worker_marks(w))
      if (!m.dropped) accepted.push_back(m.end_s);
  std::sort(accepted.begin(), accepted.end());
  const std::size_t per_step = static_cast<std::size_t>(gradients_per_step);
  for (std::size_t it = 0; it < static_cast<std::size_t>(iterations) && (it + 1) * per_step <= accepted.size(); ++it)
    ends.push_back(accepted[(it + 1) * per_step - 1]);
  return ends;
}

}  // namespace

RunResult assemble_result(RunInfo info, Timeline timeline, double single_worker_iteration_s, int gradients_per_step) {
  RunResult r;
  r.info = std::move(info);
  r.single_worker_iteration_s = single_worker_iteration_s;
  const std::size_t workers = timeline.workers();
  DTSIM_CHECK(workers == static_cast<std::size_t>(r.info.workers), "one mark list per worker");
  const int replicas = r.info.sampled > 0 ? r.info.sampled : r.info.replicas > 0 ? r.info.replicas : r.info.workers;
  const double global_batch = static_cast<double>(replicas) * r.info.batch_per_worker;
  const double single_rate = r.info.batch_per_worker / single_worker_iteration_s;
  const std::vector<double> ends = iteration_ends(timeline, r.info.iterations, gradients_per_step);
  const int completed = static_cast<int>(ends.size());
  double previous_end = 0;
  for (int it = 0; it < completed; ++it) {
    IterationResult ir;
    ir.index = it;
    ir.start_s = previous_end;
    ir.end_s = ends[static_cast<std::size_t>(it)];
    ir.time_s = ir.end_s - ir.start_s;
    ir.samples_per_s = global_batch / ir.time_s;
    ir.scaling_efficiency = ir.samples_per_s / (r.info.workers * single_rate);
    ir.per_worker.reserve(workers);
    for (std::size_t w = 0; w < workers; ++w) {
      const std::vector<IterationMarks>& worker = timeline.worker_marks(w);
      if (static_cast<std::size_t>(it) >= worker.size()) {
        ir.per_worker.push_back({});
        continue;
      }
      const IterationMarks& m = worker[static_cast<std::size_t>(it)];
      Breakdown b;
      b.forward_s = m.forward_s;
      b.backward_s = m.backward_s;
      b.update_s = m.update_s;
      b.exposed_comm_s = m.comm_wait_s;
      b.idle_s = std::max(0.0, ir.end_s - m.end_s);
      ir.per_worker.push_back(b);
    }
    previous_end = ir.end_s;
    r.iterations.push_back(std::move(ir));
  }
  r.mean_iteration_s = completed > 0 ? previous_end / completed : 0.0;
  r.samples_per_s = completed > 0 ? global_batch / r.mean_iteration_s : 0.0;
  r.scaling_efficiency = r.samples_per_s / (r.info.workers * single_rate);
  // A list's summary once, for each worker that has it.
  std::vector<WorkerSummary> summaries;
  for (const auto& marks : timeline.marks) {
    WorkerSummary& w = summaries.emplace_back();
    w.iterations = static_cast<int>(marks.size());
    for (const IterationMarks& m : marks) {
      w.dropped += m.dropped ? 1 : 0;
      w.skipped += m.skipped ? 1 : 0;
      w.waiting_s += m.comm_wait_s;
    }
  }
  if (timeline.marks_of.empty()) {
    r.workers = std::move(summaries);
  } else {
    r.workers.reserve(workers);
    for (const int list : timeline.marks_of) r.workers.push_back(summaries[static_cast<std::size_t>(list)]);
  }
  r.servers = std::move(timeline.servers);
  r.failures = std::move(timeline.failures);
  r.stopped = std::move(timeline.stopped);
  r.stopped_at_s = timeline.stopped_at_s;
  if (r.stopped.empty() && completed < r.info.iterations) {
    r.stopped = "no worker could complete iteration " + std::to_string(completed);
    r.stopped_at_s = previous_end;  // the last thing that happened: the end of the last event, if later
    for (const TraceEvent& e : timeline.events) r.stopped_at_s = std::max(r.stopped_at_s, e.end_s);
  }
  r.staleness = std::move(timeline.staleness);
  r.traffic = std::move(timeline.traffic);
  r.events = std::move(timeline.events);
  r.messages = std::move(timeline.messages);
  return r;
}

}  // namespace dtsim::run
