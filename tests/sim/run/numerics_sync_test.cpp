// Numerics mode under each synchronisation scheme and architecture: what equals bsp all-reduce, what each
// knob changes, backup workers, LAG, gossip's consensus distance, and the combinations numerics mode refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "sim/core/error.hpp"
#include "sim/run/numerics_run.hpp"
#include "sim/run/numerics_sync.hpp"
#include "sim/run/stragglers.hpp"
#include "sim/scenario/load.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/sync/gossip_graph.hpp"
#include "sim/sync/scheme.hpp"

namespace dtsim::run {
namespace {

/// An MLP on 8 workers for 60 steps, with `strategy` (and any other tables) appended.
scenario::Scenario scenario_with(const std::string& strategy) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("numerics_sync_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".toml");
  std::ofstream(path) << "platform = \"star_16_10gbe\"\nworkers = 8\nbatch_size = 16\n"
                         "[numerics]\nmodel = \"mlp\"\nhidden = [16]\ndataset = \"teacher\"\nexamples = 1600\n"
                         "dims = 12\nclasses = 4\nsteps = 60\neval_every = 20\nlearning_rate = 0.1\n"
                      << strategy;
  return scenario::load_scenario(path.string());
}

std::vector<CurvePoint> curve(const scenario::Scenario& s) {
  RunResult result;
  result.mean_iteration_s = 1e-3;
  attach_training(s, train_numerics(s), result);
  return result.curve;
}

bool same(const std::vector<CurvePoint>& a, const std::vector<CurvePoint>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].loss != b[i].loss || a[i].accuracy != b[i].accuracy) return false;
  return true;
}

const std::string kTopK = "[compression]\ncompressor = \"topk\"\nerror_feedback = \"residual\"\n"
                          "[compression.options]\nratio = 0.1\n";

TEST(NumericsSync, ParameterServerWithDensePullTrainsExactlyLikeAllReduce) {
  const auto allreduce = curve(scenario_with(kTopK + "[strategy]\narchitecture = \"allreduce\"\n"));
  const auto ps = curve(scenario_with(kTopK + "[strategy]\narchitecture = \"ps\"\n"));
  const auto byteps = curve(scenario_with(kTopK + "[strategy]\narchitecture = \"byteps\"\n"));
  ASSERT_EQ(allreduce.size(), 4u);
  EXPECT_TRUE(same(allreduce, ps));
  EXPECT_TRUE(same(allreduce, byteps));
  EXPECT_EQ(ps.back().consensus_distance, 0.0);
  const auto compressed =
      curve(scenario_with(kTopK + "[strategy]\narchitecture = \"ps\"\n[strategy.ps]\npull = \"compressed\"\n"));
  EXPECT_FALSE(same(ps, compressed));
}

TEST(NumericsSync, SspWithStalenessZeroIsBspAndStalenessChangesTheCurve) {
  const auto stale = [](int s) {
    return curve(scenario_with(kTopK + "[strategy]\narchitecture = \"ps\"\nsync = \"ssp\"\n[strategy.ssp]\nstaleness = " +
                               std::to_string(s) + "\n"));
  };
  const auto bsp = curve(scenario_with(kTopK + "[strategy]\narchitecture = \"ps\"\n"));
  EXPECT_TRUE(same(bsp, stale(0)));
  EXPECT_FALSE(same(bsp, stale(4)));
}

TEST(NumericsSync, AspOnAParameterServerTrainsAndDiffersFromBsp) {
  const auto bsp = curve(scenario_with("[strategy]\narchitecture = \"ps\"\n"));
  const auto asp = curve(scenario_with("[strategy]\narchitecture = \"ps\"\nsync = \"asp\"\n"));
  EXPECT_FALSE(same(bsp, asp));
  EXPECT_TRUE(same(asp, curve(scenario_with("[strategy]\narchitecture = \"ps\"\nsync = \"asp\"\n"))));
  EXPECT_LT(asp.back().loss, asp.front().loss - 0.2);
}

