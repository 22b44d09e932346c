#pragma once
/// A cluster as a scenario describes it, before anything is built in SimGrid.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace dtsim::platform {

/// One split-duplex link: each direction has this bandwidth and latency.
struct LinkSpec {
  double bandwidth_Bps = 0;  ///< the rate data moves at (payload, after packet overhead where it is modelled)
  double latency_s = 0;
  /// The product's data rate before packet overhead (an NVLink or PCIe link's line rate, link_efficiency.hpp);
  /// 0: bandwidth_Bps is the line rate.
  double line_rate_Bps = 0;
  double line_rate() const { return line_rate_Bps > 0 ? line_rate_Bps : bandwidth_Bps; }
};

/// Shapes of cluster dtsim builds. Every shape but star has multi-GPU nodes: `gpus_per_node` GPUs on
/// intra links to a node switch, and (except graph, where edges say it) one NIC link to the network.
enum class Topology {
  star,       ///< every GPU has a private link to one switch
  two_level,  ///< G GPUs per node on fast links to a node switch, one NIC per node to a top switch
  fat_tree,   ///< nodes are the leaves of a parallel-ports generalized fat tree (SimGrid FatTreeParams)
  torus,      ///< one router per node on a k-ary n-cube, wrap-around links
  dragonfly,  ///< groups of chassis of routers, nodes on routers (Cray Cascade / SimGrid naming)
  ring,       ///< one router per node, each router linked to its two neighbours
  full_mesh,  ///< one router per node, every pair of routers linked
  graph,      ///< switches and edges written in the platform file, latency-shortest routes
};

/// SimGrid network models a platform can ask for.
enum class NetworkModel {
  alpha_beta,  ///< CM02, no cross-traffic, no TCP window: exact latency + size / bandwidth
  cm02,        ///< CM02 with SimGrid's default cross-traffic (5 % reverse ghost flow) and TCP window
  lv08,        ///< SimGrid's default TCP model: latency x 13.01, bandwidth x 0.97, cross-traffic
};

/// How nodes move bytes across the network.
enum class Transport {
  rdma,  ///< the NIC reads and writes memory itself (InfiniBand, RoCE): a transfer runs at its links' share
  tcp,   ///< kernel TCP sockets: each connection runs at most at one core's stream rate (TcpSpec)
};

/// Kernel TCP between nodes (network.transport = "tcp"). One connection's bytes are copied and checksummed by
/// one core on each side, so a connection carries at most what that core processes, however fast the link;
/// a library stripes a transfer over several connections to go faster (NCCL's socket transport:
/// NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD).
struct TcpSpec {
  /// One connection's throughput (key `tcp_stream_bandwidth`). Default 42 Gb/s: one long TCP flow on a 100 Gb/s
  /// link with TSO/GRO, jumbo frames and aRFS, its receiving core saturated, data copy its largest cost (Cai et
  /// al., "Understanding Host Network Stack Overheads", SIGCOMM 2021, section 3.1).
  double stream_Bps = 42e9 / 8;
  /// Connections one transfer between two nodes is striped over (key `tcp_connections`). Default 1, what the
  /// libraries open per peer: NCCL's socket transport outside AWS and GCP (src/transport/net_socket.cc,
  /// ncclNetSocketGetNsockNthread: no helper thread, so the payload goes on the one control socket; AWS ENA 2
  /// threads x 8 sockets = 16, GCP gVNIC 4 x 1 = 4); Gloo's TCP pair (one socket per peer); ps-lite's ZeroMQ
  /// (one connection per peer).
  int connections = 1;
};

/// Fat-tree shape in SimGrid's FatTreeParams terms (Zahavi's PGFT): level 0 are the nodes; a switch of level
/// l + 1 has down[l] children, an element of level l has up[l] parents and parallel[l] links to each.
/// A node has one NIC, so up[0] = parallel[0] = 1. All lists have one entry per switch level.
struct FatTreeShape {
  std::vector<int> down;
  std::vector<int> up;
  std::vector<int> parallel;
};

/// Dragonfly shape: `groups` groups of `chassis` chassis of `routers` routers, `nodes_per_router` nodes each.
struct DragonflyShape {
  int groups = 1;
  int chassis = 1;
  int routers = 1;
  int nodes_per_router = 1;
};

/// One edge of a custom graph: a split-duplex link between two vertices ("node<i>" or a switch name).
struct GraphEdge {
  std::string name;  ///< SimGrid link name; directions are name_UP (from -> to) and name_DOWN
  std::string from;
  std::string to;
  LinkSpec link;
};

