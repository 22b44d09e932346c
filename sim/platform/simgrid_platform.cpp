#include "sim/platform/simgrid_platform.hpp"

#include <set>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <string>

#include "sim/platform/fabric.hpp"
#include "sim/platform/fabric_zone.hpp"

namespace dtsim::platform {
namespace sg4 = simgrid::s4u;
namespace {

/// Host speed is irrelevant: compute is replayed with sleep_for, which uses no CPU resource.
constexpr double kHostSpeed = 1e12;

/// The split-duplex link whose UP direction has id `up_id`.
sg4::SplitDuplexLink* make_link(sg4::NetZone* zone, const Fabric& fabric, int up_id) {
  const DirectedLink& up = fabric.links()[static_cast<std::size_t>(up_id)];
  sg4::SplitDuplexLink* link = zone->create_split_duplex_link(fabric.graph().duplex_name(up_id), up.bandwidth_Bps);
  link->set_latency(up.latency_s)->seal();
  // A slow link (PlatformSpec::link_slowdown) may slow one direction only.
  const DirectedLink& down = fabric.links()[static_cast<std::size_t>(up_id + 1)];
  if (down.bandwidth_Bps != up.bandwidth_Bps) link->get_link_down()->set_bandwidth(down.bandwidth_Bps);
  return link;
}

/// Every split-duplex link of the fabric, in the order of their ids, created in `zone` (the root: routes may use
/// links of any zone, and SimGrid 3.32 checks each new link's name against every zone, Engine::link_by_name_or_null).
std::vector<sg4::SplitDuplexLink*> make_links(sg4::NetZone* zone, const Fabric& fabric) {
  std::vector<sg4::SplitDuplexLink*> links;
  for (int up = 0; up < fabric.link_count(); up += 2) links.push_back(make_link(zone, fabric, up));
  return links;
}

/// Hosts [first, first + count) in `zone`, each on its own link (Fabric's host links) towards the zone's centre.
void add_star_hosts(sg4::NetZone* zone, const Fabric& fabric, const std::vector<sg4::SplitDuplexLink*>& links, int first,
                    int count, std::vector<sg4::Host*>& hosts) {
  for (int h = first; h < first + count; ++h) {
    sg4::Host* host = zone->create_host(fabric.vertex_name(h), kHostSpeed)->seal();
    const sg4::SplitDuplexLink* link = links[static_cast<std::size_t>(fabric.host_link(h) / 2)];
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {{link, sg4::LinkInRoute::Direction::UP}}, true);
    hosts.push_back(host);
  }
}

/// The links of Fabric's directed ids `ids` as a SimGrid route over `links` (indexed by id / 2).
std::vector<sg4::LinkInRoute> as_route(const std::vector<int>& ids, const std::vector<sg4::SplitDuplexLink*>& links) {
  std::vector<sg4::LinkInRoute> route;
  for (int id : ids)
    route.emplace_back(links[static_cast<std::size_t>(id / 2)],
                       id % 2 == 0 ? sg4::LinkInRoute::Direction::UP : sg4::LinkInRoute::Direction::DOWN);
  return route;
}

/// Switch endpoint j's reduction unit as a host of `zone` on its own link (Fabric::endpoint_link).
sg4::Host* add_reduction_unit(sg4::NetZone* zone, const Fabric& fabric, const std::vector<sg4::SplitDuplexLink*>& links, int j) {
  sg4::Host* host = zone->create_host(fabric.vertex_name(fabric.endpoint_vertex(j)),
                                      kHostSpeed)->seal();
  zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, as_route({fabric.endpoint_link(j)}, links), true);
  return host;
}

/// Structured nodes: one FullZone of all GPUs and links, with the Fabric route of each pair in `pairs`.
std::vector<sg4::Host*> build_structured(const Fabric& fabric, const std::vector<std::pair<int, int>>& pairs) {
  auto* root = sg4::create_full_zone("cluster");
  std::vector<sg4::Host*> hosts;
  for (int h = 0; h < fabric.spec().hosts(); ++h)
    hosts.push_back(root->create_host(fabric.vertex_name(h), kHostSpeed)->seal());
  const std::vector<sg4::SplitDuplexLink*> links = make_links(root, fabric);
  // Switch endpoints: the unit is a host of the zone, routed to and from the GPUs of its NVSwitch's node (node 0).
  std::vector<sg4::Host*> units;
  for (int j = 0; j < fabric.switch_endpoints(); ++j)
    units.push_back(root->create_host(
        fabric.vertex_name(fabric.endpoint_vertex(j)), kHostSpeed)->seal());
  auto host_of = [&](int id) {
    return id >= 0 ? hosts[static_cast<std::size_t>(id)] : units[static_cast<std::size_t>(-1 - id)];
  };
  std::set<std::pair<int, int>> routed(pairs.begin(), pairs.end());
  for (int j = 0; j < fabric.switch_endpoints(); ++j)
    for (int h = 0; h < fabric.spec().gpus_per_node; ++h) {
      routed.emplace(h, -1 - j);
      routed.emplace(-1 - j, h);
    }
  for (const auto& [from, to] : routed)
    root->add_route(host_of(from)->get_netpoint(), host_of(to)->get_netpoint(), nullptr, nullptr,
                    as_route(fabric.path(from, to).links, links), false);
  root->seal();
  return hosts;
}

