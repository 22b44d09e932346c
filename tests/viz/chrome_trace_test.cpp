// timeline.json against the Chrome trace-event format: complete events, metadata naming processes and
// threads, non-negative times, and one event per layer phase and bucket with its bytes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/run/run_simulation.hpp"
#include "sim/scenario/load.hpp"
#include "tests/sim/run/scenario_fixture.hpp"
#include "viz/reports.hpp"

namespace dtsim::viz {
namespace {

nlohmann::json trace_of(const scenario::Scenario& s) {
  const run::RunResult r = run::run_simulation(s);
  const std::string path = (std::filesystem::temp_directory_path() / ("trace-" + std::to_string(getpid()) + ".json")).string();
  write_chrome_trace(path, r);
  std::ifstream in(path);
  nlohmann::json trace = nlohmann::json::parse(in);
  std::filesystem::remove(path);
  return trace;
}

TEST(ChromeTrace, FollowsTheTraceEventFormat) {
  const auto s = testing::five_layers(4, "wfbp", scenario::Fidelity::analytic);
  const nlohmann::json trace = trace_of(s);
  ASSERT_TRUE(trace.contains("traceEvents"));
  ASSERT_TRUE(trace["traceEvents"].is_array());
  std::set<std::pair<int, int>> named_threads;
  std::set<int> named_processes;
  int complete = 0, with_bytes = 0;
  for (const auto& e : trace["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e["ph"].is_string());
    ASSERT_TRUE(e.contains("pid") && e["pid"].is_number_integer());
    const std::string ph = e["ph"];
    if (ph == "M") {
      const std::string name = e["name"];
      ASSERT_TRUE(name == "process_name" || name == "thread_name" || name == "process_sort_index") << name;
      ASSERT_TRUE(e["args"].is_object());
      if (name == "process_name") named_processes.insert(e["pid"].get<int>());
      if (name == "thread_name") named_threads.insert({e["pid"].get<int>(), e["tid"].get<int>()});
    } else if (ph == "s" || ph == "f") {
      ASSERT_TRUE(e["id"].is_number_integer());
      ASSERT_TRUE(e["ts"].is_number());
    } else {
      ASSERT_EQ(ph, "X");
      ASSERT_TRUE(e["name"].is_string() && e["cat"].is_string());
      ASSERT_TRUE(e["ts"].is_number() && e["dur"].is_number());
      EXPECT_GE(e["ts"].get<double>(), 0);
      EXPECT_GE(e["dur"].get<double>(), 0);
      EXPECT_TRUE(named_threads.count({e["pid"].get<int>(), e["tid"].get<int>()})) << "unnamed thread";
      ++complete;
      with_bytes += e.contains("args") && e["args"].contains("bytes");
    }
  }
  EXPECT_EQ(named_processes.size(), 5u);  // 4 workers and the job's iterations
  // Per worker and iteration: 5 forward, 5 backward, 1 update, one all-reduce per tensor (4 tensors) with its
  // latency and transfer slices; and one slice per iteration on the job's track.
  EXPECT_EQ(complete, 4 * 3 * (5 + 5 + 1 + 4 * 3) + 3);
  EXPECT_EQ(with_bytes, 4 * 3 * 4);
}

TEST(ChromeTrace, PidsStartAtOneAndNoThreadIsEmpty) {
  const auto s = testing::five_layers(4, "wfbp", scenario::Fidelity::analytic);
  const nlohmann::json trace = trace_of(s);
  std::set<std::pair<int, int>> named, used;
  std::map<int, std::string> processes;
  std::vector<std::string> iterations;
  for (const auto& e : trace["traceEvents"]) {
    EXPECT_GE(e["pid"].get<int>(), 1) << e.dump();
    if (e["name"] == "thread_name") named.insert({e["pid"].get<int>(), e["tid"].get<int>()});
    if (e["name"] == "process_name") processes[e["pid"].get<int>()] = e["args"]["name"];
    if (e["ph"] == "X") used.insert({e["pid"].get<int>(), e["tid"].get<int>()});
    if (e["ph"] == "X" && e["cat"] == "iteration") iterations.push_back(e["name"]);
  }
  EXPECT_EQ(named, used);  // no compress lane: this run compresses nothing
  EXPECT_EQ(processes[1], "worker 0");
  EXPECT_EQ(processes[4], "worker 3");
  EXPECT_EQ(processes[5], "job");
  EXPECT_EQ(iterations, (std::vector<std::string>{"iteration 0", "iteration 1", "iteration 2"}));
}

// A layout with context parallelism (TP2 x CP2 x PP2 on a DGX-1): every stream its tasks ran on is a named lane,
// the context stream's key/value exchanges included (a lane table of its own once missed it and aborted the run).
TEST(ChromeTrace, EveryStreamOfALayoutIsANamedLane) {
  const scenario::Scenario s = scenario::load_default_scenario(
      {"platform=dgx1_v100", "workers=8", "model.name=gpt3_125m", "batch_size=4", "gpu.precision=fp16",
       "parallel.tensor=2", "parallel.context=2", "parallel.pipeline=2", "parallel.data=1", "parallel.micro_batch=1",
       "iterations=1", "strategy.fidelity=analytic"});
  const nlohmann::json trace = trace_of(s);
  std::set<std::string> lanes;
  std::set<std::pair<int, int>> named, used;
  for (const auto& e : trace["traceEvents"]) {
    if (e["name"] == "thread_name") {
      lanes.insert(e["args"]["name"].get<std::string>());
      named.insert({e["pid"].get<int>(), e["tid"].get<int>()});
    }
    if (e["ph"] == "X" && e["cat"] != "iteration" && e["cat"] != "comm_latency" && e["cat"] != "comm_transfer")
      used.insert({e["pid"].get<int>(), e["tid"].get<int>()});
  }
  EXPECT_EQ(lanes, (std::set<std::string>{"compute", "tensor", "context", "data", "pipeline", "iterations"}));
  for (const auto& u : used) EXPECT_TRUE(named.count(u)) << "unnamed thread " << u.first << "/" << u.second;
}

TEST(ChromeTrace, MessageLevelHasAnArrowPerMessageOfTheFirstIteration) {
  const auto s = testing::five_layers(4, "wfbp", scenario::Fidelity::message);
  const nlohmann::json trace = trace_of(s);
  std::map<std::int64_t, int> ends;
  int starts = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "s") ++starts;
    if (e["ph"] == "s" || e["ph"] == "f") ++ends[e["id"].get<std::int64_t>()];
  }
  // 4 tensors x 2(p - 1) ring steps x 4 ranks, each with its start and finish.
  EXPECT_EQ(starts, 4 * 6 * 4);
  for (const auto& [id, count] : ends) EXPECT_EQ(count, 2) << id;
}

TEST(ChromeTrace, MessageArrowsBindToTheBucketSlicesOfBothWorkers) {
  const auto s = testing::five_layers(4, "wfbp", scenario::Fidelity::message);
  const nlohmann::json trace = trace_of(s);
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> slices;  // (pid, tid) -> [ts, ts + dur]
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "X" && e["cat"] == "comm")
      slices[{e["pid"].get<int>(), e["tid"].get<int>()}].push_back(
          {e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>()});
  int bound = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "s" && e["ph"] != "f") continue;
    EXPECT_EQ(e["bp"], "e");  // binds to the enclosing slice
    const double ts = e["ts"];
    bool inside = false;
    for (const auto& [begin, end] : slices[{e["pid"].get<int>(), e["tid"].get<int>()}])
      inside = inside || (begin <= ts && ts <= end);
    EXPECT_TRUE(inside) << e.dump();
    ++bound;
  }
  EXPECT_EQ(bound, 2 * 4 * 6 * 4);
}

