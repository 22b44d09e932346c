// BytePS (architecture "byteps"): partitions dealt by the DJB2 hash of their keys, each partition pipelined
// through its node's stages, the push, the servers' sum and the pull; colocated servers one per GPU machine, in
// host memory. Closed forms at the analytic level, and the flow level against it.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>

#include "sim/platform/fabric.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/sync/ps_partitions.hpp"
#include "tests/sim/run/run_in_child.hpp"
#include "tests/sim/run/scenario_fixture.hpp"

namespace dtsim::run {
namespace {

using scenario::Fidelity;

constexpr std::int64_t kParams = 1 << 22;  // one bucket of 16 MiB of fp32 gradients
constexpr double kN = 4.0 * kParams;
constexpr std::int64_t kPartition = 1 << 22;  // 4 MiB: four partitions
constexpr platform::LinkSpec kNic{12.5e9, 5e-6};

/// Two nodes of 4 GPUs and one dedicated server on a third node, one bucket of 16 MiB cut into four partitions,
/// free summation, no credit.
scenario::Scenario two_nodes(platform::LinkSpec gpu_link, platform::LinkSpec nic = kNic) {
  auto s = testing::synthetic(8, {kParams}, {1e-4}, {2e-4}, "none", Fidelity::analytic);
  s.platform = testing::two_level(3, 4, gpu_link, nic);
  s.architecture = "byteps";
  s.ps.servers = 1;
  s.ps.dedicated = true;
  s.ps.hierarchical = true;
  s.ps.partition_bytes = kPartition;
  s.ps.credit_bytes = 0;
  s.ps.summation_Bps.reset();
  return s;
}

TEST(BytePSKeys, ServerIsTheDjb2HashOfTheKeysDigits) {
  // djb2("0") = 5381 * 33 + '0' = 177621: odd, and a multiple of 3; key (1 << 16) + 1 = "65537" -> 3 mod 4.
  EXPECT_EQ(sync::djb2_server(0, 0, 2), 1);
  EXPECT_EQ(sync::djb2_server(0, 0, 3), 0);
  EXPECT_EQ(sync::djb2_server(1, 1, 4), 3);
  EXPECT_EQ(sync::djb2_server(5, 2, 7), 0);
}

TEST(BytePSPipeline, NetworkBoundPartitionsPayOneReduceOneBroadcastAndOnePartitionsPull) {
  // The reduce of a partition (3 hops of 1 us, 4 MiB at 500 GB/s: r) is shorter than its push. Each node's
  // partitions go to the server one after another on its connection (PsSetup::fifo_connections), both nodes' at
  // once into the server's NIC: a partition takes s = L + 2 P / B_nic (the path latency, each message its own).
  // The node reduces partition k + 1 while k is pushed; partition k's pull follows its push on the same connection
  // the other way, so the last pull ends one share after the last push, then one broadcast:
  // T = compute + r + 4 s + s + r (BytePSConnections checks the flow level against the same form).
  const platform::LinkSpec gpu{500e9, 1e-6};
  const auto s = two_nodes(gpu);
  const double r = 3 * gpu.latency_s + static_cast<double>(kPartition) / gpu.bandwidth_Bps;
  const double L = platform::Fabric(s.platform).path(0, 8).latency_s;
  const double share = L + 2.0 * kPartition / kNic.bandwidth_Bps;
  ASSERT_LT(r, share);
  const double expected = testing::compute_s(s) + 2 * r + (kN / kPartition + 1) * share;
  const RunResult result = run_simulation(s);
  EXPECT_NEAR(result.mean_iteration_s, expected, 1e-12 * expected);
  // Only the nodes' first GPUs move bytes: each pushes and pulls the whole bucket.
  EXPECT_EQ(result.traffic[0].bytes_sent, static_cast<std::int64_t>(s.iterations * kN));
  EXPECT_EQ(result.traffic[1].bytes_sent, 0);
}

TEST(BytePSPipeline, ReduceBoundPartitionsPayEveryReduceAndTwoSharesOfTheNetwork) {
  // With 200 us per GPU hop and a 100 GB/s NIC the reduce of a partition (r = 3 hops + 4 MiB at 500 GB/s) takes
  // longer than its push (s = L + 2 P / B_nic, L two GPU hops and two NIC hops): partition k is pushed at
  // (k + 1) r + s and pulled one share later, and the broadcasts follow a reduce apart: T = compute + 5 r + 2 s.
  const platform::LinkSpec gpu{500e9, 200e-6}, nic{100e9, 5e-6};
  const auto s = two_nodes(gpu, nic);
  const double r = 3 * gpu.latency_s + static_cast<double>(kPartition) / gpu.bandwidth_Bps;
  const double L = platform::Fabric(s.platform).path(0, 8).latency_s;
  const double share = L + 2.0 * kPartition / nic.bandwidth_Bps;
  ASSERT_GT(r, share);
  const double expected = testing::compute_s(s) + 5 * r + 2 * share;
  EXPECT_NEAR(run_simulation(s).mean_iteration_s, expected, 1e-12 * expected);
}

TEST(BytePSConnections, EachPairsMessagesGoInOrderSoPullsOverlapLaterPushes) {
  // ps-lite opens one ZeroMQ socket per remote node (zmq_van.h, Connect: a ZMQ_DEALER in senders_[id]), so a
  // node's pushes to one server leave one after another, as the server's pulls back to it do. Network-bound at
  // the flow level, both nodes push partition k into the server's NIC at half its rate each (L + 2 P / B_nic a
  // partition) and the pull of k overlaps the push of k + 1: the last of the four pulls ends one partition after
  // the last push. T = compute + r + 4 (L + 2 P / B_nic) + (L + 2 P / B_nic) + r (a reduce before the first push,
  // a broadcast after the last pull). Before (every partition its own flow, all in flight at once) the pushes
  // ended together and every pull came after them: T = compute + 2 (r + L + 2 N / B_nic), 51 % longer here.
  // The analytic level gives the same (NetworkBoundPartitionsPayOneReduceOneBroadcastAndOnePartitionsPull).
  const platform::LinkSpec gpu{500e9, 1e-6};
  auto s = two_nodes(gpu);
  s.fidelity = Fidelity::flow;
  const double r = 3 * gpu.latency_s + static_cast<double>(kPartition) / gpu.bandwidth_Bps;
  const double L = platform::Fabric(s.platform).path(0, 8).latency_s;
  const double partition = L + 2.0 * kPartition / kNic.bandwidth_Bps;
  const double parts = kN / kPartition;
  const double expected = testing::compute_s(s) + 2 * r + (parts + 1) * partition;
  EXPECT_NEAR(testing::run_in_child(s).mean_iteration_s, expected, 1e-9 * expected);
}

TEST(BytePSPipeline, TheFlowLevelAgreesWithTheAnalyticPipeline) {
  // The flow level runs the same stages as resources of the node and each connection's partitions in order as
  // flows sharing the links: the two closed forms above, network-bound and reduce-bound, at both levels.
  for (const auto& [gpu, nic] : {std::pair{platform::LinkSpec{500e9, 1e-6}, kNic},
                                 std::pair{platform::LinkSpec{500e9, 200e-6}, platform::LinkSpec{100e9, 5e-6}}}) {
    auto s = two_nodes(gpu, nic);
    const RunResult analytic = run_simulation(s);
    s.fidelity = Fidelity::flow;
    const RunResult flow = testing::run_in_child(s);
    ASSERT_EQ(analytic.iterations.size(), flow.iterations.size());
    for (std::size_t i = 0; i < flow.iterations.size(); ++i)
      EXPECT_NEAR(analytic.iterations[i].end_s, flow.iterations[i].end_s, 1e-9 * flow.iterations[i].end_s)
          << gpu.latency_s << " iteration " << i;
  }
}

// BytePS over TCP at the flow level: it aborted in SimGrid ("You cannot use set_rate() once your communication
// started": sendto_init(from, to) makes the comm STARTING). A connection cap above the NIC's rate changes nothing.
// (SimGrid 3.32 does not pass an s4u rate on to a host-to-host comm, so a cap below the links' share is not
// applied to the pushes and pulls at this level: docs/VALIDATION.md section 21.)
TEST(BytePSOverTcp, RunsAtTheFlowLevelAndAnUnboundConnectionCapChangesNothing) {
  auto s = two_nodes({500e9, 1e-6});
  s.fidelity = Fidelity::flow;
  const double rdma = testing::run_in_child(s).mean_iteration_s;
  s.platform.transport = platform::Transport::tcp;
  s.platform.tcp = {2 * kNic.bandwidth_Bps, 1};
  EXPECT_NEAR(testing::run_in_child(s).mean_iteration_s, rdma, 1e-9 * rdma);
}

TEST(BytePSServers, ColocatedServersAreOnePerGpuMachineAndSumInHostMemory) {
  // Three colocated servers on three nodes of 4 GPUs: one on each node's first GPU; no GPU holds a sum.
  auto s = two_nodes({50e9, 1e-6});
  s.workers = 12;
  s.ps.servers = 3;
  s.ps.dedicated = false;
  s.fidelity = Fidelity::flow;
  const RunResult r = testing::run_in_child(s);
  ASSERT_EQ(r.servers.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) EXPECT_EQ(r.servers[k].host, static_cast<int>(4 * k)) << k;
  EXPECT_EQ(r.memory.where.find("server"), std::string::npos) << r.memory.where;
  for (const memory::MemoryItem& item : r.memory.items)
    EXPECT_EQ(item.detail.find("server"), std::string::npos) << item.detail;
}

}  // namespace
}  // namespace dtsim::run
