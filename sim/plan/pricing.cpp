#include "sim/plan/pricing.hpp"

#include "sim/core/error.hpp"

namespace dtsim::plan {

Rate rate(const Bounds& b, const scenario::CostTable& costs) {
  const auto gpu = costs.gpus.find(b.gpu);
  if (gpu == costs.gpus.end())
    throw core::InputError(costs.source + ": no price for GPU '" + b.gpu + "'",
                           "add [gpu." + b.gpu + "] hour = ..., watts = ... to the plan's [costs] or its cost_file");
  Rate r;
  r.per_hour = b.gpus * gpu->second.hour + b.nodes * costs.node_hour;
  r.watts = b.gpus * gpu->second.watts + b.nodes * gpu->second.node_watts;
  for (const scenario::NicCost& nic : costs.nics)
    if (nic.bandwidth_Bps >= b.nic_Bps) {
      r.per_hour += b.nodes * nic.hour;
      r.watts += b.nodes * nic.watts;
      r.network_priced = true;
      break;
    }
  if (!costs.nics.empty() && !r.network_priced)
    throw core::InputError(costs.source + ": no NIC port of " + std::to_string(b.nic_Bps * 8 / 1e9) + " Gb/s or faster",
                           "list a port at least as fast in the cost table's nic entries");
  return r;
}

Spend spend(const Rate& r, double time_s) {
  return {r.per_hour * time_s / 3600.0, r.watts * time_s / 3.6e6};
}

}  // namespace dtsim::plan
