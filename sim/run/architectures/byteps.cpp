// byteps: BytePS (Jiang et al., "A Unified Architecture for Accelerating Distributed DNN Training in
// Heterogeneous GPU/CPU Clusters", OSDI 2020; github.com/bytedance/byteps v0.2, byteps/common/).
//
//   GPU machine (8 GPUs, PCIe switches)                         servers (summation on CPUs)
//   ┌──────────────────────────────────────────┐   push     ┌───────────────────────────────┐
//   │ per partition of 4,096,000 B:            │ ─────────> │ colocated: one per GPU machine│
//   │  reduce (NCCL, NVLink or each PCIe switch)│            │  (host memory); dedicated:    │
//   │  -> copy to host memory (each switch's   │ <───────── │  CPU machines of their own    │
//   │     root) -> CPU sum across switches     │   pull     │  sum at memory bandwidth / 3  │
//   │  ... pull -> copy back -> broadcast      │            └───────────────────────────────┘
//   └──────────────────────────────────────────┘
//
// What the code does, and where: tensors are cut into partitions of BYTEPS_PARTITION_BYTES (default 4096000,
// global.cc; rounded up to local GPUs x page size, which 4096000 already is for 8 GPUs and 4 KiB pages); each
// partition is a key (declared tensor << 16) + index (operations.cc) whose server is the DJB2 hash of its decimal
// digits modulo the servers (global.cc, EncodeDefaultKey; sync::djb2_server). Each partition goes through the
// node's queues on its own (REDUCE, COPYD2H, PCIE_REDUCE, PUSH, PULL, COPYH2D, BROADCAST: core_loops.cc), so the
// partitions of a tensor pipeline through the stages, and the PUSH queue hands every ready partition to ps-lite,
// which pushes asynchronously over one TCP connection per worker machine and server: the worker's ZeroMQ DEALER
// socket for that server (bytedance/ps-lite src/zmq_van.h, Connect: senders_[id]; SendMsg), which the server's
// ROUTER answers pulls through (NonWorkerSendMsg). A socket's messages leave in the order they were sent, so a
// machine's pushes to one server go one after another, as that server's pulls back to it do (PsSetup::
// fifo_connections). BYTEPS_SCHEDULING_CREDIT is 0 by default ("disable scheduling by default",
// scheduled_queue.cc); [strategy.ps] credit sets a push credit, lower layers first. Only the node's root talks to the
// servers (the local root). Where a node's GPUs sit under several PCIe switches, each switch reduces to its root,
// the roots copy to host memory and the CPU sums the copies (the paper's section 4.2, "CPU-assisted
// aggregation"; _is_cross_pcie_switch and CpuReducer in global.cc). Servers sum on CPUs (server.cc, CpuReducer:
// each pushed byte read, the accumulator read and written: three bytes of memory traffic per byte summed) and
// never on a GPU: a colocated server's sums are in host memory. Colocated servers are one per GPU machine (the
// paper's SS_GPU on every machine); dedicated ones on CPU machines of their own (SS_CPU).
//
// The node's stages are platform::NodeSpec facts: NVLink or PCIe payload rates and per-hop latencies. The
// exchange is timed by server_exchange.cpp (analytic: a flow shop of the stages with the network as a fluid
// queue; flow and message levels: actors::PsExchanger with one resource per stage and node).
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "sim/core/units.hpp"
#include "sim/parallel/layout.hpp"
#include "sim/platform/link_efficiency.hpp"
#include "sim/run/architectures/server_exchange.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/scenario/parallel_section.hpp"
#include "sim/sync/ps_partitions.hpp"

