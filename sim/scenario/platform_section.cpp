#include "sim/scenario/platform_section.hpp"

#include <set>

#include "models/gpu_profile.hpp"
#include "sim/core/error.hpp"
#include "sim/core/nearest_names.hpp"
#include "sim/core/printable.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/platform/link_efficiency.hpp"
#include "sim/scenario/node_section.hpp"
#include "sim/scenario/section.hpp"

namespace dtsim::scenario {
namespace {

constexpr int kMaxHosts = 1 << 20;
/// NCCL caps its socket transport at MAX_SOCKETS = 64 connections per peer (src/transport/net_socket.cc); allowed
/// up to 1024 for libraries that open one per channel or thread.
constexpr int kMaxTcpConnections = 1024;

/// The IPv4 minimum MTU every host takes (RFC 791) to the largest jumbo frame Ethernet switches commonly pass.
constexpr int kMinMtu = 576;
constexpr int kMaxMtu = 9216;

/// Over TCP every network link carries segments in Ethernet frames of `tcp_mtu` (default 1500 B, RFC 894): the
/// links between nodes run at their payload rate (link_efficiency.hpp; 94.1 % of the line rate at 1500 B). A
/// star's host links are its nodes' NICs; otherwise the NIC links (`inter`), the switches' links (`network`) and a
/// graph's edges.
void tcp_in_frames(Section& network, platform::PlatformSpec& spec) {
  const std::int64_t mtu = network.has("tcp_mtu") ? network.size("tcp_mtu") : platform::kEthernetDefaultMtuBytes;
  if (mtu < kMinMtu || mtu > kMaxMtu)
    throw core::InputError(network.where_key("tcp_mtu"),
                           "'platform.network.tcp_mtu' = " + std::to_string(mtu) + " bytes",
                           "allowed: 576B (IPv4's minimum) to 9216B (jumbo frames); Ethernet's default is 1500B");
  const double efficiency = platform::tcp_payload_efficiency(static_cast<int>(mtu));
  if (spec.topology == platform::Topology::star) spec.intra = platform::payload_rate(spec.intra, efficiency);
  spec.inter = platform::payload_rate(spec.inter, efficiency);
  spec.network = platform::payload_rate(spec.network, efficiency);
  for (platform::GraphEdge& e : spec.graph.edges) e.link = platform::payload_rate(e.link, efficiency);
}
constexpr int kMaxCount = 1 << 16;  ///< bound of one count (dimension, arity, group...)
constexpr int kMaxFatTreeLevels = 8;
constexpr int kMaxTorusDims = 6;
constexpr int kMaxFullMeshNodes = 1024;  ///< n(n-1)/2 links: 523,776 at 1024
/// Structured nodes: 131,072 GPUs (16,384 nodes of 8), the largest clusters planned in 2026. The analytic level
/// keeps their fabric (routes computed per GPU pair when asked); the simulated levels build one SimGrid FullZone of
/// every GPU, hosts^2 route pointers (134 MB at 4,096 GPUs, 137 GB at 131,072), which run::refuse_oversized counts
/// and refuses, with the way out, before anything is allocated.
constexpr int kMaxStructuredHosts = 131072;

platform::LinkSpec load_link(Section& parent, const std::string& key) { return load_link(parent, "platform.", key); }

/// An array of integers in [min, max], e.g. dims = [4, 4, 4]; empty when absent and not required.
std::vector<int> integer_list(Section& s, const toml::table& table, const std::string& key, bool required,
                              std::size_t max_entries) {
  s.has(key);
  const toml::node* n = table.get(key);
  if (!n) {
    if (required) throw core::InputError(s.where_table(), "missing key 'platform." + key + "'", "it is required here");
    return {};
  }
  const toml::array* array = n->as_array();
  if (!array || array->empty() || array->size() > max_entries)
    throw core::InputError(where(n->source()),
                           "'platform." + key + "' must be a list of 1 to " + std::to_string(max_entries) + " integers",
                           "e.g. " + key + " = [4, 4]");
  std::vector<int> values;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const toml::node& e = *array->get(i);
    const std::string name = "'platform." + key + "[" + std::to_string(i) + "]'";
    if (!e.is_integer())
      throw core::InputError(where(e.source()), name + " is not an integer", "every entry is a whole number");
    const std::int64_t v = *e.value<std::int64_t>();
    if (v < 1 || v > kMaxCount)
      throw core::InputError(where(e.source()), name + " = " + std::to_string(v) + " is out of range",
                             "allowed: 1 to " + std::to_string(kMaxCount));
    values.push_back(static_cast<int>(v));
  }
  return values;
}

int count(Section& s, const std::string& key) { return static_cast<int>(s.required_integer(key, 1, kMaxCount)); }

/// Checks nodes x gpus_per_node, with the error at `key` (the key that sets the size).
void check_hosts(Section& s, const std::string& key, long long nodes, int gpus_per_node) {
  if (nodes * gpus_per_node > kMaxHosts)
    throw core::InputError(s.where_key(key),
                           "the platform has " + std::to_string(nodes) + " nodes x " + std::to_string(gpus_per_node) +
                               " GPUs, more than " + std::to_string(kMaxHosts),
                           "at most " + std::to_string(kMaxHosts) + " GPUs");
}

void load_fat_tree(Section& s, const toml::table& table, platform::PlatformSpec& spec) {
  platform::FatTreeShape& f = spec.fat_tree;
  f.down = integer_list(s, table, "down", true, kMaxFatTreeLevels);
  f.up = integer_list(s, table, "up", true, kMaxFatTreeLevels);
  f.parallel = integer_list(s, table, "parallel", false, kMaxFatTreeLevels);
  if (f.parallel.empty()) f.parallel.assign(f.down.size(), 1);
  for (const auto& [key, list] :
       {std::pair<std::string, const std::vector<int>&>{"up", f.up}, {"parallel", f.parallel}}) {
    if (list.size() != f.down.size())
      throw core::InputError(s.where_key(key),
                             "'platform." + key + "' has " + std::to_string(list.size()) +
                                 " entries and 'platform.down' " + std::to_string(f.down.size()),
                             "one entry per switch level in each list");
    if (list[0] != 1)
      throw core::InputError(s.where_key(key), "'platform." + key + "[0]' = " + std::to_string(list[0]),
                             "a node has one NIC to one leaf switch, so the first entry is 1");
  }
  long long switches = 0;
  long long width = 1;
  long long below = platform::fat_tree_nodes(f);
  for (std::size_t l = 0; l < f.down.size(); ++l) {
    width *= f.up[l];
    below /= f.down[l];
    switches += width * below;
    if (switches > kMaxHosts)
      throw core::InputError(s.where_key("up"),
                             "the fat tree needs more than " + std::to_string(kMaxHosts) + " switches",
                             "use fewer parents per level ('up')");
  }
  check_hosts(s, "down", platform::fat_tree_nodes(f), spec.gpus_per_node);
  spec.nodes = static_cast<int>(platform::fat_tree_nodes(f));
}

void load_dragonfly(Section& s, platform::PlatformSpec& spec) {
  platform::DragonflyShape& d = spec.dragonfly;
  d.groups = count(s, "groups");
  d.chassis = count(s, "chassis");
  d.routers = count(s, "routers");
  d.nodes_per_router = count(s, "nodes_per_router");
  check_hosts(s, "groups", platform::dragonfly_nodes(d), spec.gpus_per_node);
  spec.nodes = static_cast<int>(platform::dragonfly_nodes(d));
}

bool reserved_name(const std::string& name) {
  return name == "cluster" || name.rfind("gpu", 0) == 0 || name.rfind("node", 0) == 0;
}

void load_graph(Section& s, const toml::table& table, platform::PlatformSpec& spec) {
  spec.nodes = static_cast<int>(s.required_integer("nodes", 1, kMaxCount));
  check_hosts(s, "nodes", spec.nodes, spec.gpus_per_node);
  std::set<std::string> vertices;
  for (int n = 0; n < spec.nodes; ++n) vertices.insert("node" + std::to_string(n));
  s.has("switches");
  if (const toml::node* list = table.get("switches")) {
    const toml::array* array = list->as_array();
    if (!array)
      throw core::InputError(where(list->source()), "'platform.switches' must be a list of names",
                             "e.g. switches = [\"leaf0\", \"spine0\"]");
    for (const toml::node& e : *array) {
      const std::optional<std::string> name = e.value<std::string>();
      if (!e.is_string() || name->empty() || reserved_name(*name) || !vertices.insert(*name).second)
        throw core::InputError(where(e.source()), "bad switch name" + (e.is_string() ? " '" + *name + "'" : ""),
                               "switch names are distinct non-empty strings not starting with 'gpu' or 'node' "
                               "and not 'cluster'");
      spec.graph.switches.push_back(*name);
    }
  }
  std::set<std::string> link_names;
  for (Section& e : s.tables("edges")) {
    e.allow({"from", "to", "bandwidth", "latency", "name"});
    platform::GraphEdge edge;
    edge.from = e.required_string("from");
    edge.to = e.required_string("to");
    for (const std::string* end : {&edge.from, &edge.to})
      if (!vertices.count(*end))
        throw core::InputError(e.where_key(end == &edge.from ? "from" : "to"),
                               "unknown vertex '" + core::printable(*end) + "'",
                               core::with_suggestion(*end, {vertices.begin(), vertices.end()},
                                                     "node0 .. node" + std::to_string(spec.nodes - 1) +
                                                         " or a name from 'switches'"));
    if (edge.from == edge.to)
      throw core::InputError(e.where_key("to"), "edge from '" + edge.from + "' to itself",
                             "link two different vertices");
    edge.name = e.string("name", edge.from + "-" + edge.to);
    if (edge.name.empty() || edge.name.rfind("gpu", 0) == 0 || !link_names.insert(edge.name).second)
      throw core::InputError(e.where_table(), "link name '" + edge.name + "' is taken or reserved",
                             "give each edge a distinct 'name' not starting with 'gpu'");
    edge.link = {e.bandwidth("bandwidth"), e.duration("latency")};
    e.finish();
    spec.graph.edges.push_back(std::move(edge));
  }
  if (spec.graph.edges.empty() && spec.nodes > 1)
    throw core::InputError(s.where_table(), "a graph platform without [[platform.edges]]",
                           "give edges with from, to, bandwidth and latency");
  try {
    const platform::Fabric check(spec);
  } catch (const core::InputError& e) {
    throw e.at(s.where_key("edges"));
  }
}

/// A two_level platform whose nodes are described by [platform.node] (NICs, PCIe, NVLink, rails).
void load_structured(Section& s, toml::table& table, platform::PlatformSpec& spec) {
  Section node = *s.table("node");
  if (spec.topology != platform::Topology::two_level)
    throw core::InputError(s.where_key("node"),
                           "[platform.node] with topology = \"" + platform::topology_name(spec.topology) + "\"",
                           "structured nodes need topology = \"two_level\" (their NICs on one switch or on rails)");
  if (table.contains("intra_link"))
    throw core::InputError(s.where_key("intra_link"), "[platform.intra_link] with [platform.node]",
                           "a structured node's GPUs use [platform.node.nvlink] and [platform.node.pcie]");
  load_node(node, *table.get_as<toml::table>("node"), spec);
  spec.nodes = static_cast<int>(s.required_integer("nodes", 1, kMaxStructuredHosts / spec.gpus_per_node));
  spec.inter = load_link(s, "inter_link");
  if (spec.node.rails)
    spec.network = load_link(s, "network_link");
  else if (table.contains("network_link"))
    throw core::InputError(s.where_key("network_link"), "[platform.network_link] with rails = false",
                           "it is the rails' link to the spine: set rails = true, or leave it out (copy a built-in "
                           "platform to a file of your own to drop it)");
}

/// The keys and shape of every topology but star: nodes of gpus_per_node GPUs, then the network.
void load_nodes_and_network(Section& s, toml::table& table, platform::PlatformSpec& spec) {
  using platform::Topology;
  spec.gpus_per_node = static_cast<int>(s.required_integer("gpus_per_node", 1, 1024));
  if (table.contains("node")) {  // looked up only when present: "node" is not among the keys a classic node uses
    load_structured(s, table, spec);
    return;
  }
  spec.intra = load_link(s, "intra_link");
  switch (spec.topology) {
    case Topology::fat_tree:
      load_fat_tree(s, table, spec);
      break;
    case Topology::torus:
      spec.torus_dims = integer_list(s, table, "dims", true, kMaxTorusDims);
      check_hosts(s, "dims", platform::torus_nodes(spec.torus_dims), spec.gpus_per_node);
      spec.nodes = static_cast<int>(platform::torus_nodes(spec.torus_dims));
      break;
    case Topology::dragonfly:
      load_dragonfly(s, spec);
      break;
    case Topology::full_mesh:
      spec.nodes = static_cast<int>(s.required_integer("nodes", 1, kMaxFullMeshNodes));
      break;
    case Topology::graph:
      return load_graph(s, table, spec);
    default:
      spec.nodes = static_cast<int>(s.required_integer("nodes", 1, kMaxHosts));
      check_hosts(s, "nodes", spec.nodes, spec.gpus_per_node);
  }
  spec.inter = load_link(s, "inter_link");
  if (spec.topology != Topology::two_level) spec.network = load_link(s, "network_link");
}

}  // namespace

