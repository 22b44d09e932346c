#pragma once
/// NCCL's all-reduce cost model and tuner: per (algorithm, protocol) a latency term and a bandwidth, and the
/// pair with the least predicted time per message size (NVIDIA/nccl src/graph/tuning.cc, ncclTopoTuneModel
/// and ncclTopoGetAlgoTime, read at commit 01afd20a, NCCL 2.8/2.9).
///
/// dtsim's platforms do not say which kind of link joins the GPUs of a node: GPUs sharing a node are taken
/// to be NVLink-connected (NCCL's NVLINK latency row, LL128 enabled as NCCL enables it on NVLink), and
/// hosts with one GPU talk only over the network (NET row). NCCL's bus bandwidth (nChannels x the
/// searched graph's per-channel speed) is taken from the platform: the GPU link inside one node, the
/// bottleneck of the inter-node path otherwise.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/collectives/collective.hpp"

namespace dtsim::collectives {

/// NCCL_ALGO values dtsim models, in NCCL's order: ring and tree, and where the platform has a switch that sums
/// (nccl_in_network.hpp) CollNet Direct, CollNet Chain and NVLS (NVLS Tree, NVLS across nodes over CollNet, is not
/// modelled).
enum class NcclAlgorithm { tree, ring, collnet_direct, collnet_chain, nvls };
/// NCCL_PROTO values: LL (8-byte lines of 4 data + 4 flag bytes), LL128 (128-byte lines, 120 data bytes),
/// Simple (plain copies behind a fence).
enum class NcclProtocol { ll, ll128, simple };

/// NCCL's collective functions, in ncclFunc_t's order (src/include/nccl.h's ncclFunc*): the tuner prices each
/// apart. All but the all-reduce run the ring only (tuning.cc: "if (coll != ncclCollAllReduce && a !=
/// NCCL_ALGO_RING) continue").
enum class NcclFunction { broadcast, reduce, allgather, reduce_scatter, allreduce };

/// One (algorithm, protocol) pair.
struct NcclChoice {
  NcclAlgorithm algorithm = NcclAlgorithm::ring;
  NcclProtocol protocol = NcclProtocol::simple;
  /// "tree/LL", as NCCL_DEBUG=INFO names them.
  std::string name() const;
};

/// What a scenario forces, as NCCL_ALGO / NCCL_PROTO do; an empty field is left to the tuner.
struct NcclForce {
  std::optional<NcclAlgorithm> algorithm;
  std::optional<NcclProtocol> protocol;
};

/// "tree", "ring", "collnet_direct", "collnet_chain", "nvls".
std::vector<std::string> nccl_algorithm_names();
/// "LL", "LL128", "Simple".
std::vector<std::string> nccl_protocol_names();
/// The algorithm called `name`; throws core::InputError listing the known names.
NcclAlgorithm parse_nccl_algorithm(std::string_view name);
/// The protocol called `name` (case as NCCL writes it); throws core::InputError listing the known names.
NcclProtocol parse_nccl_protocol(std::string_view name);
/// nccl_algorithm_names()[a].
std::string nccl_algorithm_name(NcclAlgorithm a);
/// nccl_protocol_names()[p].
std::string nccl_protocol_name(NcclProtocol p);

/// NCCL's latency term of `c` for an all-reduce of `bytes` over `group`, seconds: baseLat plus hwLat per hop
/// (ring: 2(p-1) steps, 2(nodes-1) of them over the network; tree: 2 ((ppn-1) NVLink hops + log2(nodes)
/// network hops)), LL's NVLink hops x1.8 on several nodes, x1.9 for ring/Simple's plateau on several nodes.
/// Other functions' rings: all-gather and reduce-scatter p-1 steps, nodes-1 of them over the network; broadcast and
/// reduce one hop's hwLat where the ring channels are alike (one channel), else p hops (Simple at the tree's hwLat);
/// the x1.9 plateau is the all-reduce's only.
/// `same_channels`: whether the ring's channels all follow one path (ringGraph->sameChannels; one channel in dtsim).
double nccl_latency_s(NcclChoice c, const Group& group, double bytes, NcclFunction f = NcclFunction::allreduce,
                      bool same_channels = true);
/// Fraction of the link bandwidth the protocol's data gets (tuning.cc's busBw factors before its caps):
/// ring LL 1/4, LL128 0.92 (0.7 with one GPU per node), Simple 1; tree 0.9 x (LL 1/3.8, LL128 0.915, or
/// 7/9 on one node, Simple 1). Ring LL is 1/3 inside one node for all-gather, reduce-scatter and broadcast.
double nccl_efficiency(NcclChoice c, const Group& group, NcclFunction f = NcclFunction::allreduce);
/// Whether NCCL would consider `c` unforced: LL128 where network.ll128 says (structured nodes), else only
/// where a node has several GPUs (taken to share NVLink); inside one NVLink-mesh node not where a ring relays
/// through a third GPU (tuning.cc at 01afd20a enables LL128 for typeIntra <= PATH_NVL, and a relayed hop is
/// PATH_NVB).
bool nccl_enabled(NcclChoice c, const Group& group, const LinkCosts& network);
/// NCCL's bandwidth of one NVLink in its topology graph, bytes/s: SM70_NVLINK_BW and SM80_NVLINK_BW = 20.0 GB/s
/// (src/graph/topo.h). Inside one NVLink-mesh node the tuner's per-channel speed is this, whatever the links
/// measure: NCCL's choice of protocol depends on it, not on the links' real speed.
constexpr double kNcclNvlinkGraph_Bps = 20e9;
/// The most data one LL128 channel moves per second in an all-reduce: ll128MaxBwPerCh[ncclCollAllReduce] =
/// 16.7 GB/s (tuning.cc at 01afd20a), NCCL's measured per-channel ceiling of its LL128 kernels (lines of 120
/// data bytes stored and polled by 640 threads), below what an NVLink carries.
constexpr double kNcclLl128Channel_Bps = 16.7e9;
/// ll128MaxBwPerCh of function `f` (tuning.cc at 01afd20a, bytes/s): broadcast 18.8, reduce 12.0, all-gather 18.3,
/// reduce-scatter 15.2, all-reduce 16.7 (kNcclLl128Channel_Bps) GB/s.
double nccl_ll128_channel_Bps(NcclFunction f);
/// The most data one LL128 ring channel moves per second on one Ampere node in NCCL 2.12 and later:
/// perChMaxRingLL128Bws[Ampere][one node] = 20 GB/s (src/graph/tuning.cc). Used on NVSwitch nodes, whose graph is
/// that version's (nccl_nvswitch_graph).
constexpr double kNcclLl128ChannelAmpere_Bps = 20e9;
/// Whether `group`'s ring channels are one node's NVLink rings, each over NVLinks of its own (nccl_rings).
bool nccl_on_nvlink_rings(const Group& group, const LinkCosts& network);
/// NCCL's ring graph inside one NVSwitch node: its channels and each channel's speed (GB/s).
struct NcclSwitchGraph {
  int channels = 0;
  double speed_GBps = 0;
};
/// The ring graph NCCL's search (src/graph/search.cc, ncclTopoCompute and ncclTopoDupChannels, NCCL 2.12 and later:
/// the NCCL the measured A100 servers ran, newer than the tuner's constants of 01afd20a) finds on an NVSwitch node
/// whose GPUs have `nvlinks` NVLinks each to the switches, priced at 20 GB/s each (SM80_NVLINK_BW, topo.h): per
/// speed of speedArrayIntra from the first one the GPU's links carry, as many channels as fit in the links (at most
/// MAXCHANNELS / 2 = 16), keeping the most bandwidth, stopping where they carry all of it and going on while the
/// next speed is above 0.49 of the kept one; channels doubled (at most 16) at a proportionally lower speed where the
/// speed is >= 25 GB/s. DGX A100 (12 NVLinks, 240 GB/s): 6 channels at 40 GB/s, doubled to 12 at 20.
NcclSwitchGraph nccl_nvswitch_graph(int nvlinks);
/// Whether `group` is inside one NVSwitch node (network.nvswitch_nvlinks > 0): NCCL's channels share each GPU's
/// port, and the tuner prices them by nccl_nvswitch_graph.
bool nccl_on_nvswitch(const Group& group, const LinkCosts& network);
/// Whether `c`'s data rate per channel is capped at kNcclLl128Channel_Bps: ring/LL128 on NVLink rings
/// (nccl_on_nvlink_rings), where each channel has its links to itself, and inside one NVSwitch node, where dtsim's
/// one ring stands for the graph's channels (nccl_nvswitch_graph) and moves at most their caps together. (Where
/// channels share PCIe or a NIC, dtsim's one ring stands for all of them and the links set the pace.)
bool nccl_ll128_capped(NcclChoice c, const Group& group, const LinkCosts& network);
/// The most data a capped LL128 ring (nccl_ll128_capped) moves per second: kNcclLl128Channel_Bps on NVLink rings,
/// the graph's channels x kNcclLl128ChannelAmpere_Bps inside one NVSwitch node; other functions' rings on NVLink rings
/// nccl_ll128_channel_Bps(f).
double nccl_ll128_cap_Bps(const Group& group, const LinkCosts& network, NcclFunction f = NcclFunction::allreduce);
/// The share of a channel's link bandwidth that `c`'s data gets on a link moving a byte in `beta_s_per_byte`:
/// nccl_efficiency, at most nccl_ll128_cap_Bps x beta where nccl_ll128_capped (0 when beta is 0 there).
double nccl_channel_efficiency(NcclChoice c, const Group& group, const LinkCosts& network, double beta_s_per_byte,
                               NcclFunction f = NcclFunction::allreduce);
/// NCCL's ring channels for `group` on `network`, each a cyclic order of the ranks carrying 1/C of the data:
///  - one node: on an NVLink mesh (network.nvlinks) the rings the search finds (nvlink_rings.hpp); otherwise
///    one ring in rank order (NCCL's channels there share the same links: on the flow level one ring of all
///    the bytes), also where no ring over NVLink exists (it then crosses PCIe);
///  - several whole nodes of structured nodes with K >= 2 NICs (network.gpu_nic): K rings, ring k entering
///    every node at a GPU of NIC k (and leaving from one of NIC k where the node's order allows), so that each
///    NIC carries one ring each way; inside a node the order is an NVLink ring of the node or rank order;
///  - otherwise one ring in rank order.
std::vector<std::vector<int>> nccl_rings(const Group& group, const LinkCosts& network);
/// nccl_rings(group, network).size(), without building the rings (the tuner and closed forms ask per message).
int nccl_ring_channels(const Group& group, const LinkCosts& network);
/// NCCL's predicted time of `c`: latency + bytes / algBw, algBw = busBw x efficiency (tree capped at 80 GB/s
/// over more than two nodes, 110 GB/s otherwise) x (ring p / 2(p-1), tree 1/2), tree x its size correction;
/// busBw = nChannels x the link bandwidth, nChannels = nccl_rings' count for the ring, 1 for the tree; the link
/// bandwidth is kNcclNvlinkGraph_Bps on NVLink rings (nccl_on_nvlink_rings), the platform's otherwise; inside one
/// NVSwitch node busBw is the graph's channels x speed (nccl_nvswitch_graph) for both algorithms, LL128's at most
/// nccl_ll128_cap_Bps, as tuning.cc caps it (so the tuner's choice does not get slower as the ports get faster).
/// Other functions (`f`): the ring's algBw is busBw x p / nsteps (all-gather and reduce-scatter p / (p-1),
/// broadcast and reduce 1), its latency and efficiency theirs.
double nccl_predicted_s(NcclChoice c, const Group& group, const LinkCosts& network, double bytes,
                        NcclFunction f = NcclFunction::allreduce);
/// The enabled pair allowed by `force` with the least predicted time (ties: tree before ring, LL before
/// LL128 before Simple, NCCL's loop order); a forced protocol is enabled even where NCCL would not enable it. Functions
/// other than the all-reduce consider the ring only, whatever `force.algorithm` says (tuning.cc applies NCCL_ALGO to
/// the all-reduce only).
NcclChoice nccl_tune(const Group& group, const LinkCosts& network, double bytes, const NcclForce& force = {},
                     NcclFunction f = NcclFunction::allreduce);

}  // namespace dtsim::collectives
