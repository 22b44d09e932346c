#include "sim/platform/fabric_zone.hpp"

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <utility>

#include "sim/core/error.hpp"

namespace dtsim::platform {
namespace {

std::int64_t pair_key(int a, int b) { return (static_cast<std::int64_t>(a) << 32) | static_cast<std::uint32_t>(b); }

}  // namespace

void FabricZone::add_endpoint(unsigned long netpoint_id, int node, Hop up, Hop down) {
  if (endpoints_.size() <= netpoint_id) endpoints_.resize(netpoint_id + 1);
  endpoints_[netpoint_id] = {node, up, down};
}

void FabricZone::add_node_route(int a, int b, std::vector<Hop> hops) { node_routes_[pair_key(a, b)] = std::move(hops); }

void FabricZone::add_unit_route(int unit, int node, Hop to_unit, Hop from_unit) {
  const auto u = static_cast<std::size_t>(unit), n = static_cast<std::size_t>(node);
  if (to_unit_.size() <= u) to_unit_.resize(u + 1), from_unit_.resize(u + 1);
  if (to_unit_[u].size() <= n) to_unit_[u].resize(n + 1), from_unit_[u].resize(n + 1);
  to_unit_[u][n] = to_unit;
  from_unit_[u][n] = from_unit;
}

void FabricZone::get_local_route(const simgrid::kernel::routing::NetPoint* src,
                                 const simgrid::kernel::routing::NetPoint* dst, simgrid::kernel::routing::Route* into,
                                 double* latency) {
  DTSIM_CHECK(src->id() < endpoints_.size() && dst->id() < endpoints_.size(),
              "no route from " + src->get_name() + " to " + dst->get_name());
  const Endpoint& from = endpoints_[src->id()];
  const Endpoint& to = endpoints_[dst->id()];
  const Hop* middle = nullptr;
  std::size_t hops = 0;
  if (from.node >= 0 && to.node >= 0 && from.node != to.node) {
    const auto route = node_routes_.find(pair_key(from.node, to.node));
    DTSIM_CHECK(route != node_routes_.end(), "no route declared from " + src->get_name() + " to " + dst->get_name());
    middle = route->second.data();
    hops = route->second.size();
  } else if (from.node >= 0 && to.node < 0) {
    middle = &to_unit_.at(static_cast<std::size_t>(-1 - to.node)).at(static_cast<std::size_t>(from.node));
    hops = 1;
  } else if (from.node < 0 && to.node >= 0) {
    middle = &from_unit_.at(static_cast<std::size_t>(-1 - from.node)).at(static_cast<std::size_t>(to.node));
    hops = 1;
  }
  into->link_list_.push_back(from.up.impl);
  for (std::size_t k = 0; k < hops; ++k) into->link_list_.push_back(middle[k].impl);
  into->link_list_.push_back(to.down.impl);
  if (latency == nullptr) return;
  for (std::size_t k = 0; k < hops; ++k) *latency += middle[k].link->get_latency();
  *latency += from.up.link->get_latency();
  *latency += to.down.link->get_latency();
}

}  // namespace dtsim::platform
