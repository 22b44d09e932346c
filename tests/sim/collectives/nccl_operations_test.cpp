// NCCL's all-gather, reduce-scatter, broadcast, all-to-all and send/recv (make_operation): the tuner prices each
// function as tuning.cc does, every plan's time on a star and on a two-level cluster equals its closed form
// written out here, the plans move what the operation moves, and PXN keeps an all-to-all's network sends on rails.
#include "sim/collectives/operations.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "sim/collectives/nccl_allreduce.hpp"
#include "sim/collectives/nccl_ring_phase.hpp"
#include "sim/collectives/nccl_tuned.hpp"
#include "sim/collectives/rank_traffic.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/core/error.hpp"
#include "sim/platform/fabric.hpp"
#include "tests/sim/platform/structured_nodes.hpp"
#include "tests/sim/star.hpp"

namespace dtsim::collectives {
namespace {

/// 4 nodes of 8 GPUs, 50 GB/s GPU links, one 100 Gb/s NIC per node.
const platform::PlatformSpec kCluster = dtsim::testing::two_level(4, 8);
const Group kClusterGroup{32, 8};

NcclForce protocol(NcclProtocol p) { return {std::nullopt, p}; }

/// The time of `op`'s plan at the analytic level on `spec`.
double analytic_s(const Collective& c, const platform::PlatformSpec& spec, const Group& g, std::int64_t bytes) {
  return schedule_time_s(c.plan(g, bytes), platform::Fabric(spec));
}

TEST(NcclFunctions, TheTunerPricesEachFunctionAsTuningCc) {
  const LinkCosts costs = platform::link_costs(kCluster);
  const double n = 1 << 28;
  const double bus_Bps = 1 / costs.inter.beta_s_per_byte;
  // All-gather ring/Simple: 8.4 + (31 - 3) x 3.4 + 3 x 9.6 us, no plateau; algBw = busBw x 32/31.
  const NcclChoice simple{NcclAlgorithm::ring, NcclProtocol::simple};
  const double ag_lat_s = (8.4 + 28 * 3.4 + 3 * 9.6) * 1e-6;
  EXPECT_NEAR(nccl_predicted_s(simple, kClusterGroup, costs, n, NcclFunction::allgather), ag_lat_s + n / (bus_Bps * 32 / 31),
              1e-12);
  EXPECT_NEAR(nccl_predicted_s(simple, kClusterGroup, costs, n, NcclFunction::reduce_scatter),
              ag_lat_s + n / (bus_Bps * 32 / 31), 1e-12);
  // Broadcast over one ring channel (sameChannels): baseLat + one network hop; algBw = busBw.
  EXPECT_NEAR(nccl_predicted_s(simple, kClusterGroup, costs, n, NcclFunction::broadcast), (8.4 + 9.6) * 1e-6 + n / bus_Bps,
              1e-12);
  // ... over several channels: p hops, Simple's at the tree's 50 us over the network.
  EXPECT_NEAR(nccl_latency_s(simple, kClusterGroup, n, NcclFunction::broadcast, false), (8.4 + 32 * 50) * 1e-6, 1e-15);
  // LL is 1/3 of the link inside one node for all-gather, 1/4 for the all-reduce and across nodes.
  const NcclChoice ll{NcclAlgorithm::ring, NcclProtocol::ll};
  EXPECT_DOUBLE_EQ(nccl_efficiency(ll, {8, 8}, NcclFunction::allgather), 1.0 / 3);
  EXPECT_DOUBLE_EQ(nccl_efficiency(ll, {8, 8}, NcclFunction::allreduce), 1.0 / 4);
  EXPECT_DOUBLE_EQ(nccl_efficiency(ll, kClusterGroup, NcclFunction::allgather), 1.0 / 4);
  EXPECT_DOUBLE_EQ(nccl_ll128_channel_Bps(NcclFunction::allgather), 18.3e9);
  EXPECT_DOUBLE_EQ(nccl_ll128_channel_Bps(NcclFunction::allreduce), kNcclLl128Channel_Bps);
  // Only the all-reduce has a tree: NCCL_ALGO=tree leaves the others on the ring.
  for (NcclFunction f : {NcclFunction::allgather, NcclFunction::reduce_scatter, NcclFunction::broadcast})
    for (double bytes : {64.0, 1e9})
      EXPECT_EQ(nccl_tune(kClusterGroup, costs, bytes, {NcclAlgorithm::tree, {}}, f).algorithm, NcclAlgorithm::ring);
  EXPECT_EQ(nccl_tune(kClusterGroup, costs, 1024, {}, NcclFunction::allgather).name(), "ring/LL");
}

/// The ring phase's closed form: (p-1) (alpha + wire(n / p) beta) plus NCCL's latency beyond the steps' alphas.
double ring_phase_formula_s(NcclFunction f, NcclProtocol proto, const Group& g, double n, AlphaBeta ab,
                            const LinkCosts& tuned) {
  const NcclChoice c{NcclAlgorithm::ring, proto};
  const double chunk = std::ceil(n / g.ranks / nccl_channel_efficiency(c, g, tuned, ab.beta_s_per_byte, f));
  const double extra = std::max(0.0, nccl_latency_s(c, g, n, f) - (g.ranks - 1) * ab.alpha_s);
  return extra + (g.ranks - 1) * (ab.alpha_s + chunk * ab.beta_s_per_byte);
}

TEST(NcclRingPhase, ClosedFormOnAStarAndATwoLevelClusterIsExact) {
  for (Operation op : {Operation::allgather, Operation::reduce_scatter})
    for (NcclProtocol proto : {NcclProtocol::ll, NcclProtocol::ll128, NcclProtocol::simple}) {
      const NcclFunction f = op == Operation::allgather ? NcclFunction::allgather : NcclFunction::reduce_scatter;
      for (int p : {2, 5, 16}) {
        const auto star = dtsim::testing::star(p);
        const LinkCosts costs = platform::link_costs(star);
        const auto c = make_operation(op, "nccl", costs, protocol(proto));
        const std::int64_t n = 2048 * p * 25;
        const double expected = ring_phase_formula_s(f, proto, {p, 1}, static_cast<double>(n), costs.inter, costs);
        EXPECT_NEAR(c->closed_form_s({p, 1}, static_cast<double>(n), costs), expected, 1e-12 * expected);
        EXPECT_NEAR(analytic_s(*c, star, {p, 1}, n), expected, 1e-9 * expected);
        EXPECT_NEAR(*c->plan_time_s({p, 1}, n, platform::Fabric(star)), expected, 1e-9 * expected);
      }
      const LinkCosts costs = platform::link_costs(kCluster);
      const auto c = make_operation(op, "nccl", costs, protocol(proto));
      const std::int64_t n = std::int64_t{32} * 120 * 4096;
      const double expected = ring_phase_formula_s(f, proto, kClusterGroup, static_cast<double>(n), costs.inter, costs);
      EXPECT_NEAR(c->closed_form_s(kClusterGroup, static_cast<double>(n), costs), expected, 1e-12 * expected);
      EXPECT_NEAR(analytic_s(*c, kCluster, kClusterGroup, n), expected, 1e-9 * expected);
    }
}

TEST(NcclRingPhase, MovesEachRanksBlockToEveryOtherRankAndFusesToThePlan) {
  const LinkCosts costs = platform::link_costs(kCluster);
  const auto c = make_operation(Operation::allgather, "nccl", costs, protocol(NcclProtocol::simple));
  const std::int64_t n = 32 * 1000 + 7;  // uneven chunks
  const Schedule plan = c->plan(kClusterGroup, n);
  EXPECT_EQ(plan.steps.size(), 31u);
  // Each rank sends all blocks but one: n - its last block.
  std::int64_t sent = 0;
  for (const RankTraffic& t : traffic_by_rank(plan)) sent += t.sent;
  EXPECT_EQ(sent, 31 * n);
  const auto fused = c->fused_plan(kClusterGroup, n);
  ASSERT_TRUE(fused && fused->size() == 1);
  std::int64_t fused_bytes = 0;
  for (const Transfer& t : fused->front().transfers) fused_bytes += t.bytes;
  EXPECT_EQ(fused_bytes, plan.total_bytes());
  // LL's wire bytes: every chunk on the wire at 1/4.
  const auto ll = make_operation(Operation::allgather, "nccl", costs, protocol(NcclProtocol::ll));
  EXPECT_EQ(ll->plan(kClusterGroup, 32 * 1000).total_bytes(), 31 * 32 * 1000 * 4);
}

TEST(NcclBroadcast, PipelinedChainClosedFormOnAStarAndATwoLevelCluster) {
  const std::int64_t n = std::int64_t{16} << 20;  // Simple: 4 segments of the 4 MiB in flight
  for (int p : {2, 3, 8}) {
    const auto star = dtsim::testing::star(p);
    const LinkCosts costs = platform::link_costs(star);
    const auto c = make_operation(Operation::broadcast, "nccl", costs, protocol(NcclProtocol::simple));
    const double steps = 4 + p - 2;
    const NcclChoice simple{NcclAlgorithm::ring, NcclProtocol::simple};
    const AlphaBeta ab = costs.inter;
    const double extra = std::max(0.0, nccl_latency_s(simple, {p, 1}, n, NcclFunction::broadcast) - steps * ab.alpha_s);
    const double expected = extra + steps * (ab.alpha_s + (n / 4) * ab.beta_s_per_byte);
    EXPECT_NEAR(c->closed_form_s({p, 1}, static_cast<double>(n), costs), expected, 1e-12 * expected);
    EXPECT_NEAR(analytic_s(*c, star, {p, 1}, n), expected, 1e-9 * expected);
    // Every rank but the root receives the n bytes once; the last one forwards nothing.
    const std::vector<RankTraffic> traffic = traffic_by_rank(c->plan({p, 1}, n));
    for (int r = 1; r < p; ++r) EXPECT_EQ(traffic[static_cast<std::size_t>(r)].received, n);
    EXPECT_EQ(traffic[0].sent, n);
  }
  const LinkCosts costs = platform::link_costs(kCluster);
  const auto c = make_operation(Operation::broadcast, "nccl", costs, protocol(NcclProtocol::simple));
  // 4 + 30 steps; the critical path crosses the first hop between nodes with all 4 segments, every other hop once:
  // (4 + 4 - 2) hops between nodes, 32 - 4 inside them. NCCL's latency (18 us) is below the steps' alphas.
  const double steps = 4 + 32 - 2;
  ASSERT_LT(nccl_latency_s({NcclAlgorithm::ring, NcclProtocol::simple}, kClusterGroup, n, NcclFunction::broadcast),
            steps * costs.inter.alpha_s);
  const double expected = 6 * (12e-6 + (n / 4) / 12.5e9) + 28 * (2e-6 + (n / 4) / 50e9);
  EXPECT_NEAR(c->closed_form_s(kClusterGroup, static_cast<double>(n), costs), expected, 1e-12 * expected);
  EXPECT_NEAR(analytic_s(*c, kCluster, kClusterGroup, n), expected, 1e-9 * expected);
}

TEST(NcclAlltoall, ClosedFormOnAStarAndATwoLevelClusterIsExact) {
  for (int p : {2, 5, 16}) {
    const auto star = dtsim::testing::star(p);
    const LinkCosts costs = platform::link_costs(star);
    const auto c = make_alltoall("nccl", costs);
    const std::int64_t n = std::int64_t{p} * 3 << 20;
    // Every host's link carries its p-1 chunks of n/p at once.
    const AlphaBeta ab = dtsim::testing::star_alpha_beta();
    const double expected = ab.alpha_s + (p - 1) * (n / p) * ab.beta_s_per_byte;
    EXPECT_NEAR(c->closed_form_s({p, 1}, static_cast<double>(n), costs), expected, 1e-12 * expected);
    EXPECT_NEAR(analytic_s(*c, star, {p, 1}, n), expected, 1e-9 * expected);
  }
  // 4 nodes of 8: a GPU's 50 GB/s link carries 31 chunks, a node's 12.5 GB/s NIC 8 x 24 of them.
  const LinkCosts costs = platform::link_costs(kCluster);
  const std::int64_t n = std::int64_t{32} << 20;
  const double chunk = static_cast<double>(n) / 32;
  const double intra_s = 2e-6 + 31 * chunk / 50e9;
  const double inter_s = (1 + 5 + 5 + 1) * 1e-6 + chunk * std::max(31 / 50e9, 8 * 24 / 12.5e9);
  for (const char* name : {"nccl", "direct"}) {  // no relays: one NIC per node
    const auto c = make_alltoall(name, costs);
    EXPECT_NEAR(c->closed_form_s(kClusterGroup, static_cast<double>(n), costs), std::max(intra_s, inter_s), 1e-15);
    EXPECT_NEAR(analytic_s(*c, kCluster, kClusterGroup, n), std::max(intra_s, inter_s), 1e-9 * inter_s);
    for (const RankTraffic& t : traffic_by_rank(c->plan(kClusterGroup, n))) {
      EXPECT_EQ(t.sent, 31 * n / 32);
      EXPECT_EQ(t.received, 31 * n / 32);
    }
  }
}

TEST(NcclAlltoall, PxnSendsThroughTheLocalGpuOfTheDestinationsNic) {
  // 2 nodes of 8 GPUs on an NVSwitch, 8 NICs (one per GPU): NIC k is rail k.
  const platform::PlatformSpec spec = platform::testing::structured(platform::NodeFabric::nvswitch, 2, 8, 8, 8);
  const LinkCosts costs = platform::link_costs(spec);
  const Group g{16, 8};
  const std::int64_t n = 16 * 1024;
  const Schedule pxn = make_alltoall("nccl", costs)->plan(g, n);
  const Schedule direct = make_alltoall("direct", costs)->plan(g, n);
  ASSERT_EQ(pxn.steps.size(), 1u);
  int cross_rail = 0;
  for (const Transfer& t : pxn.steps[0].transfers)
    if (t.from / 8 != t.to / 8) {
      EXPECT_EQ(t.from % 8, t.to % 8);               // stays on its rail
      EXPECT_EQ(t.bytes, 8 * (n / 16));              // all 8 local GPUs' chunks for that destination
    }
  for (const Transfer& t : direct.steps[0].transfers) cross_rail += t.from / 8 != t.to / 8 && t.from % 8 != t.to % 8;
  EXPECT_EQ(cross_rail, 16 * 7);
  // Each GPU still receives its 15 chunks' worth across the plan's network and NVLink hops, and nothing is lost:
  // the network carries the same bytes either way.
  const auto network_bytes = [](const Schedule& s) {
    std::int64_t b = 0;
    for (const Transfer& t : s.steps[0].transfers) b += t.from / 8 != t.to / 8 ? t.bytes : 0;
    return b;
  };
  EXPECT_EQ(network_bytes(pxn), network_bytes(direct));
  EXPECT_EQ(dynamic_cast<const NcclTuned&>(*make_alltoall("nccl", costs)).choice_name(g, n), "pxn/Simple");
  EXPECT_EQ(dynamic_cast<const NcclTuned&>(*make_alltoall("direct", costs)).choice_name(g, n), "p2p/Simple");
}

TEST(NcclSendrecv, ClosedFormIsTheCostliestHop) {
  for (int p : {2, 7}) {
    const auto star = dtsim::testing::star(p);
    const LinkCosts costs = platform::link_costs(star);
    const auto c = make_operation(Operation::sendrecv, "nccl", costs);
    const std::int64_t n = 1 << 24;
    const AlphaBeta ab = dtsim::testing::star_alpha_beta();
    const double expected = ab.alpha_s + n * ab.beta_s_per_byte;
    EXPECT_NEAR(c->closed_form_s({p, 1}, static_cast<double>(n), costs), expected, 1e-15);
    EXPECT_NEAR(analytic_s(*c, star, {p, 1}, n), expected, 1e-9 * expected);
  }
  const LinkCosts costs = platform::link_costs(kCluster);
  const auto c = make_operation(Operation::sendrecv, "nccl", costs);
  const std::int64_t n = 1 << 24;
  const double expected = 12e-6 + n / 12.5e9;  // the hop between nodes: 4 links' latency, the NIC's bandwidth
  EXPECT_NEAR(c->closed_form_s(kClusterGroup, static_cast<double>(n), costs), expected, 1e-15);
  EXPECT_NEAR(analytic_s(*c, kCluster, kClusterGroup, n), expected, 1e-9 * expected);
}

TEST(NcclOperations, RegistryNamesEveryOperationsAlgorithmsAndRefusesOthers) {
  const LinkCosts costs = platform::link_costs(kCluster);
  EXPECT_EQ(operation_algorithm_names(Operation::alltoall), (std::vector<std::string>{"nccl", "direct", "auto"}));
  EXPECT_EQ(operation_algorithm_names(Operation::allgather), (std::vector<std::string>{"nccl", "auto"}));
  EXPECT_EQ(operation_algorithm_names(Operation::allreduce), collective_names());
  EXPECT_EQ(alltoall_names(), (std::vector<std::string>{"nccl", "direct"}));
  EXPECT_THROW(make_operation(Operation::allgather, "ring", costs), core::InputError);
  EXPECT_THROW(make_operation(Operation::reduce, "nccl", costs), core::InputError);
  EXPECT_THROW(make_alltoall("pairwise", costs), core::InputError);
  for (Operation op : nccl_tests_operations())
    for (const std::string& name : operation_algorithm_names(op)) EXPECT_NE(make_operation(op, name, costs), nullptr);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Operation::sendrecv, 8), 1.0);
}

}  // namespace
}  // namespace dtsim::collectives
