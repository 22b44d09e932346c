// nccl: NCCL's tuner picks as NCCL does, every (algorithm, protocol) plan has its closed form, the tree's
// plan sums correctly, overrides force the choice, and the tree comes close to the ring at large sizes.
#include "sim/collectives/nccl_allreduce.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "sim/collectives/bus_bandwidth.hpp"
#include "sim/collectives/nccl_tree.hpp"
#include "sim/collectives/pipelined_tree.hpp"
#include "sim/collectives/rank_traffic.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/core/error.hpp"
#include "sim/platform/fabric.hpp"
#include "tests/sim/collectives/replay.hpp"
#include "tests/sim/platform/structured_nodes.hpp"
#include "tests/sim/star.hpp"

namespace dtsim::collectives {
namespace {

using namespace collectives::testing;

const LinkCosts kStar = LinkCosts::uniform(dtsim::testing::star_alpha_beta());
/// 4 nodes of 8 GPUs, 50 GB/s GPU links, one 100 Gb/s NIC per node.
const platform::PlatformSpec kCluster = dtsim::testing::two_level(4, 8);
const Group kClusterGroup{32, 8};

std::vector<NcclChoice> every_pair() {
  std::vector<NcclChoice> pairs;
  for (NcclAlgorithm a : {NcclAlgorithm::tree, NcclAlgorithm::ring})
    for (NcclProtocol p : {NcclProtocol::ll, NcclProtocol::ll128, NcclProtocol::simple}) pairs.push_back({a, p});
  return pairs;
}

NcclAllreduce forced(NcclChoice c, const LinkCosts& costs) {
  return NcclAllreduce("nccl", costs, {c.algorithm, c.protocol});
}

TEST(NcclTuner, PicksTheTreeWithLlForSmallAndTheRingForLargeMessagesAcrossNodes) {
  const LinkCosts costs = platform::link_costs(kCluster);
  EXPECT_EQ(nccl_tune(kClusterGroup, costs, 1024).name(), "tree/LL");
  const NcclChoice large = nccl_tune(kClusterGroup, costs, 1 << 30);
  EXPECT_EQ(large.algorithm, NcclAlgorithm::ring);
  EXPECT_NE(large.protocol, NcclProtocol::ll);
}

TEST(NcclTuner, UsesLl128OnlyWhereANodeHasSeveralGpus) {
  for (double bytes = 8; bytes <= 1e10; bytes *= 4) {
    EXPECT_NE(nccl_tune({16, 1}, kStar, bytes).protocol, NcclProtocol::ll128) << bytes;
    EXPECT_FALSE(nccl_enabled({NcclAlgorithm::ring, NcclProtocol::ll128}, {16, 1}, kStar));
  }
  // On one NVLink node of 8 GPUs LL128 wins the middle sizes (NCCL's default on DGX machines).
  bool ll128 = false;
  const LinkCosts node = LinkCosts::uniform({2e-6, 1 / 227e9});
  for (double bytes = 8; bytes <= 1e10; bytes *= 2)
    ll128 |= nccl_tune({8, 8}, node, bytes).protocol == NcclProtocol::ll128;
  EXPECT_TRUE(ll128);
}

TEST(NcclTuner, StructuredNodesEnableLl128WhereNcclDoes) {
  // tuning.cc enables LL128 where GPUs talk over NVLink (typeIntra <= PATH_NVB) and, across nodes, reach their
  // NIC within their PCIe switch with GPUDirect (typeInter <= PATH_PXB).
  using platform::NodeFabric;
  using platform::testing::structured;
  const NcclChoice ll128{NcclAlgorithm::ring, NcclProtocol::ll128};
  const auto enabled = [&](const platform::PlatformSpec& spec, int ranks) {
    return nccl_enabled(ll128, {ranks, spec.gpus_per_node}, platform::link_costs(spec));
  };
  EXPECT_TRUE(enabled(structured(NodeFabric::nvswitch, 1, 8, 4, 8), 8));
  EXPECT_TRUE(enabled(structured(NodeFabric::nvswitch, 2, 8, 4, 8), 16));
  EXPECT_TRUE(enabled(platform::testing::cube_mesh(2), 16));
  EXPECT_FALSE(enabled(structured(NodeFabric::pcie, 1, 4, 2, 1), 4));  // GPUs over PCIe
  platform::PlatformSpec staged = structured(NodeFabric::nvswitch, 2, 8, 4, 8);
  staged.node.gpudirect = false;  // GPU <-> NIC through host memory
  EXPECT_FALSE(enabled(staged, 16));
  EXPECT_TRUE(enabled(staged, 8));  // one node: no NIC involved
  platform::PlatformSpec far = structured(NodeFabric::nvswitch, 2, 8, 4, 1);  // one NIC, on switch 0
  EXPECT_FALSE(enabled(far, 16));
  for (double bytes = 8; bytes <= 1e10; bytes *= 4)
    EXPECT_NE(nccl_tune({16, 8}, platform::link_costs(staged), bytes).protocol, NcclProtocol::ll128) << bytes;
}

TEST(NcclTuner, PredictsLatencyPlusBytesOverAlgorithmBandwidth) {
  // ring/Simple over 4 nodes of 8: 8.4 + 2 x 3 x 9.6 + 56 x 3.4 us, x1.9 (plateau), + n / (busBw x p / 2(p-1)).
  const LinkCosts costs = platform::link_costs(kCluster);
  const double n = 1 << 28;
  const double lat_s = (8.4 + 6 * 9.6 + 56 * 3.4) * 1.9e-6;
  const double algbw_Bps = 1 / costs.inter.beta_s_per_byte * 32 / 62;
  EXPECT_NEAR(nccl_predicted_s({NcclAlgorithm::ring, NcclProtocol::simple}, kClusterGroup, costs, n),
              lat_s + n / algbw_Bps, 1e-12);
  // tree/LL: 4.4 + 2 (7 x 0.52 x 1.8 + 2 x 5.0) us; busBw x 0.9 / 3.8 x 1/2, x correction 0.6 at 64 KiB.
  const double tree_lat_s = (4.4 + 2 * (7 * 0.52 * 1.8 + 2 * 5.0)) * 1e-6;
  const double tree_bw_Bps = 1 / costs.inter.beta_s_per_byte * 0.9 / 3.8 * 0.5 * 0.6;
  EXPECT_NEAR(nccl_predicted_s({NcclAlgorithm::tree, NcclProtocol::ll}, kClusterGroup, costs, 65536),
              tree_lat_s + 65536 / tree_bw_Bps, 1e-12);
}

TEST(NcclTuner, OverridesForceTheChoice) {
  const LinkCosts costs = platform::link_costs(kCluster);
  EXPECT_EQ(nccl_tune(kClusterGroup, costs, 1 << 30, {NcclAlgorithm::tree, {}}).algorithm, NcclAlgorithm::tree);
  EXPECT_EQ(nccl_tune(kClusterGroup, costs, 1024, {NcclAlgorithm::ring, {}}).name(), "ring/LL");
  EXPECT_EQ(nccl_tune(kClusterGroup, costs, 1024, {{}, NcclProtocol::simple}).protocol, NcclProtocol::simple);
  EXPECT_EQ(nccl_tune({16, 1}, kStar, 1 << 20, {{}, NcclProtocol::ll128}).protocol, NcclProtocol::ll128);
  // Forcing changes the simulated time.
  const NcclAllreduce tuned("nccl", costs), ring("nccl", costs, {NcclAlgorithm::ring, {}});
  const platform::Fabric fabric(kCluster);
  EXPECT_GT(schedule_time_s(ring.plan(kClusterGroup, 1024), fabric),
            1.5 * schedule_time_s(tuned.plan(kClusterGroup, 1024), fabric));
}

TEST(NcclTuner, NamesParseAndUnknownOnesAreRefused) {
  for (const std::string& a : nccl_algorithm_names()) EXPECT_EQ(nccl_algorithm_name(parse_nccl_algorithm(a)), a);
  for (const std::string& p : nccl_protocol_names()) EXPECT_EQ(nccl_protocol_name(parse_nccl_protocol(p)), p);
  EXPECT_THROW(parse_nccl_algorithm("collnet"), core::InputError);
  EXPECT_THROW(parse_nccl_protocol("ll"), core::InputError);
}

TEST(NcclPlan, RingClosedFormIsLatencyPlusTwoPMinusOneStepsOfWireChunks) {
  for (NcclProtocol proto : {NcclProtocol::ll, NcclProtocol::ll128, NcclProtocol::simple})
    for (int p : {2, 5, 16}) {
      const NcclChoice c{NcclAlgorithm::ring, proto};
      const std::int64_t n = 2048 * p * 25;
      const Schedule s = forced(c, kStar).plan({p, 1}, n);
      const double chunk = std::ceil(static_cast<double>(n / p) / nccl_efficiency(c, {p, 1}));
      const AlphaBeta ab = dtsim::testing::star_alpha_beta();
      // NCCL's latency term less what the 2(p-1) steps' links already charge.
      const double extra = std::max(0.0, nccl_latency_s(c, {p, 1}, n) - 2 * (p - 1) * ab.alpha_s);
      const double expected = extra + 2 * (p - 1) * (ab.alpha_s + chunk * ab.beta_s_per_byte);
      EXPECT_NEAR(forced(c, kStar).closed_form_s({p, 1}, static_cast<double>(n), kStar), expected, 1e-12 * expected);
      EXPECT_NEAR(schedule_time_s(s, platform::Fabric(dtsim::testing::star(p))), expected, 1e-9 * expected);
      for (const RankTraffic& t : traffic_by_rank(s)) EXPECT_EQ(t.sent, 2 * (p - 1) * static_cast<std::int64_t>(chunk));
    }
}

/// NCCL's ring/Simple on `spec` (structured nodes): the analytic level's time of its plan equals its closed
/// form, 2(p-1) (alpha + ceil(n / (p C)) beta) plus what NCCL's latency adds (alpha-beta inside a node or
/// across nodes), and `detour_s` more per step where a ring's hop between nodes takes a longer route than
/// link_costs' GPU 0 -> next node's GPU 0.
void expect_channel_rings_closed_form(const platform::PlatformSpec& spec, int p, std::size_t channels, bool inter,
                                      double detour_s = 0) {
  const LinkCosts costs = platform::link_costs(spec);
  const Group group{p, spec.gpus_per_node};
  const NcclAllreduce nccl = forced({NcclAlgorithm::ring, NcclProtocol::simple}, costs);
  EXPECT_EQ(nccl_rings(group, costs).size(), channels);
  EXPECT_EQ(static_cast<std::size_t>(nccl_ring_channels(group, costs)), channels);
  const std::int64_t n = 1 << 28;
  const AlphaBeta ab = inter ? costs.inter : costs.intra;
  const double extra =
      std::max(0.0, nccl_latency_s({NcclAlgorithm::ring, NcclProtocol::simple}, group, n) - 2 * (p - 1) * ab.alpha_s);
  const double expected =
      extra + 2 * (p - 1) * (ab.alpha_s + std::ceil(static_cast<double>(n) / (p * channels)) * ab.beta_s_per_byte);
  EXPECT_NEAR(nccl.closed_form_s(group, static_cast<double>(n), costs), expected, 1e-12 * expected);
  const double analytic = expected + 2 * (p - 1) * detour_s;
  EXPECT_NEAR(schedule_time_s(nccl.plan(group, n), platform::Fabric(spec)), analytic, 1e-9 * analytic);
}

TEST(NcclChannels, SixRingsOverTheNvlinksOfOneDgx1) {
  // 8 GPUs of a hybrid cube-mesh: six rings, each hop on an NVLink of its own, 1/6 of the data each.
  expect_channel_rings_closed_form(platform::testing::cube_mesh(1), 8, 6, false);
}

TEST(NcclChannels, Ll128OnNvlinkRingsMovesAtMost16Point7GBpsAChannel) {
  // tuning.cc's ll128MaxBwPerCh for all-reduce: each of the DGX-1's six rings has NVLinks of its own, so an LL128
  // channel moves its data at min(0.92 x the link, 16.7 GB/s); the plan's wire bytes carry that rate.
  const platform::PlatformSpec spec = platform::testing::cube_mesh(1);
  const LinkCosts costs = platform::link_costs(spec);
  const Group group{8, 8};
  const NcclChoice c{NcclAlgorithm::ring, NcclProtocol::ll128};
  ASSERT_TRUE(nccl_ll128_capped(c, group, costs));
  EXPECT_FALSE(nccl_ll128_capped({NcclAlgorithm::ring, NcclProtocol::simple}, group, costs));
  EXPECT_FALSE(nccl_ll128_capped(c, {16, 8}, platform::link_costs(platform::testing::cube_mesh(2))));
  const AlphaBeta ab = costs.intra;
  const double efficiency = std::min(0.92, 16.7e9 * ab.beta_s_per_byte);
  EXPECT_DOUBLE_EQ(nccl_channel_efficiency(c, group, costs, ab.beta_s_per_byte), efficiency);
  const std::int64_t n = 3 << 20;
  const double extra = std::max(0.0, nccl_latency_s(c, group, static_cast<double>(n)) - 14 * ab.alpha_s);
  const double expected =
      extra + 14 * (ab.alpha_s + std::ceil(static_cast<double>(n) / 48 / efficiency) * ab.beta_s_per_byte);
  const NcclAllreduce nccl = forced(c, costs);
  EXPECT_NEAR(nccl.closed_form_s(group, static_cast<double>(n), costs), expected, 1e-12 * expected);
  EXPECT_NEAR(schedule_time_s(nccl.plan(group, n), platform::Fabric(spec)), expected, 1e-9 * expected);
  // A per-call time (platform key call_latency) adds to the closed form and to the plan, once.
  LinkCosts calling = costs;
  calling.call_s = 20e-6;
  const NcclAllreduce called = forced(c, calling);
  EXPECT_NEAR(called.closed_form_s(group, static_cast<double>(n), calling), expected + 20e-6, 1e-12 * expected);
  EXPECT_NEAR(schedule_time_s(called.plan(group, n), platform::Fabric(spec)), expected + 20e-6, 1e-9 * expected);
  // Links of no transfer time (calibration's probe): the data still moves at the cap.
  const LinkCosts instant = LinkCosts::uniform({ab.alpha_s, 0});
  EXPECT_NEAR(nccl.closed_form_s(group, static_cast<double>(n), instant),
              extra + 14 * (ab.alpha_s + static_cast<double>(n) / 48 / 16.7e9), 1e-12 * expected);
}

TEST(NcclTuner, OnNvlinkRingsTunesWithNcclsGraphBandwidthAndNoLl128WhereARingRelays) {
  // NCCL's model prices an NVLink channel at 20 GB/s (topo.h), not at the link's speed: ring/Simple on 8 DGX-1
  // GPUs is (8.4 + 14 x 3.4) us + n / (6 x 20 GB/s x 8 / 14), and LL128 gives way to Simple between 8 and 16 MiB.
  const LinkCosts costs = platform::link_costs(platform::testing::cube_mesh(1));
  const double n = 1 << 24;
  EXPECT_NEAR(nccl_predicted_s({NcclAlgorithm::ring, NcclProtocol::simple}, {8, 8}, costs, n),
              (8.4 + 14 * 3.4) * 1e-6 + n / (6 * 20e9 * 8 / 14), 1e-15);
  const NcclForce ring{NcclAlgorithm::ring, {}};
  EXPECT_EQ(nccl_tune({8, 8}, costs, 8 << 20, ring).protocol, NcclProtocol::ll128);
  EXPECT_EQ(nccl_tune({8, 8}, costs, 16 << 20, ring).protocol, NcclProtocol::simple);
  // 5 GPUs: GPU 4's only neighbour is GPU 0, so both rings relay through it (PATH_NVB), where NCCL 2.8's tuner
  // leaves LL128 off (typeIntra <= PATH_NVL); 4 GPUs have rings of direct NVLinks.
  const NcclChoice ll128{NcclAlgorithm::ring, NcclProtocol::ll128};
  EXPECT_FALSE(nccl_enabled(ll128, {5, 8}, costs));
  EXPECT_TRUE(nccl_enabled(ll128, {4, 8}, costs));
  for (double bytes = 8; bytes <= 1e10; bytes *= 4) EXPECT_NE(nccl_tune({5, 8}, costs, bytes).protocol, NcclProtocol::ll128);
}

TEST(NcclChannels, OnNvswitchNcclsGraphPricesTheTunerAndCapsLl128) {
  // NCCL's search on an NVSwitch node (NCCL 2.12+): 12 NVLinks of 20 GB/s (DGX A100) take 6 channels of 40 GB/s,
  // doubled to 12 of 20; 18 (DGX H100) 9 of 40, doubled to the 16 most; 6 take 3 of 40, doubled to 6 of 20.
  EXPECT_EQ(nccl_nvswitch_graph(12).channels, 12);
  EXPECT_DOUBLE_EQ(nccl_nvswitch_graph(12).speed_GBps, 20.0);
  EXPECT_EQ(nccl_nvswitch_graph(18).channels, 16);
  EXPECT_DOUBLE_EQ(nccl_nvswitch_graph(18).speed_GBps, 20.0);
  EXPECT_EQ(nccl_nvswitch_graph(6).channels, 6);
  EXPECT_DOUBLE_EQ(nccl_nvswitch_graph(6).speed_GBps, 20.0);
  // One 8-GPU node of 12 NVLinks a GPU (300 GB/s ports): the tuner's ring/Simple is (8.4 + 14 x 3.4) us + n / (12 x
  // 20 GB/s x 8 / 14), and LL128 moves at most 12 x 20 GB/s of data on the one ring that stands for the channels.
  platform::PlatformSpec spec = platform::testing::structured(platform::NodeFabric::nvswitch, 1, 8, 4, 8);
  spec.node.nvlink.bandwidth_Bps = 300e9;
  const LinkCosts costs = platform::link_costs(spec);
  ASSERT_EQ(costs.nvswitch_nvlinks, 12);
  const Group group{8, 8};
  const double n = 1 << 24;
  EXPECT_NEAR(nccl_predicted_s({NcclAlgorithm::ring, NcclProtocol::simple}, group, costs, n),
              (8.4 + 14 * 3.4) * 1e-6 + n / (12 * 20e9 * 8 / 14), 1e-15);
  const NcclChoice c{NcclAlgorithm::ring, NcclProtocol::ll128};
  ASSERT_TRUE(nccl_ll128_capped(c, group, costs));
  EXPECT_FALSE(nccl_ll128_capped(c, {16, 8}, platform::link_costs(platform::testing::structured(
                                                  platform::NodeFabric::nvswitch, 2, 8, 4, 8))));
  const AlphaBeta ab = costs.intra;
  const double efficiency = std::min(0.92, 240e9 * ab.beta_s_per_byte);
  EXPECT_DOUBLE_EQ(nccl_channel_efficiency(c, group, costs, ab.beta_s_per_byte), efficiency);
  // The plan and its closed form: one ring of all the data, wire at that efficiency, plus a per-call time and the
  // caller's buffers (2 n bytes at buffer_bandwidth), once each.
  LinkCosts calling = costs;
  calling.call_s = 20e-6;
  calling.buffer_s_per_byte = 1 / 1000e9;
  const std::int64_t bytes = 3 << 20;
  const double extra = std::max(0.0, nccl_latency_s(c, group, static_cast<double>(bytes)) - 14 * ab.alpha_s);
  const double expected = 20e-6 + 2.0 * static_cast<double>(bytes) / 1000e9 + extra +
                          14 * (ab.alpha_s + std::ceil(static_cast<double>(bytes) / 8 / efficiency) * ab.beta_s_per_byte);
  const NcclAllreduce nccl = forced(c, calling);
  EXPECT_NEAR(nccl.closed_form_s(group, static_cast<double>(bytes), calling), expected, 1e-12 * expected);
  spec.call_latency_s = 20e-6;
  spec.buffer_bandwidth_Bps = 1000e9;
  EXPECT_NEAR(schedule_time_s(nccl.plan(group, bytes), platform::Fabric(spec)), expected, 1e-9 * expected);
}

TEST(NcclChannels, OneRingPerNicAcrossNodes) {
  // Two NVSwitch nodes of 8 GPUs with a NIC each (rails): ring k enters each node at GPU k, so every NIC
  // carries one ring each way and the NICs set the pace (the NVSwitch port, shared by 8 rings, is faster).
  // A ring leaves a node from GPU k-1, on rail k-1, for GPU k on rail k: two spine links more than the route
  // between rail-mates (NCCL's PXN would stay on rail k; dtsim does not model it).
  platform::PlatformSpec nvswitch = platform::testing::structured(platform::NodeFabric::nvswitch, 2, 8, 4, 8);
  nvswitch.node.rails = true;
  nvswitch.node.nvlink.bandwidth_Bps = 300e9;
  expect_channel_rings_closed_form(nvswitch, 16, 8, true, 2 * platform::testing::kSpineS);
  const auto rings = nccl_rings({16, 8}, platform::link_costs(nvswitch));
  for (int k = 0; k < 8; ++k) {
    EXPECT_EQ(rings[static_cast<std::size_t>(k)][0], k);
    EXPECT_EQ(rings[static_cast<std::size_t>(k)][8], 8 + k);
  }
  // DGX-1 nodes, two GPUs a NIC: four rings, each entering and leaving a node on the same NIC.
  const platform::PlatformSpec dgx1 = platform::testing::cube_mesh(2);
  const LinkCosts costs = platform::link_costs(dgx1);
  const auto mesh_rings = nccl_rings({16, 8}, costs);
  ASSERT_EQ(mesh_rings.size(), 4u);
  for (std::size_t k = 0; k < 4; ++k)
    for (std::size_t at : {std::size_t{0}, std::size_t{7}, std::size_t{8}, std::size_t{15}})
      EXPECT_EQ(costs.gpu_nic[static_cast<std::size_t>(mesh_rings[k][at] % 8)], static_cast<int>(k)) << k << " " << at;
  expect_channel_rings_closed_form(dgx1, 16, 4, true);
}

TEST(NcclPlan, TreeWithOneGpuPerNodeIsTheDoubleBinaryTreeOfWireSegmentsPlusNcclsLatency) {
  // Independent of the plan's timing: 2 S(p, k) sub-steps of alpha + wire(segment) beta (pipelined_tree.hpp),
  // plus what NCCL's latency term adds to the fill and drain steps' link latencies, all on the critical path. Sizes of
  // whole segments: 3 and 1024 of them.
  const std::vector<std::pair<NcclProtocol, std::int64_t>> segment_bytes{
      {NcclProtocol::ll, 8 * 32768}, {NcclProtocol::ll128, 8 * 576000}, {NcclProtocol::simple, 4194304}};
  for (const auto& [proto, segment] : segment_bytes)
    for (int p : {2, 4, 7, 16, 32})
      for (int k : {3, 1024}) {
        const NcclChoice c{NcclAlgorithm::tree, proto};
        const Group g{p, 1};
        const std::int64_t n = 2 * segment * k;
        ASSERT_EQ(nccl_tree_segments(static_cast<double>(n) / 2, proto), k);
        const double wire = std::ceil(static_cast<double>(segment) / nccl_efficiency(c, g));
        const std::vector<bool> paying = nccl_tree_plan(g, n, k).fill_or_drain;
        const double paid = static_cast<double>(std::count(paying.begin(), paying.end(), true)) * kStar.inter.alpha_s;
        const double expected = tree_allreduce_s(p, k, wire, dtsim::testing::star_alpha_beta()) +
                                std::max(0.0, nccl_latency_s(c, g, n) - paid);
        EXPECT_NEAR(forced(c, kStar).closed_form_s(g, static_cast<double>(n), kStar), expected, 1e-9 * expected)
            << c.name() << " p=" << p << " k=" << k;
      }
}

TEST(NcclPlan, ClosedFormIsTheContentionFreeBoundOfEveryShape) {
  // With several GPUs per node a head takes its chain's and a child node's segments in one sub-step: on a star
  // they share its link, so the analytic replay can only be slower than the closed form.
  for (const NcclChoice& c : every_pair())
    for (auto [p, per_node] : {std::pair{8, 8}, {16, 4}, {12, 8}, {9, 2}, {16, 1}}) {
      const Group g{p, per_node};
      const std::int64_t n = 3 << 20;
      const double closed = forced(c, kStar).closed_form_s(g, static_cast<double>(n), kStar);
      const double analytic = schedule_time_s(forced(c, kStar).plan(g, n), platform::Fabric(dtsim::testing::star(p)));
      EXPECT_GE(analytic, closed * (1 - 1e-9)) << c.name() << " p=" << p;
      if (per_node == 1 || c.algorithm == NcclAlgorithm::ring) {
        EXPECT_LT(analytic, closed * 1.001) << c.name() << " p=" << p;
      }
    }
}

TEST(NcclPlan, StepLatenciesAddWhatNcclsLatencyTermHasBeyondTheLinks) {
  // A ring's links charge 2(p-1) alpha of NCCL's latency term: on a 10 us star nothing is left for LL (3.6 +
  // 62 x 2.7 us), and ring/Simple's plateau-scaled term (1.9 x (8.4 + 62 x 9.6) us) adds the rest.
  const Group g{32, 1};
  for (NcclProtocol proto : {NcclProtocol::ll, NcclProtocol::simple}) {
    const NcclChoice c{NcclAlgorithm::ring, proto};
    const Schedule s = forced(c, kStar).plan(g, 1 << 24);
    double total = 0;
    for (const Step& step : s.steps) total += step.latency_s;
    EXPECT_NEAR(total, std::max(0.0, nccl_latency_s(c, g, 1 << 24) - 62 * kStar.inter.alpha_s), 1e-15) << c.name();
  }
  const LinkCosts fast = LinkCosts::uniform({1e-7, 1 / 12.5e9});  // links far faster than NCCL's software
  for (const NcclChoice& c : every_pair()) {
    const Schedule s = forced(c, fast).plan(kClusterGroup, 1 << 24);
    double total = 0;
    for (const Step& step : s.steps) total += step.latency_s;
    EXPECT_GT(total, 0.9 * nccl_latency_s(c, kClusterGroup, 1 << 24)) << c.name();
    EXPECT_LT(total, nccl_latency_s(c, kClusterGroup, 1 << 24)) << c.name();
  }
}

TEST(NcclPlan, TreeReplayOnDataGivesEveryRankTheSum) {
  const NcclAllreduce nccl("nccl", kStar);
  for (auto [p, per_node] : {std::pair{2, 1}, {5, 1}, {8, 8}, {8, 2}, {12, 4}, {7, 3}, {31, 8}})
    for (std::int64_t n : kReplaySizes) {
      Data data = contributions(p, n);
      replay(nccl.tree_moves({p, per_node}, n, NcclProtocol::ll), data);
      for (int r = 0; r < p; ++r)
        for (std::int64_t i = 0; i < n; ++i)
          ASSERT_EQ(data[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)], sum(p, i))
              << "p=" << p << " per node " << per_node << " n=" << n << " rank " << r;
    }
}

TEST(NcclPlan, TreeCrossesEachNodesNicAtMostTwiceEachWayPerSubStep) {
  // NCCL's tree talks between nodes only through the nodes' heads: a node's NIC carries at most two messages
  // each way in a sub-step (one per tree), where the flat heap of double_binary_tree pushes many.
  const Schedule s = forced({NcclAlgorithm::tree, NcclProtocol::simple}, kStar).plan(kClusterGroup, 1 << 24);
  for (const Step& step : s.steps) {
    std::vector<int> out(4), in(4);
    for (const Transfer& t : step.transfers)
      if (t.from / 8 != t.to / 8) {
        EXPECT_LE(++out[static_cast<std::size_t>(t.from / 8)], 2);
        EXPECT_LE(++in[static_cast<std::size_t>(t.to / 8)], 2);
      }
  }
}

TEST(NcclPlan, TreeBusBandwidthAt1GiBOn32GpusIsCloseToTheRings) {
  // The complaint: double_binary_tree reached an eighth of the ring's bus bandwidth at 1 GiB on 4 x 8.
  const platform::Fabric fabric(kCluster);
  const LinkCosts costs = platform::link_costs(kCluster);
  const std::int64_t n = 1 << 30;
  auto busbw = [&](const Collective& c) {
    return bus_bandwidth_Bps(Operation::allreduce, 32, static_cast<double>(n),
                             schedule_time_s(c.plan(kClusterGroup, n), fabric));
  };
  const double ring = busbw(forced({NcclAlgorithm::ring, NcclProtocol::simple}, costs));
  const double tree = busbw(forced({NcclAlgorithm::tree, NcclProtocol::simple}, costs));
  EXPECT_GT(tree, 0.6 * ring);
  EXPECT_LE(tree, ring);
  EXPECT_GT(tree, 2 * busbw(*make_collective("double_binary_tree", costs)));
}

}  // namespace
}  // namespace dtsim::collectives
