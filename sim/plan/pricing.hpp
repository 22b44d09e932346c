#pragma once
/// What a cluster costs and draws while it trains: the cost table applied to its GPUs, nodes and NICs.
#include <string>

#include "sim/plan/bounds.hpp"
#include "sim/scenario/cost_table.hpp"

namespace dtsim::plan {

/// Hourly price and power of one cluster.
struct Rate {
  double per_hour = 0;  ///< gpus x GPU-hour + nodes x node-hour + the network's
  double watts = 0;     ///< gpus x GPU watts + nodes x node watts + the network's
  double network_per_hour = 0;  ///< NICs x NIC-hour + switch ports x port-hour (rented, or list prices amortised)
  double network_watts = 0;
  bool network_priced = false;  ///< the cost table prices NICs or switch ports
};

/// The rate of the cluster `b` describes: each NIC costs the table's first NIC at least as fast, each switch
/// port the first switch port at least as fast. Throws core::InputError when the table has no price for its GPU,
/// or lists NICs (switch ports) of which none is fast enough.
Rate rate(const Bounds& b, const scenario::CostTable& costs);

/// Cost and energy of training for `time_s` at `r`.
struct Spend {
  double cost = 0;
  double energy_kwh = 0;
};
Spend spend(const Rate& r, double time_s);

}  // namespace dtsim::plan
