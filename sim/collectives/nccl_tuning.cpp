// Constants from NVIDIA/nccl src/graph/tuning.cc (commit 01afd20a): latencies in microseconds, indexed
// [algorithm][protocol] with algorithms {tree, ring} and protocols {LL, LL128, Simple}.
#include "sim/collectives/nccl_tuning.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

#include "sim/collectives/in_network.hpp"
#include "sim/collectives/nccl_in_network.hpp"
#include "sim/collectives/nvlink_rings.hpp"
#include "sim/collectives/phases.hpp"
#include "sim/core/error.hpp"

namespace dtsim::collectives {
namespace {

constexpr int kAlgorithms = 2;
constexpr int kProtocols = 3;

/// baseLat: a launch's fixed cost.
constexpr double kBaseLat_us[kAlgorithms][kProtocols] = {{4.4, 4.4, 0}, {3.6, 10.0, 8.4}};
/// hwLat on NVLink: one hop's cost (tree/Simple: a 256 kB chunk's, tuning.cc says).
constexpr double kNvlinkLat_us[kAlgorithms][kProtocols] = {{.52, 1.2, 28}, {.47, 1.9, 3.4}};
/// hwLat over the network.
constexpr double kNetLat_us[kAlgorithms][kProtocols] = {{5.0, 8.5, 50}, {2.7, 4.0, 9.6}};
/// treeCorrectionFactor[protocol][log2(bytes / 64)] for 64 B .. 128 MiB: trees run slower than modelled
/// at medium sizes.
constexpr double kTreeCorrection[kProtocols][22] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .5, .6, .6, .7, .7, .8, .9, .9, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .5, .5, .6, .6, .7, .8, .9}};
/// maxTreeBw (GB/s) over more than two nodes, and over one or two (pre-A100 values: dtsim does not know the
/// GPU's compute capability).
constexpr double kMaxTreeBw_GBps[2] = {80.0, 110.0};

int index(NcclAlgorithm a) { return a == NcclAlgorithm::tree ? 0 : 1; }
int index(NcclProtocol p) { return p == NcclProtocol::ll ? 0 : p == NcclProtocol::ll128 ? 1 : 2; }

/// NCCL's log2i: floor(lg n), 0 for n < 2.
int log2i(double n) { return n < 2 ? 0 : floor_log2(static_cast<int>(std::min(n, 1e9))); }

}  // namespace

std::string NcclChoice::name() const { return nccl_algorithm_name(algorithm) + "/" + nccl_protocol_name(protocol); }

std::vector<std::string> nccl_algorithm_names() { return {"tree", "ring", "collnet_direct", "collnet_chain", "nvls"}; }
std::vector<std::string> nccl_protocol_names() { return {"LL", "LL128", "Simple"}; }

NcclAlgorithm parse_nccl_algorithm(std::string_view name) {
  const std::vector<std::string> names = nccl_algorithm_names();
  for (std::size_t a = 0; a < names.size(); ++a)
    if (names[a] == name) return static_cast<NcclAlgorithm>(a);
  throw core::unknown_name("NCCL algorithm", name, nccl_algorithm_names());
}

NcclProtocol parse_nccl_protocol(std::string_view name) {
  if (name == "LL") return NcclProtocol::ll;
  if (name == "LL128") return NcclProtocol::ll128;
  if (name == "Simple") return NcclProtocol::simple;
  throw core::unknown_name("NCCL protocol", name, nccl_protocol_names());
}

std::string nccl_algorithm_name(NcclAlgorithm a) { return nccl_algorithm_names()[static_cast<std::size_t>(a)]; }
std::string nccl_protocol_name(NcclProtocol p) { return nccl_protocol_names()[static_cast<std::size_t>(index(p))]; }

