#include "sim/platform/fabric.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace dtsim::platform {
namespace {

void add_split_duplex(std::vector<DirectedLink>& links, const std::string& name, const LinkSpec& spec) {
  links.push_back({name + "_UP", spec.bandwidth_Bps, spec.latency_s});
  links.push_back({name + "_DOWN", spec.bandwidth_Bps, spec.latency_s});
}

}  // namespace

Fabric::Fabric(const PlatformSpec& spec) : spec_(spec) {
  const bool star = spec.topology == Topology::star;
  for (int h = 0; h < spec.hosts(); ++h)
    add_split_duplex(links_, (star ? "link" : "gpu") + std::to_string(h), spec.intra);
  if (!star)
    for (int n = 0; n < spec.nodes; ++n) add_split_duplex(links_, "nic" + std::to_string(n), spec.inter);
}

core::Path Fabric::path(int from, int to) const {
  DTSIM_CHECK(from != to && from >= 0 && to >= 0 && from < spec_.hosts() && to < spec_.hosts(),
              "path between invalid hosts");
  core::Path p;
  p.links.push_back(host_link(from));
  const int node_from = from / spec_.gpus_per_node;
  const int node_to = to / spec_.gpus_per_node;
  if (spec_.topology == Topology::two_level && node_from != node_to) {
    p.links.push_back(nic_link(node_from));
    p.links.push_back(nic_link(node_to) + 1);
  }
  p.links.push_back(host_link(to) + 1);
  for (int l : p.links) p.latency_s += links_[static_cast<std::size_t>(l)].latency_s;
  return p;
}

double Fabric::link_bandwidth_Bps(int link) const { return links_[static_cast<std::size_t>(link)].bandwidth_Bps; }

collectives::LinkCosts link_costs(const PlatformSpec& spec) {
  const LinkSpec& gpu = spec.intra;
  const collectives::AlphaBeta intra{2 * gpu.latency_s, 1.0 / gpu.bandwidth_Bps};
  if (spec.topology == Topology::star) return collectives::LinkCosts::uniform(intra);
  const LinkSpec& nic = spec.inter;
  return {intra, {2 * gpu.latency_s + 2 * nic.latency_s, 1.0 / std::min(gpu.bandwidth_Bps, nic.bandwidth_Bps)}};
}

}  // namespace dtsim::platform
