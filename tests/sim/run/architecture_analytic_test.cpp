// Parameter servers, BytePS and gossip at the analytic level: each bucket's exchange is a fragment of the
// iteration's task graph (a push and a pull, or a neighbour exchange) timed in closed form over the fabric.
// Closed forms exactly; the flow level where nothing but the modelled links is shared, within 1e-9.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "sim/core/error.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/run/run_simulation.hpp"
#include "tests/sim/run/run_in_child.hpp"
#include "tests/sim/run/scenario_fixture.hpp"

namespace dtsim::run {
namespace {

using scenario::Fidelity;

constexpr double kBandwidth = 1.25e9;  // 10 Gb/s
constexpr double kLatency = 5e-6;
constexpr double kN = 4.0 * (1 << 22);  // one bucket of 4 Mi fp32 gradients

/// One layer of 4 Mi parameters: one bucket, on a star of `workers` + `extra` hosts.
scenario::Scenario one_bucket(const std::string& architecture, int workers, int extra) {
  auto s = testing::synthetic(workers, {1 << 22}, {1e-4}, {2e-4}, "none", Fidelity::analytic);
  s.platform = testing::star(workers + extra, kBandwidth, kLatency);
  s.architecture = architecture;
  s.ps.summation_Bps.reset();
  return s;
}

scenario::Scenario parameter_server(int workers, int servers) {
  auto s = one_bucket("ps", workers, servers);
  s.ps.servers = servers;
  return s;
}

double latency_s(const scenario::Scenario& s, int from, int to) {
  return platform::Fabric(s.platform).path(from, to).latency_s;
}

void expect_exact(double actual, double expected, const std::string& what) {
  EXPECT_NEAR(actual, expected, 1e-12 * expected) << what;
}

TEST(ParameterServerAnalytic, IncastIsTheBusierOfTheServersAndTheWorkersLinks) {
  // Push: every worker sends N/S to each dedicated server; a server's link takes n N/S, a worker's N. Pull mirrors
  // it: T = compute + 2 (a + max(N, n N / S) / B).
  for (int n : {2, 4, 8})
    for (int servers : {1, 2, 4}) {
      const auto s = parameter_server(n, servers);
      const double expected = testing::compute_s(s) + 2 * (latency_s(s, 0, n) + std::max(kN, n * kN / servers) / kBandwidth);
      const RunResult r = run_simulation(s);
      expect_exact(r.mean_iteration_s, expected, std::to_string(n) + " workers, " + std::to_string(servers) + " servers");
      ASSERT_EQ(r.traffic.size(), static_cast<std::size_t>(n));
      EXPECT_EQ(r.traffic[0].bytes_sent, static_cast<std::int64_t>(s.iterations * kN));
      EXPECT_EQ(r.traffic[0].bytes_received, static_cast<std::int64_t>(s.iterations * kN));
    }
}

TEST(ParameterServerAnalytic, TheServerSumsEveryPushAtItsThroughput) {
  // One server sums n pushes of N after they arrive: n N / summation, between the push and the pull.
  auto s = parameter_server(4, 1);
  const double free = run_simulation(s).mean_iteration_s;
  s.ps.summation_Bps = 4e9;
  expect_exact(run_simulation(s).mean_iteration_s - free, 4 * kN / 4e9, "summation");
}

TEST(ParameterServerAnalytic, AColocatedServerTakesItsOwnHostsPushFromMemory) {
  // Two servers on workers 0 and 1 of 4: each takes N/2 from the 3 other workers; a worker's link carries at
  // most 2 pushes. The busiest link shares B among 3: T = compute + 2 (a + 3 N / (2 B)).
  auto s = parameter_server(4, 2);
  s.ps.dedicated = false;
  s.platform = testing::star(4, kBandwidth, kLatency);
  expect_exact(run_simulation(s).mean_iteration_s,
               testing::compute_s(s) + 2 * (latency_s(s, 0, 1) + 3 * kN / 2 / kBandwidth), "colocated");
}

TEST(ParameterServerAnalytic, PerNodeAggregationGathersPushesPullsAndScattersInTurn) {
  // Two nodes of 4 GPUs, one dedicated server on a third: the 3 other GPUs of a node send N to its first over
  // its GPU link (3 N / B_gpu), the two first GPUs push N to the server through its NIC (2 N / B_nic), and back.
  constexpr platform::LinkSpec kGpu{50e9, 1e-6}, kNic{12.5e9, 5e-6};
  auto s = one_bucket("ps", 8, 0);
  s.platform = testing::two_level(3, 4, kGpu, kNic);
  s.ps.servers = 1;
  s.ps.hierarchical = true;
  s.ps.partition_bytes = 0;
  const double gather = latency_s(s, 1, 0) + 3 * kN / kGpu.bandwidth_Bps;
  const double push = latency_s(s, 0, 8) + 2 * kN / kNic.bandwidth_Bps;
  expect_exact(run_simulation(s).mean_iteration_s, testing::compute_s(s) + 2 * (gather + push), "per node");
}

TEST(ParameterServerAnalytic, ThePullOfABucketOverlapsTheNextBucketsPush) {
  // Two buckets ready at once (one layer's two tensors, no fusion): the second push starts when the first ends,
  // while the first pull runs on the other direction of the links: T = compute + 3 P, not 4 P.
  auto s = parameter_server(4, 1);
  s.model.layers[0].tensors = {{"layer0.weight", {1 << 22}}, {"layer0.bias", {1 << 22}}};
  s.scheduler = "wfbp";
  const double P = latency_s(s, 0, 4) + 4 * kN / kBandwidth;
  const RunResult r = run_simulation(s);
  expect_exact(r.mean_iteration_s, testing::compute_s(s) + 3 * P, "two buckets");
}

TEST(GossipAnalytic, DpsgdSendsTheModelToEveryNeighbour) {
  // Each worker's link carries one copy per neighbour each way: T = compute + a + degree N / B.
  struct Case {
    std::string topology;
    int workers;
    int degree;
  };
  for (const auto& [topology, workers, degree] : {Case{"ring", 8, 2}, Case{"exponential", 8, 5}, Case{"torus", 16, 4}}) {
    auto s = one_bucket("gossip", workers, 0);
    s.gossip.topology = topology;
    const RunResult r = run_simulation(s);
    expect_exact(r.mean_iteration_s, testing::compute_s(s) + latency_s(s, 0, 1) + degree * kN / kBandwidth, topology);
    EXPECT_EQ(r.traffic[0].bytes_sent, static_cast<std::int64_t>(s.iterations * degree * kN)) << topology;
  }
}

TEST(GossipAnalytic, PowerGossipSendsBothFactorsInTwoRounds) {
  constexpr std::int64_t m = 2048, n = 2048;
  auto s = one_bucket("gossip", 8, 0);
  s.gossip.topology = "ring";
  s.model.layers[0].tensors = {{"layer0.weight", {m, n}}, {"layer0.bias", {m}}};
  s.gossip.power_gossip = true;
  const double per_neighbour = 4.0 * (n + m) + 4.0 * m;
  expect_exact(run_simulation(s).mean_iteration_s,
               testing::compute_s(s) + 2 * latency_s(s, 0, 1) + 2 * per_neighbour / kBandwidth, "powergossip");
}

/// The analytic and flow levels' iterations and traffic and (`per_worker`) each worker's exposed communication,
/// within `tolerance` of the flow level's iteration time.
void expect_levels_agree(scenario::Scenario s, double tolerance, const std::string& what, bool per_worker = true) {
  s.fidelity = Fidelity::analytic;
  const RunResult analytic = run_simulation(s);
  s.fidelity = Fidelity::flow;
  const RunResult flow = testing::run_in_child(s);
  SCOPED_TRACE(what);
  EXPECT_NEAR(analytic.mean_iteration_s, flow.mean_iteration_s, tolerance * flow.mean_iteration_s);
  ASSERT_EQ(analytic.iterations.size(), flow.iterations.size());
  for (std::size_t it = 0; it < flow.iterations.size(); ++it) {
    EXPECT_NEAR(analytic.iterations[it].end_s, flow.iterations[it].end_s, tolerance * flow.iterations[it].end_s) << it;
    ASSERT_EQ(analytic.iterations[it].per_worker.size(), flow.iterations[it].per_worker.size());
    for (std::size_t w = 0; per_worker && w < flow.iterations[it].per_worker.size(); ++w)
      EXPECT_NEAR(analytic.iterations[it].per_worker[w].exposed_comm_s, flow.iterations[it].per_worker[w].exposed_comm_s,
                  tolerance * flow.iterations[it].time_s)
          << it << " worker " << w;
  }
  ASSERT_EQ(analytic.traffic.size(), flow.traffic.size());
  for (std::size_t w = 0; w < flow.traffic.size(); ++w) {
    EXPECT_EQ(analytic.traffic[w].bytes_sent, flow.traffic[w].bytes_sent) << w;
    EXPECT_EQ(analytic.traffic[w].bytes_received, flow.traffic[w].bytes_received) << w;
  }
}

/// Five layers, several buckets overlapping the backward, on a star of `workers` + `extra` hosts.
scenario::Scenario five_layers(const std::string& architecture, int workers, int extra, double bandwidth_Bps) {
  auto s = testing::five_layers(workers, "wfbp", Fidelity::analytic);
  s.platform = testing::star(workers + extra, bandwidth_Bps, kLatency);
  s.architecture = architecture;
  s.iterations = 4;
  return s;
}

scenario::Scenario five_layer_ps(int workers, int servers, bool dedicated, std::optional<double> summation_Bps,
                                 double bandwidth_Bps) {
  auto s = five_layers("ps", workers, dedicated ? servers : 0, bandwidth_Bps);
  s.ps.servers = servers;
  s.ps.dedicated = dedicated;
  s.ps.summation_Bps = summation_Bps;
  return s;
}

TEST(ArchitectureLevels, DedicatedServersAgreeExactlyWhileNoTwoPullsOverlap) {
  // At 100 GB/s each bucket's pull ends before the next bucket's: a push and a pull never share a direction of a
  // link, every phase's transfers are equal, and push, sum and pull pipeline as the task graph's three streams.
  for (const int servers : {1, 2})
    for (const auto summation : {std::optional<double>{}, std::optional<double>{20e9}})
      expect_levels_agree(five_layer_ps(4, servers, true, summation, 1.25e11), 1e-9,
                          std::to_string(servers) + " servers, summation " + (summation ? "20 GB/s" : "free"));
}

TEST(ArchitectureLevels, DedicatedServersAgreeWithinTheLatencyOfOverlappingPulls) {
  // At 10 Gb/s a bucket's pull is still running when the next one's may start: the flow level runs them at once,
  // sharing the server's link, the analytic level one after the other; the work is the same, the second path
  // latency is not (measured: 1.05e-3 of the iteration at most).
  for (const int servers : {1, 2})
    for (const auto summation : {std::optional<double>{}, std::optional<double>{20e9}})
      for (const double bandwidth_Bps : {1.25e9, 1.25e10})
        expect_levels_agree(five_layer_ps(4, servers, true, summation, bandwidth_Bps), 2e-3,
                            std::to_string(servers) + " servers, " + std::to_string(bandwidth_Bps) + " B/s");
}

TEST(ArchitectureLevels, ColocatedServersAgreeWithinTheirSharedLinks) {
  // A colocated server's host pushes its own buckets on the link its pulls leave by, and sums its own push before
  // the others arrive: the analytic level shares neither (measured: 7.5% faster, 2.7% slower at most), and times
  // every worker's push as the others' (a server's host sends one piece fewer).
  for (const int servers : {1, 2})
    for (const auto summation : {std::optional<double>{}, std::optional<double>{20e9}})
      for (const double bandwidth_Bps : {1.25e9, 1.25e11})
        expect_levels_agree(five_layer_ps(4, servers, false, summation, bandwidth_Bps), 0.08,
                            std::to_string(servers) + " colocated servers, " + std::to_string(bandwidth_Bps) + " B/s",
                            false);
}

TEST(ArchitectureLevels, GossipAgreesExactly) {
  // Every worker sends to and waits for its neighbours before its next bucket: one exchange at a time.
  for (const std::string topology : {"ring", "torus", "exponential"}) {
    auto s = five_layers("gossip", topology == "torus" ? 9 : 8, 0, kBandwidth);
    s.gossip.topology = topology;
    expect_levels_agree(s, 1e-9, "gossip on a " + topology);
  }
}

TEST(ArchitectureLevels, LocalSgdAgreesExactlyAndPerNodeAggregationWithinTheNodesOverlap) {
  auto local = five_layer_ps(4, 1, true, std::nullopt, 1.25e11);
  local.sync.scheme = "local_sgd";
  local.sync.period = 2;
  local.iterations = 6;
  expect_levels_agree(local, 1e-9, "ps under local SGD");
  auto per_node = five_layers("ps", 8, 0, kBandwidth);
  per_node.platform = testing::two_level(3, 4);
  per_node.ps.servers = 1;
  per_node.ps.hierarchical = true;
  // A node's other GPUs hand their next bucket to its first while it pushes the last one; the analytic level
  // holds the hand-over until the push has left (measured: 5.0% slower).
  expect_levels_agree(per_node, 0.06, "ps per node");
}

}  // namespace
}  // namespace dtsim::run
