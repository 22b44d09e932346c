#pragma once
/// What a cluster costs and draws while it trains: the cost table applied to its GPUs, nodes and NICs.
#include <string>

#include "sim/plan/bounds.hpp"
#include "sim/scenario/cost_table.hpp"

namespace dtsim::plan {

/// Hourly price and power of one cluster.
struct Rate {
  double per_hour = 0;  ///< gpus x GPU-hour + nodes x (node-hour + NIC port-hour)
  double watts = 0;     ///< gpus x GPU watts + nodes x (node watts + NIC watts)
  bool network_priced = false;  ///< a NIC port of the cost table matched
};

/// The rate of the cluster `b` describes; throws core::InputError when the table has no price for its GPU.
Rate rate(const Bounds& b, const scenario::CostTable& costs);

/// Cost and energy of training for `time_s` at `r`.
struct Spend {
  double cost = 0;
  double energy_kwh = 0;
};
Spend spend(const Rate& r, double time_s);

}  // namespace dtsim::plan
