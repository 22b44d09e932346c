#pragma once
/// A cluster as a scenario describes it, before anything is built in SimGrid.
#include <string>
#include <vector>

namespace dtsim::platform {

/// One split-duplex link: each direction has this bandwidth and latency.
struct LinkSpec {
  double bandwidth_Bps = 0;
  double latency_s = 0;
};

/// Shapes of cluster dtsim builds.
enum class Topology {
  star,       ///< every GPU has a private link to one switch
  two_level,  ///< G GPUs per node on fast links to a node switch, one NIC per node to a top switch
};

/// SimGrid network models a platform can ask for.
enum class NetworkModel {
  alpha_beta,  ///< CM02, no cross-traffic, no TCP window: exact latency + size / bandwidth
  cm02,        ///< CM02 with SimGrid's default cross-traffic (5 % reverse ghost flow) and TCP window
  lv08,        ///< SimGrid's default TCP model: latency x 13.01, bandwidth x 0.97, cross-traffic
};

/// Everything needed to build the cluster.
struct PlatformSpec {
  std::string name;
  std::string description;  ///< one line for listings and reports
  Topology topology = Topology::star;
  int nodes = 1;          ///< star: number of hosts
  int gpus_per_node = 1;  ///< star: 1
  LinkSpec intra;         ///< star: the host link; two_level: GPU <-> node switch
  LinkSpec inter;         ///< two_level: node NIC <-> top switch (unused by star)
  NetworkModel network_model = NetworkModel::alpha_beta;
  /// Number of GPUs (hosts) in the cluster.
  int hosts() const { return nodes * gpus_per_node; }
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
/// The SimGrid settings ("key:value") that select `m`, in the order they are applied.
std::vector<std::string> network_settings(NetworkModel m);

}  // namespace dtsim::platform
