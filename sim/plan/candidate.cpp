#include "sim/plan/candidate.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "sim/core/units.hpp"

namespace dtsim::plan {
namespace {

/// "100Gbps" from the TOML text "\"100Gbps\"".
std::string unquoted(const std::string& value) {
  const bool quoted = value.size() >= 2 && value.front() == '"';
  return quoted ? value.substr(1, value.size() - 2) : value;
}

/// Adds the settings that build template `t` with `nodes` nodes, at `oversubscription` (0: the template's) and
/// with NICs of `nic` (TOML text; empty: the template's); says in `c.invalid` when it cannot be built so.
void build_cluster(const platform::PlatformSpec& t, int nodes, double oversubscription, const std::string& nic,
                   Candidate& c) {
  c.settings.emplace_back("workers", std::to_string(nodes * t.gpus_per_node));
  using platform::Topology;
  if (t.topology == Topology::torus || t.topology == Topology::dragonfly || t.topology == Topology::graph) {
    c.invalid = fmt::format("a {} template's size is set by its own keys (dims, groups, switches), not by a node count",
                            platform::topology_name(t.topology));
    return;
  }
  if (t.topology != Topology::fat_tree) {
    c.settings.emplace_back(t.topology == Topology::star ? "platform.hosts" : "platform.nodes", std::to_string(nodes));
    return;
  }
  const std::vector<int>& down = t.fat_tree.down;
  if (down.size() != 2) {
    c.invalid = fmt::format("plans build fat trees of two switch levels; {} has {}", t.name, down.size());
    return;
  }
  if (nodes % down[0] != 0) {
    c.invalid = fmt::format("{} nodes are not whole leaves of {} nodes", nodes, down[0]);
    return;
  }
  c.settings.emplace_back("platform.down", fmt::format("[{}, {}]", down[0], nodes / down[0]));
  const double nic_Bps = nic.empty() ? t.inter.bandwidth_Bps : core::parse_bandwidth(unquoted(nic));
  const double switch_Bps = nic.empty() ? t.network.bandwidth_Bps : nic_Bps;  // switch links as fast as the NICs
  if (!nic.empty()) c.settings.emplace_back("platform.network_link.bandwidth", nic);
  if (oversubscription <= 0) return;
  // Oversubscription at the leaves = down[0] x NIC bandwidth / (uplinks x switch link bandwidth).
  const double uplinks = down[0] * nic_Bps / (oversubscription * switch_Bps);
  if (std::round(uplinks) < 1 || std::abs(uplinks - std::round(uplinks)) > 1e-9 * uplinks) {
    c.invalid = fmt::format("oversubscription {}:1 needs {:.3f} uplinks per leaf of {} nodes, not a whole number",
                            oversubscription, uplinks, down[0]);
    return;
  }
  c.settings.emplace_back("platform.up", fmt::format("[1, {}]", std::lround(uplinks)));
  c.settings.emplace_back("platform.parallel", "[1, 1]");
}

}  // namespace

std::vector<Candidate> enumerate_candidates(const scenario::PlanSpec& plan,
                                            const std::vector<platform::PlatformSpec>& templates) {
  std::vector<Candidate> out;
  const auto nic = std::find_if(plan.axes.begin(), plan.axes.end(),
                                [](const scenario::PlanAxis& a) { return a.key == "platform.inter_link.bandwidth"; });
  const std::size_t nic_axis = static_cast<std::size_t>(nic - plan.axes.begin());
  const std::vector<double> ratios = plan.oversubscription.empty() ? std::vector<double>{0} : plan.oversubscription;
  for (std::size_t p = 0; p < plan.platforms.size(); ++p) {
    const bool fat_tree = templates[p].topology == platform::Topology::fat_tree;
    for (int n : plan.nodes)
      for (std::size_t r = 0; r < ratios.size(); ++r) {
        if (r > 0 && !fat_tree) continue;  // one switch: no oversubscription to choose
        std::vector<std::size_t> digit(plan.axes.size(), 0);
        while (true) {
          const bool uses_nic = n > 1;  // one node uses no NIC: its NIC speeds are one candidate
          if (uses_nic || nic == plan.axes.end() || digit[nic_axis] == 0) {
            Candidate c;
            c.index = static_cast<int>(out.size());
            const std::string& ref = plan.platforms[p];
            c.settings.emplace_back("platform", "\"" + ref + "\"");
            c.label = std::filesystem::path(ref).filename().string() + " x " + std::to_string(n) +
                      (n == 1 ? " node" : " nodes");
            if (fat_tree && ratios[r] > 0) c.label += fmt::format(", {}:1 at the leaves", ratios[r]);
            build_cluster(templates[p], n, ratios[r], nic == plan.axes.end() ? "" : plan.axes[nic_axis].values[digit[nic_axis]],
                          c);
            for (std::size_t a = 0; a < plan.axes.size(); ++a) {
              const std::string& value = plan.axes[a].values[digit[a]];
              const bool star_nic = a == nic_axis && templates[p].topology == platform::Topology::star;
              if (!value.empty()) c.settings.emplace_back(star_nic ? "platform.link.bandwidth" : plan.axes[a].key, value);
              if (!value.empty() && plan.axes[a].key == "compression.compressor" && !plan.compression_kernel_time.empty())
                c.settings.emplace_back("compression.kernel_time", plan.compression_kernel_time);
              if (a == nic_axis && !uses_nic) continue;
              c.label += ", " + plan.axes[a].name + "=" + (value.empty() ? "none" : unquoted(value));
            }
            out.push_back(std::move(c));
          }
          std::size_t a = plan.axes.size();
          while (a > 0 && ++digit[a - 1] == plan.axes[a - 1].values.size()) digit[--a] = 0;
          if (a == 0) break;
        }
      }
  }
  return out;
}

std::vector<std::string> candidate_overrides(const scenario::PlanSpec& plan, const Candidate& c) {
  std::vector<std::string> out = plan.base_settings;
  for (const auto& [key, value] : c.settings) out.push_back(key + "=" + value);
  return out;
}

}  // namespace dtsim::plan
