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

TEST(BytePSPipeline, NetworkBoundPartitionsPayOneReduceAndOneBroadcast) {
  // The reduce of a partition (3 hops of 1 us, 4 MiB at 500 GB/s: r) is shorter than its push: the node reduces
  // partition k + 1 while k is pushed, so the push ends one reduce after the network's share of all of them,
  // which is the server's incast of 2 N (both nodes' roots) over its NIC plus the path latency L; the pull mirrors
  // it, ending one broadcast after the last partition arrives: T = compute + 2 (r + L + 2 N / B_nic).
  const platform::LinkSpec gpu{500e9, 1e-6};
  const auto s = two_nodes(gpu);
  const double r = 3 * gpu.latency_s + static_cast<double>(kPartition) / gpu.bandwidth_Bps;
  const double L = platform::Fabric(s.platform).path(0, 8).latency_s;
  const double expected = testing::compute_s(s) + 2 * (r + L + 2 * kN / kNic.bandwidth_Bps);
  const RunResult result = run_simulation(s);
  EXPECT_NEAR(result.mean_iteration_s, expected, 1e-12 * expected);
  // Only the nodes' first GPUs move bytes: each pushes and pulls the whole bucket.
  EXPECT_EQ(result.traffic[0].bytes_sent, static_cast<std::int64_t>(s.iterations * kN));
  EXPECT_EQ(result.traffic[1].bytes_sent, 0);
}

TEST(BytePSPipeline, ReduceBoundPartitionsPayEveryReduceAndOneShareOfTheNetwork) {
  // With 50 us per GPU hop and a 100 GB/s NIC the reduce of a partition (r = 3 hops + 4 MiB at 500 GB/s) takes
  // longer than its share of the network (L + 2 N / B_nic over four): the pushes wait for the reduces, the last
  // partition leaves a quarter of the network time after its reduce, and the pull mirrors it:
  // T = compute + 2 (4 r + (L + 2 N / B_nic) / 4).
  const platform::LinkSpec gpu{500e9, 50e-6}, nic{100e9, 5e-6};
  const auto s = two_nodes(gpu, nic);
  const double r = 3 * gpu.latency_s + static_cast<double>(kPartition) / gpu.bandwidth_Bps;
  const double L = platform::Fabric(s.platform).path(0, 8).latency_s;
  ASSERT_GT(r, (L + 2 * kN / nic.bandwidth_Bps) / 4);
  const double expected = testing::compute_s(s) + 2 * (4 * r + (L + 2 * kN / nic.bandwidth_Bps) / 4);
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
  const platform::LinkSpec gpu{500e9, 1e-6};
  auto s = two_nodes(gpu);
  s.fidelity = Fidelity::flow;
  const double r = 3 * gpu.latency_s + static_cast<double>(kPartition) / gpu.bandwidth_Bps;
  const double L = platform::Fabric(s.platform).path(0, 8).latency_s;
  const double partition = L + 2.0 * kPartition / kNic.bandwidth_Bps;
  const double parts = kN / kPartition;
  const double expected = testing::compute_s(s) + 2 * r + (parts + 1) * partition;
  EXPECT_NEAR(testing::run_in_child(s).mean_iteration_s, expected, 1e-6 * expected);
}

TEST(BytePSPipeline, TheAnalyticPipelineBoundsTheFlowLevelFromAbove) {
  // The flow level runs the same stages as resources of the node and each pair's messages in order on its
  // connection, and pulls a partition as soon as every node pushed it, while the next is still being pushed
  // (network-bound) or reduced (reduce-bound); the analytic fragment pulls a bucket after its whole push
  // (measured: analytic 51 % and 19 % slower).
  for (const auto& [gpu, nic, tolerance] :
       {std::tuple{platform::LinkSpec{500e9, 1e-6}, kNic, 0.55},
        std::tuple{platform::LinkSpec{500e9, 50e-6}, platform::LinkSpec{100e9, 5e-6}, 0.2}}) {
    auto s = two_nodes(gpu, nic);
    const RunResult analytic = run_simulation(s);
    s.fidelity = Fidelity::flow;
    const RunResult flow = testing::run_in_child(s);
    ASSERT_EQ(analytic.iterations.size(), flow.iterations.size());
    for (std::size_t i = 0; i < flow.iterations.size(); ++i) {
      EXPECT_GE(analytic.iterations[i].end_s, flow.iterations[i].end_s) << gpu.latency_s << " iteration " << i;
      EXPECT_NEAR(analytic.iterations[i].end_s, flow.iterations[i].end_s, tolerance * flow.iterations[i].end_s)
          << gpu.latency_s << " iteration " << i;
    }
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