/// Fabric's directed link `id` as a hop of FabricZone's routes (`links` indexed by id / 2).
FabricZone::Hop hop(const std::vector<sg4::SplitDuplexLink*>& links, int id) {
  const sg4::SplitDuplexLink* duplex = links[static_cast<std::size_t>(id / 2)];
  sg4::Link* link = id % 2 == 0 ? duplex->get_link_up() : duplex->get_link_down();
  return {link->get_impl(), link};
}

std::vector<FabricZone::Hop> hops(const std::vector<sg4::SplitDuplexLink*>& links, const std::vector<int>& ids) {
  std::vector<FabricZone::Hop> route;
  for (int id : ids) route.push_back(hop(links, id));
  return route;
}

/// Nodes of GPUs on a network (every topology but the star): one FabricZone of all GPUs and reduction units, with
/// the route between the nodes of each pair in `pairs` that are on different nodes, and each node's NIC to and from
/// each reduction unit.
std::vector<sg4::Host*> build_nodes(const Fabric& fabric, const std::vector<std::pair<int, int>>& pairs) {
  const PlatformSpec& spec = fabric.spec();
  auto* zone = new FabricZone("cluster");  // the first zone: SimGrid's root, which owns it
  sg4::NetZone* root = zone->get_iface();
  const std::vector<sg4::SplitDuplexLink*> links = make_links(root, fabric);
  std::vector<sg4::Host*> hosts;
  for (int h = 0; h < spec.hosts(); ++h) {
    hosts.push_back(root->create_host(fabric.vertex_name(h), kHostSpeed)->seal());
    zone->add_endpoint(hosts.back()->get_netpoint()->id(), h / spec.gpus_per_node, hop(links, fabric.host_link(h)),
                       hop(links, fabric.host_link(h) + 1));
  }
  std::set<std::pair<int, int>> node_pairs;
  for (const auto& [from, to] : pairs)
    if (from >= 0 && to >= 0 && from / spec.gpus_per_node != to / spec.gpus_per_node)
      node_pairs.emplace(from / spec.gpus_per_node, to / spec.gpus_per_node);
  for (const auto& [a, b] : node_pairs) zone->add_node_route(a, b, hops(links, fabric.node_route(a, b)));
  for (int j = 0; j < fabric.switch_endpoints(); ++j) {
    sg4::Host* unit = root->create_host(
        fabric.vertex_name(fabric.endpoint_vertex(j)), kHostSpeed)->seal();
    const int link = fabric.endpoint_link(j);
    zone->add_endpoint(unit->get_netpoint()->id(), -1 - j, hop(links, link), hop(links, link ^ 1));
    for (int n = 0; n < spec.nodes; ++n) {
      std::vector<int> up;  // the node's GPU link, then its NIC
      fabric.up_to_switch(n * spec.gpus_per_node, up);
      zone->add_unit_route(j, n, hop(links, up.back()), hop(links, up.back() + 1));
    }
  }
  root->seal();
  return hosts;
}

}  // namespace

std::vector<sg4::Host*> build_simgrid_platform(const PlatformSpec& spec,
                                               const std::vector<std::pair<int, int>>& pairs) {
  for (const std::string& setting : network_settings(spec.network_model)) sg4::Engine::set_config(setting);
  const Fabric fabric(spec);
  std::vector<std::pair<int, int>> routed = pairs;
  if (routes_both_ways(spec.network_model))
    for (const auto& [from, to] : pairs) routed.emplace_back(to, from);
  if (spec.node.structured) return build_structured(fabric, routed);
  std::vector<sg4::Host*> hosts;
  if (spec.topology == Topology::star) {
    auto* root = sg4::create_star_zone("cluster");
    const std::vector<sg4::SplitDuplexLink*> links = make_links(root, fabric);
    add_star_hosts(root, fabric, links, 0, spec.hosts(), hosts);
    for (int j = 0; j < fabric.switch_endpoints(); ++j) add_reduction_unit(root, fabric, links, j);
    root->seal();
    return hosts;
  }
  return build_nodes(fabric, routed);
}

}  // namespace dtsim::platform