TEST(NumericsSync, R2spUpdatesAsRoundRobinPushesWhichIsAspOnAServer) {
  // Numerics mode's asp already applies the pushes round robin, one server step each: R2SP's order.
  const auto r2sp = curve(scenario_with("[strategy]\narchitecture = \"ps\"\nsync = \"r2sp\"\n"));
  EXPECT_TRUE(same(r2sp, curve(scenario_with("[strategy]\narchitecture = \"ps\"\nsync = \"asp\"\n"))));
  EXPECT_LT(r2sp.back().loss, r2sp.front().loss - 0.2);
}

TEST(NumericsSync, LocalSgdWithPeriodOneIsBspAndLongerPeriodsDrift) {
  const auto local = [](const std::string& table) {
    return curve(scenario_with("[strategy]\nsync = \"local_sgd\"\n[strategy.local_sgd]\n" + table));
  };
  const auto bsp = curve(scenario_with("[strategy]\nsync = \"bsp\"\n"));
  EXPECT_TRUE(same(bsp, local("period = 1\n")));
  const auto every3 = local("period = 3\n");
  EXPECT_FALSE(same(bsp, every3));
  EXPECT_GT(every3[1].consensus_distance, 0.0);  // step 20: two local steps since the average after step 18
  EXPECT_EQ(every3[3].consensus_distance, 0.0);  // step 60: just averaged
}

TEST(NumericsSync, PostLocalSgdIsBspUntilTheSwitch) {
  const auto post = [](int after) {
    return curve(scenario_with("[strategy]\nsync = \"post_local_sgd\"\n[strategy.post_local_sgd]\nperiod = 4\n"
                               "switch_after = " + std::to_string(after) + "\n"));
  };
  const auto bsp = curve(scenario_with("[strategy]\nsync = \"bsp\"\n"));
  const auto switched = post(20);
  EXPECT_TRUE(same(bsp, post(60)));
  EXPECT_EQ(switched[1].loss, bsp[1].loss);  // step 20: still bsp
  EXPECT_FALSE(same(bsp, switched));
}

/// The curve under sync = `scheme` with `options` in [strategy.<scheme>].
std::vector<CurvePoint> scheme_curve(const std::string& scheme, const std::string& options) {
  return curve(scenario_with("[strategy]\nsync = \"" + scheme + "\"\n[strategy." + scheme + "]\n" + options));
}

TEST(NumericsSync, OverlapLocalSgdTrainsAndDiffersFromLocalSgd) {
  const auto overlap = [](double alpha) {
    return scheme_curve("overlap_local_sgd", "period = 4\nalpha = " + std::to_string(alpha) + "\n");
  };
  const auto local = scheme_curve("local_sgd", "period = 4\n");
  const auto pulled = overlap(0.5);
  EXPECT_FALSE(same(local, pulled));
  EXPECT_LT(pulled.back().loss, pulled.front().loss - 0.2);
  EXPECT_GT(pulled.back().consensus_distance, 0.0);         // step 60 pulls, it does not average
  EXPECT_GT(overlap(0.1).back().consensus_distance, pulled.back().consensus_distance);
}

