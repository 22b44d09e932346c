#include "viz/mean_breakdown.hpp"

namespace dtsim::viz {

run::Breakdown mean_breakdown(const run::IterationResult& iteration) {
  run::Breakdown mean;
  for (const run::Breakdown& b : iteration.per_worker) {
    mean.forward_s += b.forward_s;
    mean.backward_s += b.backward_s;
    mean.update_s += b.update_s;
    mean.exposed_comm_s += b.exposed_comm_s;
    mean.idle_s += b.idle_s;
  }
  const double n = iteration.per_worker.empty() ? 1.0 : static_cast<double>(iteration.per_worker.size());
  mean.forward_s /= n;
  mean.backward_s /= n;
  mean.update_s /= n;
  mean.exposed_comm_s /= n;
  mean.idle_s /= n;
  return mean;
}

}  // namespace dtsim::viz