double nccl_latency_s(NcclChoice c, const Group& group, double bytes, NcclFunction f, bool same_channels) {
  if (nccl_in_network(c.algorithm)) return nccl_in_network_latency_s(c.algorithm, group);
  const int a = index(c.algorithm), p = index(c.protocol);
  const int nodes = group.nodes();
  const double hop_us = group.ranks_per_node > 1 ? kNvlinkLat_us[a][p] : kNetLat_us[a][p];
  double intra_us = hop_us;
  const double inter_us = kNetLat_us[a][p];
  if (nodes > 1 && c.protocol == NcclProtocol::ll) intra_us *= 1.8;
  double lat_us = kBaseLat_us[a][p];
  if (c.algorithm == NcclAlgorithm::ring && (f == NcclFunction::broadcast || f == NcclFunction::reduce)) {
    // hwLat[hw[ring]]: the network's once the ring spans nodes; p hops, Simple's at the tree's "chunk latency".
    const int tree = index(NcclAlgorithm::tree);
    const double lat = nodes > 1 ? kNetLat_us[a][p] : hop_us;
    const double simple_lat = nodes > 1 ? kNetLat_us[tree][p] : group.ranks_per_node > 1 ? kNvlinkLat_us[tree][p] : kNetLat_us[tree][p];
    lat_us += same_channels ? lat : group.ranks * (c.protocol == NcclProtocol::simple ? simple_lat : lat);
  } else if (c.algorithm == NcclAlgorithm::ring) {
    const bool allreduce = f == NcclFunction::allreduce;
    const int steps = (allreduce ? 2 : 1) * (group.ranks - 1), inter_steps = (allreduce ? 2 : 1) * (nodes - 1);
    lat_us += (steps - inter_steps) * intra_us + inter_steps * inter_us;
    // "Plateau effect of ring": ncclTopoGetAlgoTime's factor for Simple across nodes past p/16 x 64 KiB.
    if (allreduce && c.protocol == NcclProtocol::simple && nodes > 1 && bytes >= group.ranks / 16.0 * 65536) lat_us *= 1.9;
  } else {
    lat_us += 2 * ((group.ranks / nodes - 1) * intra_us + log2i(nodes) * inter_us);
  }
  return lat_us * 1e-6;
}

double nccl_efficiency(NcclChoice c, const Group& group, NcclFunction f) {
  if (nccl_in_network(c.algorithm)) return 1.0;  // Simple only; the ratios are nccl_in_network_bandwidth_Bps's
  const bool one_gpu_per_node = group.ranks_per_node < 2;
  if (c.algorithm == NcclAlgorithm::ring) {
    switch (c.protocol) {
      case NcclProtocol::ll:
        return group.nodes() > 1 || f == NcclFunction::allreduce || f == NcclFunction::reduce ? 1.0 / 4.0 : 1.0 / 3.0;
      case NcclProtocol::ll128: return one_gpu_per_node ? 0.7 : 0.92;
      case NcclProtocol::simple: return 1.0;
    }
  }
  switch (c.protocol) {
    case NcclProtocol::ll: return 0.9 / 3.8;
    case NcclProtocol::ll128: return 0.9 * (group.nodes() == 1 ? 7.0 / 9.0 : 0.915);
    case NcclProtocol::simple: return 0.9;
  }
  return 1.0;
}

namespace {

/// Ranks 0 .. n-1 in order (at least one).
std::vector<int> identity(int n) {
  std::vector<int> order(static_cast<std::size_t>(std::max(n, 1)));
  std::iota(order.begin(), order.end(), 0);
  return order;
}

/// Whether the node's NVLink counts describe the group's GPUs of a node.
bool on_mesh(const Group& group, const LinkCosts& network) {
  return !network.nvlinks.empty() && std::min(group.ranks, group.ranks_per_node) <= static_cast<int>(network.nvlinks.size());
}

/// The NICs a ring channel each goes through across whole structured nodes (NICs some GPU uses); 0 where the
/// group does not span whole such nodes of several NICs (one ring in rank order).
int channel_nics(const Group& group, const LinkCosts& network) {
  if (group.nodes() == 1 || group.ranks % group.ranks_per_node != 0 ||
      static_cast<int>(network.gpu_nic.size()) != group.ranks_per_node)
    return 0;
  const std::set<int> used(network.gpu_nic.begin(), network.gpu_nic.end());
  return used.size() < 2 ? 0 : static_cast<int>(used.size());
}

/// Whether some hop of `rings` has no NVLink of its own in `links` (it relays through a third GPU).
bool relays(const std::vector<std::vector<int>>& rings, const NvlinkCounts& links) {
  for (const std::vector<int>& ring : rings)
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const auto from = static_cast<std::size_t>(ring[i]), to = static_cast<std::size_t>(ring[(i + 1) % ring.size()]);
      if (links[from][to] == 0) return true;
    }
  return false;
}

}  // namespace