platform::PlatformSpec load_platform(toml::table& table) {
  Section s(table, "platform");
  s.allow({"name",       "description",      "gpu",      "topology", "hosts", "link",     "nodes", "gpus_per_node", "intra_link",
           "inter_link", "network_link",     "down",     "up",    "parallel", "dims",  "groups",        "chassis",
           "routers",    "nodes_per_router", "switches", "edges", "network", "node", "call_latency",
           "buffer_bandwidth", "sharp", "switch_reduce_bandwidth"});
  platform::PlatformSpec spec;
  spec.name = s.required_string("name");
  spec.description = s.string("description", "");
  if (auto gpu = s.optional_string("gpu")) {
    try {
      spec.gpu = models::gpu_profile(*gpu).name;
    } catch (const core::InputError& e) {
      throw e.at(s.where_key("gpu"));
    }
  }
  const std::string topology = s.choice("topology", "star", platform::topology_names());
  spec.topology = platform::parse_topology(topology);
  if (spec.topology == platform::Topology::star) {
    spec.nodes = static_cast<int>(s.required_integer("hosts", 1, kMaxHosts));
    spec.gpus_per_node = 1;
    spec.intra = load_link(s, "link");
  } else {
    load_nodes_and_network(s, table, spec);
  }
  if (auto call = s.optional_duration("call_latency")) spec.call_latency_s = *call;
  if (auto buffers = s.optional_bandwidth("buffer_bandwidth")) spec.buffer_bandwidth_Bps = *buffers;
  // Looked up only when present: keys a platform uses are listed in "does not apply here" messages.
  if (table.contains("sharp")) spec.sharp = s.boolean("sharp", false);
  if (const std::string why = platform::reduction_refusal(spec); !why.empty())
    throw core::InputError(s.where_key("sharp"), why, "sharp = false, or a platform whose switch can reduce");
  if (auto reduce = s.optional_bandwidth("switch_reduce_bandwidth")) {
    if (!spec.reduces_in_network())
      throw core::InputError(s.where_key("switch_reduce_bandwidth"), "switch_reduce_bandwidth without a reducing switch",
                             "set sharp = true (or [platform.node] nvls = true) first, or drop the key");
    spec.switch_reduce_bandwidth_Bps = *reduce;
  }
  if (auto network = s.table("network")) {
    network->allow({"model", "transport", "tcp_stream_bandwidth", "tcp_connections", "tcp_mtu"});
    spec.network_model =
        platform::parse_network_model(network->choice("model", "alpha_beta", platform::network_model_names()));
    spec.transport = platform::parse_transport(network->choice("transport", "rdma", platform::transport_names()));
    if (spec.transport == platform::Transport::tcp) {  // else the tcp_ keys are refused as not applying (finish)
      if (auto stream = network->optional_bandwidth("tcp_stream_bandwidth")) spec.tcp.stream_Bps = *stream;
      spec.tcp.connections = static_cast<int>(network->integer("tcp_connections", 1, 1, kMaxTcpConnections));
      tcp_in_frames(*network, spec);
    }
    network->finish();
  }
  s.finish();
  return spec;
}

