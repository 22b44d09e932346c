// Will a run fit? Peak actors per architecture, the bytes they take, refusals with the estimate and the way
// out, and the shipped parameter-server scenario under a virtual-memory limit as Slurm and login nodes set it.
#include "sim/run/capacity.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>

#include "sim/actors/actor_contexts.hpp"
#include "sim/core/error.hpp"
#include "sim/actors/ps_exchanger.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/scenario/load.hpp"
#include "tests/sim/run/scenario_fixture.hpp"

namespace dtsim::run {
namespace {

namespace fs = std::filesystem;
using scenario::Fidelity;

scheduling::IterationPlan plan_of(const std::vector<std::int64_t>& bucket_bytes, std::int64_t credit) {
  scheduling::IterationPlan plan;
  for (std::int64_t b : bucket_bytes) plan.buckets.push_back({{}, b, 0, 0});
  plan.credit_bytes = credit;
  return plan;
}

TEST(Capacity, FifoAllReduceHasTwoActorsPerWorker) {
  EXPECT_EQ(allreduce_actors(plan_of({100, 200, 300}, 0), 16384).actors, 32768);
}

TEST(Capacity, ACreditKeepsAsManyBucketsInFlightAsFitUnderItSmallestFirstPlusOne) {
  // Smallest first: 100 + 200 = 300 < 350, then 300 more overdraws it: three in flight.
  EXPECT_EQ(allreduce_actors(plan_of({300, 100, 200, 400}, 350), 8).actors, 8 * (1 + 3));
}

TEST(Capacity, ParameterServerCountsATaskAndAPushPerPiece) {
  auto s = testing::synthetic(4, {1 << 20, 1 << 20}, {1e-3, 1e-3}, {1e-3, 1e-3}, "wfbp", Fidelity::flow);
  s.platform = testing::star(6);
  s.architecture = "ps";
  s.ps.servers = 2;
  const scheduling::IterationPlan plan = make_iteration_plan(s);
  actors::PsSetup setup;  // two dedicated servers after the 4 workers
  setup.server_hosts = {4, 5};
  setup.workers = 4;
  for (const auto& b : plan.buckets) setup.buckets.push_back({{0, b.bytes, b.bytes}});
  // Two buckets, each split over the two servers: per worker 2 x (1 task + 2 pieces).
  ASSERT_EQ(plan.buckets.size(), 2U);
  EXPECT_EQ(ps_actors(setup).actors, 4 * 2 + 2 + 4 * 2 * 3);
}

TEST(Capacity, ALayoutHasAnActorPerRankAndStreamItsStageUses) {
  // Stage 0 computes, all-reduces on the tensor stream and sends on the pipeline stream (3 streams); stage 1
  // receives and computes on its compute stream (1). Two ranks of stage 0, one of stage 1.
  taskgraph::TaskGraph graph;
  graph.programs.resize(2);
  graph.programs[0].add({});
  taskgraph::Task allreduce;
  allreduce.op = taskgraph::Op::allreduce;
  allreduce.stream = taskgraph::Stream::tensor;
  allreduce.group = "tensor";
  graph.programs[0].add(allreduce);
  taskgraph::Task send;
  send.op = taskgraph::Op::send;
  send.stream = taskgraph::Stream::pipeline;
  send.peer = 1;
  const int sent = graph.programs[0].add(send);
  taskgraph::Task recv;
  recv.op = taskgraph::Op::recv;
  recv.peer = 0;
  recv.match = sent;
  graph.programs[1].add(recv);
  graph.programs[1].add({});
  EXPECT_EQ(layout_actors(graph, {0, 0, 1}).actors, 2 * 3 + 1);
}

TEST(Capacity, SimulationBytesAreTheActorsAndTheHosts) {
  EXPECT_EQ(simulation_bytes({2000, ""}, 0) - simulation_bytes({1000, ""}, 0), actors::actor_bytes(1000));
  EXPECT_GT(simulation_bytes({1000, ""}, 100), simulation_bytes({1000, ""}, 0));
}

TEST(Capacity, OnlyStructuredNodesKeepARouteTableOfEveryPair) {
  platform::PlatformSpec star;
  star.nodes = 65536;
  EXPECT_EQ(route_table_bytes(star), 0);
  platform::PlatformSpec tree;
  tree.topology = platform::Topology::fat_tree;
  tree.nodes = 8192;
  tree.gpus_per_node = 8;
  EXPECT_EQ(route_table_bytes(tree), 0);  // one FabricZone with the declared node pairs' routes only
  tree.node.structured = true;
  EXPECT_EQ(route_table_bytes(tree), std::int64_t{65536} * 65536 * 8);
}

scenario::Scenario flow_run(int workers) {
  auto s = testing::synthetic(workers, {1000}, {1e-3}, {1e-3}, "wfbp", Fidelity::flow);
  s.source = "big.toml";
  return s;
}

/// The message of the core::InputError `check` throws; empty when it throws none.
std::string refusal(const std::function<void()>& check) {
  try {
    check();
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Capacity, AFlowRunOnStructuredNodesCountsItsRouteTable) {
  // 4,096 GPUs in 512 structured nodes: 8,192 actors, the hosts and a 128 MiB route table (a pointer per GPU pair).
  auto s = flow_run(4096);
  s.platform.topology = platform::Topology::two_level;
  s.platform.nodes = 512;
  s.platform.gpus_per_node = 8;
  s.platform.node.structured = true;
  const ActorCount count = allreduce_actors(plan_of({1}, 0), 4096);
  core::ProcessLimits limits;
  limits.address_space_bytes = simulation_bytes(count, 4096) + (std::int64_t{64} << 20);
  EXPECT_NO_THROW(refuse_oversized(flow_run(4096), count, limits, "fewer workers"));
  const std::string what = refusal([&] { refuse_oversized(s, count, limits, "fewer workers"); });
  EXPECT_NE(what.find("4096 hosts, 128.00 MiB of them its root zone's route table)"), std::string::npos) << what;
}

TEST(Capacity, TheFlowLevelsCpuTimeIsPerWorkerAndExchangeGrowingFrom1024To16384Workers) {
  EXPECT_DOUBLE_EQ(flow_cpu_s(64, 1000), 1000 * 8.3e-6);
  EXPECT_DOUBLE_EQ(flow_cpu_s(1024, 1000), 1000 * 8.3e-6);
  EXPECT_DOUBLE_EQ(flow_cpu_s(16384, 1000), 1000 * 8.3e-6 * std::pow(16.0, 0.57));
  EXPECT_DOUBLE_EQ(flow_cpu_s(100000, 1000), flow_cpu_s(16384, 1000));
  // Against the runs it comes from (ResNet-50, 161 all-reduces, one iteration): 1.36 s, 13.7 s, 104 s and 370.5 s of
  // CPU at 1,024, 4,096, 16,384 and 65,536 GPUs.
  EXPECT_NEAR(flow_cpu_s(1024, std::int64_t{1024} * 161), 1.36, 0.15 * 1.36);
  EXPECT_NEAR(flow_cpu_s(4096, std::int64_t{4096} * 161), 13.7, 0.15 * 13.7);
  EXPECT_NEAR(flow_cpu_s(16384, std::int64_t{16384} * 161), 104, 0.15 * 104);
  EXPECT_NEAR(flow_cpu_s(65536, std::int64_t{65536} * 161), 370.5, 0.15 * 370.5);
}

TEST(Capacity, TheMessageLevelsCpuTimeIsPerMessageGrowingPast64Workers) {
  EXPECT_DOUBLE_EQ(message_cpu_s(16, 1000), 1000 * 1.93e-6);
  EXPECT_DOUBLE_EQ(message_cpu_s(256, 1000), 1000 * 1.93e-6 * std::pow(4.0, 0.35));
  // Against the runs it comes from: 2.50 s at 64 GPUs (1.30 million messages), 65.6 s at 256 (21.0 million).
  EXPECT_NEAR(message_cpu_s(64, std::int64_t{161} * 126 * 64), 2.50, 0.15 * 2.50);
  EXPECT_NEAR(message_cpu_s(256, std::int64_t{161} * 510 * 256), 65.6, 0.15 * 65.6);
}

TEST(Capacity, ARunPastAMinuteSaysSoWithTheWaysOut) {
  auto s = flow_run(65536);
  s.iterations = 1;
  EXPECT_EQ(long_run_s(), 60);
  EXPECT_EQ(long_run_note(s, 60), "");
  EXPECT_EQ(long_run_note(s, 75),
            "this flow run will take about 75 s of CPU (estimated from bench/RESULTS.md); strategy.fidelity = "
            "\"analytic\" answers in seconds, or fewer iterations (iterations = 1) or workers");
  EXPECT_EQ(long_run_note(s, 937),
            "this flow run will take about 16 minutes of CPU (estimated from bench/RESULTS.md); strategy.fidelity = "
            "\"analytic\" answers in seconds, or fewer iterations (iterations = 1) or workers");
  s.fidelity = Fidelity::message;
  s.iterations = 10;
  EXPECT_EQ(long_run_note(s, 3.0 * 3600),
            "this message run will take about 3.0 hours of CPU (estimated from bench/RESULTS.md); strategy.fidelity = "
            "\"flow\" or \"analytic\", or fewer iterations (iterations = 10) or workers");
}

TEST(Capacity, ALongAnalyticRunHasNoLowerLevelToOffer) {
  auto s = flow_run(1000000);
  s.fidelity = Fidelity::analytic;
  EXPECT_EQ(long_run_note(s, 200),
            "this analytic run will take about 3 minutes of CPU (estimated from bench/RESULTS.md); fewer iterations "
            "(iterations = 3) or workers");
}

TEST(Capacity, ALayoutsCpuTimeIsPerRankTaskAndFlowGrowingPast64Workers) {
  EXPECT_DOUBLE_EQ(graph_cpu_s(64, 1000000, 0), 3.02);
  EXPECT_DOUBLE_EQ(graph_cpu_s(16, 0, 1000000), 4.14);
  EXPECT_DOUBLE_EQ(graph_cpu_s(256, 1000000, 1000000), (3.02 + 4.14) * std::pow(4.0, 0.35));
  // Against the runs it comes from (bench/RESULTS.md, "The layouts' CPU time": rank tasks, flows, user time).
  EXPECT_NEAR(graph_cpu_s(64, 1345728, 534656), 6.06, 0.07 * 6.06);      // Llama 2 7B TP8 x DP8, flow
  EXPECT_NEAR(graph_cpu_s(64, 338112, 1894144), 9.02, 0.07 * 9.02);      // the same, batch 16, message
  EXPECT_NEAR(graph_cpu_s(128, 842816, 338688), 5.38, 0.07 * 5.38);      // Llama 2 70B TP8 x PP4 x DP4, flow
  EXPECT_NEAR(graph_cpu_s(256, 1685632, 677376), 12.58, 0.07 * 12.58);   // the same x DP8, flow
  EXPECT_NEAR(graph_cpu_s(128, 842816, 4638272), 27.29, 0.07 * 27.29);   // x DP4, message
}

/// The shipped scenario `file` with `overrides`.
scenario::Scenario shipped(const std::string& file, const std::vector<std::string>& overrides) {
  return scenario::load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/" + file, overrides);
}

// Issue 27: the Megatron layout (Llama 2 70B on 1,024 H100s) at the flow level and the default run at 1,024 GPUs at
// the message level went quiet for minutes; both are now estimated before they start and say so.
TEST(Capacity, TheMegatronLayoutAtTheFlowLevelIsEstimatedBeforeItStarts) {
  const scenario::Scenario flow = shipped("llama2_70b_1024_h100.toml", {"strategy.fidelity=\"flow\""});
  const std::optional<double> cpu_s = estimated_cpu_s(flow);
  ASSERT_TRUE(cpu_s.has_value());
  EXPECT_GT(*cpu_s, long_run_s());
  EXPECT_EQ(long_run_note(flow, *cpu_s).rfind("this flow run will take about ", 0), 0u) << long_run_note(flow, *cpu_s);
  // Linear in the iterations: every rank runs its program again.
  const scenario::Scenario twice = shipped("llama2_70b_1024_h100.toml", {"strategy.fidelity=\"flow\"", "iterations=2"});
  EXPECT_NEAR(*estimated_cpu_s(twice), 2 * *cpu_s, 1e-9 * *cpu_s);
  // The analytic level schedules one program per pipeline stage: nothing to estimate.
  EXPECT_FALSE(estimated_cpu_s(shipped("llama2_70b_1024_h100.toml", {})).has_value());
}

TEST(Capacity, TheDefaultRunAt1024GpusAtTheMessageLevelIsEstimatedBeforeItStarts) {
  const scenario::Scenario s =
      shipped("default.toml", {"workers=1024", "platform.nodes=256", "strategy.fidelity=\"message\""});
  const std::optional<double> cpu_s = estimated_cpu_s(s);
  ASSERT_TRUE(cpu_s.has_value());
  EXPECT_GT(*cpu_s, long_run_s());
  EXPECT_EQ(long_run_note(s, *cpu_s).rfind("this message run will take about ", 0), 0u);
  EXPECT_NE(long_run_note(s, *cpu_s).find("strategy.fidelity = \"flow\" or \"analytic\", or fewer iterations (iterations = 3)"),
            std::string::npos);
  // With NCCL, whose tree has no fused plan, its messages are counted without building it (they were not: 0 s).
  const scenario::Scenario nccl = shipped(
      "default.toml", {"workers=1024", "platform.nodes=256", "strategy.fidelity=\"message\"", "strategy.collective=\"nccl\""});
  EXPECT_GT(*estimated_cpu_s(nccl), long_run_s());
}

TEST(Capacity, ARefusalOfASimulatedRunGivesItsCpuTime) {
  core::ProcessLimits limits;
  limits.address_space_bytes = std::int64_t{1} << 30;
  const ActorCount count = allreduce_actors(plan_of({1}, 0), 100000);
  const std::string what = refusal([&] { refuse_oversized(flow_run(100000), count, limits, "fewer workers", 90.0); });
  EXPECT_NE(what.find("100000 hosts) (about 90 s of CPU)"), std::string::npos) << what;
  const std::string without = refusal([&] { refuse_oversized(flow_run(100000), count, limits, "fewer workers"); });
  EXPECT_EQ(without.find("of CPU"), std::string::npos) << without;
}

TEST(Capacity, ARunBeyondTheAddressSpaceLeftIsRefusedWithTheEstimateAndTheWayOut) {
  const ActorCount count = allreduce_actors(plan_of({1}, 0), 100000);
  core::ProcessLimits limits;
  limits.address_space_used_bytes = std::int64_t{1} << 30;
  limits.address_space_bytes = limits.address_space_used_bytes + simulation_bytes(count, 100000);
  EXPECT_NO_THROW(refuse_oversized(flow_run(100000), count, limits, "fewer workers"));
  limits.address_space_bytes = *limits.address_space_bytes - 1;
  const std::string what = refusal([&] { refuse_oversized(flow_run(100000), count, limits, "fewer workers"); });
  EXPECT_NE(what.find("big.toml: this flow run needs about"), std::string::npos) << what;
  EXPECT_NE(what.find("200000 actors alive at most: 100000 workers x 2"), std::string::npos) << what;
  EXPECT_NE(what.find("RLIMIT_AS"), std::string::npos) << what;
  EXPECT_NE(what.find("; fewer workers, or raise ulimit -v"), std::string::npos) << what;
}

TEST(Capacity, ARunBeyondTheMemoryAvailableIsRefused) {
  core::ProcessLimits limits;
  limits.available_bytes = std::int64_t{1} << 30;
  EXPECT_THROW(refuse_oversized(flow_run(100000), allreduce_actors(plan_of({1}, 0), 100000), limits, "fewer workers"),
               core::InputError);
}

TEST(Capacity, MessageLevelPlansBeyondTheMemoryAvailableAreRefusedBeforeTheyAreBuilt) {
  auto s = flow_run(16384);
  s.fidelity = Fidelity::message;
  core::ProcessLimits limits;
  limits.available_bytes = std::int64_t{16} << 30;
  // One ring all-reduce at 16,384 ranks: 2 x 16,383 steps of 16,384 messages.
  const std::int64_t messages = std::int64_t{2} * 16383 * 16384;
  EXPECT_EQ(message_plan_bytes(messages), messages * message_plan_bytes(1));
  const std::string what = refusal([&] { refuse_oversized_plans(s, messages, limits); });
  EXPECT_NE(what.find("this message run needs about"), std::string::npos) << what;
  EXPECT_NE(what.find("(536838144 messages"), std::string::npos) << what;
  EXPECT_EQ(what.find("of CPU"), std::string::npos) << what;
  const std::string timed = refusal([&] { refuse_oversized_plans(s, messages, limits, 4000.0); });
  EXPECT_NE(timed.find("each a step of a rank) (about 67 minutes of CPU)"), std::string::npos) << timed;
  EXPECT_NE(what.find("strategy.fidelity = \"flow\""), std::string::npos) << what;
  EXPECT_NO_THROW(refuse_oversized_plans(s, 1000, limits));
}

TEST(Capacity, AnalyticCostIsTheLargerOfItsReportAndItsSimulation) {
  // Report: 4,608 bytes a host; simulation: 512 a host and 16 per worker and exchange (and distinct size).
  const AnalyticCost one_bucket = analytic_cost(1000000, 1000000, 1, 1, 0);
  EXPECT_EQ(one_bucket.bytes, (std::int64_t{64} << 20) + std::int64_t{1000000} * 4608);
  const AnalyticCost resnet = analytic_cost(1000000, 1000000, 161, 100, 0);
  EXPECT_EQ(resnet.bytes, (std::int64_t{64} << 20) + std::int64_t{1000000} * (512 + 16 * 261));
  EXPECT_DOUBLE_EQ(resnet.cpu_s, 1e6 * 13e-6 + 1e6 * 161 * 50e-9);
}

TEST(Capacity, AnAnalyticRunBeyondTheAddressSpaceLeftIsRefusedWithItsTimeAndMemory) {
  auto s = flow_run(1000000);
  s.fidelity = Fidelity::analytic;
  core::ProcessLimits limits;
  limits.address_space_bytes = std::int64_t{3} << 30;
  const std::vector<scheduling::BucketWork> work{{0, 0, {{scheduling::Exchange::Kind::allreduce, 100, 0}}},
                                                 {0, 0, {{scheduling::Exchange::Kind::allreduce, 100, 0}}}};
  const std::string what = refusal([&] { refuse_oversized_analytic(s, work, limits); });
  EXPECT_NE(what.find("this analytic run needs about 4.35 GiB more for its"), std::string::npos) << what;
  EXPECT_NE(what.find("1000000 workers' traffic in 2 all-reduces an iteration (about 13 s of CPU)"), std::string::npos)
      << what;
  EXPECT_NE(what.find("; fewer workers, or raise ulimit -v"), std::string::npos) << what;
  EXPECT_NO_THROW(refuse_oversized_analytic(flow_run(1024), work, limits));
}

TEST(Capacity, AnAnalyticRunCountsNcclsTreePlanAndNotItsRing) {
  // NCCL's tree forced with LL: each tree carries 50 MB of a 100 MB bucket in 191 segments (256 KiB each), 4 x
  // 191 x (p - 1) transfers of 128 bytes; its ring is timed without a plan.
  auto s = flow_run(65536);
  s.fidelity = Fidelity::analytic;
  s.collective = "nccl";
  s.nccl = {collectives::NcclAlgorithm::tree, collectives::NcclProtocol::ll};
  const std::vector<scheduling::BucketWork> work{{0, 0, {{scheduling::Exchange::Kind::allreduce, 100'000'000, 0}}},
                                                 {0, 0, {{scheduling::Exchange::Kind::allreduce, 1000, 0}}}};
  EXPECT_EQ(analytic_plan_transfers(s, work), std::int64_t{4} * 191 * 65535);
  core::ProcessLimits limits;
  limits.address_space_bytes = std::int64_t{4} << 30;
  const std::string what = refusal([&] { refuse_oversized_analytic(s, work, limits); });
  EXPECT_NE(what.find("and NCCL's tree plan of 50068740 transfers"), std::string::npos) << what;
  EXPECT_NE(what.find("; fewer workers, or strategy.nccl_algo = \"ring\" (timed without a plan), or raise ulimit -v"),
            std::string::npos)
      << what;
  s.nccl.algorithm = collectives::NcclAlgorithm::ring;
  EXPECT_EQ(analytic_plan_transfers(s, work), 0);
  EXPECT_NO_THROW(refuse_oversized_analytic(s, work, limits));
}

TEST(Capacity, NcclsTreeProbePlanIsCountedBeforeItIsBuilt) {
  // The scheduler's alpha-beta probe times an all-reduce of 0 and of 1 GiB; NCCL's tree forced with LL builds the
  // plan of each, 4 x 1,024 segments (the most) x (p - 1) transfers at 1 GiB.
  auto s = flow_run(4096);
  s.fidelity = Fidelity::analytic;
  s.collective = "nccl";
  s.nccl = {collectives::NcclAlgorithm::tree, collectives::NcclProtocol::ll};
  EXPECT_EQ(tree_plan_transfers(s, {0, std::int64_t{1} << 30}), std::int64_t{4} * 1024 * 4095);
  core::ProcessLimits limits;
  limits.address_space_bytes = std::int64_t{800} << 20;
  const std::string what = refusal([&] { refuse_oversized_probe(s, {0, std::int64_t{1} << 30}, limits); });
  EXPECT_NE(what.find("this analytic run needs about"), std::string::npos) << what;
  EXPECT_NE(what.find("NCCL's tree plan of 16773120 transfers, which it builds to time the all-reduce"),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("; fewer workers, or strategy.nccl_algo = \"ring\" (timed without a plan), or raise ulimit -v"),
            std::string::npos)
      << what;
  limits.address_space_bytes = std::int64_t{4} << 30;
  EXPECT_NO_THROW(refuse_oversized_probe(s, {0, std::int64_t{1} << 30}, limits));
  s.nccl.algorithm = collectives::NcclAlgorithm::ring;
  limits.address_space_bytes = std::int64_t{800} << 20;
  EXPECT_EQ(tree_plan_transfers(s, {0, std::int64_t{1} << 30}), 0);
  EXPECT_NO_THROW(refuse_oversized_probe(s, {0, std::int64_t{1} << 30}, limits));
}

/// dtsim with `arguments` in a child process whose address space is limited to `limit_kib` (setrlimit
/// RLIMIT_AS, what `ulimit -v` sets): its exit status (-1 when a signal ended it) and its stderr.
std::pair<int, std::string> dtsim_under_limit(std::int64_t limit_kib, const std::vector<std::string>& arguments) {
  const fs::path err = fs::temp_directory_path() / ("capacity_test_" + std::to_string(getpid()) + ".err");
  const pid_t pid = fork();
  if (pid == 0) {
    const rlimit limit{static_cast<rlim_t>(limit_kib) * 1024, static_cast<rlim_t>(limit_kib) * 1024};
    if (setrlimit(RLIMIT_AS, &limit) != 0 || !freopen(err.c_str(), "w", stderr) || !freopen("/dev/null", "w", stdout))
      _exit(120);
    std::vector<std::string> args{DTSIM_BINARY};
    args.insert(args.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(DTSIM_BINARY, argv.data());
    _exit(121);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::stringstream text;
  text << std::ifstream(err).rdbuf();
  fs::remove(err);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text.str()};
}

/// The shipped backup-workers scenario (12 workers, 4 servers, 161 WFBP buckets: thousands of push actors alive)
/// run by dtsim under an address-space limit of `limit_kib`.
std::pair<int, std::string> backup_workers_under_limit(std::int64_t limit_kib) {
  const fs::path out = fs::temp_directory_path() / ("capacity_test_out_" + std::to_string(getpid()));
  auto outcome = dtsim_under_limit(
      limit_kib, {"run", std::string(DTSIM_SOURCE_DIR) + "/scenarios/backup_workers_heavy_tail.toml", "--out", out});
  fs::remove_all(out);
  return outcome;
}

TEST(Capacity, ShippedBackupWorkersScenarioRunsUnderUlimitV6000000) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of shadow address space: an RLIMIT_AS test cannot run under it";
#endif
  // At SimGrid's default 8 MiB stacks it needed more than 32 GB of address space and aborted ("Failed to
  // allocate stack").
  const auto [code, err] = backup_workers_under_limit(6000000);
  EXPECT_EQ(code, 0) << err;
}

TEST(Capacity, TooLittleAddressSpaceIsRefusedCleanlyNotAborted) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of shadow address space: an RLIMIT_AS test cannot run under it";
#endif
  // 300,000 KiB: enough to load the scenario and plan it, not for its actors.
  const auto [code, err] = backup_workers_under_limit(300000);
  EXPECT_EQ(code, 2) << err;
  EXPECT_NE(err.find("of address space this process has left (RLIMIT_AS"), std::string::npos) << err;
  EXPECT_NE(err.find("fuse buckets"), std::string::npos) << err;
}

TEST(Capacity, AMillionWorkerFlowRunIsRefusedBeforeItsPlatformAndPlansAreBuilt) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of shadow address space: an RLIMIT_AS test cannot run under it";
#endif
  // 2,000,000 actors do not fit in 1.5 GB; the fabric of a million hosts and the fused plans of 161 buckets would
  // not either (they took 3.5 GiB before the refusal came first): refused with the estimate, not bad_alloc.
  const fs::path platform = fs::temp_directory_path() / ("capacity_test_" + std::to_string(getpid()) + ".toml");
  std::ofstream(platform) << "name = \"million\"\ntopology = \"star\"\nhosts = 1000000\n"
                             "[link]\nbandwidth = \"12.5GBps\"\nlatency = \"5us\"\n";
  const fs::path out = fs::temp_directory_path() / ("capacity_test_out_" + std::to_string(getpid()));
  const auto [code, err] = dtsim_under_limit(
      1500000, {"run", "--set", "platform=" + platform.string(), "--set", "workers=1000000", "--set",
                "strategy.fidelity=flow", "--set", "iterations=1", "--set", "output.timeline=false", "--out", out});
  fs::remove(platform);
  fs::remove_all(out);
  EXPECT_EQ(code, 2) << err;
  EXPECT_NE(err.find("SimGrid (2000000 actors alive at most"), std::string::npos) << err;
  EXPECT_NE(err.find("minutes of CPU)"), std::string::npos) << err;
  EXPECT_NE(err.find("strategy.fidelity = \"analytic\""), std::string::npos) << err;
}

TEST(Capacity, AMillionGpuAnalyticRunIsRefusedBeforeItsFabricIsBuilt) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of shadow address space: an RLIMIT_AS test cannot run under it";
#endif
  // A fat tree of 125,000 DGX nodes: 4.4 GiB at its peak, which 3 GB do not hold (it ended in "internal error:
  // std::bad_alloc" after 21 s); refused with the estimate before anything of that size is built.
  const fs::path out = fs::temp_directory_path() / ("capacity_test_out_" + std::to_string(getpid()));
  const auto [code, err] = dtsim_under_limit(
      3000000, {"run", "--set", "platform=fat_tree_1024_a100_hdr", "--set", "platform.down=[10,12500]", "--set",
                "platform.up=[1,4]", "--set", "workers=1000000", "--set", "strategy.fidelity=analytic", "--set",
                "iterations=1", "--set", "output.timeline=false", "--out", out});
  fs::remove_all(out);
  EXPECT_EQ(code, 2) << err;
  EXPECT_NE(err.find("this analytic run needs about"), std::string::npos) << err;
  EXPECT_NE(err.find("s of CPU)"), std::string::npos) << err;
}