/// A custom network: named switches and the edges between switches and nodes.
struct GraphShape {
  std::vector<std::string> switches;
  std::vector<GraphEdge> edges;
};

/// What joins the GPUs of a structured node.
enum class NodeFabric {
  nvswitch,     ///< every GPU one NVLink port (all its links) to one NVSwitch
  nvlink_mesh,  ///< direct NVLinks between GPU pairs, counts per pair; pairs without one go over PCIe
  pcie,         ///< no NVLink: GPUs talk through their PCIe switches and, across switches, the host
};

/// The inside of a node as [platform.node] gives it (two_level only); node_fabric.cpp has the picture.
struct NodeSpec {
  bool structured = false;  ///< false: GPUs on `intra` links to one node switch with one NIC
  NodeFabric fabric = NodeFabric::pcie;
  LinkSpec nvlink;  ///< nvswitch: a GPU's port to the NVSwitch (all its links); nvlink_mesh: one NVLink
  std::vector<std::vector<int>> nvlinks;  ///< nvlink_mesh: NVLinks between local GPUs i and j (G x G, symmetric)
  LinkSpec pcie;                          ///< GPU or NIC <-> PCIe switch, and PCIe switch <-> host (CPU, memory)
  int pcie_switches = 1;                  ///< GPU g on switch g * S / G, NIC k on switch k * S / K
  int nics = 1;                           ///< K
  std::vector<int> gpu_nic;               ///< NIC used by each local GPU (G entries)
  bool gpudirect = true;                  ///< false: GPU <-> NIC traffic goes through host memory
  bool rails = false;                     ///< NIC k of every node on switch rail<k>, rails joined by a spine
  /// nvswitch: the NVSwitch sums what the GPUs send it and multicasts the sum (NVLink SHARP, third-generation
  /// NVSwitch: DGX H100 and later; NCCL's NVLS algorithm).
  bool nvls = false;
  /// rails: nodes one leaf switch of a rail serves, each leaf with one `network` uplink to the spine (a DGX
  /// SuperPOD scalable unit); 0: one leaf, so one uplink, for the whole rail at any node count.
  int nodes_per_leaf = 0;
  /// Bytes of payload in one NVLink packet (key `nvlink_payload`): the links carry payload at their bandwidth (the
  /// line rate) x nvlink_payload_efficiency (link_efficiency.hpp); 0: `nvlink` is already the payload rate.
  int nvlink_payload_bytes = 0;
  /// PCIe max payload size of the node's TLPs (key `pcie_max_payload`): the links carry payload at their bandwidth
  /// x pcie_payload_efficiency; 0: `pcie` is already the payload rate.
  int pcie_max_payload_bytes = 0;
  /// rails with nodes_per_leaf: scalable units (one leaf per rail each) under one spine group (a pod); 0: two tiers
  /// (leaves, spine). Set: three tiers, every leaf's `network` uplink to its pod's spine, each pod's spine linked to
  /// the core (node_fabric.cpp has the picture).
  int units_per_pod = 0;
  /// Three tiers: what the pods' spines send down over what they send up to the core (1: non-blocking; 7: Llama 3's
  /// aggregation layer, "an oversubscription ratio of 1:7").
  double core_oversubscription = 1;
  /// PCIe switch of local GPU g.
  int gpu_switch(int g, int gpus) const { return g * pcie_switches / gpus; }
  /// PCIe switch of NIC k.
  int nic_switch(int k) const { return k * pcie_switches / nics; }
};

/// Name of a node fabric as written in platform files; the accepted names.
std::string node_fabric_name(NodeFabric f);
std::vector<std::string> node_fabric_names();
NodeFabric parse_node_fabric(const std::string& name);
/// DGX-1's hybrid cube-mesh of 8 V100 (6 NVLinks each): NVLinks between GPUs i and j (NVIDIA DGX-1 white paper).
std::vector<std::vector<int>> hybrid_cube_mesh();

