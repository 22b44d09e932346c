// Synchronisation schemes on a layout's data dimension against closed forms at the analytic level: an iteration
// that does not exchange is its computation alone, a model average is one ring all-reduce of the stage's
// parameters after the step, Overlap Local-SGD's average hides behind the next period; and every registered
// scheme either runs with the exchanges its rules say, the same at the message level, or is refused with its
// reason (the flow level: layout_features_test).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "models/gpu_profile.hpp"
#include "models/optimizer.hpp"
#include "sim/core/error.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/scenario/load.hpp"
#include "sim/scenario/parallel_section.hpp"
#include "sim/sync/scheme.hpp"
#include "tests/sim/run/run_in_child.hpp"

namespace dtsim::run {
namespace {

// GPT-2 small over 4 data-parallel V100s of a 10 GbE star (a private link per host), 2 micro-batches of 4 a
// replica, the ring all-reduce and a launch cost of 10 us: nothing shares a link, every time has a closed form.
const std::vector<std::string> kDataParallel{
    "platform=star_16_10gbe", "workers=4",  "model.name=gpt2_small",     "batch_size=8", "parallel.micro_batch=4",
    "iterations=6", "strategy.collective=ring", "gpu.collective_launch=10us", "strategy.fidelity=analytic"};

scenario::Scenario with(const std::vector<std::string>& extra, std::vector<std::string> base = kDataParallel) {
  base.insert(base.end(), extra.begin(), extra.end());
  return scenario::load_default_scenario(base);
}

void expect_time(double simulated, double expected) { EXPECT_NEAR(simulated, expected, 1e-12 * std::abs(expected)); }

double duration(const RunResult& r, int it) {
  return r.iterations[static_cast<std::size_t>(it)].end_s - r.iterations[static_cast<std::size_t>(it)].start_s;
}

/// One replica's iteration with nothing exchanged: every layer's forward and backward for each micro-batch, then
/// the optimizer step.
double computation_s(const scenario::Scenario& s) {
  const parallel::Layout l = scenario::layout_of(s);
  double pass_s = 0, update_s = 0;
  for (const models::LayerTime& t : models::layer_times(s.model, s.gpu, l.micro_batch, s.precision, std::nullopt,
                                                        models::optimizer(s.memory.optimizer), l.tensor)) {
    pass_s += t.forward_s + t.backward_s;
    update_s += t.update_s;
  }
  return scenario::micro_batches(s) * pass_s + update_s;
}

/// A ring all-reduce of `bytes` over `p` hosts of the star: 2 (p - 1) steps of a chunk over two 15 us, 10 Gb/s
/// links, after the launch.
double ring_s(double bytes, int p) {
  constexpr double kHop_s = 2 * 15e-6, kLink_Bps = 10e9 / 8, kLaunch_s = 10e-6;
  return kLaunch_s + 2 * (p - 1) * (kHop_s + bytes / p / kLink_Bps);
}

TEST(LayoutSync, LocalSgdComputesAloneAndAveragesTheParametersAfterTheStep) {
  // Period 3: iterations 0, 1, 3, 4 are the computation alone; 2 and 5 add one all-reduce of the fp32 parameters
  // (4 bytes each), after the step, with nothing beside it. Averaging the momentum buffers too doubles the bytes.
  const scenario::Scenario s = with({"strategy.sync=local_sgd", "strategy.local_sgd.period=3"});
  const RunResult r = run_simulation(s);
  const double compute_s = computation_s(s), bytes = 4.0 * static_cast<double>(s.model.parameter_count());
  ASSERT_EQ(r.iterations.size(), 6u);
  for (int it : {0, 1, 3, 4}) expect_time(duration(r, it), compute_s);
  for (int it : {2, 5}) expect_time(duration(r, it), compute_s + ring_s(bytes, 4));
  EXPECT_EQ(r.info.sync, "local_sgd (period 3)");
  const RunResult momentum =
      run_simulation(with({"strategy.sync=local_sgd", "strategy.local_sgd.period=3", "strategy.local_sgd.average_momentum=true"}));
  expect_time(duration(momentum, 0), compute_s);
  expect_time(duration(momentum, 2), compute_s + ring_s(2 * bytes, 4));
  // Every worker moves 2 (p - 1) / p of an average's bytes each way, twice in the run.
  EXPECT_EQ(r.traffic[0].bytes_sent, static_cast<std::int64_t>(2 * 2 * 3 * bytes / 4));
}

TEST(LayoutSync, OverlapLocalSgdHidesTheAverageBehindTheNextPeriod) {
  // Without the overlap slowdown, iteration 2's average (0.6 s) runs beside iterations 3 and 4 (1.1 s each) and is
  // done before iteration 5's step waits for it; iteration 5's own average is still in flight when the run ends,
  // and ends it. So every iteration is the computation alone but the last, which adds one average: local SGD's
  // time less one average.
  const scenario::Scenario s = with({"strategy.sync=overlap_local_sgd", "strategy.overlap_local_sgd.period=3",
                                     "gpu.overlap_slowdown=1"});
  const RunResult r = run_simulation(s);
  const double compute_s = computation_s(s), average_s = ring_s(4.0 * static_cast<double>(s.model.parameter_count()), 4);
  ASSERT_LT(average_s, 2 * compute_s);
  for (int it = 0; it < 5; ++it) expect_time(duration(r, it), compute_s);
  expect_time(duration(r, 5), compute_s + average_s);
  EXPECT_EQ(r.info.sync, "overlap_local_sgd (period 3, alpha 0.2)");
}

TEST(LayoutSync, PostLocalSgdReducesGradientsUntilTheSwitch) {
  // Its first 3 iterations are bsp's, gradients reduced during backward; then local SGD with period 3.
  const scenario::Scenario s = with({"strategy.sync=post_local_sgd", "strategy.post_local_sgd.switch_after=3",
                                     "strategy.post_local_sgd.period=3"});
  const RunResult post = run_simulation(s), bsp = run_simulation(with({"strategy.sync=bsp"}));
  const double compute_s = computation_s(s);
  for (int it = 0; it < 3; ++it) expect_time(duration(post, it), duration(bsp, it));
  EXPECT_GT(duration(bsp, 0), compute_s);
  for (int it : {3, 4}) expect_time(duration(post, it), compute_s);
  expect_time(duration(post, 5), compute_s + ring_s(4.0 * static_cast<double>(s.model.parameter_count()), 4));
}

TEST(LayoutSync, ALocalIterationOfPipelineTimesDataIsOneReplicasAlone) {
  // Pipeline 2 x data 2 of GPT-3 125M, local SGD with period 2: iteration 0 reduces nothing across replicas, so it
  // takes exactly what pipeline 2 alone (data 1, no data-parallel collective) takes; iteration 1 adds each
  // stage's average.
  const std::vector<std::string> base{"platform=star_16_10gbe", "model.name=gpt3_125m", "batch_size=4",
                                      "parallel.pipeline=2",    "parallel.micro_batch=1", "iterations=2",
                                      "strategy.fidelity=analytic"};
  const RunResult local = run_simulation(with({"workers=4", "strategy.sync=local_sgd", "strategy.local_sgd.period=2"}, base));
  const RunResult alone = run_simulation(with({"workers=2"}, base));
  expect_time(duration(local, 0), duration(alone, 0));
  EXPECT_GT(duration(local, 1), duration(alone, 1) + 1e-3);
}

TEST(LayoutSync, HybridShardingAveragesEachShardAcrossNodes) {
  // GPT-2 small on 2 nodes of 4 V100s (v100_4x4_10gbe), hybrid sharding: each node's 4 ranks shard one replica and
  // reduce-scatter its gradients every step; local SGD averages a quarter of the parameters across the 2 nodes
  // every 2nd iteration. Iteration 0 has no all-reduce, iteration 1 one, of a shard's bytes.
  std::vector<std::string> base = kDataParallel;
  base.erase(std::find(base.begin(), base.end(), "iterations=6"));
  const scenario::Scenario s = with({"platform=v100_4x4_10gbe", "workers=8", "parallel.sharding=hybrid",
                                     "strategy.sync=local_sgd", "strategy.local_sgd.period=2", "iterations=2"}, base);
  const RunResult r = run_simulation(s);
  int averages = 0, replica_reductions = 0;
  std::int64_t average_bytes = 0;
  for (const TraceEvent& e : r.events) {
    if (e.worker != 0) continue;
    if (e.name.starts_with("average parameters")) {
      ++averages;
      average_bytes = e.bytes;
      EXPECT_GE(e.start_s, r.iterations[1].start_s);
    }
    if (e.name.ends_with("dp replicas")) ++replica_reductions;
  }
  EXPECT_EQ(averages, 1);
  EXPECT_EQ(replica_reductions, 0);
  EXPECT_EQ(average_bytes, static_cast<std::int64_t>(s.model.parameter_count()));  // 4 bytes over 4 shards
}

/// The options each scheme needs with periods of 2 (local SGD with its momentum buffers averaged too).
std::vector<std::string> scheme_options(const std::string& scheme) {
  static const std::map<std::string, std::vector<std::string>> options{
      {"local_sgd", {"strategy.local_sgd.period=2", "strategy.local_sgd.average_momentum=true"}},
      {"post_local_sgd", {"strategy.post_local_sgd.switch_after=2", "strategy.post_local_sgd.period=2"}},
      {"overlap_local_sgd", {"strategy.overlap_local_sgd.period=2"}},
      {"adacomm", {"strategy.adacomm.period=2", "strategy.adacomm.interval=2"}},
      {"fedavg", {"strategy.fedavg.shard=4"}},
  };
  std::vector<std::string> o{"strategy.sync=" + scheme};
  if (const auto it = options.find(scheme); it != options.end()) o.insert(o.end(), it->second.begin(), it->second.end());
  return o;
}

class EveryScheme : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryScheme, ExchangesAsItsRulesSayOrIsRefusedWithItsReason) {
  // Stage 0 of tensor 2 x pipeline 2 x data 2 on a DGX-1: bsp reduces each of its units' gradients every
  // iteration; a scheme reduces them in its gradient iterations, averages the stage's parameters once in its
  // model iterations, and exchanges nothing in the others. No two groups share a link there, so the message
  // level times every iteration as the analytic level does.
  const std::vector<std::string> base{"platform=dgx1_v100",  "workers=8",           "model.name=gpt3_125m",
                                      "batch_size=2",        "gpu.precision=fp16",  "parallel.tensor=2",
                                      "parallel.pipeline=2", "parallel.micro_batch=1", "iterations=4",
                                      "strategy.fidelity=analytic"};
  const std::string scheme = GetParam();
  std::optional<RunResult> r;
  std::optional<scenario::Scenario> s;
  std::string refusal;
  try {
    s = with(scheme_options(scheme), base);
    r = run_simulation(*s);
  } catch (const core::InputError& e) {
    refusal = e.what();
  }
  static const std::map<std::string, std::string> kRefused{
      {"ssp", "all-reduce"}, {"asp", "all-reduce"}, {"r2sp", "parameter server"},
      {"adacomm", "training loss"}, {"fedavg", "not a client"}};
  if (const auto it = kRefused.find(scheme); it != kRefused.end()) {
    EXPECT_NE(refusal.find(it->second), std::string::npos) << refusal;
    return;
  }
  ASSERT_TRUE(r) << refusal;
  EXPECT_EQ(r->info.sync, sync::describe(s->sync));
  auto count = [](const RunResult& run, bool averages) {
    int n = 0;
    for (const TraceEvent& e : run.events)
      if (e.worker == 0 && e.category == "dp" && e.name.starts_with("average") == averages) ++n;
    return n;
  };
  const RunResult bsp = run_simulation(with({"strategy.sync=bsp"}, base));
  const int per_iteration = count(bsp, false) / 4;
  ASSERT_GT(per_iteration, 0);
  int gradient_iterations = 0, model_iterations = 0;
  for (int it = 0; it < 4; ++it)
    if (s->sync.exchanges(it)) ++(s->sync.rules().averages_models(s->sync, it) ? model_iterations : gradient_iterations);
  EXPECT_EQ(count(*r, false), gradient_iterations * per_iteration);
  EXPECT_EQ(count(*r, true), model_iterations);
  EXPECT_EQ(model_iterations > 0, scheme != "bsp");
  // The flow level: layout_features_test's matrix.
  std::vector<std::string> message = scheme_options(scheme);
  message.push_back("strategy.fidelity=message");
  const RunResult other = testing::run_in_child(with(message, base));
  ASSERT_EQ(other.iterations.size(), r->iterations.size());
  for (std::size_t it = 0; it < r->iterations.size(); ++it)
    EXPECT_NEAR(other.iterations[it].end_s, r->iterations[it].end_s, 1e-9 * r->iterations[it].end_s);
}

std::vector<std::string> scheme_names() {
  std::vector<std::string> names;
  for (const sync::SchemeEntry& e : sync::scheme_registry()) names.emplace_back(e.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Layout, EveryScheme, ::testing::ValuesIn(scheme_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(LayoutSync, ModelAveragingIsRefusedWhereAReplicaCannotStepAlone) {
  for (const char* sharding : {"zero1", "zero2", "zero3"}) {
    try {
      with({"strategy.sync=local_sgd", "strategy.local_sgd.period=3", std::string("parallel.sharding=") + sharding});
      ADD_FAILURE() << sharding << " not refused";
    } catch (const core::InputError& e) {
      EXPECT_NE(std::string(e.what()).find("optimizer state"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace dtsim::run