bool nccl_enabled(NcclChoice c, const Group& group, const LinkCosts& network) {
  if (nccl_in_network(c.algorithm)) return c.protocol == NcclProtocol::simple && nccl_in_network_enabled(c.algorithm, group, network);
  if (c.protocol != NcclProtocol::ll128) return true;
  if (group.nodes() == 1 && on_mesh(group, network) && relays(nvlink_rings(network.nvlinks, group.ranks), network.nvlinks))
    return false;
  if (!network.ll128) return group.ranks_per_node > 1;
  return group.nodes() > 1 ? network.ll128->across : network.ll128->inside;
}

bool nccl_on_nvlink_rings(const Group& group, const LinkCosts& network) {
  return group.nodes() == 1 && on_mesh(group, network) && !nvlink_rings(network.nvlinks, group.ranks).empty();
}

NcclSwitchGraph nccl_nvswitch_graph(int nvlinks) {
  // speedArrayIntra and the search's rules of NCCL 2.12 and later (src/graph/search.cc, ncclTopoCompute and
  // ncclTopoDupChannels); MAXCHANNELS / 2 = 16 ring channels.
  constexpr double kSpeeds_GBps[] = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0};
  constexpr int kMaxChannels = 16;
  const double width_GBps = nvlinks * kNcclNvlinkGraph_Bps * 1e-9;
  NcclSwitchGraph best;
  for (double speed : kSpeeds_GBps) {
    if (speed > width_GBps) continue;
    if (best.channels > 0 && !(speed / best.speed_GBps > 0.49)) break;
    const int channels = std::min(kMaxChannels, static_cast<int>(width_GBps / speed + 1e-9));
    if (channels * speed > best.channels * best.speed_GBps) best = {channels, speed};
    if (channels * speed >= width_GBps) break;  // as much as the links carry: the search stops
  }
  if (best.speed_GBps >= 25.0) {
    const int doubled = std::min(2 * best.channels, kMaxChannels);
    best.speed_GBps /= (doubled + best.channels - 1) / best.channels;
    best.channels = doubled;
  }
  return best;
}

bool nccl_on_nvswitch(const Group& group, const LinkCosts& network) {
  return group.nodes() == 1 && network.nvswitch_nvlinks > 0;
}

bool nccl_ll128_capped(NcclChoice c, const Group& group, const LinkCosts& network) {
  return c.algorithm == NcclAlgorithm::ring && c.protocol == NcclProtocol::ll128 &&
         (nccl_on_nvlink_rings(group, network) || nccl_on_nvswitch(group, network));
}

double nccl_ll128_channel_Bps(NcclFunction f) {
  constexpr double kPerChannel_GBps[] = {18.8, 12.0, 18.3, 15.2, kNcclLl128Channel_Bps * 1e-9};
  return kPerChannel_GBps[static_cast<std::size_t>(f)] * 1e9;
}

double nccl_ll128_cap_Bps(const Group& group, const LinkCosts& network, NcclFunction f) {
  return nccl_on_nvswitch(group, network)
             ? nccl_nvswitch_graph(network.nvswitch_nvlinks).channels * kNcclLl128ChannelAmpere_Bps
             : nccl_ll128_channel_Bps(f);
}