/// Every all-reduce span of a one-tensor ring run on the test star: its latency part (args and the nested
/// "latency" slice) is the closed form's 2(p-1) alpha, the rest 2(p-1)/p n beta, n the span's bytes.
void expect_ring_latency_split(scenario::Fidelity fidelity) {
  constexpr int p = 4;
  auto s = testing::synthetic(p, {1'000'000}, {1e-3}, {2e-3}, "wfbp", fidelity);
  s.collective = "ring";
  const nlohmann::json trace = trace_of(s);
  const collectives::AlphaBeta ab = testing::star_alpha_beta();
  const double latency_s = 2.0 * (p - 1) * ab.alpha_s;
  const nlohmann::json& events = trace["traceEvents"];
  int spans = 0;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const nlohmann::json& e = events[i];
    if (e["ph"] != "X" || e["cat"] != "comm") continue;
    ++spans;
    const double n = e["args"]["bytes"].get<double>();
    const double transfer_s = 2.0 * (p - 1) / p * n * ab.beta_s_per_byte;
    EXPECT_NEAR(e["args"]["latency_s"].get<double>(), latency_s, 1e-9 * latency_s) << e.dump();
    EXPECT_NEAR(e["args"]["transfer_s"].get<double>(), transfer_s, 1e-9 * transfer_s) << e.dump();
    EXPECT_NEAR(e["dur"].get<double>() * 1e-6, latency_s + transfer_s, 1e-9 * (latency_s + transfer_s)) << e.dump();
    // The span's two parts follow it, nested in it on its lane: latency from its start, transfer to its end.
    ASSERT_LT(i + 2, events.size());
    const nlohmann::json& latency = events[i + 1];
    const nlohmann::json& transfer = events[i + 2];
    EXPECT_EQ(latency["cat"], "comm_latency");
    EXPECT_EQ(transfer["cat"], "comm_transfer");
    for (const nlohmann::json* part : {&latency, &transfer}) {
      EXPECT_EQ((*part)["pid"], e["pid"]);
      EXPECT_EQ((*part)["tid"], e["tid"]);
    }
    EXPECT_EQ(latency["ts"].get<double>(), e["ts"].get<double>());
    EXPECT_NEAR(latency["dur"].get<double>() * 1e-6, latency_s, 1e-9 * latency_s);
    EXPECT_EQ(transfer["ts"].get<double>(), latency["ts"].get<double>() + latency["dur"].get<double>());
    EXPECT_DOUBLE_EQ(transfer["ts"].get<double>() + transfer["dur"].get<double>(),
                     e["ts"].get<double>() + e["dur"].get<double>());
  }
  EXPECT_EQ(spans, p * 3);  // a span per worker and iteration
}

TEST(ChromeTrace, AnalyticRingSpansSplitLatencyFromTransferAsTheClosedForm) {
  expect_ring_latency_split(scenario::Fidelity::analytic);
}

TEST(ChromeTrace, FlowRingSpansSplitLatencyFromTransferAsTheClosedForm) {
  expect_ring_latency_split(scenario::Fidelity::flow);
}

TEST(ChromeTrace, MessageRingSpansSplitLatencyFromTransferAsTheClosedForm) {
  expect_ring_latency_split(scenario::Fidelity::message);
}

}  // namespace
}  // namespace dtsim::viz
