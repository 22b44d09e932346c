// What bounds a run, read from its report.json: one answer per cause, each with what-ifs that fit it.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <regex>

#include <fmt/format.h>

#include "sim/run/run_simulation.hpp"
#include "sim/scenario/load.hpp"
#include "tests/sim/platform/structured_nodes.hpp"
#include "tests/sim/run/scenario_fixture.hpp"
#include "viz/diagnosis.hpp"
#include "viz/link_products.hpp"
#include "viz/path_kinds.hpp"
#include "viz/quantity_text.hpp"
#include "viz/reports.hpp"

namespace dtsim::viz {
namespace {

using scenario::Fidelity;

nlohmann::json report_of(const scenario::Scenario& s) { return report_json(run::run_simulation(s), {"report.json"}); }

bool proposes(const Diagnosis& d, const std::string& setting) {
  for (const WhatIf& w : d.what_ifs)
    if (w.command.find("--set " + setting) != std::string::npos) return true;
  return false;
}

/// A layout on four GPUs of 10 GbE hosts (star_16_10gbe): GPT-3 125M, batch 2, fp16, analytic, with `overrides`.
scenario::Scenario layout(std::vector<std::string> overrides) {
  for (const char* o : {"platform=star_16_10gbe", "workers=4", "model.name=gpt3_125m", "batch_size=2",
                        "gpu.precision=fp16", "iterations=1", "strategy.fidelity=analytic"})
    overrides.insert(overrides.begin(), o);
  return scenario::load_default_scenario(overrides);
}

/// The critical path of `r` summed by category straight from its tasks: a task holds the path from the end of the
/// task before it (its own start for the first) to its end; the path is as long as they add up to.
struct PathSums {
  std::map<std::string, double> by_category;
  double length_s = 0;
  double of(const std::string& category) const {
    const auto it = by_category.find(category);
    return it == by_category.end() ? 0.0 : it->second;
  }
};
PathSums path_sums(const run::RunResult& r) {
  PathSums p;
  double previous_end = r.critical_path.front().start_s;
  for (const run::TraceEvent& e : r.critical_path) {
    p.by_category[e.category] += e.end_s - previous_end;
    previous_end = e.end_s;
  }
  p.length_s = previous_end - r.critical_path.front().start_s;
  return p;
}

std::string path_share(double seconds, double length_s) {
  return fmt::format("{} ({})", duration_text(seconds), percent_text(seconds / length_s));
}

/// Five layers on a star of 4 whose links move `bandwidth_Bps`.
scenario::Scenario five_layers_at(double bandwidth_Bps) {
  auto s = testing::five_layers(4, "wfbp", Fidelity::analytic);
  s.platform = testing::star(4, bandwidth_Bps, 5e-6);
  return s;
}

TEST(Diagnosis, SlowLinksBoundTheRunByBandwidthAndTheNextLinkProductComesFirst) {
  const Diagnosis d = diagnose(report_of(five_layers_at(1.25e9)));
  EXPECT_EQ(d.bound, "communication");
  EXPECT_EQ(d.answer.rfind("Bounded by gradient exchanges: ", 0), 0u) << d.answer;
  ASSERT_FALSE(d.what_ifs.empty());
  // 10 Gb/s links: the next Ethernet generation is 25 Gb/s.
  EXPECT_NE(d.what_ifs[0].command.find("--set platform.link.bandwidth=25Gbps"), std::string::npos) << d.what_ifs[0].command;
  EXPECT_TRUE(proposes(d, "compression.compressor=fp16"));
  // 100 MB/s is no product's rate: no faster link is invented.
  EXPECT_FALSE(proposes(diagnose(report_of(five_layers_at(1e8))), "platform.link.bandwidth="));
}

TEST(Diagnosis, ASlowPcieLinkOfAStructuredNodeProposesTheNodesPcieKey) {
  // 800 MB of gradients over PCIe 3.0 x16: the next generation, PCIe 4.0 x16, is 31.5 GB/s (252 Gb/s).
  auto s = testing::synthetic(4, {200'000'000}, {1e-3}, {2e-3}, "wfbp", Fidelity::analytic);
  s.platform = platform::testing::structured(platform::NodeFabric::pcie, 1, 4, 2, 1);
  s.platform.node.pcie.bandwidth_Bps = 15.75e9;
  const Diagnosis d = diagnose(report_of(s));
  EXPECT_EQ(d.bound, "communication");
  EXPECT_TRUE(proposes(d, "platform.node.pcie.bandwidth=252Gbps")) << d.what_ifs[0].command;
}

TEST(Diagnosis, AFreeNetworkLeavesCompute) {
  const run::RunResult r = run::run_simulation(five_layers_at(1e30));
  const Diagnosis d = diagnose(report_json(r, {"report.json"}));
  EXPECT_EQ(d.bound, "compute");
  // The fractions it quotes are the critical path's.
  const PathSums p = path_sums(r);
  const double compute_s = p.of("forward") + p.of("backward") + p.of("update");
  EXPECT_EQ(d.answer, fmt::format("Bounded by compute: computation is {} of the critical path of the last iteration; "
                                  "communication {}.",
                                  path_share(compute_s, p.length_s), path_share(p.length_s - compute_s, p.length_s)));
  EXPECT_FALSE(proposes(d, "strategy.scheduler"));
  EXPECT_TRUE(proposes(d, "platform=a100_8x8_200gbib --set gpu.profile=a100"));
}

/// The what-if of `d` that makes exactly the change `setting` (none: nullptr).
const WhatIf* what_if(const Diagnosis& d, const std::string& setting) {
  for (const WhatIf& w : d.what_ifs)
    if (w.settings == std::vector<std::string>{setting}) return &w;
  return nullptr;
}

TEST(Diagnosis, HalfPrecisionIsProposedForItsFasterLayersNotForGradientBytes) {
  const Diagnosis d = diagnose(report_of(five_layers_at(1e30)));
  const WhatIf* w = what_if(d, "gpu.precision=fp16");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->why, "half-precision tensor cores: faster layers");
  // And rightly: under PyTorch DDP with AMP the gradients stay fp32, the same bytes on the wire.
  const run::RunResult fp32 = run::run_simulation(scenario::load_default_scenario({"strategy.fidelity=analytic"}));
  const run::RunResult fp16 =
      run::run_simulation(scenario::load_default_scenario({"strategy.fidelity=analytic", "gpu.precision=fp16"}));
  for (std::size_t k = 0; k < fp32.traffic.size(); ++k) EXPECT_EQ(fp16.traffic[k].bytes_sent, fp32.traffic[k].bytes_sent);
}

TEST(Diagnosis, Bf16GradientsAreProposedAndTheirRunHalvesTheBytesOnTheWire) {
  // The built-in default (ResNet-50 on 16 V100s over 10 GbE) waits for its all-reduces.
  const run::RunResult fp32 = run::run_simulation(scenario::load_default_scenario({"strategy.fidelity=analytic"}));
  const Diagnosis d = diagnose(report_json(fp32, {"report.json"}));
  ASSERT_EQ(d.bound, "communication");
  const WhatIf* w = what_if(d, "strategy.gradient_dtype=bf16");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->why, "gradients kept and exchanged in bf16: half the bytes of every gradient exchange");
  EXPECT_EQ(w->command, "dtsim run --set strategy.fidelity=analytic --set strategy.gradient_dtype=bf16");
  // What it says is what the simulation does: every worker sends and receives half the bytes, and waits less.
  const run::RunResult bf16 =
      run::run_simulation(scenario::load_default_scenario({"strategy.fidelity=analytic", w->settings[0]}));
  for (std::size_t k = 0; k < fp32.traffic.size(); ++k) {
    EXPECT_EQ(fp32.traffic[k].bytes_sent, 2 * bf16.traffic[k].bytes_sent);
    EXPECT_EQ(fp32.traffic[k].bytes_received, 2 * bf16.traffic[k].bytes_received);
  }
  EXPECT_LT(bf16.mean_iteration_s, fp32.mean_iteration_s);
  // Not proposed where it is refused: with a compressor, which takes fp32 gradients.
  EXPECT_EQ(what_if(diagnose(report_of(scenario::load_default_scenario(
                        {"strategy.fidelity=analytic", "compression.compressor=fp16", "compression.kernel_time=20GBps"}))),
                    "strategy.gradient_dtype=bf16"),
            nullptr);
}