TEST(NumericsSync, AdaCommPeriodsFollowTheLossAndTheTimeLineTakesThem) {
  scenario::Scenario s = scenario_with("[strategy]\nsync = \"adacomm\"\n[strategy.adacomm]\nperiod = 8\ninterval = 10\n");
  s.iterations = 60;  // the time line covers every training step
  const numerics::TrainingRun run = train_numerics(s);
  std::vector<double> losses;
  for (const numerics::StepReport& step : run.steps) losses.push_back(step.loss);
  const std::vector<bool> decided = sync::decided_exchanges(s.sync, losses);
  ASSERT_EQ(decided.size(), 60u);
  // The rule replayed by hand: a period starts after each exchange; from iteration 10 on, at the first period
  // start of each 10-iteration interval, tau = ceil(sqrt(F / F0) 8).
  int period = 8, next_update = 10, end = 7;
  std::vector<int> periods{8};
  for (int i = 0; i < 60; ++i) {
    if (i > 0 && i == end + 1) {
      if (i >= next_update) {
        period = static_cast<int>(std::ceil(std::sqrt(losses[static_cast<std::size_t>(i)] / losses[0]) * 8));
        next_update = i + 10;
        periods.push_back(period);
      }
      end = i + period - 1;
    }
    EXPECT_EQ(decided[static_cast<std::size_t>(i)], i == end) << i;
  }
  EXPECT_LT(periods.back(), periods.front());  // the loss fell: more frequent averaging
  // Numerics averaged exactly at the decided iterations; the time line exchanged at the same ones.
  for (std::size_t i = 0; i < 60; ++i) EXPECT_EQ(run.steps[i].tensors.empty(), !decided[i]) << i;
  const RunResult timed = run_simulation(s);
  for (std::size_t i = 0; i < 60; ++i)
    EXPECT_EQ(timed.iterations[i].per_worker[0].exposed_comm_s > 0, static_cast<bool>(decided[i])) << i;
}

TEST(NumericsSync, BackupWorkersDropTheSlowestAndChangeTheCurve) {
  const std::string backup = "[strategy]\narchitecture = \"ps\"\nbackup_workers = 1\n";
  const scenario::Scenario slow = scenario_with(backup + "[stragglers]\nslow_workers = [5]\nslow_factor = 3.0\n");
  for (std::int64_t it = 0; it < 20; ++it) {
    std::vector<bool> expected(8, true);
    expected[5] = false;
    EXPECT_EQ(kept_workers(slow, slowdown_of(slow.stragglers, slow.workers), 1, it), expected);
  }
  const scenario::Scenario even = scenario_with(backup);
  std::vector<int> dropped(8, 0);
  for (std::int64_t it = 0; it < 200; ++it) {
    const std::vector<bool> kept = kept_workers(even, slowdown_of(even.stragglers, even.workers), 1, it);
    ASSERT_EQ(std::count(kept.begin(), kept.end(), false), 1);
    for (std::size_t w = 0; w < kept.size(); ++w) dropped[w] += kept[w] ? 0 : 1;
  }
  for (const int d : dropped) EXPECT_GT(d, 10);  // ties broken at random: each worker about 25 times
  EXPECT_FALSE(same(curve(scenario_with("[strategy]\narchitecture = \"ps\"\n")), curve(slow)));
}

TEST(NumericsSync, LagSkipsUploadsOnAParameterServerAndATinyThresholdIsBsp) {
  const std::string ps = "[strategy]\narchitecture = \"ps\"\n";
  const auto lag = [&](const std::string& xi) { return ps + "[strategy.lag]\nthreshold = " + xi + "\nwindow = 5\n"; };
  const numerics::SyncConfig c = numerics_sync(scenario_with(lag("0.5")), 1);
  EXPECT_EQ(c.lag_threshold, 0.5);
  EXPECT_EQ(c.lag_window, 5);
  const numerics::TrainingRun lazy = train_numerics(scenario_with(lag("100")));
  std::int64_t skipped = 0;
  for (const numerics::StepReport& step : lazy.steps) {
    ASSERT_EQ(step.uploaded.size(), 8u);
    skipped += std::count(step.uploaded.begin(), step.uploaded.end(), false);
  }
  EXPECT_GT(skipped, 0);
  EXPECT_EQ(std::count(lazy.steps.front().uploaded.begin(), lazy.steps.front().uploaded.end(), false), 0);
  const auto bsp = curve(scenario_with(ps));
  EXPECT_TRUE(same(bsp, curve(scenario_with(lag("1e-12")))));
  EXPECT_FALSE(same(bsp, curve(scenario_with(lag("100")))));
  EXPECT_THROW(scenario_with(kTopK + lag("100")), core::InputError);  // the loader refuses LAG with compression
}

