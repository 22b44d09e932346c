#pragma once
/// What `dtsim platform show` prints: sizes, diameter, bisection bandwidth, oversubscription, a sketch.
#include <string>
#include <vector>

#include "sim/platform/platform_spec.hpp"

namespace dtsim::platform {

/// Facts about a platform, computed from its Fabric (pure: no SimGrid).
struct PlatformDescription {
  std::string name;
  std::string topology;
  int hosts = 0;
  int nodes = 0;
  int switches = 0;               ///< network switches (not counting node switches)
  int links = 0;                  ///< split-duplex links (each is two directed links)
  int diameter_hops = 0;          ///< most links on any GPU-to-GPU route
  double diameter_latency_s = 0;  ///< largest route latency between two GPUs
  /// Max flow from GPUs [0, H/2) to GPUs [H/2, H) (bytes/s): the min cut between the two halves by rank.
  double bisection_Bps = 0;
  /// fat_tree: per switch level 1 .. L-1, bandwidth below a switch / bandwidth above it (2 = 2:1).
  std::vector<double> oversubscription;
  /// The directed link names (what slow_links, [[failures]] link and the report's links say), one line per
  /// pattern of names in link order: "gpu0_UP .. gpu15_UP (16)".
  std::vector<std::string> link_names;
  /// Structured nodes: the inside of one node (NVLinks per GPU pair, PCIe switches with their GPUs and NICs,
  /// the GPU -> NIC map, GPUDirect, rails) and the link names, one fact per line; empty otherwise.
  std::string node;
  /// Adjacency of the nodes and switches, one line each; empty above 64 of them.
  std::string sketch;
};

/// Describes `spec`; the diameter walks every pair of nodes, so it costs O(nodes^2 x hops).
PlatformDescription describe_platform(const PlatformSpec& spec);

/// The description as text, one fact per line, then the sketch.
std::string format_description(const PlatformDescription& d);

}  // namespace dtsim::platform