double nccl_channel_efficiency(NcclChoice c, const Group& group, const LinkCosts& network, double beta_s_per_byte,
                               NcclFunction f) {
  const double efficiency = nccl_efficiency(c, group, f);
  if (!nccl_ll128_capped(c, group, network)) return efficiency;
  return std::min(efficiency, nccl_ll128_cap_Bps(group, network, f) * beta_s_per_byte);
}

int nccl_ring_channels(const Group& group, const LinkCosts& network) {
  if (group.nodes() == 1)
    return on_mesh(group, network) ? std::max<int>(1, static_cast<int>(nvlink_rings(network.nvlinks, group.ranks).size())) : 1;
  return std::max(1, channel_nics(group, network));
}

std::vector<std::vector<int>> nccl_rings(const Group& group, const LinkCosts& network) {
  const int g = group.ranks_per_node;
  const bool mesh = on_mesh(group, network);
  if (group.nodes() == 1) {
    if (mesh)
      if (auto rings = nvlink_rings(network.nvlinks, group.ranks); !rings.empty()) return rings;
    return {identity(group.ranks)};
  }
  if (channel_nics(group, network) == 0) return {identity(group.ranks)};
  const int nics = *std::max_element(network.gpu_nic.begin(), network.gpu_nic.end()) + 1;
  // One channel per NIC (NCCL's search gives each ring its own NIC): channel k enters every node at a GPU of
  // NIC k and leaves it from the GPU before that one in the node's order. NCCL's search ends the node's path on
  // a GPU of the same NIC where one is next to the entry (DGX-1: two GPUs a NIC). Where none is (one NIC a GPU,
  // DGX A100/H100), the last GPU sends through its own NIC; NCCL would send through NIC k by PXN (NVLink to the
  // GPU of NIC k first), which dtsim does not model: on rails the flow then crosses the spine, which costs the
  // same bandwidth where the spine is not oversubscribed. Inside the node the order is one of the node's NVLink
  // rings (one with such a pair first), or rank order on NVSwitch and PCIe nodes.
  const std::vector<std::vector<int>> node_rings = mesh ? nvlink_rings(network.nvlinks, g) : std::vector<std::vector<int>>{};
  const auto on = [&](int gpu, int k) { return network.gpu_nic[static_cast<std::size_t>(gpu)] == k; };
  std::vector<std::vector<int>> rings;
  for (int k = 0; k < nics; ++k) {
    std::vector<int> order;
    std::size_t entry = 0;
    for (std::size_t c = 0; c < std::max<std::size_t>(node_rings.size(), 1) && order.empty(); ++c) {
      const std::vector<int> candidate =
          node_rings.empty() ? identity(g) : node_rings[(static_cast<std::size_t>(k) + c) % node_rings.size()];
      for (std::size_t i = 0; i < candidate.size(); ++i)
        if (on(candidate[i], k) && on(candidate[(i + candidate.size() - 1) % candidate.size()], k)) {
          order = candidate;
          entry = i;
          break;
        }
    }
    if (order.empty()) {
      order = node_rings.empty() ? identity(g) : node_rings[static_cast<std::size_t>(k) % node_rings.size()];
      const auto first = std::find_if(order.begin(), order.end(), [&](int gpu) { return on(gpu, k); });
      if (first == order.end()) continue;  // a NIC no GPU uses carries no channel
      entry = static_cast<std::size_t>(first - order.begin());
    }
    std::rotate(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(entry), order.end());
    std::vector<int>& ring = rings.emplace_back();
    for (int n = 0; n < group.nodes(); ++n)
      for (int gpu : order) ring.push_back(n * g + gpu);
  }
  return rings;
}

