#pragma once
/// NCCL's algorithms that sum in the network, as its tuner prices them (NVIDIA/nccl src/graph/tuning.cc,
/// ncclTopoTuneModel, read at commit b6475625, NCCL 2.19-2.21): CollNet Direct and CollNet Chain (the network's
/// switches sum, through the SHARP plugin) and NVLS (the NVSwitch sums: NVLink SHARP). All three run the Simple
/// protocol only. dtsim runs each as the in-network plan (in_network.hpp) on the platform's reducing switch.
#include "sim/collectives/collective.hpp"
#include "sim/collectives/nccl_tuning.hpp"

namespace dtsim::collectives {

/// Whether `a` sums in the network (collnet_direct, collnet_chain, nvls).
bool nccl_in_network(NcclAlgorithm a);
/// Whether NCCL would run in-network algorithm `a` for `group` on `network`: NVLS where an NVSwitch that reduces
/// joins the group (one node: NCCL turns NVLS off across nodes without CollNet); CollNet where the network's switch
/// reduces and the group spans several nodes of one GPU each, Direct only on NVSwitch nodes (tuning.cc: nvsCount
/// == 0 turns it off). CollNet on nodes of several GPUs first chains (or, Direct, scatters) inside the node, which
/// dtsim does not plan: it is not offered there.
bool nccl_in_network_enabled(NcclAlgorithm a, const Group& group, const LinkCosts& network);
/// tuning.cc's latency of in-network algorithm `a`, seconds (baseLat 0 for all three): NVLS hwLat[NVLINK][NVLS]
/// = 23 us on one node; CollNet Direct 2 (min(1, ppn - 1) x 3.7 + (ppn - 1) x 0.4) + 31 us; CollNet Chain
/// 2 (ppn - 1) x 2.8 + 30 us (ppn: GPUs per node; the 31 and 30 are hwLat[NET], the others hwLat[NVLINK]; the
/// graph's latencyInter is 0 on InfiniBand).
double nccl_in_network_latency_s(NcclAlgorithm a, const Group& group);
/// tuning.cc's algorithm bandwidth of `a`, bytes/s, on a bus bandwidth of `bus_Bps` (one channel's way to the
/// reducing switch, which dtsim takes from the platform): NVLS busBw x 5/6; CollNet Chain busBw x 1/2; CollNet
/// Direct busBw / (f - (f - 1)/2), f = ppn GPUs per NIC channel, x 1/2 (tuning.cc's further x 0.85 on compute
/// capability 9.0 is left out: Direct needs NVSwitch nodes, and no dtsim platform has those beside SHARP yet).
double nccl_in_network_bandwidth_Bps(NcclAlgorithm a, const Group& group, double bus_Bps);

}  // namespace dtsim::collectives