TEST(Diagnosis, OneSlowWorkerIsAStraggler) {
  auto s = five_layers_at(1e30);
  s.stragglers.slow_workers = {2};
  s.stragglers.slow_factor = 1.5;
  const Diagnosis d = diagnose(report_of(s));
  EXPECT_EQ(d.bound, "stragglers");
  EXPECT_NE(d.answer.find("worker 2 computes"), std::string::npos) << d.answer;
  EXPECT_TRUE(proposes(d, "strategy.sync=local_sgd"));
  EXPECT_TRUE(proposes(d, "strategy.architecture=ps --set strategy.backup_workers=1"));
}

TEST(Diagnosis, ManyParametersAndFastLayersAreMemoryBound) {
  // 50 M parameters: the optimizer step streams 1 GB, far longer than 0.3 ms of measured forward and backward.
  auto s = testing::synthetic(4, {50'000'000}, {1e-4}, {2e-4}, "wfbp", Fidelity::analytic);
  s.platform = testing::star(4, 1e30, 0);
  const Diagnosis d = diagnose(report_of(s));
  EXPECT_EQ(d.bound, "memory");
  EXPECT_NE(d.answer.find("Bounded by memory bandwidth"), std::string::npos) << d.answer;
}

TEST(Diagnosis, ZeroThreeBoundByItsParameterGathersSaysSo) {
  // 125 M fp16 parameters gathered before each layer's forward and backward over 10 GbE: 2 x 3/4 x 250 MB at
  // 1.25 GB/s, about 0.3 s, against about 30 ms of compute. The exposed-communication rule called this compute-bound.
  const run::RunResult r = run::run_simulation(layout({"parallel.sharding=zero3"}));
  const Diagnosis d = diagnose(report_json(r, {"report.json"}));
  const PathSums p = path_sums(r);
  const double compute_s = p.of("forward") + p.of("backward") + p.of("recompute") + p.of("update");
  ASSERT_GT(p.of("gather"), 0.5 * p.length_s);
  EXPECT_EQ(d.bound, "communication");
  EXPECT_EQ(d.answer, fmt::format("Bounded by parameter all-gathers (ZeRO / FSDP sharding): {} of the critical path of "
                                  "the last iteration; communication {} in all, computation {}.",
                                  path_share(p.of("gather"), p.length_s),
                                  path_share(p.length_s - compute_s, p.length_s),
                                  path_share(compute_s, p.length_s)))
      << d.answer;
  EXPECT_TRUE(proposes(d, "platform.link.bandwidth="));
}