namespace dtsim::run {
namespace {

/// Host memory bandwidth of a V100-era GPU machine's CPU socket: Intel Xeon E5-2698 v4 (DGX-1's CPUs), four
/// DDR4-2400 channels, 76.8 GB/s (Intel ARK, "Max Memory Bandwidth"). The CPU sum across PCIe switches moves
/// (switches + 1) bytes through it per byte of gradient (each switch's copy read, the sum written).
constexpr double kHostMemoryBps = 76.8e9;

/// Colocated servers over the GPU machines: server s on the first GPU of node s mod (nodes in use).
std::vector<int> colocated_server_hosts(const scenario::Scenario& s) {
  const int g = s.platform.gpus_per_node;
  const int nodes = (s.workers + g - 1) / g;
  std::vector<int> hosts;
  for (int k = 0; k < s.ps.servers; ++k) hosts.push_back(k % nodes * g);
  return hosts;
}

/// The GPUs of a node whose gradients it reduces before its push: the node's workers, or under a layout the GPUs
/// of one data-parallel group on it (the others hold other shards of the model).
int node_gpus(const scenario::Scenario& s) {
  const int g = s.platform.gpus_per_node;
  if (!scenario::uses_layout(s)) return std::min(s.workers, g);
  return parallel::ranks_per_node(parallel::Placement(scenario::layout_of(s), g).members(0, "data"), g);
}

/// A stage over a link of `link` taking `hops` of its latency.
actors::NodeStage over(const std::string& name, const platform::LinkSpec& link, int hops) {
  return {name, hops * link.latency_s, 1.0 / link.bandwidth_Bps};
}

/// The stages a node runs on each partition before its push (`before`) and after its pull (`after`), for a node
/// of `local` GPUs (platform::NodeSpec of a structured node; else the node's GPU links, and no copy to the host).
void node_stages(const scenario::Scenario& s, int local, std::vector<actors::NodeStage>& before,
                 std::vector<actors::NodeStage>& after) {
  const platform::PlatformSpec& p = s.platform;
  if (!p.node.structured) {
    if (local <= 1) return;
    before = {over("reduce over the GPU links", p.intra, local - 1)};
    after = {over("broadcast over the GPU links", p.intra, local - 1)};
    return;
  }
  const platform::NodeSpec& n = p.node;
  const platform::LinkSpec pcie =
      platform::payload_rate(n.pcie, platform::pcie_payload_efficiency(n.pcie_max_payload_bytes));
  if (n.fabric == platform::NodeFabric::pcie) {
    // Each PCIe switch reduces to its root, the roots copy to host memory at once, the CPU sums the copies.
    const int switches = n.gpu_switch(local - 1, p.gpus_per_node) + 1;
    const int per_switch = (local + switches - 1) / switches;
    if (per_switch > 1) before.push_back(over("NCCL reduce in each PCIe switch", pcie, per_switch - 1));
    before.push_back(over("copy to host memory", pcie, 1));
    if (switches > 1) before.push_back({"CPU sum across PCIe switches", 0, (switches + 1) / kHostMemoryBps});
    after.push_back(over("copy from host memory", pcie, 1));
    if (per_switch > 1) after.push_back(over("NCCL broadcast in each PCIe switch", pcie, per_switch - 1));
    return;
  }
  const platform::LinkSpec nvlink =
      platform::payload_rate(n.nvlink, platform::nvlink_payload_efficiency(n.nvlink_payload_bytes));
  if (local > 1) before.push_back(over("NCCL reduce over NVLink", nvlink, local - 1));
  before.push_back(over("copy to host memory", pcie, 1));
  after.push_back(over("copy from host memory", pcie, 1));
  if (local > 1) after.push_back(over("NCCL broadcast over NVLink", nvlink, local - 1));
}

actors::PsSetup byteps_setup(const scenario::Scenario& s, const scheduling::IterationPlan& plan,
                             const std::vector<scheduling::BucketWork>& work) {
  actors::PsSetup setup = server_setup(s, plan, work);
  setup.server_hosts = s.ps.dedicated ? dedicated_server_hosts(s) : colocated_server_hosts(s);
  std::size_t exchanges = 0;
  for (const auto& bucket : setup.buckets) exchanges += bucket.size();
  // Tensors are declared in the model's order; the plan's buckets come in the backward's.
  setup.assign = [exchanges](std::size_t exchange, std::int64_t part, int servers) {
    return sync::djb2_server(exchanges - 1 - exchange, part, servers);
  };
  setup.queued_pushes = true;
  setup.fifo_connections = true;
  if (s.ps.hierarchical) node_stages(s, node_gpus(s), setup.before_push, setup.after_pull);
  return setup;
}

class BytePS final : public Architecture {
 public:
  std::string describe(const scenario::Scenario& s) const override {
    const scenario::ParameterServer& ps = s.ps;
    std::string words = "BytePS (" + std::to_string(ps.servers) +
                        (ps.dedicated ? " servers on CPU machines" : " servers colocated over the GPU machines") +
                        ", partitions " +
                        (ps.partition_bytes > 0 ? core::format_bytes(static_cast<double>(ps.partition_bytes))
                                                : std::string("1 per server")) +
                        " by DJB2 key hash, summation " +
                        (ps.summation_Bps ? fmt::format("{:.3g} GB/s", *ps.summation_Bps / 1e9) : std::string("free"));
    std::vector<actors::NodeStage> before, after;
    if (ps.hierarchical) node_stages(s, node_gpus(s), before, after);
    if (!before.empty() || !after.empty()) {
      words += ", per node:";
      for (const auto* stages : {&before, &after})
        for (const actors::NodeStage& stage : *stages) words += " " + stage.name + ",";
      words.pop_back();
    }
    if (ps.credit_bytes > 0) words += ", push credit " + core::format_bytes(static_cast<double>(ps.credit_bytes));
    if (ps.pull == "compressed") words += ", compressed pull";
    return words + ")";
  }

  SimulatedExchange simulated(ExchangeInput& in) const override {
    return server_simulated(std::make_shared<actors::PsSetup>(byteps_setup(in.scenario, in.plan, in.work)), in);
  }

  std::optional<AnalyticExchange> analytic(AnalyticInput& in) const override {
    return server_analytic(byteps_setup(in.scenario, in.plan, in.work), in);
  }

  std::optional<actors::ServerExchange> layout_servers(const scenario::Scenario& s, const scheduling::IterationPlan& plan,
                                                       const std::vector<scheduling::BucketWork>& work,
                                                       const std::vector<std::vector<int>>& groups) const override {
    return layout_server_exchange(byteps_setup(s, plan, work), groups);
  }

  /// The aggregate a worker pulls (one gradient's bytes). Servers sum in host memory, never in a GPU's.
  void add_buffers(const scenario::Scenario& /*s*/, const scheduling::IterationPlan& plan, int /*replicas*/,
                   memory::MemoryItem& item, std::string& /*where*/) const override {
    add_to(item, gradient_wire_bytes(plan), "the pulled aggregate");
  }
};

}  // namespace

const Architecture& byteps_architecture() {
  static const BytePS architecture;
  return architecture;
}

}  // namespace dtsim::run