/// Everything needed to build the cluster.
struct PlatformSpec {
  std::string name;
  std::string description;  ///< one line for listings and reports
  std::string gpu;          ///< GPU profile of its hosts (`dtsim list gpus`); empty when the platform does not say
  Topology topology = Topology::star;
  int nodes = 1;          ///< star: number of hosts; otherwise number of nodes (set from the shape when it has one)
  int gpus_per_node = 1;  ///< star: 1
  LinkSpec intra;         ///< star: the host link; otherwise GPU <-> node switch
  LinkSpec inter;         ///< node NIC <-> its network switch (unused by star and graph)
  LinkSpec network;       ///< switch <-> switch links of fat_tree, torus, dragonfly, ring, full_mesh
  FatTreeShape fat_tree;
  std::vector<int> torus_dims;  ///< routers along each dimension (torus)
  DragonflyShape dragonfly;
  GraphShape graph;
  NetworkModel network_model = NetworkModel::alpha_beta;
  Transport transport = Transport::rdma;
  TcpSpec tcp;  ///< transport tcp only
  NodeSpec node;  ///< two_level only: the structure inside each node
  std::map<std::string, double> link_slowdown;  ///< directed link name -> bandwidth divisor (slow links)
  double call_latency_s = 0;  ///< fixed time of each nccl / auto collective call that no link carries
  /// Rate of an all-reduce's input reads and output writes on each GPU beside the links (nccl / auto); 0: not
  /// charged.
  double buffer_bandwidth_Bps = 0;
  /// The network's switch sums what the nodes send it and returns the sum (InfiniBand SHARP, SwitchML, ATP;
  /// NCCL's CollNet): key `sharp`. Modelled where one switch joins all nodes (star, two_level, a fat tree of one
  /// switch level).
  bool sharp = false;
  /// Bytes per second a reducing switch (sharp, node.nvls) can sum, all its inputs together (key
  /// `switch_reduce_bandwidth`); 0: as fast as its ports bring them (line rate).
  double switch_reduce_bandwidth_Bps = 0;
  /// Whether some switch of the platform reduces (sharp or node.nvls).
  bool reduces_in_network() const { return sharp || node.nvls; }
  /// Number of GPUs (hosts) in the cluster.
  int hosts() const { return nodes * gpus_per_node; }
  /// The most one transfer from host `from` to host `to` carries whatever its links' shares: over TCP between
  /// two nodes (a star's hosts are nodes of one GPU) its connections at the stream rate; else infinity (RDMA,
  /// inside a node, a switch's reduction unit).
  double transfer_cap_Bps(int from, int to) const;
  /// Leaves of each rail: ceil(nodes / node.nodes_per_leaf), 1 when nodes_per_leaf is not set.
  int rail_leaves() const {
    return node.nodes_per_leaf > 0 ? (nodes + node.nodes_per_leaf - 1) / node.nodes_per_leaf : 1;
  }
  /// A rail's link to the spine: its leaves' `network` uplinks together (rail_leaves x bandwidth, one latency).
  LinkSpec rail_spine() const { return {rail_leaves() * network.bandwidth_Bps, network.latency_s}; }
  /// Three tiers: pods of units_per_pod scalable units (the last may hold fewer).
  int pods() const { return (rail_leaves() + node.units_per_pod - 1) / node.units_per_pod; }
  /// Three tiers: pod p's spine link to the core: its leaves' uplinks together over core_oversubscription.
  LinkSpec pod_core(int p) const {
    const int units = std::min(node.units_per_pod, rail_leaves() - p * node.units_per_pod);
    return {units * node.nics * network.bandwidth_Bps / node.core_oversubscription, network.latency_s};
  }
};

/// Name of a topology as written in platform files.
std::string topology_name(Topology t);
/// Name of a network model as written in platform files.
std::string network_model_name(NetworkModel m);
/// Names accepted for `topology` and `network.model` (registry order).
std::vector<std::string> topology_names();
std::vector<std::string> network_model_names();
/// Parses a name; throws core::InputError listing the known names.
Topology parse_topology(const std::string& name);
NetworkModel parse_network_model(const std::string& name);
/// Name of a transport as written in platform files (`network.transport`); the accepted names; parse.
std::string transport_name(Transport t);
std::vector<std::string> transport_names();
Transport parse_transport(const std::string& name);
/// The SimGrid settings ("key:value") that select `m`, in the order they are applied.
std::vector<std::string> network_settings(NetworkModel m);
/// True when `m` keeps SimGrid's cross-traffic (network/crosstraffic, on by default): then every communication
/// from a to b also loads the route from b to a (its acknowledgements), so that route must exist too.
bool routes_both_ways(NetworkModel m);

/// Nodes implied by a shape: product of fat_tree down, of torus dims, of the dragonfly counts.
long long fat_tree_nodes(const FatTreeShape& shape);
long long torus_nodes(const std::vector<int>& dims);
long long dragonfly_nodes(const DragonflyShape& shape);

}  // namespace dtsim::platform