namespace {

/// Where `n` and every value inside it were written.
void places_in(const toml::node& n, std::set<std::string>& places) {
  places.insert(where(n.source()));
  if (const toml::table* t = n.as_table())
    for (const auto& [key, value] : *t) places_in(value, places);
  if (const toml::array* a = n.as_array())
    for (const toml::node& value : *a) places_in(value, places);
}

/// Adds to `places` where the values of `file` that `overlay` replaces were written; adds to `file` the keys of
/// `overlay` it lacks, so that it loads as the scenario completes it.
void complete(toml::table& file, const toml::table& overlay, std::set<std::string>& places) {
  for (const auto& [key, value] : overlay) {
    toml::node* own = file.get(key);
    if (!own)
      file.insert(key, value);
    else if (own->is_table() && value.is_table())
      complete(*own->as_table(), *value.as_table(), places);
    else
      places_in(*own, places);
  }
}

}  // namespace

std::string larger_platform(const platform::PlatformSpec& spec, int gpus) {
  using platform::Topology;
  const int per_node = spec.gpus_per_node;
  const int nodes = (gpus + per_node - 1) / per_node;
  const std::string of = std::to_string(nodes) + " nodes of " + std::to_string(per_node) + " GPUs";
  switch (spec.topology) {
    case Topology::star:
      return "--set platform.hosts=" + std::to_string(gpus);
    case Topology::fat_tree:
      return "a larger fat tree: platform.down whose product is at least " + of;
    case Topology::torus:
      return "a larger torus: platform.dims whose product is at least " + of;
    case Topology::dragonfly:
      return "a larger dragonfly: groups x chassis x routers x nodes_per_router at least " + of;
    case Topology::graph:
      return "a graph platform of " + of + " (node0 .. node" + std::to_string(nodes - 1) +
             ") with [[platform.edges]] joining them";
    default:
      break;
  }
  const int most = spec.topology == Topology::full_mesh ? kMaxFullMeshNodes
                   : spec.node.structured             ? kMaxStructuredHosts / per_node
                                                      : kMaxHosts / per_node;
  if (nodes > most)
    return "a platform of another topology (" + platform::topology_name(spec.topology) +
           (spec.node.structured ? " with [platform.node]" : "") + " holds at most " + std::to_string(most) +
           " nodes of " + std::to_string(per_node) + " GPUs)";
  return "--set platform.nodes=" + std::to_string(nodes) + " (nodes of " + std::to_string(per_node) + " GPUs)";
}

void check_replaced_values(toml::table file, const toml::table& overlay) {
  std::set<std::string> places;
  complete(file, overlay, places);
  if (places.empty()) return;
  try {
    load_platform(file);
  } catch (const core::InputError& e) {
    // Only an error at a replaced value: the scenario's own values are checked when the merged table loads.
    const std::string message = e.what();
    for (const std::string& place : places)
      if (message.rfind(place + ": ", 0) == 0)
        throw core::InputError(place, e.problem() + " (the scenario replaces this value, but the file is wrong)",
                               e.allowed());
  }
}

}  // namespace dtsim::scenario
