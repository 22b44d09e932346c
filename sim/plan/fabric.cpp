#include "sim/plan/fabric.hpp"

#include <cmath>

#include "sim/core/error.hpp"

namespace dtsim::plan {

Fabric fabric(const platform::PlatformSpec& p, int nodes) {
  using platform::Topology;
  Fabric f;
  if (nodes <= 1 && p.topology != Topology::star) return f;  // one node: no NIC is used
  const double n = nodes;
  switch (p.topology) {
    case Topology::star:
      f.nics_per_node = 1;
      f.nic_Bps = p.intra.bandwidth_Bps;
      f.switch_ports = {{n, p.intra.bandwidth_Bps}};
      f.switches = 1;
      break;
    case Topology::two_level: {
      f.nics_per_node = p.node.structured ? p.node.nics : 1;
      f.nic_Bps = p.inter.bandwidth_Bps;
      f.switch_ports = {{n * f.nics_per_node, p.inter.bandwidth_Bps}};
      f.switches = 1;
      if (!p.node.structured || !p.node.rails) break;
      platform::PlatformSpec sized = p;  // rail_leaves() of this node count
      sized.nodes = nodes;
      const double leaves = f.nics_per_node * static_cast<double>(sized.rail_leaves());
      // A leaf's uplink in ports of the NIC speed (a leaf switch has one port speed); the relative slack keeps an
      // exact multiple (4000 / 200 Gb/s) from rounding up to one port more.
      const double uplinks = std::ceil(p.network.bandwidth_Bps / p.inter.bandwidth_Bps * (1 - 1e-12));
      f.switch_ports.push_back({2 * leaves * uplinks, p.inter.bandwidth_Bps});
      f.switches = leaves + 1;
      if (p.node.units_per_pod == 0) break;
      // Three tiers: each pod's spine-to-core links, a port at each end, and the pods' spines and the core.
      for (int pod = 0; pod < sized.pods(); ++pod)
        f.switch_ports.push_back(
            {2 * std::ceil(sized.pod_core(pod).bandwidth_Bps / p.inter.bandwidth_Bps * (1 - 1e-12)), p.inter.bandwidth_Bps});
      f.switches = leaves + sized.pods() + 1;
      break;
    }
    case Topology::ring:
    case Topology::full_mesh: {
      const double links = p.topology == Topology::ring ? (nodes > 2 ? n : 1) : n * (n - 1) / 2;
      f.nics_per_node = 1;
      f.nic_Bps = p.inter.bandwidth_Bps;
      f.switch_ports = {{n, p.inter.bandwidth_Bps}, {2 * links, p.network.bandwidth_Bps}};
      f.switches = n;
      break;
    }
    case Topology::fat_tree: {
      const platform::FatTreeShape& t = p.fat_tree;
      const std::size_t h = t.down.size();
      std::vector<double> level(h + 1, 1.0);  // N_l
      for (std::size_t l = 0; l <= h; ++l) {
        for (std::size_t i = l; i < h; ++i) level[l] *= t.down[i];
        for (std::size_t i = 0; i < l; ++i) level[l] *= t.up[i];
      }
      f.nics_per_node = t.up[0] * t.parallel[0];
      f.nic_Bps = p.inter.bandwidth_Bps;
      f.switch_ports = {{level[0] * t.up[0] * t.parallel[0], p.inter.bandwidth_Bps}};
      for (std::size_t l = 1; l < h; ++l)
        f.switch_ports.push_back({2 * level[l] * t.up[l] * t.parallel[l], p.network.bandwidth_Bps});
      for (std::size_t l = 1; l <= h; ++l) f.switches += level[l];
      break;
    }
    default:
      DTSIM_CHECK(false, "plans do not size torus, dragonfly or graph templates");
  }
  return f;
}

}  // namespace dtsim::plan
