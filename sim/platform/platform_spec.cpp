#include "sim/platform/platform_spec.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

#include "sim/core/error.hpp"

namespace dtsim::platform {
namespace {

constexpr std::array kTopologies{
    std::pair{Topology::star, "star"},           std::pair{Topology::two_level, "two_level"},
    std::pair{Topology::fat_tree, "fat_tree"},   std::pair{Topology::torus, "torus"},
    std::pair{Topology::dragonfly, "dragonfly"}, std::pair{Topology::ring, "ring"},
    std::pair{Topology::full_mesh, "full_mesh"}, std::pair{Topology::graph, "graph"}};
constexpr std::array kNodeFabrics{std::pair{NodeFabric::nvswitch, "nvswitch"},
                                  std::pair{NodeFabric::nvlink_mesh, "nvlink_mesh"}, std::pair{NodeFabric::pcie, "pcie"}};
constexpr std::array kModels{std::pair{NetworkModel::alpha_beta, "alpha_beta"}, std::pair{NetworkModel::cm02, "CM02"},
                             std::pair{NetworkModel::lv08, "LV08"}};
constexpr std::array kTransports{std::pair{Transport::rdma, "rdma"}, std::pair{Transport::tcp, "tcp"}};

template <class Table>
std::vector<std::string> names_of(const Table& table) {
  std::vector<std::string> names;
  for (const auto& [value, name] : table) names.emplace_back(name);
  return names;
}

template <class Table, class Value>
std::string name_of(const Table& table, Value v) {
  for (const auto& [value, name] : table)
    if (value == v) return name;
  DTSIM_CHECK(false, "enum value without a name");
}

template <class Table>
auto parse_in(const Table& table, const std::string& text, std::string_view what) {
  for (const auto& [value, name] : table)
    if (text == name) return value;
  throw core::unknown_name(what, text, names_of(table));
}

long long product(const std::vector<int>& factors) {
  long long n = 1;
  for (int f : factors) n *= f;
  return n;
}

}  // namespace

std::string topology_name(Topology t) { return name_of(kTopologies, t); }
std::string network_model_name(NetworkModel m) { return name_of(kModels, m); }
std::vector<std::string> topology_names() { return names_of(kTopologies); }
std::vector<std::string> network_model_names() { return names_of(kModels); }
Topology parse_topology(const std::string& name) { return parse_in(kTopologies, name, "topology"); }
NetworkModel parse_network_model(const std::string& name) { return parse_in(kModels, name, "network model"); }
std::string transport_name(Transport t) { return name_of(kTransports, t); }
std::vector<std::string> transport_names() { return names_of(kTransports); }
Transport parse_transport(const std::string& name) { return parse_in(kTransports, name, "transport"); }

double PlatformSpec::transfer_cap_Bps(int from, int to) const {
  if (transport != Transport::tcp || from < 0 || to < 0 || from / gpus_per_node == to / gpus_per_node)
    return std::numeric_limits<double>::infinity();
  return tcp.connections * tcp.stream_Bps;
}

std::string node_fabric_name(NodeFabric f) { return name_of(kNodeFabrics, f); }
std::vector<std::string> node_fabric_names() { return names_of(kNodeFabrics); }
NodeFabric parse_node_fabric(const std::string& name) { return parse_in(kNodeFabrics, name, "node fabric"); }

// NVIDIA DGX-1 System Architecture white paper (WP-08437-002, 2017), figure 4 (DGX-1 with V100): two fully
// connected quads 0-3 and 4-7 joined by i <-> i+4; each V100 has 6 NVLinks, so 4 pairs use two links. The
// counts are those `nvidia-smi topo -m` prints on a DGX-1V (NV1/NV2); every row sums to 6.
std::vector<std::vector<int>> hybrid_cube_mesh() {
  return {{0, 1, 1, 2, 2, 0, 0, 0}, {1, 0, 2, 1, 0, 2, 0, 0}, {1, 2, 0, 2, 0, 0, 1, 0}, {2, 1, 2, 0, 0, 0, 0, 1},
          {2, 0, 0, 0, 0, 1, 1, 2}, {0, 2, 0, 0, 1, 0, 2, 1}, {0, 0, 1, 0, 1, 2, 0, 2}, {0, 0, 0, 1, 2, 1, 2, 0}};
}

std::vector<std::string> network_settings(NetworkModel m) {
  switch (m) {
    case NetworkModel::alpha_beta:
      return {"network/model:CM02", "network/crosstraffic:0", "network/TCP-gamma:1e30", "network/optim:Full"};
    case NetworkModel::cm02:
      return {"network/model:CM02"};
    case NetworkModel::lv08:
      return {"network/model:LV08"};
  }
  DTSIM_CHECK(false, "unknown network model");
}

bool routes_both_ways(NetworkModel m) {
  // SimGrid 3.32, src/kernel/resource/models/network_cm02.cpp, NetworkCm02Model::communicate: with
  // cfg_crosstraffic set, dst->route_to(src, back_route) and the back route's links carry 5% of the flow.
  const std::vector<std::string> settings = network_settings(m);
  return std::find(settings.begin(), settings.end(), "network/crosstraffic:0") == settings.end();
}

long long fat_tree_nodes(const FatTreeShape& shape) { return product(shape.down); }

long long torus_nodes(const std::vector<int>& dims) { return product(dims); }

long long dragonfly_nodes(const DragonflyShape& shape) {
  return static_cast<long long>(shape.groups) * shape.chassis * shape.routers * shape.nodes_per_router;
}

}  // namespace dtsim::platform