TEST(Diagnosis, TensorParallelismBoundByItsAllReducesSaysSo) {
  // Tensor 4 over 10 GbE hosts: two all-reduces of each layer's 2 x 2048 x 768 fp16 activations forward and two
  // backward, 12 layers: about 0.35 s against about 30 ms of compute.
  const run::RunResult r = run::run_simulation(layout({"parallel.tensor=4"}));
  const Diagnosis d = diagnose(report_json(r, {"report.json"}));
  const PathSums p = path_sums(r);
  ASSERT_GT(p.of("tp"), 0.5 * p.length_s);
  EXPECT_EQ(d.bound, "communication");
  EXPECT_EQ(d.answer.rfind("Bounded by tensor-parallel collectives: " + path_share(p.of("tp"), p.length_s) +
                               " of the critical path of the last iteration;",
                           0),
            0u)
      << d.answer;
  EXPECT_TRUE(proposes(d, "parallel.sequence_parallel=true"));
}

TEST(Diagnosis, ZeroThreeWithItsGathersHiddenIsComputeBound) {
  // The same ZeRO-3 run with a free network: the gathers take no time and compute holds the path.
  auto s = layout({"parallel.sharding=zero3"});
  s.platform = testing::star(4, 1e30, 0);
  const run::RunResult r = run::run_simulation(s);
  const Diagnosis d = diagnose(report_json(r, {"report.json"}));
  EXPECT_EQ(d.bound, "compute");
  EXPECT_LT(path_sums(r).of("gather"), 0.2 * path_sums(r).length_s);
}

TEST(PathKinds, AGapCountsWithTheTaskAfterIt) {
  // forward [0, 1], a gradient exchange launched 0.5 s after it [1.5, 3], the update [3, 3.5].
  const nlohmann::json path = nlohmann::json::parse(R"([
      {"name": "F", "category": "forward", "start_s": 0.0, "end_s": 1.0},
      {"name": "bucket 0", "category": "comm", "start_s": 1.5, "end_s": 3.0},
      {"name": "update", "category": "update", "start_s": 3.0, "end_s": 3.5}])");
  const PathKinds k = path_kinds(path);
  EXPECT_EQ(k.length_s, 3.5);
  EXPECT_EQ(k.seconds("forward"), 1.0);
  EXPECT_EQ(k.seconds("comm"), 2.0);
  EXPECT_EQ(k.seconds("update"), 0.5);
  EXPECT_EQ(k.seconds("tp"), 0.0);
  EXPECT_EQ(k.compute_s(), 1.5);
  EXPECT_EQ(k.communication_s(), 2.0);
}