TEST(Capacity, ForcedNcclTreeAt4096GpusIsRefusedBeforeItsProbePlanIsBuilt) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of shadow address space: an RLIMIT_AS test cannot run under it";
#endif
  // The probe's tree plan at 1 GiB (16.8 million transfers) took about 950 MB of address space: under 800,000 KiB
  // it ended in "internal error: std::bad_alloc" before the analytic refusal could speak.
  const fs::path out = fs::temp_directory_path() / ("capacity_test_out_" + std::to_string(getpid()));
  const auto [code, err] = dtsim_under_limit(
      800000, {"run", "--set", "platform=fat_tree_1024_a100_hdr", "--set", "platform.down=[10,52]", "--set",
               "platform.up=[1,4]", "--set", "workers=4096", "--set", "strategy.collective=nccl", "--set",
               "strategy.nccl_algo=tree", "--set", "strategy.nccl_proto=LL", "--set", "strategy.fidelity=analytic",
               "--set", "iterations=1", "--set", "output.timeline=false", "--out", out});
  fs::remove_all(out);
  EXPECT_EQ(code, 2) << err;
  EXPECT_NE(err.find("NCCL's tree plan of 16773120 transfers"), std::string::npos) << err;
  EXPECT_NE(err.find("of address space this process has left (RLIMIT_AS"), std::string::npos) << err;
  EXPECT_EQ(err.find("bad_alloc"), std::string::npos) << err;
}

}  // namespace
}  // namespace dtsim::run

