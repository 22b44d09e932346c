#include "sim/scenario/cost_table.hpp"

#include <algorithm>

#include "models/gpu_profile.hpp"
#include "sim/core/embedded_files.hpp"
#include "sim/core/error.hpp"
#include "sim/scenario/section.hpp"
#include "sim/scenario/toml_file.hpp"

namespace dtsim::scenario {
namespace {

constexpr const char* kBuiltinCosts = "platforms/costs.toml";

/// One [gpu.<name>] table: every key it gives replaces the entry's.
void read_gpu(Section& s, GpuCost& cost) {
  s.allow({"hour", "watts", "node_watts"});
  if (s.has("hour")) cost.hour = s.number("hour", 0, 1e9);
  if (s.has("watts")) cost.watts = s.number("watts", 0, 1e7);
  if (s.has("node_watts")) cost.node_watts = s.number("node_watts", 0, 1e7);
  s.finish();
}

/// `nic = [ { bandwidth = "100Gbps", hour = 0.25, watts = 25 }, ... ]` (rented) or with `price` instead of `hour`
/// (amortised): replaces the table's entries of `key`.
std::vector<PortCost> read_ports(Section& s, const std::string& key, const CostTable& costs) {
  std::vector<PortCost> ports;
  const bool rented = costs.network_pricing == "rented";
  for (Section& port : s.tables(key)) {
    port.allow({"bandwidth", "hour", "price", "watts"});
    PortCost n;
    n.bandwidth_Bps = port.bandwidth("bandwidth");
    const char* paid = rented ? "hour" : "price";
    const char* other = rented ? "price" : "hour";
    if (port.has(other))
      throw core::InputError(port.where_key(other), "'" + std::string(other) + "' in a " + key + " entry, but network_pricing is '" +
                                                        costs.network_pricing + "'",
                             std::string("give '") + paid + "' (rented: per hour; amortised: the list price)");
    if (!port.has(paid))
      throw core::InputError(port.where_table(), "a " + key + " entry has no '" + paid + "'",
                             std::string(rented ? "its price per hour (network_pricing = \"rented\")"
                                                : "its list price (network_pricing = \"amortised\")"));
    n.hour = rented ? port.number("hour", 0, 1e9) : port.number("price", 0, 1e12) / (costs.amortisation_years * kHoursPerYear);
    n.watts = port.has("watts") ? port.number("watts", 0, 1e7) : 0;
    port.finish();
    ports.push_back(n);
  }
  std::sort(ports.begin(), ports.end(), [](const PortCost& a, const PortCost& b) { return a.bandwidth_Bps < b.bandwidth_Bps; });
  return ports;
}

}  // namespace

void apply_cost_overrides(Section& table, CostTable& costs) {
  table.allow({"currency", "gpu", "node", "network_pricing", "amortisation_years", "nic", "switch_port"});
  if (auto currency = table.optional_string("currency")) costs.currency = *currency;
  if (std::optional<Section> gpus = table.table("gpu")) {
    gpus->allow(models::gpu_names());
    for (const std::string& name : models::gpu_names())
      if (std::optional<Section> gpu = gpus->table(name)) read_gpu(*gpu, costs.gpus[name]);
    gpus->finish();
  }
  if (std::optional<Section> node = table.table("node")) {
    node->allow({"hour"});
    if (node->has("hour")) costs.node_hour = node->number("hour", 0, 1e9);
    node->finish();
  }
  // Entries already read were priced under the table's network_pricing and amortisation_years.
  const bool inherited = (!table.has("nic") && !costs.nics.empty()) || (!table.has("switch_port") && !costs.switch_ports.empty());
  if (table.has("network_pricing")) {
    const std::string before = costs.network_pricing;
    costs.network_pricing = table.choice("network_pricing", "rented", {"rented", "amortised"});
    if (costs.network_pricing != before && inherited)
      throw core::InputError(table.where_key("network_pricing"), "network_pricing changes to '" + costs.network_pricing +
                                                                     "', but nic or switch_port entries priced as '" + before +
                                                                     "' come from the cost table it overrides",
                             "give the nic and switch_port entries again, priced as network_pricing says");
  }
  if (table.has("amortisation_years")) {
    if (costs.network_pricing != "amortised")
      throw core::InputError(table.where_key("amortisation_years"), "amortisation_years is given, but network_pricing is '" +
                                                                        costs.network_pricing + "'",
                             "set network_pricing = \"amortised\" to spread list prices over the years, or leave it out");
    const double before = costs.amortisation_years;
    costs.amortisation_years = table.number("amortisation_years", 0.01, 100);
    if (costs.amortisation_years != before && inherited)
      throw core::InputError(table.where_key("amortisation_years"), "amortisation_years changes, but nic or switch_port "
                                                                    "entries amortised over the old period come from the "
                                                                    "cost table it overrides",
                             "give the nic and switch_port entries again");
  }
  if (costs.network_pricing == "amortised" && costs.amortisation_years <= 0)
    throw core::InputError(table.where_table(), "network_pricing = \"amortised\" needs amortisation_years",
                           "the years the network's list prices are spread over, e.g. amortisation_years = 3");
  if (table.has("nic")) costs.nics = read_ports(table, "nic", costs);
  if (table.has("switch_port")) costs.switch_ports = read_ports(table, "switch_port", costs);
  table.finish();
}

CostTable load_cost_table(const std::string& path) {
  toml::table root;
  CostTable costs;
  if (path.empty()) {
    const auto text = core::embedded_file(kBuiltinCosts);
    DTSIM_CHECK(text.has_value(), "platforms/costs.toml is not embedded");
    root = toml::parse(*text, std::string_view(kBuiltinCosts));
    costs.source = std::string("built-in ") + kBuiltinCosts;
  } else {
    root = parse_toml_file(path, "cost file");
    costs.source = path;
  }
  Section top(root, "");
  apply_cost_overrides(top, costs);
  return costs;
}

}  // namespace dtsim::scenario
