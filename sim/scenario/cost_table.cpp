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

/// `nic = [ { bandwidth = "100Gbps", hour = 0.25, watts = 25 }, ... ]`: replaces the table's ports.
std::vector<NicCost> read_nics(Section& s) {
  std::vector<NicCost> nics;
  for (Section& port : s.tables("nic")) {
    port.allow({"bandwidth", "hour", "watts"});
    NicCost n;
    n.bandwidth_Bps = port.bandwidth("bandwidth");
    n.hour = port.has("hour") ? port.number("hour", 0, 1e9) : 0;
    n.watts = port.has("watts") ? port.number("watts", 0, 1e7) : 0;
    port.finish();
    nics.push_back(n);
  }
  std::sort(nics.begin(), nics.end(), [](const NicCost& a, const NicCost& b) { return a.bandwidth_Bps < b.bandwidth_Bps; });
  return nics;
}

}  // namespace

void apply_cost_overrides(Section& table, CostTable& costs) {
  table.allow({"currency", "gpu", "node", "nic"});
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
  if (table.has("nic")) costs.nics = read_nics(table);
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