namespace dtsim::run {
namespace {

TEST(Capacity, AMillionMicroBatchLayoutIsRefusedBeforeItsTaskGraphIsBuilt) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of shadow address space: an RLIMIT_AS test cannot run under it";
#endif
  // Llama 2 70B TP8 x PP4 with a million micro-batches of 1: 820 million tasks counted from two small builds (it
  // ended in "internal error: std::bad_alloc" after minutes); refused at once with the estimate and the way out.
  const fs::path out = fs::temp_directory_path() / ("capacity_test_out_" + std::to_string(getpid()));
  const auto [code, err] = dtsim_under_limit(
      2000000, {"run", std::string(DTSIM_SOURCE_DIR) + "/scenarios/llama2_70b_1024_h100.toml", "--set",
                "batch_size=1000000", "--out", out});
  fs::remove_all(out);
  EXPECT_EQ(code, 2) << err;
  EXPECT_NE(err.find("its task graph of 820000098 tasks (1000000 micro-batches an iteration x 1 iterations)"),
            std::string::npos) << err;
  EXPECT_NE(err.find("hours of CPU)"), std::string::npos) << err;
  EXPECT_NE(err.find("a larger parallel.micro_batch (now 1) or a smaller batch_size (now 1000000)"), std::string::npos)
      << err;
  EXPECT_EQ(err.find("bad_alloc"), std::string::npos) << err;
}

TEST(Capacity, TheShippedLayoutRunsUnderTheSameLimit) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of shadow address space: an RLIMIT_AS test cannot run under it";
#endif
  // 64 micro-batches of Llama 2 7B TP8: estimated at 0.92 GB, 0.91 GB peak RSS measured; not refused.
  const fs::path out = fs::temp_directory_path() / ("capacity_test_out_" + std::to_string(getpid()));
  const auto [code, err] = dtsim_under_limit(
      2000000, {"run", std::string(DTSIM_SOURCE_DIR) + "/scenarios/llama2_7b_tp8_vs_fsdp.toml", "--out", out});
  fs::remove_all(out);
  EXPECT_EQ(code, 0) << err;
}

}  // namespace
}  // namespace dtsim::run
