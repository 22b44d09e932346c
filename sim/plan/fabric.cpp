#include "sim/plan/fabric.hpp"

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
    case Topology::two_level:
      f.nics_per_node = p.node.structured ? p.node.nics : 1;
      f.nic_Bps = p.inter.bandwidth_Bps;
      f.switch_ports = {{n * f.nics_per_node, p.inter.bandwidth_Bps}};
      f.switches = 1;
      break;
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
