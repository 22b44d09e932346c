#pragma once
/// One SimGrid zone holding every GPU (and reduction unit) of a platform of nodes, routing as Fabric does:
///
///     GPU i of node a ──link_i UP──> a's switch ══node route(a, b)══> b's switch ──link_j DOWN──> GPU j of node b
///     GPU i of node a ──link_i UP──> a's switch ══ a's NIC UP ══> unit u ──link_u DOWN──> (unit u's reduction)
///
/// SimGrid 3.32's recursive layout (a zone per node under a root) costs the platform build hosts x zones: each new
/// host's name is looked up in every zone (`NetZoneImpl::get_host_by_name_or_null`, from `HostImpl`'s constructor)
/// and each zone's `seal` lists every host of the platform (`get_all_hosts` -> `Engine::get_filtered_hosts`), 108 s of
/// CPU at 65,536 GPUs (bench/RESULTS.md). In one zone both are one lookup and one list. The routes are those of the
/// recursive layout link for link (`NetZoneImpl::get_global_route_with_netzones`: source links, the root's route
/// between the two zones, destination links), and so is each route's latency, summed in the recursive layout's
/// order: the middle (node or NIC) links, then the source's link, then the destination's.
#include <cstdint>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Link.hpp>
#include <string>
#include <unordered_map>
#include <vector>

namespace dtsim::platform {

class FabricZone final : public simgrid::kernel::routing::NetZoneImpl {
 public:
  /// One direction of a split-duplex link: what SimGrid's routes hold, and the link whose latency it adds.
  struct Hop {
    simgrid::kernel::resource::StandardLinkImpl* impl = nullptr;
    const simgrid::s4u::Link* link = nullptr;
  };

  explicit FabricZone(const std::string& name) : NetZoneImpl(name) {}

  /// The zone's vertex `netpoint_id`: a GPU of node `node` (node >= 0) or reduction unit -1 - node, with its own
  /// link's two directions (`up` towards its switch).
  void add_endpoint(unsigned long netpoint_id, int node, Hop up, Hop down);
  /// The links from node a's switch to node b's switch.
  void add_node_route(int a, int b, std::vector<Hop> hops);
  /// Node `node`'s NIC towards reduction unit `unit` (`to_unit`) and back (`from_unit`).
  void add_unit_route(int unit, int node, Hop to_unit, Hop from_unit);

 private:
  struct Endpoint {
    int node = 0;
    Hop up, down;
  };
  std::vector<Endpoint> endpoints_;  ///< by netpoint id
  std::unordered_map<std::int64_t, std::vector<Hop>> node_routes_;  ///< by (a << 32) | b
  std::vector<std::vector<Hop>> to_unit_, from_unit_;  ///< by unit, then node

  void get_local_route(const simgrid::kernel::routing::NetPoint* src, const simgrid::kernel::routing::NetPoint* dst,
                       simgrid::kernel::routing::Route* into, double* latency) override;
};

}  // namespace dtsim::platform
