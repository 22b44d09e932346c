#include "sim/plan/pricing.hpp"

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace dtsim::plan {

namespace {

/// The first of `ports` (ascending) at least `bandwidth_Bps` fast; nullptr when `ports` is empty.
const scenario::PortCost* port_for(const std::vector<scenario::PortCost>& ports, double bandwidth_Bps, const std::string& what,
                                   const scenario::CostTable& costs) {
  if (ports.empty()) return nullptr;
  for (const scenario::PortCost& p : ports)
    if (p.bandwidth_Bps >= bandwidth_Bps) return &p;
  throw core::InputError(fmt::format("{}: no {} of {:g} Gb/s or faster", costs.source, what, bandwidth_Bps * 8 / 1e9),
                         "list one at least as fast in the cost table's " + what + " entries");
}

}  // namespace

Rate rate(const Bounds& b, const scenario::CostTable& costs) {
  const auto gpu = costs.gpus.find(b.gpu);
  if (gpu == costs.gpus.end())
    throw core::InputError(costs.source + ": no price for GPU '" + b.gpu + "'",
                           "add [gpu." + b.gpu + "] hour = ..., watts = ... to the plan's [costs] or its cost_file");
  Rate r;
  const Fabric& f = b.fabric;
  if (const scenario::PortCost* nic = f.nics_per_node > 0 ? port_for(costs.nics, f.nic_Bps, "nic", costs) : nullptr) {
    r.network_per_hour += b.nodes * f.nics_per_node * nic->hour;
    r.network_watts += b.nodes * f.nics_per_node * nic->watts;
  }
  for (const PortGroup& g : f.switch_ports)
    if (const scenario::PortCost* port = port_for(costs.switch_ports, g.bandwidth_Bps, "switch_port", costs)) {
      r.network_per_hour += g.count * port->hour;
      r.network_watts += g.count * port->watts;
    }
  r.network_priced = !costs.nics.empty() || !costs.switch_ports.empty();
  r.per_hour = b.gpus * gpu->second.hour + b.nodes * costs.node_hour + r.network_per_hour;
  r.watts = b.gpus * gpu->second.watts + b.nodes * gpu->second.node_watts + r.network_watts;
  return r;
}

Spend spend(const Rate& r, double time_s) {
  return {r.per_hour * time_s / 3600.0, r.watts * time_s / 3.6e6};
}

}  // namespace dtsim::plan