TEST(NumericsSync, CompressedGossipIsChocoSgdWithTheScenariosConsensusStep) {
  const std::string topk = "[compression]\ncompressor = \"topk\"\n[compression.options]\nratio = 0.1\n";
  const auto choco = [&](double gamma) {
    return curve(scenario_with(topk + "[strategy]\narchitecture = \"gossip\"\n[strategy.gossip]\nconsensus_step = " +
                               std::to_string(gamma) + "\n"));
  };
  const auto half = choco(0.5), small = choco(0.05);
  EXPECT_LT(half.back().loss, half.front().loss - 0.5);
  EXPECT_GT(half.back().consensus_distance, 0.0);
  EXPECT_GT(small.back().consensus_distance, half.back().consensus_distance);  // a smaller step agrees less
}

TEST(NumericsSync, PowerGossipFromTheScenarioKeepsTheReplicasCloserThanAWeakStep) {
  // exchange = "powergossip" runs PowerGossip with step 1 unless consensus_step says otherwise.
  const auto power = [&](const std::string& step) {
    return curve(scenario_with("[strategy]\narchitecture = \"gossip\"\n[strategy.gossip]\nexchange = \"powergossip\"\n" +
                               step));
  };
  const auto full = power(""), weak = power("consensus_step = 0.05\n");
  EXPECT_LT(full.back().loss, full.front().loss - 0.5);
  EXPECT_GT(full.back().consensus_distance, 0.0);
  EXPECT_GT(weak.back().consensus_distance, full.back().consensus_distance);
}

TEST(NumericsSync, GossipRingRecordsTheConsensusDistance) {
  const scenario::Scenario ring = scenario::load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/gossip_consensus.toml");
  EXPECT_LT(sync::doubly_stochastic_error(sync::metropolis_hastings(sync::make_gossip_graph("ring", 8, 0, 0))), 1e-12);
  const auto dpsgd = curve(ring);
  EXPECT_EQ(dpsgd.front().consensus_distance, 0.0);
  for (std::size_t p = 1; p < dpsgd.size(); ++p) EXPECT_GT(dpsgd[p].consensus_distance, 0.0) << p;
  EXPECT_LT(dpsgd.back().loss, dpsgd.front().loss - 0.5);
  scenario::Scenario exponential = ring;
  exponential.gossip.topology = "exponential";
  const auto denser = curve(exponential);
  EXPECT_LT(denser.back().consensus_distance, dpsgd.back().consensus_distance);
  scenario::Scenario sgp = ring;
  sgp.sync.scheme = "asp";
  const auto push_sum = curve(sgp);
  EXPECT_FALSE(same(dpsgd, push_sum));
  EXPECT_GT(push_sum.back().consensus_distance, 0.0);
  EXPECT_LT(push_sum.back().loss, push_sum.front().loss - 0.5);
}

TEST(NumericsSync, RefusesCompressedModelExchangeAndCompressedAsyncPulls) {
  const auto problem = [](const std::string& strategy) {
    try {
      scenario_with(kTopK + strategy);
    } catch (const core::InputError& e) {
      return e.problem();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(problem("[strategy]\nsync = \"local_sgd\"\n"), "accepted");  // compressed model averaging
  EXPECT_NE(problem("[strategy]\narchitecture = \"gossip\"\n").find("consensus step size"), std::string::npos);
  EXPECT_NE(problem("[strategy]\narchitecture = \"gossip\"\n[strategy.gossip]\nconsensus_step = 0.5\n")
                .find("compensate twice"),
            std::string::npos);
  EXPECT_NE(problem("[strategy]\narchitecture = \"gossip\"\nsync = \"asp\"\n").find("push-sum"), std::string::npos);
  EXPECT_NE(problem("[strategy]\narchitecture = \"ps\"\nsync = \"asp\"\n[strategy.ps]\npull = \"compressed\"\n")
                .find("compressed model differences"),
            std::string::npos);
  EXPECT_EQ(problem("[strategy]\narchitecture = \"ps\"\nsync = \"asp\"\n"), "accepted");
}

}  // namespace
}  // namespace dtsim::run
