#include "sim/run/assemble.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace dtsim::run {

namespace {

/// End of each job iteration. Workers that run iterations in lockstep (every worker the same count, nothing
/// dropped): when the last worker ends it. Otherwise iteration k ends when (k+1) x gradients_per_step
/// accepted gradients have been computed, the job's progress in bsp's units.
std::vector<double> iteration_ends(const Timeline& timeline, int iterations, int gradients_per_step) {
  std::vector<double> ends(static_cast<std::size_t>(iterations), 0.0);
  bool lockstep = true;
  for (const auto& worker : timeline.marks) {
    lockstep = lockstep && worker.size() == ends.size();
    for (const IterationMarks& m : worker) lockstep = lockstep && !m.dropped;
  }
  if (lockstep) {
    for (const auto& worker : timeline.marks)
      for (std::size_t it = 0; it < ends.size(); ++it) ends[it] = std::max(ends[it], worker[it].end_s);
    return ends;
  }
  std::vector<double> accepted;
  for (const auto& worker : timeline.marks)
    for (const IterationMarks& m : worker)
      if (!m.dropped) accepted.push_back(m.end_s);
  std::sort(accepted.begin(), accepted.end());
  DTSIM_CHECK(!accepted.empty(), "a run computes gradients");
  for (std::size_t it = 0; it < ends.size(); ++it)
    ends[it] = accepted[std::min(accepted.size(), (it + 1) * static_cast<std::size_t>(gradients_per_step)) - 1];
  return ends;
}

}  // namespace

RunResult assemble_result(RunInfo info, Timeline timeline, double single_worker_iteration_s, int gradients_per_step) {
  RunResult r;
  r.info = std::move(info);
  r.single_worker_iteration_s = single_worker_iteration_s;
  const auto workers = timeline.marks.size();
  DTSIM_CHECK(workers == static_cast<std::size_t>(r.info.workers), "one mark list per worker");
  const double global_batch = static_cast<double>(r.info.workers) * r.info.batch_per_worker;
  const double single_rate = r.info.batch_per_worker / single_worker_iteration_s;
  const std::vector<double> ends = iteration_ends(timeline, r.info.iterations, gradients_per_step);
  double previous_end = 0;
  for (int it = 0; it < r.info.iterations; ++it) {
    IterationResult ir;
    ir.index = it;
    ir.start_s = previous_end;
    ir.end_s = ends[static_cast<std::size_t>(it)];
    ir.time_s = ir.end_s - ir.start_s;
    ir.samples_per_s = global_batch / ir.time_s;
    ir.scaling_efficiency = ir.samples_per_s / (r.info.workers * single_rate);
    for (const auto& worker : timeline.marks) {
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
  r.mean_iteration_s = previous_end / r.info.iterations;
  r.samples_per_s = global_batch / r.mean_iteration_s;
  r.scaling_efficiency = r.samples_per_s / (r.info.workers * single_rate);
  for (const auto& worker : timeline.marks) {
    WorkerSummary& w = r.workers.emplace_back();
    w.iterations = static_cast<int>(worker.size());
    for (const IterationMarks& m : worker) {
      w.dropped += m.dropped ? 1 : 0;
      w.waiting_s += m.comm_wait_s;
    }
  }
  r.servers = std::move(timeline.servers);
  r.staleness = std::move(timeline.staleness);
  r.traffic = std::move(timeline.traffic);
  r.events = std::move(timeline.events);
  r.messages = std::move(timeline.messages);
  return r;
}

}  // namespace dtsim::run