double nccl_predicted_s(NcclChoice c, const Group& group, const LinkCosts& network, double bytes, NcclFunction f) {
  if (nccl_in_network(c.algorithm))
    return nccl_in_network_latency_s(c.algorithm, group) +
           bytes / nccl_in_network_bandwidth_Bps(c.algorithm, group, 1 / switch_cost(group, network).beta_s_per_byte);
  const double channels = c.algorithm == NcclAlgorithm::ring ? nccl_ring_channels(group, network) : 1;
  const NcclSwitchGraph graph = nccl_on_nvswitch(group, network) ? nccl_nvswitch_graph(network.nvswitch_nvlinks)
                                                                 : NcclSwitchGraph{};
  const double link_Bps =
      graph.channels > 0 ? graph.channels * graph.speed_GBps * 1e9
                         : channels * (nccl_on_nvlink_rings(group, network)
                                           ? kNcclNvlinkGraph_Bps
                                           : 1 / (group.nodes() > 1 ? network.inter : network.intra).beta_s_per_byte);
  double bus_Bps = link_Bps * nccl_efficiency(c, group, f);
  // LL128's ceiling inside an NVSwitch node, as tuning.cc of NCCL 2.12+ (the graph's version) applies it to the
  // predicted busBw: "busBw = std::min(busBw * 0.92, graphs[a]->nChannels * perChMaxRingLL128Bw)". The plan moves
  // LL128 at that cap (nccl_ll128_capped); priced without it, a graph of faster channels (900 GB/s ports: 16 of
  // 40 GB/s) made the tuner pick LL128 over a Simple that runs at the port's speed. On NVLink rings the tuner's
  // channel is the graph's 20 GB/s whatever the links measure, and the measured DGX-1 switch points (section 2b of
  // docs/VALIDATION.md) fit it without the cap: left so.
  if (graph.channels > 0 && nccl_ll128_capped(c, group, network))
    bus_Bps = std::min(bus_Bps, nccl_ll128_cap_Bps(group, network, f));
  double algorithm_Bps = 0;
  if (c.algorithm == NcclAlgorithm::ring) {
    // ratio = nRanks / nsteps: 2(p-1) steps all-reduce, p-1 all-gather and reduce-scatter, p broadcast and reduce.
    const double steps = f == NcclFunction::allreduce ? 2.0 * (group.ranks - 1)
                         : f == NcclFunction::allgather || f == NcclFunction::reduce_scatter ? group.ranks - 1.0
                                                                                                  : group.ranks;
    algorithm_Bps = bus_Bps * group.ranks / steps;
  } else {
    bus_Bps = std::min(bus_Bps, kMaxTreeBw_GBps[group.nodes() > 2 ? 0 : 1] * 1e9);
    algorithm_Bps = bus_Bps * 0.5;
    const int log_size = log2i(bytes / 64);
    if (log_size < 22) algorithm_Bps *= kTreeCorrection[index(c.protocol)][log_size];
  }
  return nccl_latency_s(c, group, bytes, f, nccl_ring_channels(group, network) == 1) + bytes / algorithm_Bps;
}

NcclChoice nccl_tune(const Group& group, const LinkCosts& network, double bytes, const NcclForce& force, NcclFunction f) {
  NcclChoice best;
  double best_s = std::numeric_limits<double>::infinity();
  for (NcclAlgorithm a : {NcclAlgorithm::tree, NcclAlgorithm::ring, NcclAlgorithm::collnet_direct,
                          NcclAlgorithm::collnet_chain, NcclAlgorithm::nvls}) {
    if (f != NcclFunction::allreduce ? a != NcclAlgorithm::ring : force.algorithm && *force.algorithm != a) continue;
    for (NcclProtocol p : {NcclProtocol::ll, NcclProtocol::ll128, NcclProtocol::simple}) {
      if (force.protocol && *force.protocol != p) continue;
      const NcclChoice c{a, p};
      // In-network algorithms run Simple where the platform has their switch, forced or not (the scenario refuses
      // forcing them elsewhere).
      if (nccl_in_network(a) ? !nccl_enabled(c, group, network) : !force.protocol && !nccl_enabled(c, group, network))
        continue;
      const double t = nccl_predicted_s(c, group, network, bytes, f);
      if (t < best_s) {
        best = c;
        best_s = t;
      }
    }
  }
  return best;
}

}  // namespace dtsim::collectives