TEST(Diagnosis, NoCompletedIterationHasNothingToExplain) {
  nlohmann::json report = report_of(five_layers_at(1e30));
  report["iterations"] = nlohmann::json::array();
  const Diagnosis d = diagnose(report);
  EXPECT_EQ(d.bound, "none");
  EXPECT_TRUE(d.what_ifs.empty());
}

}  // namespace
}  // namespace dtsim::viz

namespace dtsim::viz {
namespace {

/// Every percentage the answer and the evidence quote is a share: within [0, 100 %]; every account's parts are at
/// least 0 and add up to its whole.
void expect_possible_numbers(const Diagnosis& d) {
  std::string text = d.answer;
  for (const std::string& e : d.evidence) text += "\n" + e;
  const std::regex percent(R"((-?[0-9][0-9.]*) %)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), percent); it != std::sregex_iterator(); ++it) {
    const double p = std::stod((*it)[1]);
    EXPECT_GE(p, 0) << it->str() << " in:\n" << text;
    EXPECT_LE(p, 100) << it->str() << " in:\n" << text;
  }
  for (const Account& a : d.accounts) {
    double sum = 0;
    for (const auto& [part, seconds] : a.parts_s) {
      EXPECT_GE(seconds, 0) << part << " of the " << a.whole;
      EXPECT_LE(seconds, a.whole_s * (1 + 1e-12)) << part << " of the " << a.whole;
      sum += seconds;
    }
    EXPECT_NEAR(sum, a.whole_s, 1e-9 * a.whole_s) << a.whole;
  }
}

scenario::Scenario shipped(const std::string& file, std::vector<std::string> overrides = {}) {
  return scenario::load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/" + file, overrides);
}

// Issue 27, item 3: the MG-WFBP teaching run at 16 GPUs said "busy 153 ms of the 137 ms spent communicating; the
// other -16.8 ms (-8.26 % of the iteration) is start-up latency": the link's busy time against the exchanges' time
// on the critical path (2 of its 3 buckets), while the first bucket overlaps backward. Worker 0's exchanges in
// flight (156 ms) hold the link's busy time.
TEST(Diagnosis, MgWfbpTeachingRunSplitsTheExchangesTimeIntoBusyAndLatency) {
  const Diagnosis d = diagnose(report_of(shipped("teaching/resnet50_10gbe.toml", {"workers=16"})));
  const auto sentence = std::find_if(d.evidence.begin(), d.evidence.end(),
                                     [](const std::string& e) { return e.starts_with("It is busy "); });
  ASSERT_NE(sentence, d.evidence.end());
  const auto account = std::find_if(d.accounts.begin(), d.accounts.end(),
                                    [](const Account& a) { return a.whole.starts_with("exchanges in flight"); });
  ASSERT_NE(account, d.accounts.end());
  ASSERT_EQ(account->parts_s.size(), 2u);
  EXPECT_GT(account->parts_s[1].second, 0) << *sentence;  // latency: 2(p-1) start-ups of 30 us for each bucket
  EXPECT_NE(sentence->find(duration_text(account->parts_s[0].second) + " of the " + duration_text(account->whole_s)),
            std::string::npos)
      << *sentence;
  expect_possible_numbers(d);
}

// Issue 27, item 4: Llama 2 70B on 1,024 H100 (TP 8, PP 4, DP 32) was "Bounded by tensor-parallel collectives: 943 ms
// (20 %)" while computation held 75 % of the critical path: computation bounds it, the collectives are named, and
// the what-if for them is a product (NVLink 5), not a 4x NVLink.
TEST(Diagnosis, ComputationThatHoldsMostOfThePathBoundsALayoutRun) {
  const nlohmann::json report = report_of(shipped("llama2_70b_1024_h100.toml"));
  const Diagnosis d = diagnose(report);
  const PathKinds path = path_kinds(report["critical_path"]);
  ASSERT_GT(path.compute_s(), 0.5 * path.length_s);
  ASSERT_GT(path.seconds("tp"), 0.1 * path.length_s);
  EXPECT_EQ(d.bound, "compute");
  EXPECT_EQ(d.answer.rfind("Bounded by compute: computation is " + path_share(path.compute_s(), path.length_s), 0), 0u)
      << d.answer;
  EXPECT_NE(d.answer.find("the most of it tensor-parallel collectives " + path_share(path.seconds("tp"), path.length_s)),
            std::string::npos)
      << d.answer;
  EXPECT_TRUE(proposes(d, "platform.node.nvlink.bandwidth=7200Gbps"));  // NVLink 5: 900 GB/s per direction
  for (const WhatIf& w : d.what_ifs) EXPECT_EQ(w.command.find("14400Gbps"), std::string::npos) << w.command;
  expect_possible_numbers(d);
}

/// Shipped scenarios and hand-made runs at a level each: every run is its own test, so each flow run has its
/// own SimGrid engine.
struct Case {
  std::string name;
  std::function<scenario::Scenario()> make;
};

void PrintTo(const Case& c, std::ostream* out) { *out << c.name; }

class PossibleNumbers : public ::testing::TestWithParam<Case> {};

TEST_P(PossibleNumbers, SharesWithinAWholeAndPartsThatAddUpToIt) {
  expect_possible_numbers(diagnose(report_of(GetParam().make())));
}

const Case kCases[] = {
    {"FiveLayersSlowLinksAnalytic", [] { return five_layers_at(1e8); }},
    {"FiveLayersSlowLinksFlow", [] { auto s = five_layers_at(1e8); s.fidelity = Fidelity::flow; return s; }},
    {"FiveLayersFreeNetwork", [] { return five_layers_at(1e30); }},
    {"Straggler", [] { auto s = five_layers_at(1e30); s.stragglers.slow_workers = {2}; s.stragglers.slow_factor = 1.5; return s; }},
    {"ZeroThree", [] { return layout({"parallel.sharding=zero3"}); }},
    {"TensorFour", [] { return layout({"parallel.tensor=4"}); }},
    {"DefaultAnalytic", [] { return shipped("default.toml", {"strategy.fidelity=analytic", "iterations=2"}); }},
    {"DefaultFlow", [] { return shipped("default.toml", {"iterations=2"}); }},
    {"MgWfbpTeachingAnalytic", [] { return shipped("teaching/resnet50_10gbe.toml", {"workers=16"}); }},
    {"WfbpTeachingFlow", [] { return shipped("teaching/resnet50_10gbe.toml", {"strategy.scheduler=wfbp", "workers=16", "strategy.fidelity=flow"}); }},
    {"BertInfiniBand", [] { return shipped("teaching/bert_base_100gbib.toml"); }},
    {"LocalSgd", [] { return shipped("default.toml", {"strategy.sync=local_sgd", "strategy.fidelity=analytic", "iterations=4"}); }},
    {"Llama7bTensorParallel", [] { return shipped("llama2_7b_tp8_vs_fsdp.toml"); }},
};

INSTANTIATE_TEST_SUITE_P(Runs, PossibleNumbers, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

TEST(LinkProducts, TheNextGenerationOfEachKindIsAProduct) {
  const auto gbps = [](double g) { return g * 1e9 / 8; };
  EXPECT_EQ(next_link_product("platform.inter_link", gbps(10))->bandwidth_Bps, gbps(25));
  EXPECT_EQ(next_link_product("platform.inter_link", gbps(100))->bandwidth_Bps, gbps(200));
  EXPECT_EQ(next_link_product("platform.inter_link", gbps(400))->bandwidth_Bps, gbps(800));
  EXPECT_FALSE(next_link_product("platform.inter_link", gbps(800)));  // the newest
  // A node's eight HDR rails modelled as one 1.6 Tb/s NIC: eight NDR rails.
  const auto rails = next_link_product("platform.inter_link", gbps(1600));
  ASSERT_TRUE(rails);
  EXPECT_EQ(rails->bandwidth_Bps, gbps(3200));
  EXPECT_EQ(rails->name.rfind("8 x 400 Gb/s", 0), 0u) << rails->name;
  EXPECT_EQ(next_link_product("platform.node.nvlink", 300e9)->bandwidth_Bps, 450e9);  // NVLink 3 -> 4
  EXPECT_EQ(next_link_product("platform.node.nvlink", 450e9)->bandwidth_Bps, 900e9);  // NVLink 4 -> 5
  EXPECT_EQ(next_link_product("platform.node.pcie", 31.5e9)->bandwidth_Bps, 63e9);
  EXPECT_FALSE(next_link_product("platform.node.nvlink", 25e9));   // one link of a hybrid cube mesh: no product
  EXPECT_FALSE(next_link_product("platform.intra_link", 85.8e9));  // a calibrated bus bandwidth
  EXPECT_FALSE(next_link_product("platform.link", gbps(0.8)));
}

}  // namespace
}  // namespace dtsim::viz
