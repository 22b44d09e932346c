#include "sim/platform/simgrid_platform.hpp"

#include <string>

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/NetZone.hpp>

namespace dtsim::platform {
namespace sg4 = simgrid::s4u;
namespace {

/// Host speed is irrelevant: compute is replayed with sleep_for, which uses no CPU resource.
constexpr double kHostSpeed = 1e12;

sg4::Link* make_link(sg4::NetZone* zone, const std::string& name, const LinkSpec& spec) {
  sg4::SplitDuplexLink* link = zone->create_split_duplex_link(name, spec.bandwidth_Bps);
  link->set_latency(spec.latency_s)->seal();
  return link;
}

/// A star of hosts [first, first + count), each on its own split-duplex link named prefix<h>.
void add_star_hosts(sg4::NetZone* zone, int first, int count, const std::string& prefix, const LinkSpec& spec,
                    std::vector<sg4::Host*>& hosts) {
  for (int h = first; h < first + count; ++h) {
    sg4::Host* host = zone->create_host("gpu" + std::to_string(h), kHostSpeed)->seal();
    sg4::Link* link = make_link(zone, prefix + std::to_string(h), spec);
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {{link, sg4::LinkInRoute::Direction::UP}},
                    true);
    hosts.push_back(host);
  }
}

}  // namespace

std::vector<sg4::Host*> build_simgrid_platform(const PlatformSpec& spec, const std::vector<std::pair<int, int>>&) {
  for (const std::string& setting : network_settings(spec.network_model)) sg4::Engine::set_config(setting);
  std::vector<sg4::Host*> hosts;
  auto* root = sg4::create_star_zone("cluster");
  if (spec.topology == Topology::star) {
    add_star_hosts(root, 0, spec.hosts(), "link", spec.intra, hosts);
  } else {
    for (int n = 0; n < spec.nodes; ++n) {
      auto* node = sg4::create_star_zone("node" + std::to_string(n));
      node->set_parent(root);
      add_star_hosts(node, n * spec.gpus_per_node, spec.gpus_per_node, "gpu", spec.intra, hosts);
      auto* gateway = node->create_router("node" + std::to_string(n) + "_switch");
      node->seal();
      sg4::Link* nic = make_link(root, "nic" + std::to_string(n), spec.inter);
      root->add_route(node->get_netpoint(), nullptr, gateway, nullptr, {{nic, sg4::LinkInRoute::Direction::UP}},
                      true);
    }
  }
  root->seal();
  return hosts;
}

}  // namespace dtsim::platform
