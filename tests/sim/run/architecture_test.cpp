// The architecture registry: the loader's names are the registry's, and each
// architecture's GPU buffers are what it holds (the pulled aggregate; a colocated server's sums; neighbours' models).
#include "sim/run/architecture.hpp"

#include <gtest/gtest.h>

#include "sim/sync/architecture_traits.hpp"
#include "sim/sync/sync_policy.hpp"
#include "tests/sim/run/scenario_fixture.hpp"

namespace dtsim::run {
namespace {

TEST(Architectures, TheRegistryHasEveryNameTheLoaderTakes) {
  std::vector<std::string> names;
  for (const ArchitectureEntry& e : architecture_registry()) names.emplace_back(e.name);
  EXPECT_EQ(names, sync::architecture_names());
}

TEST(Architectures, DescribeTheirShape) {
  auto s = testing::five_layers(4, "wfbp", scenario::Fidelity::flow);
  EXPECT_EQ(architecture_named("allreduce").describe(s), s.collective + " all-reduce");
  s.ps.servers = 2;
  s.ps.dedicated = false;
  EXPECT_EQ(architecture_named("byteps").describe(s).rfind("BytePS (2 servers colocated over the GPU machines", 0), 0u)
      << architecture_named("byteps").describe(s);
  s.gossip.topology = "ring";
  EXPECT_EQ(architecture_named("gossip").describe(s), "gossip D-PSGD on a ring graph");
}

TEST(Architectures, BuffersAreWhatEachHolds) {
  auto s = testing::five_layers(4, "wfbp", scenario::Fidelity::flow);
  const scheduling::IterationPlan plan = make_iteration_plan(s);
  const double gradient = gradient_wire_bytes(plan);
  EXPECT_DOUBLE_EQ(gradient, 4.0 * (2000000 + 500000 + 3000000 + 1000));
  std::string where = "every worker";
  memory::MemoryItem none{"communication buffers", 0, ""};
  architecture_named("allreduce").add_buffers(s, plan, s.workers, none, where);
  EXPECT_EQ(none.bytes, 0);
  s.ps.servers = 1;
  s.ps.dedicated = true;
  memory::MemoryItem pulled{"communication buffers", 0, ""};
  architecture_named("ps").add_buffers(s, plan, s.workers, pulled, where);
  EXPECT_DOUBLE_EQ(pulled.bytes, gradient);
  EXPECT_EQ(where, "every worker");
  s.ps.dedicated = false;  // one colocated server sums every partition on worker 0's GPU
  memory::MemoryItem colocated{"communication buffers", 0, ""};
  architecture_named("ps").add_buffers(s, plan, s.workers, colocated, where);
  EXPECT_DOUBLE_EQ(colocated.bytes, 2 * gradient);
  EXPECT_EQ(where, "worker 0, with server 0");
  s.gossip.topology = "ring";  // D-PSGD on a ring: two neighbours' models
  memory::MemoryItem neighbours{"communication buffers", 0, ""};
  architecture_named("gossip").add_buffers(s, plan, s.workers, neighbours, where);
  EXPECT_DOUBLE_EQ(neighbours.bytes, 2 * gradient);
  s.model.layers[0].tensors = {{"layer0.weight", {2000, 1000}}};  // PowerGossip: X^T p and X q of it, the rest whole
  s.gossip.power_gossip = true;
  memory::MemoryItem factors{"communication buffers", 0, ""};
  architecture_named("gossip").add_buffers(s, make_iteration_plan(s), s.workers, factors, where);
  EXPECT_DOUBLE_EQ(factors.bytes, 2 * 4.0 * (1000 + 2000 + 500000 + 3000000 + 1000));
}

}  // namespace
}  // namespace dtsim::run
