#include "sim/run/assemble.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace dtsim::run {

RunResult assemble_result(RunInfo info, Timeline timeline, double single_worker_iteration_s) {
  RunResult r;
  r.info = std::move(info);
  r.single_worker_iteration_s = single_worker_iteration_s;
  const auto workers = timeline.marks.size();
  DTSIM_CHECK(workers == static_cast<std::size_t>(r.info.workers), "one mark list per worker");
  const double global_batch = static_cast<double>(r.info.workers) * r.info.batch_per_worker;
  const double single_rate = r.info.batch_per_worker / single_worker_iteration_s;
  double previous_end = 0;
  for (int it = 0; it < r.info.iterations; ++it) {
    IterationResult ir;
    ir.index = it;
    ir.start_s = previous_end;
    for (const auto& worker : timeline.marks) ir.end_s = std::max(ir.end_s, worker[static_cast<std::size_t>(it)].end_s);
    ir.time_s = ir.end_s - ir.start_s;
    ir.samples_per_s = global_batch / ir.time_s;
    ir.scaling_efficiency = ir.samples_per_s / (r.info.workers * single_rate);
    for (const auto& worker : timeline.marks) {
      const IterationMarks& m = worker[static_cast<std::size_t>(it)];
      Breakdown b;
      b.forward_s = m.forward_s;
      b.backward_s = m.backward_s;
      b.update_s = m.update_s;
      b.exposed_comm_s = m.comm_wait_s;
      b.idle_s = ir.end_s - m.end_s;
      ir.per_worker.push_back(b);
    }
    previous_end = ir.end_s;
    r.iterations.push_back(std::move(ir));
  }
  r.mean_iteration_s = previous_end / r.info.iterations;
  r.samples_per_s = global_batch / r.mean_iteration_s;
  r.scaling_efficiency = r.samples_per_s / (r.info.workers * single_rate);
  r.traffic = std::move(timeline.traffic);
  r.events = std::move(timeline.events);
  r.messages = std::move(timeline.messages);
  return r;
}

}  // namespace dtsim::run
