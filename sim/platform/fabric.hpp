#pragma once
/// The links and routes of a platform, computed without SimGrid. The SimGrid builder creates exactly
/// these links, so the `analytic` level and the simulated levels see the same network.
#include <string>
#include <vector>

#include "sim/collectives/collective.hpp"
#include "sim/core/path_model.hpp"
#include "sim/platform/platform_spec.hpp"

namespace dtsim::platform {

/// One direction of a split-duplex link.
struct DirectedLink {
  std::string name;  ///< SimGrid name: "<link>_UP" or "<link>_DOWN"
  double bandwidth_Bps = 0;
  double latency_s = 0;
};

/// Star and two-level fabrics. Host h is GPU h % G of node h / G.
///
///   star:       h0   h1  ...  hN-1          two_level:   [g0 g1 .. gG-1]  node switch
///                 \   |    /                                    |  nic_n
///                  switch                                   top switch
///
/// Routes: star h_i -> h_j = link_i_UP, link_j_DOWN. two_level same node = gpu_i_UP, gpu_j_DOWN;
/// other node = gpu_i_UP, nic_a_UP, nic_b_DOWN, gpu_j_DOWN.
class Fabric final : public core::PathModel {
 public:
  explicit Fabric(const PlatformSpec& spec);
  core::Path path(int from, int to) const override;
  double link_bandwidth_Bps(int link) const override;
  int link_count() const override { return static_cast<int>(links_.size()); }
  /// All directed links, indexed by id.
  const std::vector<DirectedLink>& links() const { return links_; }
  /// Id of the UP direction of host h's own link (its DOWN direction is id + 1).
  int host_link(int host) const { return 2 * host; }
  /// Id of the UP direction of node n's NIC (two_level only; DOWN is id + 1).
  int nic_link(int node) const { return 2 * spec_.hosts() + 2 * node; }

 private:
  PlatformSpec spec_;
  std::vector<DirectedLink> links_;
};

/// Alpha-beta cost of one message between two GPUs of one node and between GPUs of different nodes
/// (route latency, bottleneck bandwidth), as the closed forms and MG-WFBP use them.
collectives::LinkCosts link_costs(const PlatformSpec& spec);

}  // namespace dtsim::platform
