#pragma once
/// Prices and power of what a cluster is built from: per GPU-hour, per node-hour, per NIC port-hour, watts
/// (platforms/costs.toml is the built-in table; a plan may name its own or override entries).
#include <map>
#include <string>
#include <vector>

namespace dtsim::scenario {

/// One GPU type: its rental price and power.
struct GpuCost {
  double hour = 0;        ///< price of one GPU for one hour
  double watts = 0;       ///< board power (TDP) of one GPU
  double node_watts = 0;  ///< a node's power besides its GPUs (CPUs, memory, NICs, fans)
};

/// A NIC, or a switch port, of this speed: what it costs per hour (rented, or its price amortised) and draws.
struct PortCost {
  double bandwidth_Bps = 0;
  double hour = 0;
  double watts = 0;
};

/// How network equipment is paid: rented per hour (`hour`), or bought at a list price (`price`) spread evenly
/// over `amortisation_years` of 8,766 hours (the Julian year: 365.25 days).
constexpr double kHoursPerYear = 8766;

/// A validated cost table.
struct CostTable {
  std::string source;                  ///< the file, or "built-in platforms/costs.toml"
  std::string currency = "USD";
  std::map<std::string, GpuCost> gpus; ///< by GPU profile name
  double node_hour = 0;                ///< per node, besides its GPUs
  std::string network_pricing = "rented";  ///< rented | amortised
  double amortisation_years = 0;       ///< amortised: the period capital is spread over
  std::vector<PortCost> nics;          ///< by bandwidth, ascending (a NIC costs the first at least as fast); empty: not priced
  std::vector<PortCost> switch_ports;  ///< by bandwidth, ascending; empty: switches are not priced
};

/// Reads a cost table: `path`, or the built-in platforms/costs.toml when empty. Errors: core::InputError
/// "file:line:col: problem; allowed".
CostTable load_cost_table(const std::string& path);

class Section;
/// Applies a plan's [costs] table (the cost file's keys) on top of `costs`.
void apply_cost_overrides(Section& table, CostTable& costs);

}  // namespace dtsim::scenario
